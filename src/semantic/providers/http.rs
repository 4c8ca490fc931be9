//! The HTTP side shared by the three providers: one `ureq` agent, the API key,
//! and the retry loop that drives [`RetryPolicy::decide`].

use std::fmt;
use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::clock::{Clock, SystemClock};
use super::retry::{
    Decision, Failure, GiveUp, RetryPolicy, parse_retry_after, parse_retry_after_ms,
};
#[cfg(test)]
use crate::semantic::net::{MESSAGE_CAP, error_message};
use crate::semantic::net::{agent_config, answer_message, is_loopback};
use crate::{Error, Result};

/// The connection, credentials and retry policy of one provider.
#[derive(Clone)]
pub(crate) struct Transport {
    /// Provider name used in errors (`"OpenAI"`).
    provider: &'static str,
    agent: ureq::Agent,
    base_url: String,
    api_key: String,
    policy: RetryPolicy,
    clock: Arc<dyn Clock>,
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transport")
            .field("base_url", &self.base_url)
            .field("api_key", &"<redacted>")
            .finish_non_exhaustive()
    }
}

/// One failed attempt: how to treat it, and the error to report if it is
/// the last.
struct AttemptError {
    failure: Failure,
    error: Error,
}

impl Transport {
    /// A transport for `provider` at `base_url`. The key must be non-empty
    /// visible ASCII (it goes into an HTTP header); the error never repeats it.
    pub(crate) fn new(provider: &'static str, base_url: &str, api_key: String) -> Result<Self> {
        if api_key.is_empty() {
            return Err(Error::Config(format!("{provider} API key is empty")));
        }
        if let Some(pos) = api_key.bytes().position(|b| !b.is_ascii_graphic()) {
            return Err(Error::Config(format!(
                "{provider} API key has a character not allowed in an HTTP header at byte {pos}"
            )));
        }
        let mut t = Self {
            provider,
            agent: new_agent(false),
            base_url: String::new(),
            api_key,
            policy: RetryPolicy::default(),
            clock: Arc::new(SystemClock),
        };
        t.set_base_url(base_url)?;
        Ok(t)
    }

