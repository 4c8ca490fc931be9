//! [`LshIndex`]: storage, insert/remove and queries.

use alloc::format;
use alloc::vec::Vec;
use core::fmt;

use hashbrown::HashMap;

use super::band_keys;
use super::builder::check_banding;
use super::table::{BandTable, MAX_SLOTS};
use crate::{Error, MinHashSig, Result, jaccard};

/// A banded LSH index of [`MinHashSig<H>`] signatures under caller-chosen
/// `u64` ids.
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
pub struct LshIndex<const H: usize> {
    pub(super) bands: usize,
    pub(super) rows: usize,
    /// Slab of signatures; entries of free slots are stale.
    pub(super) sigs: Vec<MinHashSig<H>>,
    /// Id of each slot (stale for free slots).
    pub(super) ids: Vec<u64>,
    pub(super) slot_of: HashMap<u64, u32>,
    /// Free slots, reused last-freed first.
    pub(super) free: Vec<u32>,
    /// One table per band.
    pub(super) tables: Vec<BandTable>,
}

impl<const H: usize> LshIndex<H> {
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
            ids: Vec::new(),
            slot_of: HashMap::new(),
            free: Vec::new(),
            tables: (0..bands).map(|_| BandTable::default()).collect(),
        })
    }

    /// Number of bands.
    pub fn bands(&self) -> usize {
        self.bands
    }

    /// Signature slots per band.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of stored signatures.
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    /// Whether the index holds no signature.
    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }

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
    pub fn insert(&mut self, id: u64, sig: MinHashSig<H>) {
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
    pub fn try_insert(&mut self, id: u64, sig: MinHashSig<H>) -> Result<()> {
        if let Some(&slot) = self.slot_of.get(&id) {
            if self.sigs[slot as usize].hashes != sig.hashes {
                self.unlink(slot);
                self.sigs[slot as usize] = sig;
                self.link(slot);
            } else {
                // Same buckets; only the non-hash fields may differ.
                self.sigs[slot as usize] = sig;
            }
            return Ok(());
        }
        let slot = self.alloc_slot(id, sig).ok_or_else(|| full_error(1))?;
        self.slot_of.insert(id, slot);
        self.link(slot);
        Ok(())
    }

    /// Removes and returns the signature stored under `id`, dropping it from
    /// every bucket.
    pub fn remove(&mut self, id: u64) -> Option<MinHashSig<H>> {
        let slot = self.slot_of.remove(&id)?;
        self.unlink(slot);
        self.free.push(slot);
        Some(self.sigs[slot as usize])
    }

    /// The signature stored under `id`.
    pub fn get(&self, id: u64) -> Option<&MinHashSig<H>> {
        self.slot_of.get(&id).map(|&slot| &self.sigs[slot as usize])
    }

    /// Ids of all stored signatures, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.slot_of.keys().copied()
    }

    /// All `(id, signature)` pairs, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &MinHashSig<H>)> + '_ {
        self.slot_of
            .iter()
            .map(|(&id, &slot)| (id, &self.sigs[slot as usize]))
    }

    /// Ids sharing at least one band bucket with `sig`: ascending, without
    /// duplicates, and not checked for similarity (see
    /// [`query_with_threshold`](Self::query_with_threshold)). A stored copy of
    /// `sig` itself is included.
    pub fn query(&self, sig: &MinHashSig<H>) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.candidate_count(sig));
        for (table, key) in self.tables.iter().zip(band_keys(&sig.hashes, self.rows)) {
            out.extend(table.get(key).iter().map(|&slot| self.ids[slot as usize]));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The ids of [`query`](Self::query) whose stored signature has
    /// [`jaccard`]`(sig, stored) >= threshold`, ascending.
    ///
    /// `threshold` is clamped to `[0, 1]`. A NaN threshold matches nothing
    /// and returns an empty vector, as in txtfp 0.3.2; use
    /// [`try_query_with_threshold`](Self::try_query_with_threshold) to have it
    /// reported instead.
    pub fn query_with_threshold(&self, sig: &MinHashSig<H>, threshold: f32) -> Vec<u64> {
        if threshold.is_nan() {
            return Vec::new();
        }
        let threshold = threshold.clamp(0.0, 1.0);
        // Gather slots (not ids) so the similarity check reads the slab
        // directly; the same buffer then becomes the id list.
        let mut out: Vec<u64> = Vec::with_capacity(self.candidate_count(sig));
        for (table, key) in self.tables.iter().zip(band_keys(&sig.hashes, self.rows)) {
            out.extend(table.get(key).iter().map(|&slot| u64::from(slot)));
        }
        out.sort_unstable();
        out.dedup();
        out.retain(|&slot| jaccard(sig, &self.sigs[slot as usize]) >= threshold);
        for entry in &mut out {
            *entry = self.ids[*entry as usize];
        }
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
        sig: &MinHashSig<H>,
        threshold: f32,
    ) -> Result<Vec<u64>> {
        if threshold.is_nan() {
            return Err(Error::InvalidInput(format!(
                "LshIndex::try_query_with_threshold: threshold must be a number in [0.0, 1.0]; got {threshold}"
            )));
        }
        Ok(self.query_with_threshold(sig, threshold))
    }

    /// Total bucket entries `sig` hits (duplicates included): an exact
    /// capacity for the query buffers.
    fn candidate_count(&self, sig: &MinHashSig<H>) -> usize {
        self.tables
            .iter()
            .zip(band_keys(&sig.hashes, self.rows))
            .map(|(table, key)| table.get(key).len())
            .sum()
    }

    /// Takes a free slot (or a new one) for `id` and writes `sig` into it;
    /// `None` when the index is full. Does not touch `slot_of` or the tables.
    pub(super) fn alloc_slot(&mut self, id: u64, sig: MinHashSig<H>) -> Option<u32> {
        if let Some(slot) = self.free.pop() {
            self.sigs[slot as usize] = sig;
            self.ids[slot as usize] = id;
            return Some(slot);
        }
        if self.sigs.len() >= MAX_SLOTS {
            return None;
        }
        self.sigs.push(sig);
        self.ids.push(id);
        Some((self.sigs.len() - 1) as u32)
    }

    /// Adds `slot` to the bucket of each band of its current signature.
    fn link(&mut self, slot: u32) {
        let sig = &self.sigs[slot as usize];
        for (table, key) in self
            .tables
            .iter_mut()
            .zip(band_keys(&sig.hashes, self.rows))
        {
            table.insert(key, slot);
        }
    }

    /// Removes `slot` from the buckets of its current signature.
    pub(super) fn unlink(&mut self, slot: u32) {
        let sig = &self.sigs[slot as usize];
        for (table, key) in self
            .tables
            .iter_mut()
            .zip(band_keys(&sig.hashes, self.rows))
        {
            let found = table.remove(key, slot);
            debug_assert!(found, "slot {slot} missing from a band bucket");
        }
    }
}

/// The error for a batch of `wanted` new ids that does not fit.
pub(super) fn full_error(wanted: usize) -> Error {
    Error::InvalidInput(format!(
        "LshIndex is full: cannot add {wanted} new id(s) beyond {MAX_SLOTS} signatures"
    ))
}

/// A summary (the signatures themselves would be pages of hex).
impl<const H: usize> fmt::Debug for LshIndex<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LshIndex")
            .field("h", &H)
            .field("bands", &self.bands)
            .field("rows", &self.rows)
            .field("len", &self.len())
            .field(
                "buckets",
                &self.tables.iter().map(BandTable::buckets).sum::<usize>(),
            )
            .finish()
    }
}
