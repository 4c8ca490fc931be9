//! [`MinHashStreaming`]: MinHash of a document that arrives in byte chunks,
//! in either scheme.

use core::fmt;

use super::scheme::{Classic, Scheme, StreamSource};
use super::{DEFAULT_MAX_BUFFER_BYTES, MinHashSig};
use crate::Result;
use crate::classical::StreamingFingerprinter;
use crate::stream::Online;
use crate::tokenize::Tokenizer;

/// The online sketch of scheme `S`'s fingerprinter.
type SketchOf<T, const H: usize, S> =
    <<S as Scheme>::Fingerprinter<T, H> as StreamSource<T, H, S>>::Sketch;

/// MinHash over a byte stream, computed online in the scheme `S` of the
/// wrapped fingerprinter (by default [`Classic`], wrapping a
/// [`MinHashFingerprinter`](super::MinHashFingerprinter); for the fast
/// scheme, [`FastMinHashStreaming`](super::fast::FastMinHashStreaming)):
/// the signature equals
/// [`Fingerprinter::fingerprint`](crate::Fingerprinter::fingerprint) of the
/// concatenated chunks, however the stream is cut (UTF-8 sequences may be
/// split across chunks), while memory stays bounded by the configuration
/// rather than by the document.
///
/// Text is canonicalized, tokenized and sketched as it arrives, in batches
/// that end at *split points* (ASCII whitespace followed by ASCII text).
/// Held between chunks: up to ~8 KiB of raw text plus the stretch since the
/// last split point, and the current shingle window. The cap
/// ([`Self::with_max_bytes`], default [`DEFAULT_MAX_BUFFER_BYTES`]) bounds
/// the longest stretch without a split point, not the document; text with no
/// split points at all (e.g. with no ASCII, or with a user tokenizer that has
/// no streaming plan) is held whole, so there it bounds the document. See
/// [`StreamPlan`](crate::tokenize::StreamPlan) for which tokenizers stream.
///
/// Differences from txtfp 0.3.2, which buffered the whole document:
/// invalid UTF-8 is [`Error::InvalidUtf8`](crate::Error::InvalidUtf8) with
/// the stream offset of the first bad sequence (0.3.2:
/// `InvalidInput("invalid UTF-8 in stream")`); [`Self::buffered_bytes`] counts
/// only the text not yet sketched.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, MinHashStreaming,
///             ShingleTokenizer, StreamingFingerprinter, WordTokenizer};
/// let fp = MinHashFingerprinter::<_, 64>::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 3, inner: WordTokenizer },
/// );
/// let text = "Ünïcödé text, streamed in awkward pieces.";
/// let mut s = MinHashStreaming::new(fp.clone());
/// for piece in text.as_bytes().chunks(3) {
///     s.update(piece)?; // splits "Ü", "ï", … across chunks
/// }
/// assert_eq!(s.finalize()?, fp.fingerprint(text)?);
/// # Ok::<(), txtfp::Error>(())
/// ```
pub struct MinHashStreaming<T: Tokenizer, const H: usize, S: Scheme = Classic> {
    inner: S::Fingerprinter<T, H>,
    pub(crate) online: Online<SketchOf<T, H, S>>,
}

impl<T: Tokenizer, const H: usize, S: Scheme> MinHashStreaming<T, H, S> {
    /// Streams with `inner`'s configuration and the default cap
    /// ([`DEFAULT_MAX_BUFFER_BYTES`], 16 MiB). `inner` is a
    /// [`MinHashFingerprinter`](super::MinHashFingerprinter) or a
    /// [`FastMinHashFingerprinter`](super::fast::FastMinHashFingerprinter);
    /// its type decides the scheme.
    pub fn new<F: StreamSource<T, H, S>>(inner: F) -> Self {
        let inner = inner.into_fingerprinter();
        let online = Online::new(
            inner.stream_sketch(DEFAULT_MAX_BUFFER_BYTES),
            DEFAULT_MAX_BUFFER_BYTES,
        );
        Self { inner, online }
    }

