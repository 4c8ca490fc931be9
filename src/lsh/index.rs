//! [`LshIndex`]: storage, insert/remove and queries, for either MinHash
//! scheme.

use alloc::format;
use alloc::vec::Vec;
use core::fmt;

use super::band_keys;
use super::builder::check_banding;
use super::core::Core;
use super::table::MAX_SLOTS;
use crate::classical::minhash::{Classic, Scheme};
use crate::{Error, LshIndexBuilder, MinHashSig, Result};

/// A banded LSH index of [`MinHashSig<H, S>`] signatures under
/// caller-chosen `u64` ids. The scheme `S` defaults to the default scheme
/// ([`Classic`]); [`FastLshIndex`](crate::classical::minhash::FastLshIndex) is the index of
/// the fast scheme's signatures, with the same buckets and queries and
/// files of its own.
///
/// Create it with [`LshIndexBuilder`](crate::LshIndexBuilder) (usually
/// [`for_threshold`](crate::LshIndexBuilder::for_threshold)) or
/// [`with_bands_rows`](Self::with_bands_rows). Queries take `&self`, so a
/// built index can be probed from many threads; writes take `&mut self`.
///
/// ```
/// use txtfp::{
///     Canonicalizer, Fingerprinter, LshIndex, LshIndexBuilder, MinHashFingerprinter,
///     ShingleTokenizer, WordTokenizer,
/// };
/// let fp = MinHashFingerprinter::<_, 128>::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 3, inner: WordTokenizer },
/// );
/// let mut idx: LshIndex<128> = LshIndexBuilder::for_threshold(0.5, 128)?.try_build()?;
/// idx.insert(1, fp.fingerprint("the quick brown fox jumps over the lazy dog at noon")?);
/// idx.insert(2, fp.fingerprint("the quick brown fox jumps over the lazy dog at dusk")?);
/// idx.insert(3, fp.fingerprint("astronomers detect faint cosmic background radiation")?);
/// let probe = fp.fingerprint("the quick brown fox jumps over the lazy dog at noon")?;
/// assert_eq!(idx.query_with_threshold(&probe, 0.99), [1]);
/// assert!(!idx.query(&probe).contains(&3));
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone)]
pub struct LshIndex<const H: usize, S: Scheme = Classic> {
    pub(super) bands: usize,
    pub(super) rows: usize,
    /// Signature of each slot (stale for dead and free slots).
    pub(super) sigs: Vec<MinHashSig<H, S>>,
    /// Ids, slots and one key table per band.
    pub(super) core: Core,
}

impl<const H: usize, S: Scheme> LshIndex<H, S> {
    /// An empty index with `bands` bands of `rows` slots.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] with txtfp 0.3.2's messages:
    /// `"bands and rows must be > 0"`, `"bands * rows overflow: {b} * {r}"` or
    /// `"bands * rows ({b} * {r} = {p}) must equal H = {H}"`.
    ///
    /// ```
    /// use txtfp::LshIndex;
    /// assert!(LshIndex::<128>::with_bands_rows(16, 8).is_ok());
    /// let err = LshIndex::<128>::with_bands_rows(16, 4).err().unwrap();
    /// assert_eq!(err.to_string(), "config error: bands * rows (16 * 4 = 64) must equal H = 128");
    /// ```
    pub fn with_bands_rows(bands: usize, rows: usize) -> Result<Self> {
        check_banding(bands, rows, H)?;
        Ok(Self {
            bands,
            rows,
            sigs: Vec::new(),
            core: Core::new(bands),
        })
    }

