//! Bulk insertion and merging.
//!
//! A batch is applied in three steps:
//! 1. serially, in batch order: give every new id a slot and write each
//!    signature into the slab; an id whose hashes change (already stored, or
//!    repeated in the batch) leaves its old slot dead and takes a new one, so
//!    the last occurrence wins, as with repeated `insert`;
//! 2. compute the band keys of the slots still live (in parallel under the
//!    `parallel` feature);
//! 3. file them: a small batch goes to the hash tables, a large one is sorted
//!    and merged into the sorted runs, one table at a time (one rayon task per
//!    table under `parallel`).

use alloc::format;
use alloc::vec::Vec;

use super::band_key_at;
use super::index::{LshIndex, full_error};
use crate::classical::minhash::Scheme;
use crate::{Error, MinHashSig, Result};

/// Documents whose keys are buffered at once: a huge batch is filed in rounds
/// of at least this many documents (and at least the index size, so that each
/// round's merge stays amortised).
#[cfg(not(test))]
pub(super) const MIN_ROUND: usize = 1 << 16;
/// Small enough for unit tests to span several rounds.
#[cfg(test)]
pub(super) const MIN_ROUND: usize = 1 << 10;

impl<const H: usize, S: Scheme> LshIndex<H, S> {
    /// Inserts every `(id, sig)` of `items`; the same index as calling
    /// [`insert`](Self::insert) on each in order, built several times faster
    /// by sorting the batch into the band tables instead of hashing it in.
    ///
    /// # Panics
    ///
    /// When the new ids would make the index hold more than 2³¹ − 1
    /// signatures, after inserting the items that fit;
    /// [`try_extend`](Self::try_extend) reports that as an error instead.
    ///
    /// ```
    /// use txtfp::{LshIndex, MinHashSig};
    /// let sig = |x: u64| MinHashSig::<8> { hashes: [x; 8], ..MinHashSig::empty() };
    /// let mut idx = LshIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.extend([(1, sig(10)), (2, sig(20)), (1, sig(20))]);
    /// assert_eq!(idx.query(&sig(20)), [1, 2]);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    #[track_caller]
    pub fn extend<I>(&mut self, items: I)
    where
        I: IntoIterator<Item = (u64, MinHashSig<H, S>)>,
    {
        if let Err(e) = self.apply_batch(items, false) {
            panic!("LshIndex::extend: {e}");
        }
    }

    /// [`extend`](Self::extend) restricted to fresh, distinct ids, all or
    /// nothing.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`], with the index unchanged, when an id is
    /// already in the index, occurs twice in `items`, or the batch does not
    /// fit (more than 2³¹ − 1 signatures). The first offending item in batch
    /// order is reported.
    ///
    /// ```
    /// use txtfp::classical::minhash::{FastLshIndex, FastMinHashSig};
    /// let sig = |x: u64| FastMinHashSig::<4> { hashes: [x; 4], ..FastMinHashSig::empty() };
    /// let mut idx = FastLshIndex::<4>::with_bands_rows(2, 2)?;
    /// idx.try_extend([(1, sig(5)), (2, sig(5)), (3, sig(6))])?;
    /// assert_eq!(idx.query(&sig(5)), [1, 2]);
    /// assert!(idx.try_extend([(3, sig(7))]).is_err()); // 3 is stored
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn try_extend<I>(&mut self, items: I) -> Result<()>
    where
        I: IntoIterator<Item = (u64, MinHashSig<H, S>)>,
    {
        let items: Vec<(u64, MinHashSig<H, S>)> = items.into_iter().collect();
        self.core
            .check_fresh(items.iter().map(|e| e.0), "LshIndex::try_extend")?;
        self.apply_batch(items, false)
    }

    /// Adds every signature of `other` to this index (shards built apart,
    /// then joined).
    ///
    /// # Errors
    ///
    /// With this index unchanged: [`Error::Config`] when `other` has another
    /// banding (`bands × rows`), [`Error::InvalidInput`] when an id is in
    /// both indexes or the union does not fit.
    ///
    /// ```
    /// use txtfp::{LshIndex, MinHashSig};
    /// let sig = |x: u64| MinHashSig::<8> { hashes: [x; 8], ..MinHashSig::empty() };
    /// let mut a = LshIndex::<8>::with_bands_rows(4, 2)?;
    /// let mut b = LshIndex::<8>::with_bands_rows(4, 2)?;
    /// a.insert(1, sig(7));
    /// b.insert(2, sig(7));
    /// a.merge(&b)?;
    /// assert_eq!(a.query(&sig(7)), [1, 2]);
    /// let other = LshIndex::<8>::with_bands_rows(2, 4)?;
    /// assert!(a.merge(&other).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn merge(&mut self, other: &LshIndex<H, S>) -> Result<()> {
        if (other.bands, other.rows) != (self.bands, self.rows) {
            return Err(Error::Config(format!(
                "LshIndex::merge: cannot merge an index of {} bands × {} rows into one of {} bands × {} rows",
                other.bands, other.rows, self.bands, self.rows
            )));
        }
        let items: Vec<(u64, MinHashSig<H, S>)> = other.iter().map(|(id, s)| (id, *s)).collect();
        self.core
            .check_fresh(items.iter().map(|e| e.0), "LshIndex::merge")?;
        self.apply_batch(items, cfg!(feature = "parallel"))
    }

    /// Steps 1–3 of the module doc. On a full index, files what was taken so
    /// far and then reports the error.
    pub(super) fn apply_batch<I>(&mut self, items: I, par: bool) -> Result<()>
    where
        I: IntoIterator<Item = (u64, MinHashSig<H, S>)>,
    {
        let mut items = items.into_iter().peekable();
        let mut outcome = Ok(());
        let mut pending: Vec<u32> = Vec::new();
        while items.peek().is_some() && outcome.is_ok() {
            let round = MIN_ROUND.max(self.len());
            pending.clear();
            let expect = items.size_hint().0.min(round);
            self.core.reserve(expect);
            self.sigs.reserve(expect);
            for (id, sig) in items.by_ref().take(round) {
                if let Some(slot) = self.core.slot(id) {
                    if self.sigs[slot as usize].hashes == sig.hashes {
                        self.sigs[slot as usize] = sig;
                        continue;
                    }
                    self.core.kill(id);
                }
                match self.place(id, sig) {
                    Some(slot) => pending.push(slot),
                    None => {
                        outcome = Err(full_error(1));
                        break;
                    }
                }
            }
            // Ids repeated within the round left dead slots behind.
            pending.retain(|&s| self.core.is_live(s));
            self.file(&pending, par);
        }
        outcome
    }

    /// Steps 2 and 3 for fresh live `slots`.
    fn file(&mut self, slots: &[u32], par: bool) {
        let (sigs, rows) = (&self.sigs, self.rows);
        self.core.link_computed(slots, par, |i, t| {
            band_key_at(&sigs[slots[i] as usize].hashes, rows, t)
        });
    }
}
