//! The retry policy shared by the cloud providers, as plain data plus a pure
//! decision function (failure, attempt number, elapsed time → wait or give
//! up), so the schedule is tested without a network or a real clock.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::{Error, Result};

/// HTTP statuses worth another attempt: timeouts, rate limits and server-side
/// trouble. Everything else (400, 401, 403, 404, 422, redirects, ...) fails at
/// once.
pub const RETRYABLE_STATUSES: [u16; 7] = [408, 425, 429, 500, 502, 503, 504];

/// How the cloud providers retry a failed request.
///
/// The defaults are the documented policy: exponential backoff starting at
/// 500 ms, ×2 per retry, ±30 % jitter, no single wait longer than 30 s; each
/// attempt times out after 30 s and the request as a whole (attempts and
/// waits) after 90 s; a `Retry-After` (or `retry-after-ms`) header on a
/// retried answer (429, 503, ...) is honoured up to 60 s. Retried: HTTP
/// 408, 425, 429, 500, 502, 503, 504 and network errors (connection refused
/// or reset, timeouts, DNS).
/// Anything else fails at once.
///
/// ```
/// # #[cfg(any(feature = "openai", feature = "voyage", feature = "cohere"))] {
/// use std::time::Duration;
/// use txtfp::semantic::providers::RetryPolicy;
///
/// let p = RetryPolicy::default();
/// assert_eq!(p.initial_backoff, Duration::from_millis(500));
/// assert_eq!(p.total_timeout, Duration::from_secs(90));
/// // Without jitter the waits are 0.5 s, 1 s, 2 s, ... capped at 30 s.
/// let p = p.with_jitter(0.0);
/// assert_eq!(p.backoff(1, 0.0), Duration::from_millis(500));
/// assert_eq!(p.backoff(4, 0.0), Duration::from_secs(4));
/// assert_eq!(p.backoff(20, 0.0), Duration::from_secs(30));
/// // No retries at all:
/// assert_eq!(RetryPolicy::no_retries().max_attempts, 1);
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryPolicy {
    /// Wait before the first retry (default 500 ms).
    pub initial_backoff: Duration,
    /// Factor between consecutive waits (default 2.0; at least 1).
    pub multiplier: f64,
    /// Relative jitter: each wait is scaled by a uniform factor in
    /// `[1 - jitter, 1 + jitter]` (default 0.3; in `[0, 1]`).
    pub jitter: f64,
    /// Longest single backoff wait (default 30 s).
    pub max_backoff: Duration,
    /// Timeout of one attempt: connecting, sending, and reading the whole
    /// answer (default 30 s).
    pub attempt_timeout: Duration,
    /// Budget for the whole request, attempts and waits together (default
    /// 90 s). No attempt starts, and no wait begins, that would end past it.
    pub total_timeout: Duration,
    /// Longest wait a `Retry-After` header can ask for (default 60 s).
    pub retry_after_cap: Duration,
    /// Most attempts per request, the first included (default `u32::MAX`:
    /// only the time budget limits them; 1 disables retries).
    pub max_attempts: u32,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            initial_backoff: Duration::from_millis(500),
            multiplier: 2.0,
            jitter: 0.3,
            max_backoff: Duration::from_secs(30),
            attempt_timeout: Duration::from_secs(30),
            total_timeout: Duration::from_secs(90),
            retry_after_cap: Duration::from_secs(60),
            max_attempts: u32::MAX,
        }
    }
}

/// Why a request attempt failed, as far as retrying is concerned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Failure {
    /// The service answered with this status; `retry_after` is its
    /// `Retry-After` (or `retry-after-ms`) header when present and valid.
    Status {
        code: u16,
        retry_after: Option<Duration>,
    },
    /// No answer: connection refused or reset, timeout, DNS failure.
    Network,
    /// A failure that another attempt cannot fix (TLS, bad URL, a response
    /// too large or not JSON).
    Permanent,
}

/// What to do after a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Decision {
    /// Wait this long, then try again.
    Retry(Duration),
    /// Stop and report the failure.
    GiveUp(GiveUp),
}

