//! PDF to text with lopdf, on a worker thread under a wall-clock timeout.
//!
//! The parse runs on its own thread (large stack, `catch_unwind`) and the
//! caller waits at most `timeout_secs`. A thread cannot be killed, so a
//! worker that times out is abandoned and finishes on its own; while
//! [`MAX_ABANDONED`] of them are still running, new calls are refused instead
//! of piling up more.

use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use core::time::Duration;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;

use lopdf::{Document, LoadOptions};

use super::pdf_text::page_text;
use crate::{Error, Result};

/// Abandoned (timed-out) workers allowed to run at once.
const MAX_ABANDONED: usize = 4;
/// Stack of the worker thread: lopdf's parser recurses (nesting capped at 100).
const WORKER_STACK: usize = 64 << 20;
/// The `%PDF-` marker must start within this many bytes (as readers accept).
const HEADER_WINDOW: usize = 1024;

static ABANDONED: AtomicUsize = AtomicUsize::new(0);

const RUNNING: u8 = 0;
const DONE: u8 = 1;
const GIVEN_UP: u8 = 2;

/// Limits for [`pdf_to_text_with`].
///
/// ```
/// # #[cfg(feature = "pdf")] {
/// use txtfp::markup::PdfOptions;
/// let opts = PdfOptions { timeout_secs: 5, ..PdfOptions::default() };
/// assert_eq!(opts.max_bytes, 50 << 20);
/// # }
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PdfOptions {
    /// Largest accepted input, in bytes; larger input is an error before any
    /// parsing. Also bounds each decompressed stream (at 4× this, at least
    /// 64 MiB). Default 50 MiB.
    pub max_bytes: usize,
    /// Wall-clock limit for the whole parse and extraction, in seconds.
    /// Default 30.
    pub timeout_secs: u64,
}

impl Default for PdfOptions {
    fn default() -> Self {
        PdfOptions {
            max_bytes: 50 << 20,
            timeout_secs: 30,
        }
    }
}

/// The text of a PDF, with the default [`PdfOptions`] (50 MiB, 30 s).
///
/// Pages are extracted in order by lopdf (fonts' `ToUnicode` maps and
/// standard encodings), one line per text line, pages separated by a newline;
/// NUL characters become U+FFFD. Feed the result to a fingerprinter, which
/// canonicalizes it.
///
/// ```
/// # #[cfg(feature = "pdf")] {
/// let err = txtfp::markup::pdf_to_text(b"%PDF-1.4\n1 0 obj\n<<").unwrap_err();
/// assert!(err.to_string().starts_with("invalid input: pdf is truncated"));
/// # }
/// ```
///
/// # Errors
///
/// [`Error::InvalidInput`] for input over the size cap, input without a
/// `%PDF-` header, a truncated file (no `%%EOF` in its last 1024 bytes), a
/// malformed one, an encrypted file that needs
/// a password, a parser panic, a parse that exceeds the timeout, or too many
/// timed-out parses still running. Never panics, never blocks past the
/// timeout.
pub fn pdf_to_text(bytes: &[u8]) -> Result<String> {
    pdf_to_text_with(bytes, PdfOptions::default())
}

/// The text of a PDF with the given limits. See [`pdf_to_text`].
///
/// # Errors
///
/// As [`pdf_to_text`]; also [`Error::Config`] when `max_bytes` or
/// `timeout_secs` is 0.
pub fn pdf_to_text_with(bytes: &[u8], opts: PdfOptions) -> Result<String> {
    if opts.max_bytes == 0 || opts.timeout_secs == 0 {
        return Err(Error::Config(format!(
            "PdfOptions needs max_bytes > 0 and timeout_secs > 0, got max_bytes = {}, timeout_secs = {}",
            opts.max_bytes, opts.timeout_secs
        )));
    }
    if bytes.len() > opts.max_bytes {
        return Err(Error::InvalidInput(format!(
            "pdf is {} bytes, over PdfOptions::max_bytes = {}",
            bytes.len(),
            opts.max_bytes
        )));
    }
    let head = &bytes[..bytes.len().min(HEADER_WINDOW)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(Error::InvalidInput(format!(
            "not a pdf: no %PDF- header in the first {HEADER_WINDOW} bytes ({} bytes given)",
            bytes.len()
        )));
    }
    // Readers repair a damaged cross-reference table, so a cut-off file may
    // still load: the end-of-file marker is what tells it is complete.
    let tail = &bytes[bytes.len().saturating_sub(HEADER_WINDOW)..];
    if !tail.windows(5).any(|w| w == b"%%EOF") {
        return Err(Error::InvalidInput(format!(
            "pdf is truncated: no %%EOF marker in the last {HEADER_WINDOW} bytes ({} bytes given)",
            bytes.len()
        )));
    }
    let abandoned = ABANDONED.load(Ordering::Acquire);
    if abandoned >= MAX_ABANDONED {
        return Err(Error::InvalidInput(format!(
            "pdf not parsed: {abandoned} earlier pdf parses timed out and are still running"
        )));
    }
    run_on_worker(bytes.to_vec(), opts)
}

