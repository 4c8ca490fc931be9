//! [`TlshTextStreaming`]: the TLSH digest
//! [`Fingerprinter::fingerprint`](crate::Fingerprinter::fingerprint) gives,
//! of text arriving in chunks.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use core::fmt;

use super::histogram::Histogram;
use super::{TLSH_MAX_INPUT_BYTES, TlshFingerprint, build, check_max_len};
use crate::Result;
use crate::canonical::Canonicalizer;
use crate::classical::{StreamingFingerprinter, TokenSketch};
use crate::stream::{DEFAULT_MAX_BYTES, Online};
use crate::tokenize::{StreamPlan, TokenStream, Tokenizer};

/// TLSH 128/1 of the canonical form of a text stream: the digest equals
/// [`TlshFingerprinter::fingerprint`](super::TlshFingerprinter) of the
/// concatenated chunks (the canonical text's bytes), however the stream is
/// cut, UTF-8 sequences included.
///
/// The text is canonicalized as it arrives, in pieces cut at *split points*
/// (ASCII whitespace followed by ASCII text), where canonicalizing the two
/// sides apart gives the canonical form of the whole; see
/// [`MinHashStreaming`](crate::MinHashStreaming). Held between chunks: about
/// 8 KiB of raw text plus the stretch since the last split point, and the
/// 256-counter histogram. The cap ([`Self::with_max_bytes`], default 16 MiB)
/// bounds that stretch: text with no split points for that long (unspaced
/// CJK, a run of NUL bytes) is rejected by `update` rather than held.
///
/// Errors are those of the other streams (invalid UTF-8 with its stream
/// offset, the cap, a trailing incomplete sequence) and, at
/// [`finalize`](StreamingFingerprinter::finalize), those of the offline
/// fingerprinter: `"empty document"`, too short, too little entropy. When
/// the canonical text passes [`TLSH_MAX_INPUT_BYTES`] the message counts the
/// bytes up to the piece that passed it, not the whole text.
///
/// ```
/// use txtfp::{Fingerprinter, StreamingFingerprinter, TlshFingerprinter};
/// let fp = TlshFingerprinter::default();
/// let text = "Ünïcödé TEXT, streamed in awkward pieces, digested after canonicalization.";
/// let mut s = fp.streaming();
/// for piece in text.as_bytes().chunks(3) {
///     s.update(piece)?; // splits "Ü", "ï", … across chunks
/// }
/// assert_eq!(s.finalize()?, fp.fingerprint(text)?);
/// # Ok::<(), txtfp::Error>(())
/// ```
pub struct TlshTextStreaming {
    canon: Canonicalizer,
    online: Online<CanonicalBytes>,
}

impl TlshTextStreaming {
    /// A stream canonicalizing with `canon`, with the default cap (16 MiB).
    pub fn new(canon: Canonicalizer) -> Self {
        Self {
            canon,
            online: Online::new(CanonicalBytes::default(), DEFAULT_MAX_BYTES),
        }
    }

    /// The same stream with another cap: the longest run of text without a
    /// split point that may be held, in bytes. `update` rejects a chunk that
    /// would pass it. Set it before the first `update`.
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.online.engine.set_max_bytes(max_bytes);
        self
    }

    /// The cap set by [`Self::with_max_bytes`].
    pub fn max_bytes(&self) -> usize {
        self.online.engine.max_bytes()
    }

    /// Bytes of text accepted but not yet canonicalized and digested.
    pub fn buffered_bytes(&self) -> usize {
        self.online.engine.pending_len()
    }

    /// Total bytes accepted since creation or the last reset (rejected
    /// chunks count nothing).
    pub fn bytes_seen(&self) -> u64 {
        self.online.engine.bytes_seen()
    }
}

impl StreamingFingerprinter for TlshTextStreaming {
    type Output = TlshFingerprint;

    /// Feeds the next chunk, accepted whole or not at all.
    ///
    /// # Errors
    /// The canonicalizer's configuration errors on the first non-empty
    /// chunk; [`Error::InvalidUtf8`](crate::Error::InvalidUtf8) `{ offset }` (stream offset);
    /// `InvalidInput` when the cap would be passed.
    fn update(&mut self, chunk: &[u8]) -> Result<()> {
        self.online.update(&self.canon, &WholeText, chunk)
    }

    /// The digest of the canonical text.
    ///
    /// # Errors
    /// `InvalidInput`: `"trailing incomplete UTF-8"`, `"empty document"`
    /// when nothing was fed, then the offline fingerprinter's errors (too
    /// short, too little entropy, too long).
    fn finalize(self) -> Result<TlshFingerprint> {
        self.online.finalize(&self.canon, &WholeText)
    }

    /// Starts over with an empty stream; buffers and the cap are kept.
    fn reset(&mut self) {
        self.online.reset(CanonicalBytes::default());
    }
}

impl fmt::Debug for TlshTextStreaming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlshTextStreaming")
            .field("config", &self.canon.config_string())
            .field("max_bytes", &self.max_bytes())
            .field("buffered_bytes", &self.buffered_bytes())
            .field("bytes_seen", &self.bytes_seen())
            .finish()
    }
}

/// `write` feeds the bytes; invalid UTF-8 fails with
/// [`std::io::ErrorKind::InvalidData`], other errors with `InvalidInput`,
/// the [`crate::Error`] inside.
#[cfg(feature = "std")]
impl std::io::Write for TlshTextStreaming {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf).map_err(crate::stream::io_error)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The histogram of the canonical pieces the engine hands on, in order.
#[derive(Default)]
struct CanonicalBytes {
    hist: Histogram,
    /// Canonical bytes reached when a piece would pass TLSH's length limit;
    /// nothing is counted after it.
    too_long: Option<u64>,
}

impl TokenSketch for CanonicalBytes {
    type Output = TlshFingerprint;

    fn push(&mut self, piece: &str) {
        if self.too_long.is_some() {
            return;
        }
        let total = self.hist.len.saturating_add(piece.len() as u64);
        if total > TLSH_MAX_INPUT_BYTES {
            self.too_long = Some(total);
        } else {
            self.hist.update(piece.as_bytes());
        }
    }

    fn finish(self) -> Result<TlshFingerprint> {
        if let Some(n) = self.too_long {
            check_max_len(n)?;
        }
        build(&self.hist)
    }
}

/// A tokenizer whose one token is its whole input (none for empty input):
/// the engine then hands on each canonicalized piece as it is. Declared
/// [`StreamPlan::Splittable`] because TLSH needs only the concatenation of
/// the pieces to be the canonical text, which cutting at split points
/// guarantees; the token boundaries themselves mean nothing here.
struct WholeText;

impl Tokenizer for WholeText {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        TokenStream::Borrowed(Box::new((!input.is_empty()).then_some(input).into_iter()))
    }

    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed("whole-text")
    }

    fn for_each_token(&self, input: &str, f: &mut dyn FnMut(&str)) {
        if !input.is_empty() {
            f(input);
        }
    }

    fn stream_plan(&self) -> StreamPlan<'_> {
        StreamPlan::Splittable
    }
}
