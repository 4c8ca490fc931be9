//! A small Hugging Face Hub client (feature `hf-hub`): the file list of a
//! model's `main` and single-file downloads into the local Hugging Face
//! cache, on the crate's `ureq` agent settings (see `semantic::net`).
//!
//! Requests:
//! - `GET {endpoint}/api/models/{id}/revision/main` answers
//!   `{"sha": commit, "siblings": [{"rfilename": name}, ...]}` (read up to
//!   [`INFO_CAP`] bytes);
//! - `GET {endpoint}/{id}/resolve/{commit}/{name}` answers the file; large
//!   (LFS) files redirect to a CDN. Redirects are followed; the
//!   `Authorization` header goes along only to the same host.
//!
//! The endpoint is `HF_ENDPOINT` (default [`DEFAULT_ENDPOINT`]), the bearer
//! token `HF_TOKEN`; no error message contains the token.
//!
//! Files are streamed to a temporary file beside their final name, synced
//! and renamed ([`write_atomic`]), so an interrupted download never leaves a
//! partial file under a name the cache is read by. Names from the server are
//! checked ([`is_safe_file_name`]) before they become paths.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ureq::config::RedirectAuthHeaders;

use crate::semantic::net::{agent_config, answer_message, is_loopback};
use crate::{Error, Result};

/// The Hub when `HF_ENDPOINT` is not set.
pub(super) const DEFAULT_ENDPOINT: &str = "https://huggingface.co";
/// Bytes of a file list read at most (a listing of thousands of files is
/// well under 1 MiB).
const INFO_CAP: u64 = 16 << 20;
/// Longest accepted file name from the server, in bytes.
const NAME_CAP: usize = 1024;
const MAX_REDIRECTS: u32 = 10;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// From the request to the answer's headers.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(60);
/// Each read of a body: a stalled download fails, a slow one does not.
const READ_TIMEOUT: Duration = Duration::from_secs(60);
/// The whole file-list request.
const INFO_TIMEOUT: Duration = Duration::from_secs(120);

/// The connection to one Hub endpoint.
pub(super) struct Hub {
    agent: ureq::Agent,
    endpoint: String,
    token: Option<String>,
}

/// The `main` revision of a model repository.
#[derive(Debug, PartialEq)]
pub(super) struct RepoInfo {
    /// The commit `main` points at (checked by [`is_valid_commit`]).
    pub(super) sha: String,
    /// The repository's file names that pass [`is_safe_file_name`]; others
    /// are left out.
    pub(super) files: Vec<String>,
}

