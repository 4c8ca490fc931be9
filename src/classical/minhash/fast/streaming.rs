//! [`FastMinHashStreaming`]: the fast scheme over a document that arrives
//! in byte chunks.

use alloc::format;
use alloc::vec::Vec;
use core::fmt;

use super::roll::Roller;
use super::sketch::{EMPTY, FastSketch, place};
use super::{FastMinHashFingerprinter, FastMinHashSig};
use crate::classical::minhash::DEFAULT_MAX_BUFFER_BYTES;
use crate::classical::{StreamingFingerprinter, TokenSketch};
use crate::stream::Online;
use crate::tokenize::Tokenizer;
use crate::{Error, Result};

/// The fast scheme over a byte stream, computed online: the signature
/// equals [`Fingerprinter::fingerprint`](crate::Fingerprinter::fingerprint)
/// of the concatenated chunks, however the stream is cut, with the same
/// engine, split points, cap and errors as
/// [`MinHashStreaming`](crate::MinHashStreaming).
///
/// **Memory.** The filling rounds revisit the token hashes, but only while
/// round 0 has left a slot empty, and once every slot has a value no later
/// round can change it. So the stream keeps token hashes (8 bytes each,
/// repeats dropped) only until every slot is reached, and then frees them:
/// with 128 slots, a text of a thousand distinct shingles or more almost
/// always holds none (about `H·ln H` reach every slot). The ones
/// kept are capped at `max_bytes` ([`Self::with_max_bytes`]) as well. A
/// stream that passes that cap and still leaves a slot empty at the end
/// (many distinct tokens that all miss one slot: hostile input, or a cap
/// far below the document) fails at [`finalize`](Self::finalize) with
/// [`Error::InvalidInput`]; `update` is not affected.
///
/// ```
/// use txtfp::{Canonicalizer, FastMinHashFingerprinter, FastMinHashStreaming, Fingerprinter,
///             ShingleTokenizer, StreamingFingerprinter, WordTokenizer};
/// let fp = FastMinHashFingerprinter::<_, 64>::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 3, inner: WordTokenizer },
/// );
/// let text = "Ünïcödé text, streamed in awkward pieces, hashed the fast way.";
/// let mut s = FastMinHashStreaming::new(fp.clone());
/// for piece in text.as_bytes().chunks(5) {
///     s.update(piece)?;
/// }
/// assert_eq!(s.finalize()?, fp.fingerprint(text)?);
/// # Ok::<(), txtfp::Error>(())
/// ```
pub struct FastMinHashStreaming<T: Tokenizer, const H: usize> {
    inner: FastMinHashFingerprinter<T, H>,
    pub(crate) online: Online<StreamSketch<H>>,
}

impl<T: Tokenizer, const H: usize> FastMinHashStreaming<T, H> {
    /// Streams with `inner`'s configuration and the default cap
    /// ([`DEFAULT_MAX_BUFFER_BYTES`], 16 MiB).
    pub fn new(inner: FastMinHashFingerprinter<T, H>) -> Self {
        let sketch = StreamSketch::new(inner.seed(), DEFAULT_MAX_BUFFER_BYTES);
        Self {
            inner,
            online: Online::new(sketch, DEFAULT_MAX_BUFFER_BYTES),
        }
    }

