//! The progress bar: input bytes fingerprinted, with rate and ETA, drawn on
//! stderr only when it is a terminal (and not `--quiet`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over a byte total, or nothing.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar of `total` bytes; hidden with `quiet` or when stderr is not a
    /// terminal (indicatif's stderr target checks that).
    pub fn new(total: u64, quiet: bool) -> Self {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        if let Ok(style) = ProgressStyle::with_template(
            "{msg:14} [{bar:20}] {decimal_bytes}/{decimal_total_bytes} {decimal_bytes_per_sec} ETA {eta}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        // Redraw on a timer: the library's run gives no callback, so the
        // position moves from worker threads and the ticker shows it.
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar }
    }

    /// Names the current phase.
    pub fn phase(&self, msg: &'static str) {
        self.bar.set_message(msg);
    }

    /// Adds fingerprinted bytes; when the total is reached the library is
    /// linking clusters, which the message says.
    pub fn advance(&self, bytes: u64) {
        self.bar.inc(bytes);
        if self.bar.length().is_some_and(|l| self.bar.position() >= l) {
            self.bar.set_message("clustering");
        }
    }

    /// Shows a stage of an out-of-core run: its name, and how far it is
    /// out of `total` (bytes or records; `0` when not known).
    pub fn stage(&self, name: &'static str, done: u64, total: u64) {
        self.bar.set_message(name);
        if total > 0 {
            self.bar.set_length(total);
        }
        self.bar.set_position(done);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// A document text handed to the library: the first time the library reads
/// it (to fingerprint it) it counts toward the bar. `AsRef` is the only hook
/// the dedup API offers into its parallel fingerprinting; the flag keeps the
/// second read (exact verification) from counting twice.
pub struct Tracked<'a> {
    text: &'a str,
    bytes: u64,
    seen: AtomicBool,
    progress: &'a Progress,
}

impl<'a> Tracked<'a> {
    /// `text`, worth `bytes` of input.
    pub fn new(text: &'a str, bytes: u64, progress: &'a Progress) -> Self {
        Tracked {
            text,
            bytes,
            seen: AtomicBool::new(false),
            progress,
        }
    }
}

impl AsRef<str> for Tracked<'_> {
    fn as_ref(&self) -> &str {
        if !self.seen.swap(true, Ordering::Relaxed) {
            self.progress.advance(self.bytes);
        }
        self.text
    }
}
