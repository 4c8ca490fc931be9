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
use super::core::Core;
use super::index::{LshIndex, full_error};
use crate::classical::minhash::Scheme;
use crate::{Error, MinHashSig, Result};

/// An index type whose batches take the three steps of the module doc:
/// what differs between index types is how an item is stored and keyed.
pub(crate) trait Batch {
    /// What is stored under an id (a signature, a fingerprint).
    type Item;

    /// The ids, slots and key tables.
    fn core(&mut self) -> &mut Core;

    /// Makes room for `n` more items.
    fn reserve(&mut self, n: usize);

    /// Whether the live `slot` already holds `item`'s keys; it is then
    /// given `item` and nothing is refiled.
    fn refresh(&mut self, slot: u32, item: &Self::Item) -> bool;

    /// Gives the new `id` a slot holding `item`, filed in no table yet.
    fn place(&mut self, id: u64, item: Self::Item) -> Option<u32>;

    /// Steps 2 and 3 for fresh live `slots`.
    fn file(&mut self, slots: &[u32], par: bool);

    /// The error for a full index.
    fn full() -> Error;
}

/// Step 1 of the module doc, then steps 2 and 3, in rounds of at least
/// [`MIN_ROUND`] items (and at least the index size, so that each round's
/// merge stays amortised). On a full index, files what was taken so far and
/// then reports the error.
pub(crate) fn apply_batch<T: Batch>(
    idx: &mut T,
    items: impl IntoIterator<Item = (u64, T::Item)>,
    par: bool,
) -> Result<()> {
    let mut items = items.into_iter().peekable();
    let mut outcome = Ok(());
    let mut pending: Vec<u32> = Vec::new();
    while items.peek().is_some() && outcome.is_ok() {
        let round = MIN_ROUND.max(idx.core().len());
        pending.clear();
        let expect = items.size_hint().0.min(round);
        idx.core().reserve(expect);
        idx.reserve(expect);
        for (id, item) in items.by_ref().take(round) {
            if let Some(slot) = idx.core().slot(id) {
                if idx.refresh(slot, &item) {
                    continue;
                }
                idx.core().kill(id);
            }
            match idx.place(id, item) {
                Some(slot) => pending.push(slot),
                None => {
                    outcome = Err(T::full());
                    break;
                }
            }
        }
        // Ids repeated within the round left dead slots behind.
        let core = idx.core();
        pending.retain(|&s| core.is_live(s));
        idx.file(&pending, par);
    }
    outcome
}

/// [`apply_batch`] of fresh, distinct ids only, all or nothing: `who`
/// names the caller in the error.
pub(crate) fn apply_fresh<T: Batch>(
    idx: &mut T,
    items: impl IntoIterator<Item = (u64, T::Item)>,
    par: bool,
    who: &str,
) -> Result<()> {
    let items: Vec<(u64, T::Item)> = items.into_iter().collect();
    idx.core().check_fresh(items.iter().map(|e| e.0), who)?;
    apply_batch(idx, items, par)
}

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
        apply_fresh(self, items, false, "LshIndex::try_extend")
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
        let items = other.iter().map(|(id, s)| (id, *s));
        apply_fresh(self, items, cfg!(feature = "parallel"), "LshIndex::merge")
    }

    /// [`apply_batch`] on this index.
    pub(super) fn apply_batch<I>(&mut self, items: I, par: bool) -> Result<()>
    where
        I: IntoIterator<Item = (u64, MinHashSig<H, S>)>,
    {
        apply_batch(self, items, par)
    }
}

impl<const H: usize, S: Scheme> Batch for LshIndex<H, S> {
    type Item = MinHashSig<H, S>;

    fn core(&mut self) -> &mut Core {
        &mut self.core
    }

    fn reserve(&mut self, n: usize) {
        self.sigs.reserve(n);
    }

    fn refresh(&mut self, slot: u32, sig: &MinHashSig<H, S>) -> bool {
        let stored = &mut self.sigs[slot as usize];
        let same = stored.hashes == sig.hashes;
        if same {
            *stored = *sig;
        }
        same
    }

    fn place(&mut self, id: u64, sig: MinHashSig<H, S>) -> Option<u32> {
        LshIndex::place(self, id, sig)
    }

    fn file(&mut self, slots: &[u32], par: bool) {
        let (sigs, rows) = (&self.sigs, self.rows);
        self.core.link_computed(slots, par, |i, t| {
            band_key_at(&sigs[slots[i] as usize].hashes, rows, t)
        });
    }

    fn full() -> Error {
        full_error(1)
    }
}