impl Hub {
    /// The Hub at `HF_ENDPOINT` (else [`DEFAULT_ENDPOINT`]) with the token in
    /// `HF_TOKEN`, if any (empty values count as unset).
    pub(super) fn from_env() -> Result<Self> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let endpoint = var("HF_ENDPOINT");
        Self::new(
            endpoint.as_deref().unwrap_or(DEFAULT_ENDPOINT),
            var("HF_TOKEN"),
        )
    }

    /// The Hub at `endpoint` (an http(s) URL, optionally with a path
    /// prefix; a trailing `/` is dropped). A loopback endpoint bypasses any
    /// proxy set in the environment.
    pub(super) fn new(endpoint: &str, token: Option<String>) -> Result<Self> {
        let endpoint = endpoint.trim_end_matches('/');
        let scheme_ok = endpoint.starts_with("http://") || endpoint.starts_with("https://");
        let host = endpoint
            .parse::<ureq::http::Uri>()
            .ok()
            .and_then(|u| u.host().map(str::to_ascii_lowercase))
            .filter(|_| scheme_ok && !endpoint.contains(['?', '#']));
        let Some(host) = host else {
            return Err(Error::Config(format!(
                "HF_ENDPOINT must be an http(s) URL without query or fragment, got {endpoint:?}"
            )));
        };
        if let Some(pos) = token
            .as_deref()
            .and_then(|t| t.bytes().position(|b| !b.is_ascii_graphic()))
        {
            return Err(Error::Config(format!(
                "HF_TOKEN has a character not allowed in an HTTP header at byte {pos}"
            )));
        }
        let agent = agent_config(is_loopback(&host))
            .max_redirects(MAX_REDIRECTS)
            .redirect_auth_headers(RedirectAuthHeaders::SameHost)
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .timeout_recv_response(Some(RESPONSE_TIMEOUT))
            .timeout_per_read(Some(READ_TIMEOUT))
            .build()
            .new_agent();
        Ok(Self {
            agent,
            endpoint: endpoint.to_string(),
            token,
        })
    }

    /// The commit and file names of `id`'s `main` (`id` already checked as
    /// `org/name` or `name`). The error describes the failure (HTTP status
    /// and the Hub's message, network error, unusable answer).
    pub(super) fn info(&self, id: &str) -> core::result::Result<RepoInfo, String> {
        let mut resp = self.get(&info_url(&self.endpoint, id), Some(INFO_TIMEOUT))?;
        let body = resp
            .body_mut()
            .with_config()
            .limit(INFO_CAP)
            .read_to_vec()
            .map_err(|e| self.describe(&e))?;
        parse_info(&body)
    }

    /// Downloads `file` of `id` at `commit` to `snapshot/file`, unless a
    /// file is there already (it is complete: only whole files get that
    /// name); returns its path.
    pub(super) fn download(
        &self,
        id: &str,
        commit: &str,
        file: &str,
        snapshot: &Path,
    ) -> core::result::Result<PathBuf, String> {
        if !is_safe_file_name(file) || !is_valid_commit(commit) {
            return Err(String::from("not a safe file name or commit"));
        }
        let dest = snapshot.join(file);
        if dest.is_file() {
            return Ok(dest);
        }
        let mut resp = self.get(&file_url(&self.endpoint, id, commit, file), None)?;
        let expected = resp.body().content_length();
        let mut body = resp.body_mut().as_reader();
        write_atomic(&dest, &mut body, expected).map_err(|e| self.redact(&e))?;
        Ok(dest)
    }

    /// A GET with the token; a non-2xx answer (after redirects) is an error
    /// naming the status and the server's message.
    fn get(
        &self,
        url: &str,
        timeout: Option<Duration>,
    ) -> core::result::Result<ureq::http::Response<ureq::Body>, String> {
        let mut req = self.agent.get(url);
        if let Some(token) = &self.token {
            req = req.header("authorization", format!("Bearer {token}"));
        }
        if timeout.is_some() {
            req = req.config().timeout_global(timeout).build();
        }
        let mut resp = req.call().map_err(|e| self.describe(&e))?;
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        let message = answer_message(&mut resp);
        let hint = match (status.as_u16(), &self.token) {
            (401 | 403, None) => " (a gated or private model needs HF_TOKEN)",
            (401 | 403, Some(_)) => " (check that HF_TOKEN has access to this model)",
            _ => "",
        };
        Err(self.redact(&format!("HTTP {}: {message}{hint}", status.as_u16())))
    }

    fn describe(&self, e: &ureq::Error) -> String {
        let what = match e {
            ureq::Error::BodyExceedsLimit(n) => format!("the answer is larger than {n} bytes"),
            ureq::Error::TooManyRedirects => format!("more than {MAX_REDIRECTS} redirects"),
            other => other.to_string(),
        };
        self.redact(&what)
    }

    /// Never let the token into an error message, even if a server echoes it.
    fn redact(&self, s: &str) -> String {
        match &self.token {
            Some(t) => s.replace(t.as_str(), "<redacted>"),
            None => s.to_string(),
        }
    }
}

/// `{endpoint}/api/models/{id}/revision/main`.
pub(super) fn info_url(endpoint: &str, id: &str) -> String {
    format!("{endpoint}/api/models/{id}/revision/main")
}

