//! Bulk insertion with rayon (`parallel` feature).
//!
//! A batch is applied in three steps:
//! 1. serially, in batch order: give every new id a slot and write each
//!    signature into the slab; a pre-existing id whose hashes change is
//!    unlinked from its old buckets first. Slots whose buckets must be
//!    (re)built are collected once each, so a repeated id simply has its slab
//!    entry overwritten — the last occurrence wins, as with repeated `insert`.
//! 2. in parallel over those slots: compute all band keys (this step is not
//!    limited by the number of bands);
//! 3. in parallel over bands: add the slots to the band tables (each task
//!    owns one table, so there is no locking).

use alloc::format;
use alloc::vec::Vec;

use hashbrown::HashSet;
use rayon::prelude::*;

use super::band_keys;
use super::index::{LshIndex, full_error};
use crate::{Error, MinHashSig, Result};

/// Band keys buffered per round of step 2/3 (2 MiB), so a huge batch does not
/// need `batch × bands` keys in memory at once.
pub(super) const KEYS_PER_ROUND: usize = 1 << 18;

impl<const H: usize> LshIndex<H> {
    /// Inserts every `(id, sig)` of `items`, computing band keys and filling
    /// the band tables on the rayon thread pool.
    ///
    /// The result is the same index as calling [`insert`](Self::insert) on
    /// each item in order: an id already in the index is replaced, and an id
    /// repeated within `items` ends up with its last signature. (txtfp 0.3.2
    /// corrupted the index in both cases.)
    ///
    /// # Panics
    ///
    /// When the new ids would make the index hold more than 2³¹ − 1
    /// signatures. The items before the first one that does not fit are
    /// inserted, the index stays consistent, and then the call panics;
    /// [`try_extend_par`](Self::try_extend_par) reports this as an error
    /// without changing the index.
    ///
    /// ```
    /// use txtfp::{LshIndex, MinHashSig};
    /// let sig = |x: u64| {
    ///     let mut s = MinHashSig::<8>::empty();
    ///     s.hashes = [x; 8];
    ///     s
    /// };
    /// let mut idx = LshIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.insert(1, sig(10));
    /// idx.extend_par([(2, sig(20)), (1, sig(20)), (3, sig(30)), (3, sig(20))]);
    /// assert_eq!(idx.len(), 3);
    /// assert_eq!(idx.query(&sig(20)), [1, 2, 3]);
    /// assert!(idx.query(&sig(10)).is_empty());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    #[track_caller]
    pub fn extend_par<I>(&mut self, items: I)
    where
        I: IntoIterator<Item = (u64, MinHashSig<H>)>,
    {
        if let Err(e) = self.apply_batch(items) {
            panic!("LshIndex::extend_par: {e}");
        }
    }

    /// [`extend_par`](Self::extend_par) restricted to fresh, distinct ids,
    /// all or nothing.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`], with the index unchanged, when an id is
    /// already in the index (`"LshIndex::try_extend_par: id {id} already
    /// exists; remove() first"`, as in txtfp 0.3.2), when an id occurs twice
    /// in `items`, or when the batch does not fit (more than 2³¹ − 1
    /// signatures). The first offending item in batch order is reported.
    ///
    /// ```
    /// use txtfp::{LshIndex, MinHashSig};
    /// let mut idx = LshIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.insert(1, MinHashSig::empty());
    /// let err = idx.try_extend_par([(2, MinHashSig::empty()), (1, MinHashSig::empty())]);
    /// assert_eq!(
    ///     err.unwrap_err().to_string(),
    ///     "invalid input: LshIndex::try_extend_par: id 1 already exists; remove() first"
    /// );
    /// assert_eq!(idx.len(), 1); // nothing of the batch was inserted
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn try_extend_par<I>(&mut self, items: I) -> Result<()>
    where
        I: IntoIterator<Item = (u64, MinHashSig<H>)>,
    {
        let items: Vec<(u64, MinHashSig<H>)> = items.into_iter().collect();
        let mut seen: HashSet<u64> = HashSet::with_capacity(items.len());
        for &(id, _) in &items {
            if self.slot_of.contains_key(&id) {
                return Err(Error::InvalidInput(format!(
                    "LshIndex::try_extend_par: id {id} already exists; remove() first"
                )));
            }
            if !seen.insert(id) {
                return Err(Error::InvalidInput(format!(
                    "LshIndex::try_extend_par: id {id} occurs more than once in the batch"
                )));
            }
        }
        let new_slots = items.len().saturating_sub(self.free.len());
        if new_slots > super::table::MAX_SLOTS - self.sigs.len() {
            return Err(full_error(items.len()));
        }
        // Validated: every id is fresh and distinct, and all fit.
        self.apply_batch(items)
    }

