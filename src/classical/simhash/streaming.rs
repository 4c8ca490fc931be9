//! [`SimHashStreaming`]: SimHash of a document that arrives in byte chunks.

use core::fmt;

use super::{SimHash64, SimHashFingerprinter, SimHashSketch};
use crate::Result;
use crate::classical::StreamingFingerprinter;
use crate::stream::{DEFAULT_MAX_BYTES, Online};
use crate::tokenize::Tokenizer;

/// SimHash over a byte stream, computed online: the signature equals
/// [`Fingerprinter::fingerprint`](crate::Fingerprinter::fingerprint) of the
/// concatenated chunks, however the stream is cut (UTF-8 sequences may be
/// split across chunks), while memory stays bounded by the configuration
/// rather than by the document.
///
/// Text is canonicalized, tokenized and sketched as it arrives, in batches
/// that end at *split points* (ASCII whitespace followed by ASCII text).
/// Held between chunks: up to ~8 KiB of raw text plus the stretch since the
/// last split point, and the current shingle window. The cap
/// ([`Self::with_max_bytes`], default 16 MiB as for MinHash) bounds
/// the longest stretch without a split point, not the document; text with no
/// split points at all (e.g. with no ASCII, or with a user tokenizer that has
/// no streaming plan) is held whole, so there it bounds the document. See
/// [`StreamPlan`](crate::tokenize::StreamPlan) for which tokenizers stream.
///
/// [`Weighting::Tf`](super::Weighting::Tf) needs nothing per token. The
/// per-distinct-token weightings ([`Weighting::Uniform`](super::Weighting::Uniform),
/// [`Weighting::IdfWeighted`](super::Weighting::IdfWeighted)) must know every
/// distinct token of the document before voting, so their sketch keeps one
/// 128-bit hash and a count per distinct token: memory grows with the
/// vocabulary of the document (not with its length, and never with the text
/// of the tokens).
///
/// Differences from txtfp 0.3.2, which buffered the whole document:
/// invalid UTF-8 is [`Error::InvalidUtf8`](crate::Error::InvalidUtf8) with
/// the stream offset of the first bad sequence (0.3.2:
/// `InvalidInput("invalid UTF-8 in stream")`); [`Self::buffered_bytes`] counts
/// only the text not yet sketched.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, SimHashFingerprinter, SimHashStreaming,
///             ShingleTokenizer, StreamingFingerprinter, WordTokenizer};
/// let fp = SimHashFingerprinter::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 3, inner: WordTokenizer },
/// );
/// let text = "Ünïcödé text, streamed in awkward pieces.";
/// let mut s = SimHashStreaming::new(fp.clone());
/// for piece in text.as_bytes().chunks(3) {
///     s.update(piece)?; // splits "Ü", "ï", … across chunks
/// }
/// assert_eq!(s.finalize()?, fp.fingerprint(text)?);
/// # Ok::<(), txtfp::Error>(())
/// ```
pub struct SimHashStreaming<T: Tokenizer> {
    inner: SimHashFingerprinter<T>,
    pub(crate) online: Online<SimHashSketch>,
}

impl<T: Tokenizer> SimHashStreaming<T> {
    /// Streams with `inner`'s configuration and the default cap
    /// (16 MiB, as for `MinHashStreaming`).
    pub fn new(inner: SimHashFingerprinter<T>) -> Self {
        let online = Online::new(inner.sketch(), DEFAULT_MAX_BYTES);
        Self { inner, online }
    }

