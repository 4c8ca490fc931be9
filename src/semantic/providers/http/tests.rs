use super::*;

#[test]
fn error_messages_from_each_api_shape() {
    let openai =
        br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#;
    assert_eq!(error_message(openai, None), "Incorrect API key provided");
    assert_eq!(
        error_message(br#"{"detail":"Rate limited"}"#, None),
        "Rate limited"
    );
    assert_eq!(
        error_message(br#"{"id":"x","message":"bad texts"}"#, None),
        "bad texts"
    );
    assert_eq!(
        error_message(b"  <html>\n oops </html>", None),
        "<html> oops </html>"
    );
    assert_eq!(error_message(b"", Some("Unauthorized")), "Unauthorized");
    let long = "x".repeat(1000);
    assert_eq!(
        error_message(long.as_bytes(), None).chars().count(),
        MESSAGE_CAP + 1
    );
}

#[test]
fn jitter_draws_stay_in_range_and_vary() {
    let draws: Vec<f64> = (0..1000).map(|_| jitter_unit()).collect();
    assert!(draws.iter().all(|x| (-1.0..1.0).contains(x)));
    // A stuck generator would give one value; a fair one covers both halves.
    assert!(draws.iter().any(|&x| x < -0.5) && draws.iter().any(|&x| x > 0.5));
}

#[test]
fn loopback_hosts_go_direct() {
    for h in ["localhost", "LocalHost", "127.0.0.1", "127.8.9.10", "[::1]"] {
        assert!(is_loopback(h), "{h}");
    }
    for h in [
        "api.openai.com",
        "10.0.0.1",
        "[::2]",
        "localhost.example",
        "128.0.0.1",
    ] {
        assert!(!is_loopback(h), "{h}");
    }
}

#[test]
fn keys_and_base_urls_are_checked() {
    let t = |url: &str| Transport::new("Test", url, "k".into());
    assert!(t("https://api.example.com").is_ok());
    assert_eq!(
        t("http://127.0.0.1:9/").unwrap().base_url(),
        "http://127.0.0.1:9"
    );
    for bad in [
        "ftp://x",
        "api.example.com",
        "https://",
        "https://x/?a=1",
        "",
    ] {
        let e = t(bad).unwrap_err().to_string();
        assert!(e.contains("base URL"), "{bad}: {e}");
    }
    let e = Transport::new("Test", "https://x", String::new()).unwrap_err();
    assert_eq!(e.to_string(), "config error: Test API key is empty");
    let e = Transport::new("Test", "https://x", "sk-secret\nX".into()).unwrap_err();
    assert!(e.to_string().contains("byte 9") && !e.to_string().contains("secret"));
}