    /// Steps 1–3 of the module doc. On a full index, links what was taken so
    /// far and then reports the error.
    fn apply_batch<I>(&mut self, items: I) -> Result<()>
    where
        I: IntoIterator<Item = (u64, MinHashSig<H>)>,
    {
        let items = items.into_iter();
        // `pending` = slots whose buckets step 3 builds, each listed once.
        // A slot is pending iff it was allocated in this batch (then it lies at
        // or beyond `old_len`, or is marked) or was unlinked in this batch
        // (marked). Marks cover only the slots that existed before the batch.
        let old_len = self.sigs.len();
        let mut marks = Marks::new(old_len);
        let mut pending: Vec<u32> = Vec::with_capacity(items.size_hint().0);
        let mut outcome = Ok(());
        for (id, sig) in items {
            match self.slot_of.get(&id) {
                Some(&slot) => {
                    let s = slot as usize;
                    let is_pending = s >= old_len || marks.get(s);
                    if !is_pending && self.sigs[s].hashes != sig.hashes {
                        self.unlink(slot);
                        marks.set(s);
                        pending.push(slot);
                    }
                    self.sigs[s] = sig;
                }
                None => {
                    let Some(slot) = self.alloc_slot(id, sig) else {
                        outcome = Err(full_error(1));
                        break;
                    };
                    if (slot as usize) < old_len {
                        marks.set(slot as usize);
                    }
                    self.slot_of.insert(id, slot);
                    pending.push(slot);
                }
            }
        }
        self.link_par(&pending);
        outcome
    }

    /// Steps 2 and 3: adds each slot of `slots` (distinct, currently in no
    /// bucket) to the buckets of its signature.
    fn link_par(&mut self, slots: &[u32]) {
        let bands = self.bands;
        let rows = self.rows;
        let Self { sigs, tables, .. } = self;
        let sigs: &[MinHashSig<H>] = sigs;
        tables
            .par_iter_mut()
            .for_each(|table| table.reserve(slots.len()));
        let per_round = (KEYS_PER_ROUND / bands).max(1);
        let mut keys: Vec<u64> = Vec::new();
        for round in slots.chunks(per_round) {
            keys.clear();
            keys.resize(round.len() * bands, 0);
            keys.par_chunks_mut(bands)
                .zip(round.par_iter())
                .for_each(|(out, &slot)| {
                    let hashes = &sigs[slot as usize].hashes;
                    for (o, k) in out.iter_mut().zip(band_keys(hashes, rows)) {
                        *o = k;
                    }
                });
            let keys = &keys;
            tables.par_iter_mut().enumerate().for_each(|(band, table)| {
                for (i, &slot) in round.iter().enumerate() {
                    table.insert(keys[i * bands + band], slot);
                }
            });
        }
    }
}

/// One bit per pre-existing slot. `vec![0; n]` is a zeroed allocation, so a
/// small batch into a huge index only pays for the pages it touches.
struct Marks(Vec<u64>);

impl Marks {
    fn new(len: usize) -> Self {
        Self(alloc::vec![0; len.div_ceil(64)])
    }

    fn get(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
}
