use super::*;
use alloc::string::ToString;

/// The plain formulation: 64 `i64` buckets, `±1` per token.
fn reference(tokens: &[String]) -> u64 {
    let mut acc = [0i64; 64];
    for t in tokens {
        let h = jenkins64(t.as_bytes());
        for (j, a) in acc.iter_mut().enumerate() {
            *a += if (h >> j) & 1 == 1 { 1 } else { -1 };
        }
    }
    acc.iter()
        .enumerate()
        .fold(0, |o, (j, &a)| o | (u64::from(a > 0) << j))
}

#[test]
fn fingerprint_equals_reference_over_tokens() {
    let s = SimHashDocV1::new();
    for text in [
        "one",
        "the the the cat",
        "Ünïcödé text with 東京 and Straße; 2024 numbers 42 dropped",
    ] {
        let toks = s.tokens(text);
        assert_eq!(s.fingerprint(text).unwrap().0, reference(&toks), "{text}");
    }
    // A one-token document is that token's hash.
    assert_eq!(s.fingerprint("Hello").unwrap().0, jenkins64(b"hello"));
}

#[test]
fn documents_without_tokens_are_errors() {
    let s = SimHashDocV1::new().with_stop_words(StopWords::builtin("en").unwrap());
    for text in ["", "  ", "2024 — 42!", "the and of"] {
        let e = s.fingerprint(text).unwrap_err().to_string();
        assert_eq!(e, "invalid input: empty document", "{text:?}");
    }
}

#[test]
fn match_levels_follow_the_thresholds() {
    let d = |n: u32| SimHash64((1u64 << n) - 1);
    let z = SimHash64(0);
    assert_eq!(SimHashDocV1::match_level(z, d(0)), DocV1Match::Close);
    assert_eq!(SimHashDocV1::match_level(z, d(1)), DocV1Match::Close);
    assert_eq!(SimHashDocV1::match_level(z, d(2)), DocV1Match::Loose);
    assert_eq!(SimHashDocV1::match_level(z, d(6)), DocV1Match::Loose);
    assert_eq!(SimHashDocV1::match_level(z, d(7)), DocV1Match::Distinct);
}

#[test]
fn config_hash_names_the_stop_list() {
    let a = SimHashDocV1::new();
    let b = SimHashDocV1::new().with_stop_words(StopWords::builtin("en").unwrap());
    let c = SimHashDocV1::new().with_stop_words(StopWords::builtin("fr").unwrap());
    assert_ne!(a.config_hash(), b.config_hash());
    assert_ne!(b.config_hash(), c.config_hash());
    assert_eq!(a.config_hash(), SimHashDocV1::default().config_hash());
}

#[test]
fn parse_errors_name_the_problem() {
    let p = |s: &str| SimHashDocV1::parse(s).unwrap_err().to_string();
    assert_eq!(
        p("simhash-doc-v1:AAAA"),
        "invalid input: simhash-doc-v1 base32 text is 13 characters, got 4"
    );
    assert_eq!(
        p("simhash-doc-v1:AAAAAA1AAAAAA"),
        "invalid input: simhash-doc-v1 base32 text has an invalid character '1' at position 6"
    );
    assert_eq!(
        p("simhash-doc-v1:AAAAAAAAAAAAB"),
        "invalid input: simhash-doc-v1 base32 text is not canonical: unused bits of 'B' at \
             position 12 are not zero"
    );
    assert!(p("simhash-doc-v1:AAAAAAAAAAAA=").contains("invalid character '='"));
    assert!(p("simhash-doc-v2:AAAAAAAAAAAAA").contains("must start with"));
    assert!(p("sim").contains("must start with"));
    assert_eq!(
        p("simhash-doc-v1:AAAAAAAAAAAAé"),
        "invalid input: simhash-doc-v1 base32 text has an invalid character 'é' at position 12"
    );
}
