//! Queries of an [`LshForest`]: the candidate stage, the ranking, and the
//! exact scan they are measured against.

use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Reverse;

use hashbrown::HashSet;

use super::{LshForest, check_sig};
use crate::classical::minhash::Scheme;
use crate::{Error, MinHashSig, Result};

impl<const H: usize, S: Scheme> LshForest<H, S> {
    /// The `k` stored ids most similar to `sig` among the forest's
    /// candidates, with their estimated Jaccard similarity (the fraction of
    /// equal slots over the whole signature), best first, ties by ascending
    /// id. Fewer than `k` when fewer documents share at least the first slot
    /// of some band with `sig`.
    ///
    /// # Errors
    /// - [`Error::InvalidInput`] when `k` is zero;
    /// - [`Error::InvalidInput`] when `sig.schema` is not the scheme's.
    ///
    /// ```
    /// use txtfp::MinHashSig;
    /// use txtfp::lsh::forest::LshForest;
    /// let sig = |h: [u64; 4]| MinHashSig::<4> { hashes: h, ..MinHashSig::empty() };
    /// let mut forest = LshForest::<4>::new(2)?;
    /// forest.insert(5, &sig([1, 2, 3, 4]))?;
    /// forest.insert(3, &sig([1, 2, 3, 4]))?;
    /// forest.insert(9, &sig([1, 0, 0, 0]))?;
    /// assert_eq!(forest.query(&sig([1, 2, 3, 4]), 10)?, [(3, 1.0), (5, 1.0), (9, 0.25)]);
    /// assert_eq!(
    ///     forest.query(&sig([1, 2, 3, 4]), 0).unwrap_err().to_string(),
    ///     "invalid input: k must be > 0"
    /// );
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn query(&self, sig: &MinHashSig<H, S>, k: usize) -> Result<Vec<(u64, f64)>> {
        let slots = self.candidate_slots(sig, k)?;
        Ok(self.rank(sig, slots, k))
    }

    /// The candidate stage of [`query`](Self::query) alone: the ids it
    /// ranks, ascending. With `d` the deepest prefix length at which at
    /// least `candidates_per_result · k` stored documents agree with `sig`
    /// on the first `d` slots of at least one band (`d = 1` when no depth
    /// has that many), these are the documents that do so at depth `d`.
    ///
    /// # Errors
    /// As [`query`](Self::query).
    pub fn candidates(&self, sig: &MinHashSig<H, S>, k: usize) -> Result<Vec<u64>> {
        let mut ids: Vec<u64> = self
            .candidate_slots(sig, k)?
            .into_iter()
            .map(|s| self.ids[s as usize])
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    /// The exact top `k` by estimated Jaccard similarity over every stored
    /// signature (a scan with a bounded heap), in [`query`](Self::query)'s
    /// order. Faster than the forest on small collections (BENCHMARKS.md
    /// has the crossover), and the reference its recall is measured against.
    ///
    /// # Errors
    /// As [`query`](Self::query).
    ///
    /// ```
    /// use txtfp::MinHashSig;
    /// use txtfp::lsh::forest::LshForest;
    /// let sig = |h: [u64; 4]| MinHashSig::<4> { hashes: h, ..MinHashSig::empty() };
    /// let mut forest = LshForest::<4>::new(2)?;
    /// forest.insert(1, &sig([1, 2, 3, 4]))?;
    /// forest.insert(2, &sig([0, 2, 0, 4]))?; // no band starts alike: no candidate
    /// assert_eq!(forest.query(&sig([1, 2, 3, 4]), 2)?, [(1, 1.0)]);
    /// assert_eq!(forest.query_exact(&sig([1, 2, 3, 4]), 2)?, [(1, 1.0), (2, 0.5)]);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn query_exact(&self, sig: &MinHashSig<H, S>, k: usize) -> Result<Vec<(u64, f64)>> {
        check_k(k)?;
        check_sig(sig)?;
        // Min-heap of the best `k` so far under "more equal slots, then
        // smaller id": its top is the one to beat.
        let mut heap: BinaryHeap<Reverse<(u32, Reverse<u64>)>> = BinaryHeap::new();
        for (slot, other) in self.sigs.iter().enumerate() {
            if !self.live[slot] {
                continue;
            }
            let key = (equal_slots(sig, other), Reverse(self.ids[slot]));
            if heap.len() < k {
                heap.push(Reverse(key));
            } else if let Some(mut top) = heap.peek_mut()
                && key > top.0
            {
                *top = Reverse(key);
            }
        }
        let mut best: Vec<(u32, Reverse<u64>)> = heap.into_iter().map(|r| r.0).collect();
        best.sort_unstable_by(|a, b| b.cmp(a));
        Ok(best
            .into_iter()
            .map(|(eq, Reverse(id))| (id, f64::from(eq) / H as f64))
            .collect())
    }