/// Why the retry loop stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GiveUp {
    /// The failure is not transient.
    Permanent,
    /// `max_attempts` reached.
    Attempts,
    /// The wait would end past `total_timeout`.
    Budget,
}

impl RetryPolicy {
    /// The documented defaults (same as [`Default`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// One attempt, no retries (the attempt timeout still applies).
    pub fn no_retries() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// Sets [`initial_backoff`](Self::initial_backoff).
    pub fn with_initial_backoff(mut self, d: Duration) -> Self {
        self.initial_backoff = d;
        self
    }

    /// Sets [`multiplier`](Self::multiplier).
    pub fn with_multiplier(mut self, m: f64) -> Self {
        self.multiplier = m;
        self
    }

    /// Sets [`jitter`](Self::jitter).
    pub fn with_jitter(mut self, j: f64) -> Self {
        self.jitter = j;
        self
    }

    /// Sets [`max_backoff`](Self::max_backoff).
    pub fn with_max_backoff(mut self, d: Duration) -> Self {
        self.max_backoff = d;
        self
    }

    /// Sets [`attempt_timeout`](Self::attempt_timeout).
    pub fn with_attempt_timeout(mut self, d: Duration) -> Self {
        self.attempt_timeout = d;
        self
    }

    /// Sets [`total_timeout`](Self::total_timeout).
    pub fn with_total_timeout(mut self, d: Duration) -> Self {
        self.total_timeout = d;
        self
    }

    /// Sets [`retry_after_cap`](Self::retry_after_cap).
    pub fn with_retry_after_cap(mut self, d: Duration) -> Self {
        self.retry_after_cap = d;
        self
    }

    /// Sets [`max_attempts`](Self::max_attempts).
    pub fn with_max_attempts(mut self, n: u32) -> Self {
        self.max_attempts = n;
        self
    }

    /// Checks the fields: `multiplier` finite and at least 1, `jitter` in
    /// `[0, 1]`, both timeouts and `max_attempts` non-zero. The providers call
    /// it when a policy is set.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Config(m));
        if !(self.multiplier.is_finite() && self.multiplier >= 1.0) {
            return bad(format!(
                "retry multiplier must be finite and >= 1, got {}",
                self.multiplier
            ));
        }
        if !(0.0..=1.0).contains(&self.jitter) {
            return bad(format!(
                "retry jitter must be in [0, 1], got {}",
                self.jitter
            ));
        }
        if self.attempt_timeout.is_zero() || self.total_timeout.is_zero() {
            return bad(format!(
                "retry timeouts must be positive, got attempt {:?} and total {:?}",
                self.attempt_timeout, self.total_timeout
            ));
        }
        if self.max_attempts == 0 {
            return bad(String::from("retry max_attempts must be at least 1"));
        }
        Ok(())
    }

    /// The backoff before retry number `retry` (1 for the first retry):
    /// `initial_backoff × multiplier^(retry-1)`, capped at `max_backoff`, then
    /// scaled by `1 + jitter × unit` where `unit` in `[-1, 1]` is the random
    /// draw (clamped; 0 gives the centre of the range).
    pub fn backoff(&self, retry: u32, unit: f64) -> Duration {
        let exp = i32::try_from(retry.saturating_sub(1)).unwrap_or(i32::MAX);
        let base = self.initial_backoff.as_secs_f64() * self.multiplier.powi(exp);
        let capped = base.min(self.max_backoff.as_secs_f64());
        let unit = if unit.is_nan() {
            0.0
        } else {
            unit.clamp(-1.0, 1.0)
        };
        let scaled = capped * (1.0 + self.jitter * unit);
        // `try_from_secs_f64` rejects NaN, negatives and overflow; none can
        // occur with a validated policy, but a wait of 0 is the safe answer.
        Duration::try_from_secs_f64(scaled.max(0.0)).unwrap_or(self.max_backoff)
    }

    /// The decision after attempt number `attempt` (1-based) failed with
    /// `failure`, `elapsed` after the first attempt started. `unit` is the
    /// jitter draw in `[-1, 1]`.
    ///
    /// A `Retry-After` on a retryable status is honoured up to
    /// `retry_after_cap`, and never shortens the backoff: the wait is the
    /// longer of the two. A wait that would end past `total_timeout` gives up
    /// now instead of sleeping in vain.
    pub(crate) fn decide(
        &self,
        attempt: u32,
        elapsed: Duration,
        failure: Failure,
        unit: f64,
    ) -> Decision {
        let retry_after = match failure {
            Failure::Permanent => return Decision::GiveUp(GiveUp::Permanent),
            Failure::Status { code, .. } if !RETRYABLE_STATUSES.contains(&code) => {
                return Decision::GiveUp(GiveUp::Permanent);
            }
            Failure::Status { retry_after, .. } => retry_after,
            Failure::Network => None,
        };
        if attempt >= self.max_attempts {
            return Decision::GiveUp(GiveUp::Attempts);
        }
        let mut wait = self.backoff(attempt, unit);
        if let Some(ra) = retry_after {
            wait = wait.max(ra.min(self.retry_after_cap));
        }
        match elapsed.checked_add(wait) {
            Some(end) if end < self.total_timeout => Decision::Retry(wait),
            _ => Decision::GiveUp(GiveUp::Budget),
        }
    }

    /// Timeout for an attempt starting `elapsed` into the request: the
    /// attempt timeout, shortened to what is left of the total budget; `None`
    /// when nothing is left.
    pub(crate) fn attempt_deadline(&self, elapsed: Duration) -> Option<Duration> {
        let left = self.total_timeout.checked_sub(elapsed)?;
        (!left.is_zero()).then(|| left.min(self.attempt_timeout))
    }
}

