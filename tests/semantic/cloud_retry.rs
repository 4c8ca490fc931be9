//! The shared retry policy, end to end against a local mock server: the
//! schedule, Retry-After and its cap, the 90 s budget (with a clock that
//! skips waits), per-attempt timeouts, network errors, permanent statuses.
#![cfg(all(feature = "openai", feature = "voyage", feature = "cohere"))]

use std::sync::Arc;
use std::time::Instant;

use crate::cloud_mock::{MockServer, Reply, SkipClock, cohere_answer, data_answer, ms, secs};
use serde_json::json;
use txtfp::Error;
use txtfp::semantic::providers::{CohereProvider, OpenAiProvider, RetryPolicy, VoyageProvider};

/// An OpenAI provider on `server` with the default policy minus jitter
/// (exact waits) and a skipping clock.
fn openai(server: &MockServer, policy: RetryPolicy) -> (OpenAiProvider, Arc<SkipClock>) {
    let clock = SkipClock::new();
    let p = OpenAiProvider::new("sk-test")
        .unwrap()
        .with_base_url(&server.url())
        .unwrap()
        .with_retry_policy(policy)
        .unwrap()
        .with_clock(clock.clone());
    (p, clock)
}

fn exact() -> RetryPolicy {
    RetryPolicy::default().with_jitter(0.0)
}

/// Fails the first `n` requests with `fail`, then answers properly.
fn failing_first(n: usize, fail: Reply) -> MockServer {
    MockServer::start(move |r| {
        if r.n < n {
            fail.clone()
        } else {
            data_answer(r, 1536)
        }
    })
}

fn status_of(e: &Error) -> Option<u16> {
    match e {
        Error::HttpStatus { status, .. } => Some(*status),
        _ => None,
    }
}

#[test]
fn a_503_burst_backs_off_500ms_1s_2s() {
    let server = failing_first(
        3,
        Reply::json(503, json!({"error": {"message": "overloaded"}})),
    );
    let (p, clock) = openai(&server, exact());
    assert_eq!(p.embed("x").unwrap().dim(), 1536);
    assert_eq!(clock.slept(), [ms(500), secs(1), secs(2)]);
    assert_eq!(server.count(), 4);
}

#[test]
fn every_retryable_status_is_retried() {
    for code in [408, 425, 429, 500, 502, 503, 504] {
        let server = failing_first(1, Reply::raw(code, ""));
        let (p, clock) = openai(&server, exact());
        assert!(p.embed("x").is_ok(), "{code}");
        assert_eq!(
            (server.count(), clock.slept()),
            (2, vec![ms(500)]),
            "{code}"
        );
    }
}

#[test]
fn permanent_statuses_fail_at_once() {
    for code in [400, 401, 403, 404, 422, 301] {
        let server = MockServer::start(move |_| {
            Reply::json(code, json!({"error": {"message": format!("nope {code}")}}))
                .with_header("retry-after", "1")
        });
        let (p, clock) = openai(&server, exact());
        let e = p.embed("x").unwrap_err();
        assert_eq!(status_of(&e), Some(code), "{e}");
        assert_eq!(
            e.to_string(),
            format!("http error: OpenAI returned {code}: nope {code}")
        );
        assert_eq!((server.count(), clock.slept().len()), (1, 0), "{code}");
    }
}

#[test]
fn retry_after_is_honoured() {
    let server = failing_first(1, Reply::raw(429, "").with_header("retry-after", "7"));
    let (p, clock) = openai(&server, exact());
    p.embed("x").unwrap();
    assert_eq!(clock.slept(), [secs(7)]);

    // OpenAI's millisecond form wins over the seconds form.
    let slow = Reply::raw(429, "")
        .with_header("retry-after-ms", "1500")
        .with_header("retry-after", "9");
    let server = failing_first(1, slow);
    let (p, clock) = openai(&server, exact());
    p.embed("x").unwrap();
    assert_eq!(clock.slept(), [ms(1500)]);
}