    /// Slots of the candidate stage, in the order found.
    fn candidate_slots(&self, sig: &MinHashSig<H, S>, k: usize) -> Result<Vec<u32>> {
        check_k(k)?;
        check_sig(sig)?;
        let rows = self.rows;
        let target = k.saturating_mul(self.per_result);

        // Sorted part: per tree, the nested ranges of every depth.
        let mut ranges: Vec<Vec<(usize, usize)>> = vec![Vec::with_capacity(rows); self.trees.len()];
        for (t, (tree, out)) in self.trees.iter().zip(&mut ranges).enumerate() {
            let start = t * rows;
            tree.ranges(
                &self.sigs[..self.sorted],
                start,
                &sig.hashes[start..start + rows],
                out,
            );
        }
        // Pending part: each live slot's deepest match over the trees.
        let mut pending_at: Vec<Vec<u32>> = vec![Vec::new(); rows + 1];
        for slot in self.sorted..self.sigs.len() {
            if self.live[slot] {
                let depth = deepest_prefix(&sig.hashes, &self.sigs[slot].hashes, rows);
                pending_at[depth].push(slot as u32);
            }
        }

        let mut seen: HashSet<u32> = HashSet::new();
        let mut found: Vec<u32> = Vec::new();
        for depth in (1..=rows).rev() {
            for (t, tree_ranges) in ranges.iter().enumerate() {
                let (lo, hi) = tree_ranges[depth - 1];
                // Positions of this depth not already taken at the one below.
                let (ilo, ihi) = if depth < rows {
                    tree_ranges[depth]
                } else {
                    (lo, lo)
                };
                for pos in (lo..ilo).chain(ihi..hi) {
                    let slot = self.trees[t].slot(pos);
                    if self.live[slot as usize] && seen.insert(slot) {
                        found.push(slot);
                    }
                }
            }
            // Pending slots are in no tree: each is listed once.
            found.extend_from_slice(&pending_at[depth]);
            seen.extend(pending_at[depth].iter().copied());
            if found.len() >= target {
                break;
            }
        }
        Ok(found)
    }

    /// The best `k` of `slots` by equal slots with `sig`, then by id.
    fn rank(&self, sig: &MinHashSig<H, S>, slots: Vec<u32>, k: usize) -> Vec<(u64, f64)> {
        let mut scored: Vec<(u32, u64)> = slots
            .into_iter()
            .map(|s| {
                (
                    equal_slots(sig, &self.sigs[s as usize]),
                    self.ids[s as usize],
                )
            })
            .collect();
        let order = |a: &(u32, u64), b: &(u32, u64)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        if scored.len() > k {
            scored.select_nth_unstable_by(k - 1, order);
            scored.truncate(k);
        }
        scored.sort_unstable_by(order);
        scored
            .into_iter()
            .map(|(eq, id)| (id, f64::from(eq) / H as f64))
            .collect()
    }
}

/// Rejects `k = 0`.
fn check_k(k: usize) -> Result<()> {
    if k == 0 {
        return Err(Error::InvalidInput("k must be > 0".into()));
    }
    Ok(())
}

/// Number of slots on which `a` and `b` agree, through the SIMD kernel of
/// [`MinHashSig::jaccard`]: its `f32` fraction times `H` is the count
/// exactly while `H < 2²⁴`, far above any real signature.
#[inline]
fn equal_slots<const H: usize, S: Scheme>(a: &MinHashSig<H, S>, b: &MinHashSig<H, S>) -> u32 {
    // `+ 0.5` then truncation rounds a non-negative value (`round` needs std).
    (a.jaccard(b) * H as f32 + 0.5) as u32
}

/// The longest prefix, over the bands of `rows` slots, on which `a` and `b`
/// agree (`0..=rows`).
fn deepest_prefix(a: &[u64], b: &[u64], rows: usize) -> usize {
    a.chunks_exact(rows)
        .zip(b.chunks_exact(rows))
        .map(|(x, y)| x.iter().zip(y).take_while(|(p, q)| p == q).count())
        .max()
        .unwrap_or(0)
}