    /// The same stream with another cap, in bytes: on the longest run of
    /// text without a split point, as for
    /// [`MinHashStreaming::with_max_bytes`](crate::MinHashStreaming::with_max_bytes),
    /// and on the token hashes kept for the filling rounds (see the type's
    /// documentation). Set it before the first `update`: the token hashes
    /// already kept are not dropped.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, FastMinHashFingerprinter, FastMinHashStreaming,
    ///             StreamingFingerprinter, WordTokenizer};
    /// let fp = FastMinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer);
    /// let mut s = FastMinHashStreaming::new(fp).with_max_bytes(8);
    /// assert_eq!(s.max_bytes(), 8);
    /// s.update(b"short words only ")?;
    /// assert!(s.update(b"averyveryverylongword").is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.online.engine.set_max_bytes(max_bytes);
        self.online.sketch_mut().max_kept = max_bytes / 8;
        self
    }

    /// The cap set by [`Self::with_max_bytes`].
    pub fn max_bytes(&self) -> usize {
        self.online.engine.max_bytes()
    }

    /// Bytes of text accepted but not yet sketched, as
    /// [`MinHashStreaming::buffered_bytes`](crate::MinHashStreaming::buffered_bytes).
    pub fn buffered_bytes(&self) -> usize {
        self.online.engine.pending_len()
    }

    /// Token hashes held for the filling rounds (0 once every slot has been
    /// reached).
    ///
    /// ```
    /// use txtfp::{Canonicalizer, FastMinHashFingerprinter, FastMinHashStreaming,
    ///             StreamingFingerprinter, WordTokenizer};
    /// let fp = FastMinHashFingerprinter::<_, 4>::new(Canonicalizer::default(), WordTokenizer);
    /// let mut s = FastMinHashStreaming::new(fp);
    /// let words: String = (0..200).map(|i| format!("w{i} ")).collect();
    /// s.update(words.as_bytes())?;
    /// assert_eq!(s.kept_hashes(), 0); // 200 words reach all 4 slots
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn kept_hashes(&self) -> usize {
        self.online.sketch().inner.elems.len()
    }

    /// Total bytes accepted since creation or the last reset.
    pub fn bytes_seen(&self) -> u64 {
        self.online.engine.bytes_seen()
    }

    /// The wrapped fingerprinter.
    pub fn fingerprinter(&self) -> &FastMinHashFingerprinter<T, H> {
        &self.inner
    }
}

impl<T: Tokenizer, const H: usize> StreamingFingerprinter for FastMinHashStreaming<T, H> {
    type Output = FastMinHashSig<H>;

    /// Feeds the next chunk, accepted whole or not at all, with the errors
    /// of [`MinHashStreaming::update`](crate::MinHashStreaming): the
    /// configuration's, [`Error::InvalidUtf8`], and the text cap.
    fn update(&mut self, chunk: &[u8]) -> Result<()> {
        self.online
            .update(self.inner.canonicalizer(), self.inner.tokenizer(), chunk)
    }

    /// The signature of everything fed.
    ///
    /// # Errors
    /// As [`MinHashStreaming::finalize`](crate::MinHashStreaming): trailing
    /// incomplete UTF-8, then "empty document"; and
    /// [`Error::InvalidInput`] when the token hashes the filling rounds
    /// need passed the cap (see the type's documentation).
    fn finalize(self) -> Result<FastMinHashSig<H>> {
        self.online
            .finalize(self.inner.canonicalizer(), self.inner.tokenizer())
    }

    /// Starts over with an empty stream; the cap is kept.
    fn reset(&mut self) {
        let max_kept = self.online.sketch().max_kept;
        let mut sketch = StreamSketch::new(self.inner.seed(), 0);
        sketch.max_kept = max_kept;
        self.online.reset(sketch);
    }
}

impl<T: Tokenizer, const H: usize> fmt::Debug for FastMinHashStreaming<T, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FastMinHashStreaming")
            .field("tokenizer", &self.inner.tokenizer().name())
            .field("slots", &H)
            .field("max_bytes", &self.max_bytes())
            .field("buffered_bytes", &self.buffered_bytes())
            .field("kept_hashes", &self.kept_hashes())
            .field("bytes_seen", &self.bytes_seen())
            .finish()
    }
}

