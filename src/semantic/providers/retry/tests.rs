use super::*;

const MS: fn(u64) -> Duration = Duration::from_millis;
const S: fn(u64) -> Duration = Duration::from_secs;

fn status(code: u16) -> Failure {
    Failure::Status {
        code,
        retry_after: None,
    }
}

fn limited(code: u16, secs: u64) -> Failure {
    Failure::Status {
        code,
        retry_after: Some(S(secs)),
    }
}

/// Each `(attempt, elapsed, failure, want)` row: `p.decide` (no jitter
/// draw) gives `want`.
fn check_decisions(p: &RetryPolicy, rows: &[(u32, Duration, Failure, Decision)]) {
    for (i, &(attempt, elapsed, failure, want)) in rows.iter().enumerate() {
        assert_eq!(p.decide(attempt, elapsed, failure, 0.0), want, "row {i}");
    }
}

#[test]
fn defaults_are_the_documented_policy() {
    let p = RetryPolicy::default();
    assert_eq!(p.initial_backoff, MS(500));
    assert_eq!(p.multiplier, 2.0);
    assert_eq!(p.jitter, 0.3);
    assert_eq!(p.max_backoff, S(30));
    assert_eq!(p.attempt_timeout, S(30));
    assert_eq!(p.total_timeout, S(90));
    assert_eq!(p.retry_after_cap, S(60));
    assert_eq!(p.max_attempts, u32::MAX);
    assert_eq!(p, RetryPolicy::new());
    assert!(p.validate().is_ok());
}

#[test]
fn backoff_doubles_from_500ms_and_caps_at_30s() {
    let p = RetryPolicy::default();
    let waits: Vec<Duration> = (1..=9).map(|r| p.backoff(r, 0.0)).collect();
    let want = [MS(500), S(1), S(2), S(4), S(8), S(16), S(30), S(30), S(30)];
    assert_eq!(waits, want);
    // Huge retry numbers saturate instead of overflowing.
    assert_eq!(p.backoff(u32::MAX, 0.0), S(30));
}

#[test]
fn jitter_spans_plus_minus_30_percent() {
    let p = RetryPolicy::default();
    assert_eq!(p.backoff(1, -1.0), MS(350));
    assert_eq!(p.backoff(1, 1.0), MS(650));
    assert_eq!(p.backoff(3, 0.5), MS(2300));
    // Out-of-range or NaN draws are clamped, never widen the range.
    assert_eq!(p.backoff(1, 7.0), MS(650));
    assert_eq!(p.backoff(1, f64::NAN), MS(500));
    // The 30 s cap applies before the jitter, so a capped wait still varies.
    assert_eq!(p.backoff(10, -1.0), S(21));
}

#[test]
fn retryable_statuses_and_network_errors_retry() {
    let p = RetryPolicy::default().with_jitter(0.0);
    for code in [408, 425, 429, 500, 502, 503, 504] {
        assert_eq!(
            p.decide(1, MS(10), status(code), 0.0),
            Decision::Retry(MS(500)),
            "{code}"
        );
    }
    assert_eq!(
        p.decide(2, S(1), Failure::Network, 0.0),
        Decision::Retry(S(1))
    );
}

#[test]
fn permanent_statuses_fail_at_once() {
    let p = RetryPolicy::default();
    for code in [400, 401, 403, 404, 422, 301, 405, 409, 413, 501, 505] {
        assert_eq!(
            p.decide(1, MS(1), status(code), 0.0),
            Decision::GiveUp(GiveUp::Permanent),
            "{code}"
        );
    }
    let permanent = Decision::GiveUp(GiveUp::Permanent);
    check_decisions(
        &p,
        &[
            // Even with a Retry-After: a 401 does not get better by waiting.
            (1, MS(1), limited(401, 1), permanent),
            (1, MS(1), Failure::Permanent, permanent),
        ],
    );
}

#[test]
fn retry_after_is_honoured_up_to_60s_and_never_shortens_the_backoff() {
    let p = RetryPolicy::default().with_jitter(0.0);
    check_decisions(
        &p,
        &[
            (1, MS(1), limited(429, 5), Decision::Retry(S(5))),
            (1, MS(1), limited(429, 120), Decision::Retry(S(60))),
            (1, MS(1), limited(503, 45), Decision::Retry(S(45))),
            // Retry-After: 0 on the fifth attempt: the 8 s backoff wins.
            (5, S(2), limited(429, 0), Decision::Retry(S(8))),
        ],
    );
}

#[test]
fn the_total_budget_stops_waits_that_would_end_past_90s() {
    let p = RetryPolicy::default().with_jitter(0.0);
    let budget = Decision::GiveUp(GiveUp::Budget);
    check_decisions(
        &p,
        &[
            // 60 s asked at 29 s: ends at 89 s, inside the budget.
            (2, S(29), limited(429, 60), Decision::Retry(S(60))),
            // The same at 30 s would end exactly at 90 s: give up now.
            (2, S(30), limited(429, 60), budget),
            (1, S(95), Failure::Network, budget),
        ],
    );
}