/// `{endpoint}/{id}/resolve/{commit}/{file}`, the file's path segments
/// percent-encoded. Asking for the commit rather than `main` keeps every file
/// of one download from the same snapshot.
pub(super) fn file_url(endpoint: &str, id: &str, commit: &str, file: &str) -> String {
    let mut url = format!("{endpoint}/{id}/resolve/{commit}/");
    for b in file.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

/// The `sha` and `siblings[].rfilename` of a file-list answer; unsafe names
/// are dropped.
pub(super) fn parse_info(body: &[u8]) -> core::result::Result<RepoInfo, String> {
    let v: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| format!("the file list is not valid JSON ({e})"))?;
    let sha = v
        .get("sha")
        .and_then(serde_json::Value::as_str)
        .filter(|s| is_valid_commit(s))
        .ok_or("the file list has no valid `sha`")?;
    let siblings = v
        .get("siblings")
        .and_then(serde_json::Value::as_array)
        .ok_or("the file list has no `siblings`")?;
    let files = siblings
        .iter()
        .filter_map(|s| s.get("rfilename")?.as_str())
        .filter(|n| is_safe_file_name(n))
        .map(String::from)
        .collect();
    Ok(RepoInfo {
        sha: sha.to_string(),
        files,
    })
}

/// A commit id usable as a folder name: 1 to 128 ASCII letters and digits
/// (the Hub sends 40 hex digits).
pub(super) fn is_valid_commit(s: &str) -> bool {
    (1..=128).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A repository file name that stays inside the snapshot folder on every
/// platform: relative, `/`-separated, no empty, `.` or `..` component, no
/// `\`, `:` or control character, at most [`NAME_CAP`] bytes.
pub(super) fn is_safe_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_CAP
        && name.split('/').all(|part| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && !part
                    .chars()
                    .any(|c| c.is_control() || matches!(c, '\\' | ':'))
        })
}

/// Makes temporary names unique within the process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Removes the temporary file unless it was renamed into place (also when
/// unwinding).
struct TempFile {
    path: PathBuf,
    renamed: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Streams `src` into `dest`: a hidden temporary file in the same folder
/// (created with missing parents), synced, then renamed over `dest`. On any
/// error (reading, writing, fewer or more bytes than `expected`) the
/// temporary file is removed and `dest` is untouched. Returns the byte count.
pub(super) fn write_atomic(
    dest: &Path,
    src: &mut dyn Read,
    expected: Option<u64>,
) -> core::result::Result<u64, String> {
    let (Some(dir), Some(name)) = (dest.parent(), dest.file_name()) else {
        return Err(format!("`{}` is not a file path", dest.display()));
    };
    let io_err = |what: &str, path: &Path, e: std::io::Error| {
        format!("cannot {what} `{}` ({e})", path.display())
    };
    fs::create_dir_all(dir).map_err(|e| io_err("create", dir, e))?;
    let mut temp = TempFile {
        path: dir.join(format!(
            ".{}.{}-{}.part",
            name.to_string_lossy(),
            std::process::id(),
            TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        )),
        renamed: false,
    };
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp.path)
        .map_err(|e| io_err("create", &temp.path, e))?;
    let mut buf = vec![0u8; 64 * 1024];
    let mut written = 0u64;
    loop {
        let n = match src.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(format!(
                    "the transfer broke off after {written} bytes ({e})"
                ));
            }
        };
        file.write_all(&buf[..n])
            .map_err(|e| io_err("write", &temp.path, e))?;
        written += n as u64;
    }
    if let Some(len) = expected.filter(|&len| len != written) {
        return Err(format!("the transfer ended after {written} of {len} bytes"));
    }
    file.sync_all()
        .map_err(|e| io_err("write", &temp.path, e))?;
    drop(file);
    fs::rename(&temp.path, dest).map_err(|e| io_err("create", dest, e))?;
    temp.renamed = true;
    // Make the rename itself durable; not every platform can open a folder.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(written)
}

#[cfg(test)]
mod tests;
