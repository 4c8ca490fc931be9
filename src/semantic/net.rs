//! HTTP pieces shared by the cloud providers and the Hugging Face Hub
//! downloader: the `ureq` agent settings, loopback detection and the message
//! of an error answer.

use ureq::config::ConfigBuilder;
use ureq::typestate::AgentScope;

/// Characters of an error message kept in an [`Error`](crate::Error).
pub(crate) const MESSAGE_CAP: usize = 400;
/// Bytes of an error answer read to find its message: enough for any
/// service's error JSON, and a bound on what a broken server makes us buffer.
const ERROR_BODY_CAP: u64 = 64 * 1024;

/// The agent settings every client starts from: statuses are answers, not
/// errors (the caller sorts them); a `txtfp/<version>` user agent; proxies
/// from the environment (`HTTPS_PROXY`, ...) unless `direct`.
pub(crate) fn agent_config(direct: bool) -> ConfigBuilder<AgentScope> {
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .user_agent(concat!("txtfp/", env!("CARGO_PKG_VERSION")));
    if direct { config.proxy(None) } else { config }
}

/// `localhost`, `127.0.0.0/8` or `::1` (as `Uri::host` gives it, IPv6 in
/// brackets): a local server is never behind a proxy.
pub(crate) fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The message of the error answer `resp` (see [`error_message`]), from at
/// most `ERROR_BODY_CAP` bytes of its body; a body that cannot be read
/// leaves the status's reason phrase.
pub(crate) fn answer_message(resp: &mut ureq::http::Response<ureq::Body>) -> String {
    let body = resp
        .body_mut()
        .with_config()
        .limit(ERROR_BODY_CAP)
        .read_to_vec()
        .unwrap_or_default();
    error_message(&body, resp.status().canonical_reason())
}

/// The human message of an error answer: the APIs put it in
/// `error.message` (OpenAI), `detail` (Voyage), `message` (Cohere) or
/// `error` (the Hugging Face Hub); other
/// bodies are quoted (trimmed, control characters dropped, capped).
pub(crate) fn error_message(body: &[u8], reason: Option<&str>) -> String {
    let from_json = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            let pick = |x: &serde_json::Value| match x {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Null => None,
                other => Some(other.to_string()),
            };
            v.pointer("/error/message")
                .or_else(|| v.get("error"))
                .or_else(|| v.get("detail"))
                .or_else(|| v.get("message"))
                .and_then(pick)
        });
    let raw = from_json.unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    let mut msg: String = raw
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if let Some((cut, _)) = msg.char_indices().nth(MESSAGE_CAP) {
        msg.truncate(cut);
        msg.push('…');
    }
    if msg.is_empty() {
        msg = reason.unwrap_or("no message").to_string();
    }
    msg
}
