//! Bulk insertion and merging, in the three steps of the LSH index's batch
//! path: serially give every new id a slot (an id repeated or replaced
//! leaves its old slot dead, so the last occurrence wins); compute the table
//! keys of the slots still live (in parallel for `extend_par`); file them,
//! a large batch sorted and merged straight into the sorted runs.

use alloc::format;
use alloc::vec::Vec;

use super::index::{SimHashIndex, full_error, key_at};
use super::width::SimHashWidth;
use crate::lsh::batch::MIN_ROUND;
use crate::{Error, Result};

impl<F: SimHashWidth> SimHashIndex<F> {
    /// Inserts every `(id, fingerprint)` of `items`: the same index as
    /// calling [`insert`](Self::insert) on each in order, built several times
    /// faster.
    ///
    /// # Panics
    ///
    /// When the new ids would make the index hold more than 2³¹ − 1
    /// fingerprints, after inserting the items that fit;
    /// [`try_extend`](Self::try_extend) reports that as an error instead.
    ///
    /// ```
    /// use txtfp::{SimHash64, SimHashIndex};
    /// let mut idx = SimHashIndex::new();
    /// idx.extend([(1, SimHash64(0xff)), (2, SimHash64(0xf0f0)), (1, SimHash64(0xf0f1))]);
    /// assert_eq!(idx.query(&SimHash64(0xf0f0)), [1, 2]);
    /// ```
    #[track_caller]
    pub fn extend<I>(&mut self, items: I)
    where
        I: IntoIterator<Item = (u64, F)>,
    {
        if let Err(e) = self.apply_batch(items, false) {
            panic!("{}::extend: {e}", F::INDEX_NAME);
        }
    }

    /// [`extend`](Self::extend) restricted to fresh, distinct ids, all or
    /// nothing.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`], with the index unchanged, when an id is
    /// already in the index, occurs twice in `items`, or the batch does not
    /// fit (more than 2³¹ − 1 fingerprints). The first offending item in
    /// batch order is reported.
    ///
    /// ```
    /// use txtfp::{SimHash64, SimHashIndex};
    /// let mut idx = SimHashIndex::new();
    /// idx.try_extend([(1, SimHash64(1)), (2, SimHash64(2))])?;
    /// let err = idx.try_extend([(3, SimHash64(3)), (2, SimHash64(2))]).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid input: SimHashIndex::try_extend: id 2 already exists; remove() first"
    /// );
    /// assert_eq!(idx.len(), 2);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn try_extend<I>(&mut self, items: I) -> Result<()>
    where
        I: IntoIterator<Item = (u64, F)>,
    {
        let items: Vec<(u64, F)> = items.into_iter().collect();
        self.core.check_fresh(
            items.iter().map(|e| e.0),
            &format!("{}::try_extend", F::INDEX_NAME),
        )?;
        self.apply_batch(items, false)
    }

    /// [`extend`](Self::extend) with the table keys computed and the tables
    /// filled on the rayon thread pool (`parallel` feature).
    ///
    /// # Panics
    ///
    /// As [`extend`](Self::extend).
    #[cfg(feature = "parallel")]
    #[track_caller]
    pub fn extend_par<I>(&mut self, items: I)
    where
        I: IntoIterator<Item = (u64, F)>,
    {
        if let Err(e) = self.apply_batch(items, true) {
            panic!("{}::extend_par: {e}", F::INDEX_NAME);
        }
    }

    /// [`extend_par`](Self::extend_par) restricted to fresh, distinct ids,
    /// all or nothing (`parallel` feature).
    ///
    /// # Errors
    ///
    /// As [`try_extend`](Self::try_extend).
    #[cfg(feature = "parallel")]
    pub fn try_extend_par<I>(&mut self, items: I) -> Result<()>
    where
        I: IntoIterator<Item = (u64, F)>,
    {
        let items: Vec<(u64, F)> = items.into_iter().collect();
        self.core.check_fresh(
            items.iter().map(|e| e.0),
            &format!("{}::try_extend_par", F::INDEX_NAME),
        )?;
        self.apply_batch(items, true)
    }

    /// Adds every fingerprint of `other` to this index (shards built apart,
    /// then joined).
    ///
    /// # Errors
    ///
    /// With this index unchanged: [`Error::Config`] when `other` has another
    /// layout (masks or radius), [`Error::InvalidInput`] when an id is in both
    /// indexes or the union does not fit.
    ///
    /// ```
    /// use txtfp::{SimHash64, SimHashIndex};
    /// let mut a = SimHashIndex::new();
    /// let mut b = SimHashIndex::new();
    /// a.insert(1, SimHash64(7));
    /// b.insert(2, SimHash64(6));
    /// a.merge(&b)?;
    /// assert_eq!(a.query(&SimHash64(7)), [1, 2]);
    /// assert!(a.merge(&SimHashIndex::with_max_distance(2)?).is_err());
    /// assert!(a.merge(&b).is_err()); // id 2 is already in `a`
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn merge(&mut self, other: &SimHashIndex<F>) -> Result<()> {
        if other.layout != self.layout || other.k != self.k {
            return Err(Error::Config(format!(
                "{}::merge: cannot merge an index of {} tables for max distance {} \
                 into one of {} tables for max distance {} (layouts differ)",
                F::INDEX_NAME,
                other.layout.tables(),
                other.max_distance(),
                self.layout.tables(),
                self.max_distance()
            )));
        }
        let items: Vec<(u64, F)> = other.iter().collect();
        self.core.check_fresh(
            items.iter().map(|e| e.0),
            &format!("{}::merge", F::INDEX_NAME),
        )?;
        self.apply_batch(items, cfg!(feature = "parallel"))
    }

    /// The three steps of the module doc, in rounds of at least
    /// [`MIN_ROUND`] items (and at least the index size, so that each
    /// round's merge stays amortised). On a full index, files what was taken
    /// so far and then reports the error.
    fn apply_batch<I>(&mut self, items: I, par: bool) -> Result<()>
    where
        I: IntoIterator<Item = (u64, F)>,
    {
        let mut items = items.into_iter().peekable();
        let mut outcome = Ok(());
        let mut pending: Vec<u32> = Vec::new();
        while items.peek().is_some() && outcome.is_ok() {
            let round = MIN_ROUND.max(self.len());
            pending.clear();
            for (id, h) in items.by_ref().take(round) {
                if let Some(slot) = self.core.slot(id) {
                    if self.fp(slot) == h {
                        continue;
                    }
                    self.core.kill(id);
                }
                match self.place(id, h) {
                    Some(slot) => pending.push(slot),
                    None => {
                        outcome = Err(full_error::<F>(1));
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

    /// Computes the keys of fresh live `slots` and files them.
    fn file(&mut self, slots: &[u32], par: bool) {
        let (masks, fps) = (self.layout.masks(), &self.fps);
        self.core.link_computed(slots, par, |i, t| {
            key_at(masks, |lane| fps[slots[i] as usize * F::LANES + lane], t)
        });
    }
}
