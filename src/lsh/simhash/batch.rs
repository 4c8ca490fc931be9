//! Bulk insertion and merging, in the three steps of the LSH index's batch
//! path: serially give every new id a slot (an id repeated or replaced
//! leaves its old slot dead, so the last occurrence wins); compute the table
//! keys of the slots still live (in parallel for `extend_par`); file them,
//! a large batch sorted and merged straight into the sorted runs.

use alloc::format;

use super::index::{SimHashIndex, full_error, key_at};
use super::width::SimHashWidth;
use crate::lsh::batch::{Batch, apply_batch, apply_fresh};
use crate::lsh::core::Core;
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
        if let Err(e) = apply_batch(self, items, false) {
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
        apply_fresh(
            self,
            items,
            false,
            &format!("{}::try_extend", F::INDEX_NAME),
        )
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
        if let Err(e) = apply_batch(self, items, true) {
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
        apply_fresh(
            self,
            items,
            true,
            &format!("{}::try_extend_par", F::INDEX_NAME),
        )
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
        let who = format!("{}::merge", F::INDEX_NAME);
        apply_fresh(self, other.iter(), cfg!(feature = "parallel"), &who)
    }
}

impl<F: SimHashWidth> Batch for SimHashIndex<F> {
    type Item = F;

    fn core(&mut self) -> &mut Core {
        &mut self.core
    }

    fn reserve(&mut self, n: usize) {
        self.fps.reserve(n * F::LANES);
    }

    fn refresh(&mut self, slot: u32, h: &F) -> bool {
        self.fp(slot) == *h
    }

    fn place(&mut self, id: u64, h: F) -> Option<u32> {
        SimHashIndex::place(self, id, h)
    }

    fn file(&mut self, slots: &[u32], par: bool) {
        let (masks, fps) = (self.layout.masks(), &self.fps);
        self.core.link_computed(slots, par, |i, t| {
            key_at(masks, |lane| fps[slots[i] as usize * F::LANES + lane], t)
        });
    }

    fn full() -> Error {
        full_error::<F>(1)
    }
}