#[test]
fn retry_after_is_capped_at_60s() {
    let server = failing_first(1, Reply::raw(429, "").with_header("retry-after", "3600"));
    let (p, clock) = openai(&server, exact());
    p.embed("x").unwrap();
    assert_eq!(clock.slept(), [secs(60)]);
}

#[test]
fn the_90s_budget_ends_a_retry_after_loop() {
    // 60 s, then another 60 s would end at ~120 s: give up after 2 attempts.
    let server = MockServer::start(|_| {
        Reply::json(429, json!({"error": {"message": "Rate limit reached"}}))
            .with_header("retry-after", "60")
    });
    let (p, clock) = openai(&server, RetryPolicy::default());
    let e = p.embed("x").unwrap_err();
    assert_eq!(clock.slept(), [secs(60)]);
    assert_eq!(server.count(), 2);
    assert_eq!(status_of(&e), Some(429));
    let text = e.to_string();
    assert!(
        text.starts_with(
            "http error: OpenAI returned 429: Rate limit reached (gave up after 2 attempts in 60."
        ),
        "{text}"
    );
}

#[test]
fn a_server_that_always_fails_gets_the_full_default_schedule() {
    let server = MockServer::start(|_| Reply::raw(503, "busy"));
    let (p, clock) = openai(&server, exact());
    let e = p.embed("x").unwrap_err();
    assert_eq!(
        clock.slept(),
        [
            ms(500),
            secs(1),
            secs(2),
            secs(4),
            secs(8),
            secs(16),
            secs(30)
        ]
    );
    assert_eq!(server.count(), 8);
    assert!(e.to_string().contains("gave up after 8 attempts"), "{e}");
}

#[test]
fn jittered_waits_stay_within_30_percent() {
    let server = failing_first(4, Reply::raw(500, ""));
    let (p, clock) = openai(&server, RetryPolicy::default());
    p.embed("x").unwrap();
    let slept = clock.slept();
    assert_eq!(slept.len(), 4);
    for (w, base) in slept.iter().zip([0.5, 1.0, 2.0, 4.0]) {
        let r = w.as_secs_f64() / base;
        assert!((0.7..=1.3).contains(&r), "{w:?} for {base}");
    }
}

#[test]
fn a_slow_attempt_times_out_and_is_retried() {
    let slow = Reply::After(secs(3), Box::new(Reply::raw(200, "{}")));
    let server = failing_first(1, slow);
    let policy = exact().with_attempt_timeout(ms(300));
    let (p, clock) = openai(&server, policy);
    let t0 = Instant::now();
    assert_eq!(p.embed("x").unwrap().dim(), 1536);
    assert!(
        t0.elapsed() < secs(3),
        "the first attempt was cut at 300 ms"
    );
    assert_eq!(clock.slept(), [ms(500)]);
    assert_eq!(server.count(), 2);
}

#[test]
fn timeouts_until_the_budget_runs_out() {
    let server = MockServer::start(|_| Reply::After(secs(5), Box::new(Reply::raw(200, "{}"))));
    let policy = exact()
        .with_attempt_timeout(ms(200))
        .with_total_timeout(secs(2));
    let (p, clock) = openai(&server, policy);
    let t0 = Instant::now();
    let e = p.embed("x").unwrap_err();
    assert!(t0.elapsed() < secs(4), "{:?}", t0.elapsed());
    let Error::Http(m) = &e else { panic!("{e:?}") };
    assert!(
        m.starts_with("OpenAI request failed: timed out after"),
        "{m}"
    );
    assert!(m.contains("gave up after"), "{m}");
    // 0.2 s + 0.5 s + 0.2 s + 1 s is ~1.9 s; the next wait (2 s) would pass 2 s.
    assert!(
        !clock.slept().is_empty() && server.count() >= 2,
        "{:?}",
        clock.slept()
    );
}