/// Lets a reader be copied straight in, as for
/// [`MinHashStreaming`](crate::MinHashStreaming): each `write` is one
/// `update`; invalid UTF-8 is `InvalidData`, other errors `InvalidInput`.
///
/// ```
/// use txtfp::{Canonicalizer, FastMinHashFingerprinter, FastMinHashStreaming, Fingerprinter,
///             StreamingFingerprinter, WordTokenizer};
/// let fp = FastMinHashFingerprinter::<_, 32>::new(Canonicalizer::default(), WordTokenizer);
/// let mut s = FastMinHashStreaming::new(fp.clone());
/// std::io::copy(&mut &b"read from anywhere"[..], &mut s).unwrap();
/// assert_eq!(s.finalize()?, fp.fingerprint("read from anywhere")?);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[cfg(feature = "std")]
impl<T: Tokenizer, const H: usize> std::io::Write for FastMinHashStreaming<T, H> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf).map_err(crate::stream::io_error)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The first batch of kept hashes after which repeats are dropped; later
/// ones come each time the kept list has doubled.
const FIRST_DEDUP: usize = 1024;

/// The streaming sketch: round 0 as tokens arrive, the token hashes kept
/// only while a slot is empty.
pub(crate) struct StreamSketch<const H: usize> {
    pub(super) inner: FastSketch<H>,
    /// Hashes a shingle from its predecessor's piece hashes.
    roller: Roller,
    /// Slots round 0 has not reached yet.
    empty: usize,
    /// Any token seen (the kept hashes may have been freed).
    any: bool,
    /// Most token hashes kept (`max_bytes / 8`, so at most `max_bytes`
    /// bytes); see [`Self::keep`].
    pub(super) max_kept: usize,
    /// Kept hashes at which repeats are next dropped.
    next_dedup: usize,
    /// The cap was passed: the hashes were dropped, and the rounds cannot
    /// run if a slot is still empty at the end.
    overflow: bool,
}

impl<const H: usize> StreamSketch<H> {
    pub(super) fn new(seed: u64, max_bytes: usize) -> Self {
        StreamSketch {
            inner: FastSketch::new(seed, 0),
            roller: Roller::default(),
            empty: H,
            any: false,
            max_kept: max_bytes / 8,
            next_dedup: FIRST_DEDUP,
            overflow: false,
        }
    }

    /// Keeps `x` for the filling rounds. Repeats are dropped each time the
    /// list has doubled, and when it reaches the cap; if more than half the
    /// cap is left after that, every kept hash is dropped (so a list at the
    /// cap is sorted at most once per half a cap of new tokens).
    fn keep(&mut self, x: u64) {
        let elems = &mut self.inner.elems;
        elems.push(x);
        if elems.len() < self.next_dedup.min(self.max_kept) {
            return;
        }
        elems.sort_unstable();
        elems.dedup();
        if elems.len() > self.max_kept / 2 {
            self.overflow = true;
            *elems = Vec::new();
        } else {
            self.next_dedup = (2 * elems.len()).max(FIRST_DEDUP);
        }
    }
}

impl<const H: usize> TokenSketch for StreamSketch<H> {
    type Output = FastMinHashSig<H>;

    fn push(&mut self, token: &str) {
        let x = self.roller.hash(token, &self.inner.keys);
        self.any = true;
        if self.empty == 0 {
            return place(&mut self.inner.bins, x);
        }
        if H > 0 && self.inner.bins[super::hash::bin_of(x, H)] == EMPTY {
            self.empty -= 1;
        }
        place(&mut self.inner.bins, x);
        if self.empty == 0 {
            // No round after 0 will run: the hashes are not needed again.
            self.inner.elems = Vec::new();
        } else if !self.overflow {
            self.keep(x);
        }
    }

    fn finish(self) -> Result<FastMinHashSig<H>> {
        if !self.any {
            return Err(Error::InvalidInput("empty document".into()));
        }
        let hashes = if self.empty == 0 {
            self.inner.bins
        } else if self.overflow {
            return Err(Error::InvalidInput(format!(
                "fast MinHash stream: {} of {H} slots are still empty and the token \
                 hashes their filling rounds need passed the cap of {} hashes \
                 (max_bytes / 8)",
                self.empty, self.max_kept
            )));
        } else {
            self.inner
                .finish()
                .ok_or_else(|| Error::InvalidInput("empty document".into()))?
        };
        Ok(FastMinHashSig {
            hashes,
            ..FastMinHashSig::empty()
        })
    }
}

#[cfg(test)]
#[path = "streaming_tests.rs"]
mod tests;