fn run_on_worker(data: Vec<u8>, opts: PdfOptions) -> Result<String> {
    let state = Arc::new(AtomicU8::new(RUNNING));
    let worker_state = Arc::clone(&state);
    let (tx, rx) = mpsc::sync_channel(1);
    let limit = opts.max_bytes.saturating_mul(4).max(64 << 20);
    std::thread::Builder::new()
        .name("txtfp-pdf".into())
        .stack_size(WORKER_STACK)
        .spawn(move || {
            let result = catch_unwind(AssertUnwindSafe(|| extract(&data, limit)))
                .unwrap_or_else(|p| Err(panic_error(&*p)));
            drop(data);
            if worker_state.swap(DONE, Ordering::AcqRel) == GIVEN_UP {
                ABANDONED.fetch_sub(1, Ordering::AcqRel);
            }
            // The receiver is gone when the caller timed out: nothing to do.
            let _ = tx.send(result);
        })?;
    match rx.recv_timeout(Duration::from_secs(opts.timeout_secs)) {
        Ok(result) => result,
        Err(_) => {
            // Count first, so the worker's decrement can never come before it.
            ABANDONED.fetch_add(1, Ordering::AcqRel);
            if state
                .compare_exchange(RUNNING, GIVEN_UP, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                // Finished in the meantime: its result is in the channel.
                ABANDONED.fetch_sub(1, Ordering::AcqRel);
                if let Ok(result) = rx.try_recv() {
                    return result;
                }
            }
            Err(Error::InvalidInput(format!(
                "pdf parse did not finish within PdfOptions::timeout_secs = {} s",
                opts.timeout_secs
            )))
        }
    }
}

fn panic_error(p: &(dyn core::any::Any + Send)) -> Error {
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| String::from(*s))
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| String::from("unknown panic"));
    Error::InvalidInput(format!("pdf parse error: the parser panicked: {msg}"))
}

fn lopdf_error(context: &str, e: lopdf::Error) -> Error {
    let encrypted = matches!(
        e,
        lopdf::Error::Decryption(_) | lopdf::Error::InvalidPassword
    );
    if encrypted {
        Error::InvalidInput(format!(
            "pdf is encrypted and cannot be opened without its password ({e})"
        ))
    } else {
        Error::InvalidInput(format!("pdf parse error: {context}: {e}"))
    }
}

fn extract(data: &[u8], limit: usize) -> Result<String> {
    let load = LoadOptions {
        max_decompressed_size: Some(limit),
        ..LoadOptions::default()
    };
    let doc = Document::load_mem_with_options(data, load).map_err(|e| lopdf_error("load", e))?;
    if doc.is_encrypted() && doc.encryption_state.is_none() {
        return Err(Error::InvalidInput(String::from(
            "pdf is encrypted and cannot be opened without its password",
        )));
    }
    let pages = doc.get_pages();
    if pages.is_empty() {
        return Err(Error::InvalidInput(String::from(
            "pdf parse error: the document has no pages",
        )));
    }
    let mut text = String::new();
    for (number, id) in pages {
        let t =
            page_text(&doc, id, limit).map_err(|e| lopdf_error(&format!("page {number}"), e))?;
        text.push_str(&t);
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
    }
    Ok(text.replace('\0', "\u{FFFD}"))
}

#[cfg(test)]
mod tests;