#[test]
fn the_full_default_schedule_against_a_server_that_always_fails() {
    // Simulate attempts that fail instantly: the waits are the backoff
    // sequence until the next one would cross 90 s.
    let p = RetryPolicy::default().with_jitter(0.0);
    let (mut elapsed, mut waits, mut attempt) = (Duration::ZERO, Vec::new(), 1);
    while let Decision::Retry(w) = p.decide(attempt, elapsed, status(503), 0.0) {
        waits.push(w);
        elapsed += w;
        attempt += 1;
    }
    assert_eq!(waits, [MS(500), S(1), S(2), S(4), S(8), S(16), S(30)]);
    assert_eq!((attempt, elapsed), (8, MS(61_500)));
}

#[test]
fn max_attempts_limits_retries() {
    let p = RetryPolicy::default().with_max_attempts(3);
    assert!(matches!(
        p.decide(2, MS(1), Failure::Network, 0.0),
        Decision::Retry(_)
    ));
    assert_eq!(
        p.decide(3, MS(1), Failure::Network, 0.0),
        Decision::GiveUp(GiveUp::Attempts)
    );
    assert_eq!(
        RetryPolicy::no_retries().decide(1, MS(1), status(503), 0.0),
        Decision::GiveUp(GiveUp::Attempts)
    );
}

#[test]
fn attempt_deadline_shrinks_to_the_budget_left() {
    let p = RetryPolicy::default();
    assert_eq!(p.attempt_deadline(Duration::ZERO), Some(S(30)));
    assert_eq!(p.attempt_deadline(S(75)), Some(S(15)));
    assert_eq!(p.attempt_deadline(S(90)), None);
    assert_eq!(p.attempt_deadline(S(500)), None);
}

#[test]
fn validate_names_the_bad_field() {
    let bad = [
        (RetryPolicy::default().with_multiplier(0.5), "multiplier"),
        (
            RetryPolicy::default().with_multiplier(f64::NAN),
            "multiplier",
        ),
        (RetryPolicy::default().with_jitter(1.5), "jitter"),
        (RetryPolicy::default().with_jitter(-0.1), "jitter"),
        (
            RetryPolicy::default().with_attempt_timeout(Duration::ZERO),
            "timeouts",
        ),
        (
            RetryPolicy::default().with_total_timeout(Duration::ZERO),
            "timeouts",
        ),
        (RetryPolicy::default().with_max_attempts(0), "max_attempts"),
    ];
    for (p, word) in bad {
        let e = p.validate().unwrap_err().to_string();
        assert!(e.starts_with("config error: ") && e.contains(word), "{e}");
    }
}

#[test]
fn retry_after_seconds_dates_and_garbage() {
    let now = UNIX_EPOCH + S(784_111_777); // Sun, 06 Nov 1994 08:49:37 GMT
    assert_eq!(parse_retry_after("120", now), Some(S(120)));
    assert_eq!(parse_retry_after(" 7 ", now), Some(S(7)));
    assert_eq!(parse_retry_after("0", now), Some(S(0)));
    assert_eq!(
        parse_retry_after("99999999999999999999999", now),
        Some(S(u64::MAX))
    );
    assert_eq!(
        parse_retry_after("Sun, 06 Nov 1994 08:49:47 GMT", now),
        Some(S(10))
    );
    assert_eq!(
        parse_retry_after("Sun, 06 Nov 1994 08:49:30 GMT", now),
        Some(S(0))
    );
    assert_eq!(
        parse_retry_after("Mon, 07 Nov 1994 08:49:37 GMT", now),
        Some(S(86_400))
    );
    for junk in [
        "",
        "-1",
        "1.5",
        "soon",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Foo 1994 08:49:37 GMT",
    ] {
        assert_eq!(parse_retry_after(junk, now), None, "{junk:?}");
    }
    assert_eq!(parse_retry_after_ms("1500"), Some(MS(1500)));
    assert_eq!(
        parse_retry_after_ms("20.5"),
        Some(Duration::from_micros(20_500))
    );
    for junk in ["-3", "NaN", "inf", "x", ""] {
        assert_eq!(parse_retry_after_ms(junk), None, "{junk:?}");
    }
}

#[test]
fn civil_dates_match_known_epoch_days() {
    assert_eq!(days_from_civil(1970, 1, 1), 0);
    assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    assert_eq!(days_from_civil(2015, 10, 21), 16_729);
    assert_eq!(
        parse_imf_fixdate("Wed, 21 Oct 2015 07:28:00 GMT"),
        Some(16_729 * 86_400 + 7 * 3600 + 28 * 60)
    );
    // Leap day and the last day of a leap year.
    assert_eq!(
        days_from_civil(2024, 2, 29) + 1,
        days_from_civil(2024, 3, 1)
    );
    assert_eq!(
        days_from_civil(2024, 12, 31) + 1,
        days_from_civil(2025, 1, 1)
    );
    assert_eq!(
        days_from_civil(2024, 12, 31) - days_from_civil(2024, 1, 1),
        365
    );
}
