//! Batch queries of [`SimHashIndex`]: lookups overlapped across queries as
//! for the MinHash indexes (`Core::candidates_each`).

use alloc::vec::Vec;

use super::index::{SimHashIndex, key_at};
use super::width::SimHashWidth;
use crate::lsh::prefetch::prefetch;

impl<F: SimHashWidth> SimHashIndex<F> {
    /// [`query`](Self::query) of every fingerprint of `hashes`, in order;
    /// faster than one call per fingerprint.
    ///
    /// ```
    /// use txtfp::{SimHash64, SimHashIndex};
    /// let mut idx = SimHashIndex::new();
    /// idx.insert(1, SimHash64(0b1011));
    /// idx.insert(2, SimHash64(u64::MAX));
    /// let found = idx.query_batch(&[SimHash64(0b0011), SimHash64(0)]);
    /// assert_eq!(found, [vec![1], vec![1]]);
    /// ```
    pub fn query_batch(&self, hashes: &[F]) -> Vec<Vec<u64>> {
        let (k, masks) = (self.max_distance(), self.layout().masks());
        let mut found = Vec::with_capacity(hashes.len());
        self.core.candidates_each(
            hashes.len(),
            |q, keys| {
                for (t, key) in keys.iter_mut().enumerate() {
                    *key = key_at(masks, |i| hashes[q].lane(i), t);
                }
            },
            |slots| {
                for &s in slots {
                    prefetch(&self.fps[s as usize * F::LANES]);
                }
            },
            |q, slots| {
                let mut ids: Vec<u64> = slots
                    .iter()
                    .filter(|&&s| self.distance(s, hashes[q]) <= k)
                    .map(|&s| self.core.id(s))
                    .collect();
                ids.sort_unstable();
                found.push(ids);
            },
        );
        found
    }

    /// [`query_batch`](Self::query_batch) on the rayon thread pool.
    #[cfg(feature = "parallel")]
    pub fn query_batch_par(&self, hashes: &[F]) -> Vec<Vec<u64>> {
        use rayon::prelude::*;
        hashes
            .par_chunks(512)
            .flat_map_iter(|c| self.query_batch(c))
            .collect()
    }
}
