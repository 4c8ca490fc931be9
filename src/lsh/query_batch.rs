//! Batch queries: many signatures answered in one call, the lookups of each
//! query overlapped with those of the next (see `Core::candidates_each`),
//! and spread over the rayon pool by the `_par` forms.

use alloc::vec::Vec;

use super::band_key_at;
use super::candidates::LshCandidateIndex;
use super::index::LshIndex;
use super::prefetch::prefetch;
use crate::MinHashSig;
use crate::classical::minhash::Scheme;

/// Queries a rayon task answers in one go (enough to amortise the task,
/// few enough to balance the pool).
#[cfg(feature = "parallel")]
const PAR_CHUNK: usize = 512;

impl<const H: usize, S: Scheme> LshIndex<H, S> {
    /// [`query`](Self::query) of every signature of `sigs`, in order; faster
    /// than one call per signature.
    ///
    /// ```
    /// use txtfp::{LshIndex, MinHashSig};
    /// let sig = |x: u64| MinHashSig::<8> { hashes: [x; 8], ..MinHashSig::empty() };
    /// let mut idx = LshIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.extend([(1, sig(10)), (2, sig(20)), (3, sig(20))]);
    /// assert_eq!(idx.query_batch(&[sig(20), sig(30)]), [vec![2, 3], vec![]]);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn query_batch(&self, sigs: &[MinHashSig<H, S>]) -> Vec<Vec<u64>> {
        self.batch(sigs, None)
    }

    /// [`query_with_threshold`](Self::query_with_threshold) of every
    /// signature of `sigs`, in order (a NaN threshold matches nothing).
    ///
    /// ```
    /// use txtfp::{LshIndex, MinHashSig};
    /// let mut a = MinHashSig::<8>::empty();
    /// a.hashes = [1, 2, 3, 4, 5, 6, 7, 8];
    /// let mut b = a;
    /// b.hashes[7] = 99; // jaccard(a, b) = 7/8
    /// let mut idx = LshIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.extend([(10, a), (20, b)]);
    /// assert_eq!(idx.query_batch_with_threshold(&[a, b], 0.9), [vec![10], vec![20]]);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn query_batch_with_threshold(
        &self,
        sigs: &[MinHashSig<H, S>],
        threshold: f32,
    ) -> Vec<Vec<u64>> {
        if threshold.is_nan() {
            return alloc::vec![Vec::new(); sigs.len()];
        }
        self.batch(sigs, Some(threshold.clamp(0.0, 1.0)))
    }

    /// [`query_batch`](Self::query_batch) on the rayon thread pool.
    #[cfg(feature = "parallel")]
    pub fn query_batch_par(&self, sigs: &[MinHashSig<H, S>]) -> Vec<Vec<u64>> {
        use rayon::prelude::*;
        sigs.par_chunks(PAR_CHUNK)
            .flat_map_iter(|c| self.batch(c, None))
            .collect()
    }

    /// [`query_batch_with_threshold`](Self::query_batch_with_threshold) on
    /// the rayon thread pool.
    #[cfg(feature = "parallel")]
    pub fn query_batch_with_threshold_par(
        &self,
        sigs: &[MinHashSig<H, S>],
        threshold: f32,
    ) -> Vec<Vec<u64>> {
        use rayon::prelude::*;
        if threshold.is_nan() {
            return alloc::vec![Vec::new(); sigs.len()];
        }
        let t = threshold.clamp(0.0, 1.0);
        sigs.par_chunks(PAR_CHUNK)
            .flat_map_iter(|c| self.batch(c, Some(t)))
            .collect()
    }

    /// Candidates of each of `sigs`, kept when `threshold` is `None` or
    /// their Jaccard estimate reaches it.
    fn batch(&self, sigs: &[MinHashSig<H, S>], threshold: Option<f32>) -> Vec<Vec<u64>> {
        let rows = self.rows;
        let mut found = Vec::with_capacity(sigs.len());
        self.core.candidates_each(
            sigs.len(),
            batch_keys(sigs, rows),
            |slots| {
                if threshold.is_some() {
                    // Start the reads of the signatures to verify.
                    for &s in slots {
                        prefetch_sig(&self.sigs[s as usize]);
                    }
                }
            },
            |q, slots| {
                let mut ids: Vec<u64> = slots
                    .iter()
                    .filter(|&&s| {
                        threshold.is_none_or(|t| sigs[q].jaccard(&self.sigs[s as usize]) >= t)
                    })
                    .map(|&s| self.core.id(s))
                    .collect();
                ids.sort_unstable();
                found.push(ids);
            },
        );
        found
    }
}

impl<const H: usize, S: Scheme> LshCandidateIndex<H, S> {
    /// [`query`](Self::query) of every signature of `sigs`, in order; faster
    /// than one call per signature.
    ///
    /// ```
    /// use txtfp::{LshCandidateIndex, MinHashSig};
    /// let sig = |x: u64| MinHashSig::<8> { hashes: [x; 8], ..MinHashSig::empty() };
    /// let mut idx = LshCandidateIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.try_extend([(1, &sig(10)), (2, &sig(20))])?;
    /// assert_eq!(idx.query_batch(&[sig(20), sig(10)]), [vec![2], vec![1]]);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn query_batch(&self, sigs: &[MinHashSig<H, S>]) -> Vec<Vec<u64>> {
        let rows = self.rows();
        let mut found = Vec::with_capacity(sigs.len());
        self.core.candidates_each(
            sigs.len(),
            batch_keys(sigs, rows),
            |slots| {
                for &s in slots {
                    prefetch(self.core.id_ref(s));
                }
            },
            |_, slots| {
                let mut ids: Vec<u64> = slots.iter().map(|&s| self.core.id(s)).collect();
                ids.sort_unstable();
                found.push(ids);
            },
        );
        found
    }

    /// [`query_batch`](Self::query_batch) on the rayon thread pool.
    #[cfg(feature = "parallel")]
    pub fn query_batch_par(&self, sigs: &[MinHashSig<H, S>]) -> Vec<Vec<u64>> {
        use rayon::prelude::*;
        sigs.par_chunks(PAR_CHUNK)
            .flat_map_iter(|c| self.query_batch(c))
            .collect()
    }
}

/// `keys_of` of `Core::candidates_each` for a batch of signatures: the band
/// keys of query `q`, with the next query's signature prefetched.
fn batch_keys<const H: usize, S: Scheme>(
    sigs: &[MinHashSig<H, S>],
    rows: usize,
) -> impl Fn(usize, &mut [u64]) + '_ {
    move |q, keys| {
        if let Some(next) = sigs.get(q + 1) {
            prefetch_sig(next);
        }
        for (t, k) in keys.iter_mut().enumerate() {
            *k = band_key_at(&sigs[q].hashes, rows, t);
        }
    }
}

/// Prefetches every cache line of `sig`.
#[inline]
fn prefetch_sig<const H: usize, S: Scheme>(sig: &MinHashSig<H, S>) {
    for line in sig.hashes.chunks(8) {
        prefetch(&line[0]);
    }
}
