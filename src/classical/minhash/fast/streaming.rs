//! The fast scheme's side of [`FastMinHashStreaming`](super::FastMinHashStreaming)
//! (a [`MinHashStreaming`] of scheme [`Fast`]): the online sketch that keeps
//! token hashes only while the filling rounds may need them.

use alloc::format;
use alloc::vec::Vec;

use super::roll::Roller;
use super::sketch::{EMPTY, FastSketch, place};
use super::{FastMinHashFingerprinter, FastMinHashSig};
use crate::canonical::Canonicalizer;
use crate::classical::TokenSketch;
use crate::classical::minhash::{Fast, MinHashStreaming, StreamSource};
use crate::tokenize::Tokenizer;
use crate::{Error, Result};

impl<T: Tokenizer, const H: usize> MinHashStreaming<T, H, Fast> {
    /// Token hashes held for the filling rounds (0 once every slot has been
    /// reached).
    ///
    /// ```
    /// use txtfp::{Canonicalizer, StreamingFingerprinter, WordTokenizer};
    /// use txtfp::classical::minhash::{FastMinHashFingerprinter, FastMinHashStreaming};
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
}

impl<T: Tokenizer, const H: usize> StreamSource<T, H, Fast> for FastMinHashFingerprinter<T, H> {
    type Sketch = StreamSketch<H>;

    fn into_fingerprinter(self) -> Self {
        self
    }

    fn stream_canonicalizer(&self) -> &Canonicalizer {
        self.canonicalizer()
    }

    fn stream_tokenizer(&self) -> &T {
        self.tokenizer()
    }

    fn stream_sketch(&self, max_bytes: usize) -> StreamSketch<H> {
        StreamSketch::new(self.seed(), max_bytes)
    }

    fn set_sketch_cap(sketch: &mut StreamSketch<H>, max_bytes: usize) {
        sketch.max_kept = max_bytes / 8;
    }

    fn restart_sketch(&self, old: &StreamSketch<H>) -> StreamSketch<H> {
        let mut sketch = StreamSketch::new(self.seed(), 0);
        sketch.max_kept = old.max_kept;
        sketch
    }

    fn kept_hashes(sketch: &StreamSketch<H>) -> Option<usize> {
        Some(sketch.inner.elems.len())
    }
}

/// The first batch of kept hashes after which repeats are dropped; later
/// ones come each time the kept list has doubled.
const FIRST_DEDUP: usize = 1024;

/// The streaming sketch: round 0 as tokens arrive, the token hashes kept
/// only while a slot is empty.
pub struct StreamSketch<const H: usize> {
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
mod tests;