    /// The same stream with another cap: the longest run of text without a
    /// split point (or the whole document, where nothing can be split) that
    /// may be held, in bytes. `update` rejects a chunk that would pass it.
    /// The fast scheme caps the token hashes it keeps for its filling
    /// rounds at the same number of bytes (see
    /// [`FastMinHashStreaming`](super::fast::FastMinHashStreaming)); set it
    /// before the first `update`.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, MinHashFingerprinter, MinHashStreaming,
    ///             StreamingFingerprinter, WordTokenizer};
    /// let fp = MinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer);
    /// let mut s = MinHashStreaming::new(fp).with_max_bytes(8);
    /// assert_eq!(s.max_bytes(), 8);
    /// s.update(b"short words only ")?; // every run between splits is small
    /// assert!(s.update(b"averyveryverylongword").is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.online.engine.set_max_bytes(max_bytes);
        S::Fingerprinter::<T, H>::set_sketch_cap(self.online.sketch_mut(), max_bytes);
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
    pub fn fingerprinter(&self) -> &S::Fingerprinter<T, H> {
        &self.inner
    }
}

impl<T: Tokenizer, const H: usize, S: Scheme> StreamingFingerprinter for MinHashStreaming<T, H, S> {
    type Output = MinHashSig<H, S>;

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
        self.online.update(
            self.inner.stream_canonicalizer(),
            self.inner.stream_tokenizer(),
            chunk,
        )
    }

    /// The signature of everything fed.
    ///
    /// # Errors
    /// `InvalidInput("trailing incomplete UTF-8")` when the stream ends
    /// inside a UTF-8 sequence; `InvalidInput("empty document")` when
    /// nothing was fed or the text has no token, as offline. The fast
    /// scheme also fails with `InvalidInput` when the token hashes its
    /// filling rounds need passed the cap (see
    /// [`FastMinHashStreaming`](super::fast::FastMinHashStreaming)).
    fn finalize(self) -> Result<MinHashSig<H, S>> {
        self.online.finalize(
            self.inner.stream_canonicalizer(),
            self.inner.stream_tokenizer(),
        )
    }

    /// Starts over with an empty stream; buffers and the cap are kept.
    fn reset(&mut self) {
        let sketch = self.inner.restart_sketch(self.online.sketch());
        self.online.reset(sketch);
    }
}

impl<T: Tokenizer, const H: usize, S: Scheme> fmt::Debug for MinHashStreaming<T, H, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct(S::STREAMING_NAME);
        d.field("tokenizer", &self.inner.stream_tokenizer().name())
            .field("slots", &H)
            .field("max_bytes", &self.max_bytes())
            .field("buffered_bytes", &self.buffered_bytes());
        if let Some(kept) = S::Fingerprinter::<T, H>::kept_hashes(self.online.sketch()) {
            d.field("kept_hashes", &kept);
        }
        d.field("bytes_seen", &self.bytes_seen()).finish()
    }
}

/// Lets a reader be copied straight in: `std::io::copy(&mut file, &mut s)`.
/// Each `write` is one [`StreamingFingerprinter::update`], accepted whole or
/// rejected; invalid UTF-8 fails with [`std::io::ErrorKind::InvalidData`],
/// other errors with `InvalidInput`, the [`crate::Error`] inside.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, MinHashStreaming,
///             StreamingFingerprinter, WordTokenizer};
/// let fp = MinHashFingerprinter::<_, 32>::new(Canonicalizer::default(), WordTokenizer);
/// let mut s = MinHashStreaming::new(fp.clone());
/// std::io::copy(&mut &b"read from anywhere"[..], &mut s).unwrap();
/// assert_eq!(s.finalize()?, fp.fingerprint("read from anywhere")?);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[cfg(feature = "std")]
impl<T: Tokenizer, const H: usize, S: Scheme> std::io::Write for MinHashStreaming<T, H, S> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf).map_err(crate::stream::io_error)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