    /// An empty index with the banding of `builder` (e.g.
    /// [`LshIndexBuilder::for_recall`]); as
    /// [`LshIndexBuilder::try_build`], for either scheme.
    ///
    /// # Errors
    /// As [`LshIndexBuilder::try_build`].
    ///
    /// ```
    /// use txtfp::LshIndexBuilder;
    /// use txtfp::classical::minhash::FastLshIndex;
    /// let idx = FastLshIndex::<128>::from_builder(LshIndexBuilder::for_recall(0.8, 128, 0.999)?)?;
    /// assert_eq!((idx.bands(), idx.rows()), (32, 4));
    /// assert!(txtfp::classical::minhash::FastLshIndex::<128>::with_bands_rows(32, 3).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn from_builder(builder: LshIndexBuilder) -> Result<Self> {
        Self::with_bands_rows(builder.bands, builder.rows)
    }

    crate::lsh::builder::banding_accessors!();
    crate::lsh::core::core_accessors!("signature");

    /// Stores `sig` under `id`, replacing (and unindexing) any signature
    /// previously stored under the same id. Inserting the same pair again
    /// changes nothing.
    ///
    /// # Panics
    ///
    /// When a new id would make the index hold more than 2³¹ − 1 signatures
    /// (like `Vec::push` on capacity overflow); [`try_insert`](Self::try_insert)
    /// reports that as an error instead.
    #[track_caller]
    pub fn insert(&mut self, id: u64, sig: MinHashSig<H, S>) {
        if let Err(e) = self.try_insert(id, sig) {
            panic!("LshIndex::insert: {e}");
        }
    }

    /// [`insert`](Self::insert) that reports a full index instead of
    /// panicking.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `id` is new and the index already holds
    /// 2³¹ − 1 signatures; the index is then unchanged.
    pub fn try_insert(&mut self, id: u64, sig: MinHashSig<H, S>) -> Result<()> {
        if let Some(slot) = self.core.slot(id) {
            if self.sigs[slot as usize].hashes == sig.hashes {
                // Same buckets; only the non-hash fields may differ.
                self.sigs[slot as usize] = sig;
                return Ok(());
            }
            self.core.kill(id);
        } else if !self.core.fits(1) {
            return Err(full_error(1));
        }
        let slot = self.place(id, sig).ok_or_else(|| full_error(1))?;
        self.core.link(slot, band_keys(&sig.hashes, self.rows));
        self.core.maybe_compact();
        Ok(())
    }

    /// Gives the new `id` a slot holding `sig`, filed in no table yet.
    pub(super) fn place(&mut self, id: u64, sig: MinHashSig<H, S>) -> Option<u32> {
        let (fresh, slot) = self.core.alloc(id)?;
        if fresh {
            self.sigs.push(sig);
        } else {
            self.sigs[slot as usize] = sig;
        }
        Some(slot)
    }

    /// Removes and returns the signature stored under `id`, dropping it from
    /// every bucket.
    pub fn remove(&mut self, id: u64) -> Option<MinHashSig<H, S>> {
        let slot = self.core.kill(id)?;
        let sig = self.sigs[slot as usize];
        self.core.maybe_compact();
        Some(sig)
    }

    /// The signature stored under `id`.
    pub fn get(&self, id: u64) -> Option<&MinHashSig<H, S>> {
        self.core.slot(id).map(|slot| &self.sigs[slot as usize])
    }

    /// Ids of all stored signatures, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.core.id_slots().map(|(id, _)| id)
    }

    /// All `(id, signature)` pairs, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &MinHashSig<H, S>)> + '_ {
        self.core
            .id_slots()
            .map(|(id, slot)| (id, &self.sigs[slot as usize]))
    }

    /// Ids sharing at least one band bucket with `sig`: ascending, without
    /// duplicates, and not checked for similarity (see
    /// [`query_with_threshold`](Self::query_with_threshold)). A stored copy of
    /// `sig` itself is included.
    pub fn query(&self, sig: &MinHashSig<H, S>) -> Vec<u64> {
        let mut slots = self.candidate_slots(sig);
        let mut out: Vec<u64> = slots.drain(..).map(|s| self.core.id(s)).collect();
        out.sort_unstable();
        out
    }

    /// The ids of [`query`](Self::query) whose stored signature has
    /// [`jaccard`](crate::jaccard)`(sig, stored) >= threshold` (the
    /// fraction of equal slots, [`MinHashSig::jaccard`]), ascending.
    ///
    /// `threshold` is clamped to `[0, 1]`. A NaN threshold matches nothing
    /// and returns an empty vector, as in txtfp 0.3.2; use
    /// [`try_query_with_threshold`](Self::try_query_with_threshold) to have it
    /// reported instead.
    pub fn query_with_threshold(&self, sig: &MinHashSig<H, S>, threshold: f32) -> Vec<u64> {
        if threshold.is_nan() {
            return Vec::new();
        }
        let threshold = threshold.clamp(0.0, 1.0);
        let slots = self.candidate_slots(sig);
        let mut out: Vec<u64> = slots
            .into_iter()
            .filter(|&s| sig.jaccard(&self.sigs[s as usize]) >= threshold)
            .map(|s| self.core.id(s))
            .collect();
        out.sort_unstable();
        out
    }

    /// [`query_with_threshold`](Self::query_with_threshold) that rejects a
    /// NaN threshold instead of returning nothing.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `threshold` is NaN. Other out-of-range
    /// values are clamped to `[0, 1]` as by `query_with_threshold`.
    ///
    /// ```
    /// use txtfp::{LshIndex, MinHashSig};
    /// let idx = LshIndex::<4>::with_bands_rows(2, 2)?;
    /// let err = idx.try_query_with_threshold(&MinHashSig::empty(), f32::NAN).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid input: LshIndex::try_query_with_threshold: threshold must be a number in [0.0, 1.0]; got NaN"
    /// );
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn try_query_with_threshold(
        &self,
        sig: &MinHashSig<H, S>,
        threshold: f32,
    ) -> Result<Vec<u64>> {
        if threshold.is_nan() {
            return Err(Error::InvalidInput(format!(
                "LshIndex::try_query_with_threshold: threshold must be a number in [0.0, 1.0]; got {threshold}"
            )));
        }
        Ok(self.query_with_threshold(sig, threshold))
    }

    /// Distinct live slots sharing a band bucket with `sig`, ascending.
    fn candidate_slots(&self, sig: &MinHashSig<H, S>) -> Vec<u32> {
        let mut slots = Vec::with_capacity(2 * self.bands);
        self.core
            .candidates(band_keys(&sig.hashes, self.rows), &mut slots);
        slots.sort_unstable();
        slots.dedup();
        slots
    }

    /// Moves every bucket into the compact sorted layout and frees the slots
    /// of removed signatures. Inserts and removals do this on their own from
    /// time to time; calling it after a burst of updates (and before
    /// measuring [`memory_usage`](Self::memory_usage)) gives the leanest
    /// index. Queries answer the same before and after.
    pub fn compact(&mut self) {
        self.core.compact();
        self.core.shrink_to_fit();
        self.sigs.truncate(self.core.slot_count());
        self.sigs.shrink_to_fit();
    }

    /// Heap bytes the index holds: signatures, ids and band tables (an
    /// estimate within a few percent; hash-map layouts are approximated).
    ///
    /// ```
    /// use txtfp::{LshIndex, MinHashSig};
    /// let mut idx = LshIndex::<128>::with_bands_rows(16, 8)?;
    /// let mut sig = MinHashSig::<128>::empty();
    /// let items: Vec<_> = (0..10_000u64)
    ///     .map(|id| {
    ///         sig.hashes = core::array::from_fn(|i| id.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i as u64);
    ///         (id, sig)
    ///     })
    ///     .collect();
    /// idx.try_extend(items)?;
    /// idx.compact();
    /// let per_doc = idx.memory_usage() / idx.len();
    /// assert!(per_doc <= 1300, "{per_doc} bytes per document");
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn memory_usage(&self) -> usize {
        self.sigs.capacity() * core::mem::size_of::<MinHashSig<H, S>>()
            + self.core.heap_bytes()
            + self.core.tables() * core::mem::size_of::<super::run::Run>()
    }
}

/// The error for a batch of `wanted` new ids that does not fit.
pub(super) fn full_error(wanted: usize) -> Error {
    Error::InvalidInput(format!(
        "LshIndex is full: cannot add {wanted} new id(s) beyond {MAX_SLOTS} signatures"
    ))
}

/// A summary (the signatures themselves would be pages of hex), under the
/// index's name (`LshIndex` or `FastLshIndex`).
impl<const H: usize, S: Scheme> fmt::Debug for LshIndex<H, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let banding = (H, self.bands, self.rows);
        super::builder::debug_banded(f, S::INDEX_NAME, banding, self.len())
    }
}

#[cfg(test)]
mod tests;