/// Parses a `Retry-After` value: delay-seconds (`"120"`) or an IMF-fixdate
/// (`"Wed, 21 Oct 2015 07:28:00 GMT"`, relative to `now`; a past date is a
/// zero wait). Anything else is ignored (`None`), and the backoff applies.
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let v = value.trim();
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        // Longer than u64 seconds is "very long": the cap applies anyway.
        return Some(Duration::from_secs(v.parse().unwrap_or(u64::MAX)));
    }
    let at = parse_imf_fixdate(v)?;
    let now = now.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Parses OpenAI's `retry-after-ms` header: a non-negative number of
/// milliseconds, possibly fractional.
pub(crate) fn parse_retry_after_ms(value: &str) -> Option<Duration> {
    let ms: f64 = value.trim().parse().ok()?;
    if !(ms.is_finite() && ms >= 0.0) {
        return None;
    }
    Duration::try_from_secs_f64(ms / 1000.0).ok()
}

/// Seconds since the Unix epoch of an IMF-fixdate (RFC 9110 §5.6.7), the
/// only HTTP-date form servers may send today.
fn parse_imf_fixdate(s: &str) -> Option<u64> {
    // "Sun, 06 Nov 1994 08:49:37 GMT"
    let b = s.as_bytes();
    if b.len() != 29 || &b[3..5] != b", " || &b[25..] != b" GMT" {
        return None;
    }
    let num = |r: core::ops::Range<usize>| -> Option<u64> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let day = num(5..7)?;
    let month = MONTHS.iter().position(|m| s.get(8..11) == Some(*m))? as u64 + 1;
    let year = num(12..16)?;
    let (h, mi, sec) = (num(17..19)?, num(20..22)?, num(23..25)?);
    if b[7] != b' ' || b[11] != b' ' || b[16] != b' ' || b[19] != b':' || b[22] != b':' {
        return None;
    }
    if !(1..=31).contains(&day) || h > 23 || mi > 59 || sec > 60 || year < 1970 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + h * 3600 + mi * 60 + sec)
}

/// Days from 1970-01-01 to a proleptic Gregorian date (year >= 1970), by the
/// usual era arithmetic (eras of 400 years, years starting in March).
fn days_from_civil(y: u64, m: u64, d: u64) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe).saturating_sub(719_468)
}

#[cfg(test)]
mod tests;