    /// The same stream with another cap: the longest run of text without a
    /// split point (or the whole document, where nothing can be split) that
    /// may be held, in bytes. `update` rejects a chunk that would pass it.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, SimHashFingerprinter, SimHashStreaming,
    ///             StreamingFingerprinter, WordTokenizer};
    /// let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
    /// let mut s = SimHashStreaming::new(fp).with_max_bytes(8);
    /// assert_eq!(s.max_bytes(), 8);
    /// s.update(b"short words only ")?; // every run between splits is small
    /// assert!(s.update(b"averyveryverylongword").is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.online.engine.set_max_bytes(max_bytes);
        self
    }

    /// The cap set by [`Self::with_max_bytes`].
    pub fn max_bytes(&self) -> usize {
        self.online.engine.max_bytes()
    }

    /// Bytes of text accepted but not yet sketched (an unfinished UTF-8
    /// sequence at the end of the last chunk is not counted). 0.3.2 counted
    /// every byte accepted, since it sketched nothing before `finalize`.
    pub fn buffered_bytes(&self) -> usize {
        self.online.engine.pending_len()
    }

    /// Total bytes accepted since creation or the last reset (rejected
    /// chunks count nothing).
    pub fn bytes_seen(&self) -> u64 {
        self.online.engine.bytes_seen()
    }

    /// The wrapped fingerprinter.
    pub fn fingerprinter(&self) -> &SimHashFingerprinter<T> {
        &self.inner
    }
}

impl<T: Tokenizer> StreamingFingerprinter for SimHashStreaming<T> {
    type Output = SimHash64;

    /// Feeds the next chunk. A chunk is accepted whole or not at all: on
    /// error the stream is as before the call, so the valid start of a chunk
    /// with a bad byte is dropped too (as in 0.3.2); to keep it, feed
    /// `chunk[..(offset - bytes_seen()) as usize]` again when `offset >=
    /// bytes_seen()` (a smaller offset means the bad sequence began in an
    /// earlier chunk). Empty chunks always succeed.
    ///
    /// # Errors
    /// - the configuration's errors (as the offline path), on the first
    ///   non-empty chunk;
    /// - [`Error::InvalidUtf8`](crate::Error::InvalidUtf8) `{ offset }` for a
    ///   byte sequence that is not UTF-8, `offset` counted from the start of
    ///   the stream (it may lie in an earlier chunk, when the sequence began
    ///   there);
    /// - [`Error::InvalidInput`](crate::Error::InvalidInput) when the cap
    ///   would be passed (the message names both numbers).
    fn update(&mut self, chunk: &[u8]) -> Result<()> {
        self.online
            .update(self.inner.canonicalizer(), self.inner.tokenizer(), chunk)
    }

    /// The signature of everything fed.
    ///
    /// # Errors
    /// `InvalidInput("trailing incomplete UTF-8")` when the stream ends
    /// inside a UTF-8 sequence; `InvalidInput("empty document")` when
    /// nothing was fed or the text has no token, as offline.
    fn finalize(self) -> Result<SimHash64> {
        self.online
            .finalize(self.inner.canonicalizer(), self.inner.tokenizer())
    }

    /// Starts over with an empty stream; buffers and the cap are kept.
    fn reset(&mut self) {
        self.online.reset(self.inner.sketch());
    }
}

impl<T: Tokenizer> fmt::Debug for SimHashStreaming<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimHashStreaming")
            .field("tokenizer", &self.inner.tokenizer().name())
            .field("weighting", &self.inner.weighting().as_str())
            .field("max_bytes", &self.max_bytes())
            .field("buffered_bytes", &self.buffered_bytes())
            .field("bytes_seen", &self.bytes_seen())
            .finish()
    }
}

/// Lets a reader be copied straight in: `std::io::copy(&mut file, &mut s)`.
/// Each `write` is one [`StreamingFingerprinter::update`], accepted whole or
/// rejected; invalid UTF-8 fails with [`std::io::ErrorKind::InvalidData`],
/// other errors with `InvalidInput`, the [`crate::Error`] inside.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, SimHashFingerprinter, SimHashStreaming,
///             StreamingFingerprinter, WordTokenizer};
/// let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
/// let mut s = SimHashStreaming::new(fp.clone());
/// std::io::copy(&mut &b"read from anywhere"[..], &mut s).unwrap();
/// assert_eq!(s.finalize()?, fp.fingerprint("read from anywhere")?);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[cfg(feature = "std")]
impl<T: Tokenizer> std::io::Write for SimHashStreaming<T> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf).map_err(crate::stream::io_error)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