    pub(crate) fn provider(&self) -> &'static str {
        self.provider
    }

    pub(crate) fn base_url(&self) -> &str {
        &self.base_url
    }

    pub(crate) fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// Sets the base URL (scheme and authority, optionally a path prefix;
    /// a trailing `/` is dropped). A loopback host bypasses any proxy set in
    /// the environment (`HTTPS_PROXY`, ...): a local server is never behind one.
    pub(crate) fn set_base_url(&mut self, url: &str) -> Result<()> {
        let trimmed = url.trim_end_matches('/');
        let scheme_ok = trimmed.starts_with("http://") || trimmed.starts_with("https://");
        let uri = trimmed.parse::<ureq::http::Uri>().ok();
        let host = uri
            .as_ref()
            .and_then(|u| u.host())
            .map(str::to_ascii_lowercase);
        let Some(host) = host.filter(|_| scheme_ok && !trimmed.contains(['?', '#'])) else {
            return Err(Error::Config(format!(
                "{} base URL must be an http(s) URL without query or fragment, got {url:?}",
                self.provider
            )));
        };
        self.agent = new_agent(is_loopback(&host));
        self.base_url = trimmed.to_string();
        Ok(())
    }

    pub(crate) fn set_policy(&mut self, policy: RetryPolicy) -> Result<()> {
        policy.validate()?;
        self.policy = policy;
        Ok(())
    }

    pub(crate) fn set_clock(&mut self, clock: Arc<dyn Clock>) {
        self.clock = clock;
    }

    /// POSTs `body` (JSON) to `{base_url}{path}` under the retry policy and
    /// returns the body of the 2xx answer, read up to `limit` bytes.
    pub(crate) fn post_json(&self, path: &str, body: &[u8], limit: u64) -> Result<Vec<u8>> {
        let url = format!("{}{path}", self.base_url);
        let start = self.clock.now();
        let mut attempt = 0u32;
        let mut last: Option<Error> = None;
        loop {
            let elapsed = self.clock.now().saturating_duration_since(start);
            let timeout = match (self.policy.attempt_deadline(elapsed), last) {
                (Some(t), _) => t,
                // The wait overran the budget (a busy machine): stop.
                (None, Some(e)) => return Err(annotate(e, GiveUp::Budget, attempt, elapsed)),
                (None, None) => self.policy.attempt_timeout,
            };
            attempt += 1;
            let err = match self.attempt(&url, body, limit, timeout) {
                Ok(bytes) => return Ok(bytes),
                Err(e) => e,
            };
            let elapsed = self.clock.now().saturating_duration_since(start);
            match self
                .policy
                .decide(attempt, elapsed, err.failure, jitter_unit())
            {
                Decision::Retry(wait) => self.clock.sleep(wait),
                Decision::GiveUp(why) => return Err(annotate(err.error, why, attempt, elapsed)),
            }
            last = Some(err.error);
        }
    }

    fn attempt(
        &self,
        url: &str,
        body: &[u8],
        limit: u64,
        timeout: Duration,
    ) -> core::result::Result<Vec<u8>, AttemptError> {
        let sent = self
            .agent
            .post(url)
            .header("authorization", format!("Bearer {}", self.api_key))
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .config()
            .timeout_global(Some(timeout))
            .build()
            .send(body);
        let mut resp = sent.map_err(|e| self.transport_error(&e, timeout))?;
        let status = resp.status().as_u16();
        if resp.status().is_success() {
            return resp
                .body_mut()
                .with_config()
                .limit(limit)
                .read_to_vec()
                .map_err(|e| self.transport_error(&e, timeout));
        }
        let header = |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok());
        let retry_after = header("retry-after-ms")
            .and_then(parse_retry_after_ms)
            .or_else(|| {
                header("retry-after").and_then(|v| parse_retry_after(v, SystemTime::now()))
            });
        let message = self.redact(&answer_message(&mut resp));
        Err(AttemptError {
            failure: Failure::Status {
                code: status,
                retry_after,
            },
            error: Error::HttpStatus {
                provider: self.provider,
                status,
                message,
            },
        })
    }

    /// Sorts a `ureq` error into transient (network) and permanent failures.
    fn transport_error(&self, e: &ureq::Error, timeout: Duration) -> AttemptError {
        use ureq::Error as U;
        let (failure, what) = match e {
            U::Timeout(_) => (Failure::Network, format!("timed out after {timeout:?}")),
            U::Io(_) | U::ConnectionFailed | U::HostNotFound | U::Protocol(_) | U::BodyStalled => {
                (Failure::Network, e.to_string())
            }
            U::BodyExceedsLimit(n) => (
                Failure::Permanent,
                format!("response body is larger than {n} bytes"),
            ),
            _ => (Failure::Permanent, e.to_string()),
        };
        let error = Error::Http(format!(
            "{} request failed: {}",
            self.provider,
            self.redact(&what)
        ));
        AttemptError { failure, error }
    }

    /// Never let the key into an error message, even if a server echoes it.
    fn redact(&self, s: &str) -> String {
        s.replace(self.api_key.as_str(), "<redacted>")
    }

    /// The error for an unusable 2xx answer (bad JSON, wrong counts, ...).
    pub(crate) fn bad_response(&self, what: impl fmt::Display) -> Error {
        Error::Http(format!(
            "{} returned an unusable response: {}",
            self.provider,
            self.redact(&what.to_string())
        ))
    }
}

/// The HTTP client (see [`agent_config`]): no redirects (a redirected POST
/// means a wrong base URL, and would drop the key).
fn new_agent(direct: bool) -> ureq::Agent {
    agent_config(direct).max_redirects(0).build().new_agent()
}

/// Adds "after N attempts in T" to the final error when retries happened or
/// the budget ran out.
fn annotate(error: Error, why: GiveUp, attempts: u32, elapsed: Duration) -> Error {
    if why == GiveUp::Permanent && attempts == 1 {
        return error;
    }
    let note = format!(
        " (gave up after {attempts} attempt{} in {:.1} s)",
        if attempts == 1 { "" } else { "s" },
        elapsed.as_secs_f64()
    );
    match error {
        Error::Http(m) => Error::Http(m + &note),
        Error::HttpStatus {
            provider,
            status,
            message,
        } => Error::HttpStatus {
            provider,
            status,
            message: message + &note,
        },
        other => other,
    }
}

/// A uniform draw in `[-1, 1)` for the jitter. `RandomState` is seeded
/// randomly per process and advanced per call, which is all jitter needs.
fn jitter_unit() -> f64 {
    let bits = RandomState::new().hash_one(0u8) >> 11;
    (bits as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

#[cfg(test)]
mod tests;
