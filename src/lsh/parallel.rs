//! Bulk insertion with rayon (`parallel` feature): [`LshIndex::extend`] with
//! band keys computed and band tables filled on the rayon thread pool.

use super::index::LshIndex;
use crate::classical::minhash::Scheme;
use crate::{MinHashSig, Result};

impl<const H: usize, S: Scheme> LshIndex<H, S> {
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
        I: IntoIterator<Item = (u64, MinHashSig<H, S>)>,
    {
        if let Err(e) = self.apply_batch(items, true) {
            panic!("LshIndex::extend_par: {e}");
        }
    }

    /// [`extend_par`](Self::extend_par) restricted to fresh, distinct ids,
    /// all or nothing.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput), with the index
    /// unchanged, when an id is already in the index (`"LshIndex::try_extend_par:
    /// id {id} already exists; remove() first"`, as in txtfp 0.3.2), when an
    /// id occurs twice in `items`, or when the batch does not fit (more than
    /// 2³¹ − 1 signatures). The first offending item in batch order is
    /// reported.
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
        I: IntoIterator<Item = (u64, MinHashSig<H, S>)>,
    {
        super::batch::apply_fresh(self, items, true, "LshIndex::try_extend_par")
    }
}