#[test]
fn hangups_and_refused_connections_are_network_errors() {
    let server = failing_first(2, Reply::Hangup);
    let (p, clock) = openai(&server, exact());
    p.embed("x").unwrap();
    assert_eq!((server.count(), clock.slept()), (3, vec![ms(500), secs(1)]));

    // A port nobody listens on (bound, then released).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let clock = SkipClock::new();
    let p = OpenAiProvider::new("sk-test")
        .unwrap()
        .with_base_url(&format!("http://127.0.0.1:{port}"))
        .unwrap()
        .with_retry_policy(exact().with_max_attempts(3))
        .unwrap()
        .with_clock(clock.clone());
    let e = p.embed("x").unwrap_err();
    let Error::Http(m) = &e else { panic!("{e:?}") };
    assert!(
        m.starts_with("OpenAI request failed: ") && m.contains("gave up after 3 attempts"),
        "{m}"
    );
    assert_eq!(clock.slept(), [ms(500), secs(1)]);
}

#[test]
fn an_oversized_answer_is_refused_without_retry() {
    let huge = format!(
        "{{\"data\": [{{\"index\": 0, \"embedding\": [{}]}}]}}",
        "0.1,".repeat(60_000) + "0.1"
    );
    let server = MockServer::start(move |_| Reply::raw(200, &huge));
    let (p, _) = openai(&server, exact());
    let p = p.with_dimensions(4).unwrap();
    let Error::Http(m) = p.embed("x").unwrap_err() else {
        panic!()
    };
    assert!(m.contains("response body is larger than"), "{m}");
    assert_eq!(server.count(), 1);
}

#[test]
fn no_retries_policy_makes_one_attempt() {
    let server = failing_first(1, Reply::raw(503, ""));
    let (p, clock) = openai(&server, RetryPolicy::no_retries());
    assert_eq!(status_of(&p.embed("x").unwrap_err()), Some(503));
    assert_eq!((server.count(), clock.slept().len()), (1, 0));
}

#[test]
fn voyage_and_cohere_share_the_policy() {
    let server = MockServer::start(|r| match r.n {
        0 => Reply::json(429, json!({"detail": "slow down"})).with_header("retry-after", "2"),
        1 => Reply::raw(502, "bad gateway"),
        _ => data_answer(r, 1024),
    });
    let clock = SkipClock::new();
    let v = VoyageProvider::new("pa-test")
        .unwrap()
        .with_base_url(&server.url())
        .unwrap()
        .with_retry_policy(exact())
        .unwrap()
        .with_clock(clock.clone());
    assert_eq!(v.embed_document("x").unwrap().dim(), 1024);
    assert_eq!(clock.slept(), [secs(2), secs(1)]);

    let server = MockServer::start(|r| match r.n {
        0 | 1 => Reply::json(503, json!({"message": "unavailable"})),
        _ => cohere_answer(r, 1024),
    });
    let clock = SkipClock::new();
    let c = CohereProvider::new("co-test")
        .unwrap()
        .with_base_url(&server.url())
        .unwrap()
        .with_retry_policy(exact())
        .unwrap()
        .with_clock(clock.clone());
    assert_eq!(c.embed_query("x").unwrap().dim(), 1024);
    assert_eq!(clock.slept(), [ms(500), secs(1)]);

    let server = MockServer::start(|_| Reply::json(401, json!({"message": "invalid api token"})));
    let c = CohereProvider::new("co-test")
        .unwrap()
        .with_base_url(&server.url())
        .unwrap();
    assert_eq!(
        c.embed_query("x").unwrap_err().to_string(),
        "http error: Cohere returned 401: invalid api token"
    );
    assert_eq!(server.count(), 1);
}

#[test]
fn invalid_policies_are_refused() {
    let p = OpenAiProvider::new("k").unwrap();
    let e = p
        .with_retry_policy(RetryPolicy::default().with_jitter(2.0))
        .unwrap_err();
    assert!(
        matches!(e, Error::Config(ref m) if m.contains("jitter")),
        "{e}"
    );
}
