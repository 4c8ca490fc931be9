//! Where the size partitions of an [`LshEnsemble`](super::LshEnsemble) are
//! cut.
//!
//! A partition is tuned for its largest size `u`, so a set of size `x < u`
//! in it is probed with a Jaccard threshold lower than its own: the
//! containment-to-Jaccard conversion treats it as larger than it is, and
//! the looser threshold admits more false positives. Following the paper's
//! analysis, the excess of such a set is taken as proportional to
//! `1 − x / u`, so a partition holding `cᵢ` sets of each size `xᵢ` costs
//! `Σ cᵢ · (1 − xᵢ / u)`. [`Partitioning::Optimal`] cuts the histogram of
//! distinct sizes where the total of that cost is smallest.
//!
//! The cost is a Monge array in the partition's ends (for `a ≤ a′ ≤ b ≤ b′`,
//! `cost(a, b) + cost(a′, b′) ≤ cost(a, b′) + cost(a′, b)`: the difference
//! is the weight of `[a, a′)` times `1/x_b − 1/x_b′ ≥ 0`), so the best start
//! of the last partition does not decrease as its end grows, and each layer
//! of the dynamic program is filled by divide and conquer in
//! `O(m log m)` rather than `O(m²)` for `m` candidate ends.

use alloc::vec;
use alloc::vec::Vec;

/// How [`LshEnsembleBuilder`](super::LshEnsembleBuilder) cuts the sets into
/// size partitions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Partitioning {
    /// Equal numbers of sets per partition (the counts differ by at most
    /// one; sets of one size may fall on both sides of a cut).
    EquiDepth,
    /// Cuts between distinct sizes that minimise the expected false
    /// positives caused by each partition's largest size standing for all
    /// of its sets (LSH Ensemble paper, section 5). Sets of one size share a
    /// partition, so there are at most as many partitions as distinct sizes.
    #[default]
    Optimal,
}

impl Partitioning {
    /// The word stored in the byte format.
    pub(crate) fn tag(self) -> u32 {
        match self {
            Self::EquiDepth => 0,
            Self::Optimal => 1,
        }
    }

    /// The inverse of [`tag`](Self::tag).
    pub(crate) fn from_tag(tag: u32) -> Option<Self> {
        match tag {
            0 => Some(Self::EquiDepth),
            1 => Some(Self::Optimal),
            _ => None,
        }
    }
}

/// Most candidate ends the dynamic program weighs; histograms with more
/// distinct sizes are cut only between groups of neighbouring sizes, which
/// keeps the build's cost bounded on any size distribution.
pub(crate) const MAX_CANDIDATES: usize = 2048;

/// The exclusive end slot of each partition of `sizes` (ascending), at
/// most `partitions` of them, the last one `sizes.len()`.
pub(crate) fn partition_ends(sizes: &[u64], partitions: usize, how: Partitioning) -> Vec<usize> {
    let n = sizes.len();
    match how {
        Partitioning::EquiDepth => {
            let count = partitions.min(n);
            (1..=count).map(|p| p * n / count).collect()
        }
        Partitioning::Optimal => {
            let mut hist = Vec::new();
            let mut slot_ends = Vec::new();
            let mut i = 0;
            while i < n {
                let mut j = i + 1;
                while j < n && sizes[j] == sizes[i] {
                    j += 1;
                }
                hist.push((sizes[i], (j - i) as u64));
                slot_ends.push(j);
                i = j;
            }
            optimal_ends(&hist, partitions, MAX_CANDIDATES)
                .into_iter()
                .map(|e| slot_ends[e - 1])
                .collect()
        }
    }
}

/// Prefix sums of a `(size, count)` histogram for O(1) partition costs.
pub(crate) struct Costs<'a> {
    hist: &'a [(u64, u64)],
    counts: Vec<f64>,
    weights: Vec<f64>,
}

impl<'a> Costs<'a> {
    pub(crate) fn new(hist: &'a [(u64, u64)]) -> Self {
        let mut counts = Vec::with_capacity(hist.len() + 1);
        let mut weights = Vec::with_capacity(hist.len() + 1);
        let (mut c, mut w) = (0.0, 0.0);
        counts.push(c);
        weights.push(w);
        for &(size, count) in hist {
            c += count as f64;
            w += count as f64 * size as f64;
            counts.push(c);
            weights.push(w);
        }
        Self {
            hist,
            counts,
            weights,
        }
    }

    /// Expected false positives (up to a constant factor) of one partition
    /// holding histogram entries `lo..hi` (`lo < hi`).
    pub(crate) fn cost(&self, lo: usize, hi: usize) -> f64 {
        let upper = self.hist[hi - 1].0 as f64;
        let n = self.counts[hi] - self.counts[lo];
        let w = self.weights[hi] - self.weights[lo];
        (n - w / upper).max(0.0)
    }
}

/// The exclusive ends (histogram indices) of the cheapest cut of `hist`
/// (ascending distinct sizes with their counts) into at most `partitions`
/// partitions, ends chosen among at most `cap` evenly spread candidates.
pub(crate) fn optimal_ends(hist: &[(u64, u64)], partitions: usize, cap: usize) -> Vec<usize> {
    let m = hist.len();
    if m == 0 || partitions == 0 {
        return Vec::new();
    }
    let groups = m.min(cap.max(1));
    // cands[0] = 0 and cands[groups] = m; a partition runs between two.
    let cands: Vec<usize> = (0..=groups).map(|g| g * m / groups).collect();
    // Cutting never raises the cost (a smaller largest size only lowers
    // the terms before the cut), so use as many partitions as allowed.
    let layers = partitions.min(groups);
    if layers == groups {
        return cands[1..].to_vec();
    }
    let costs = Costs::new(hist);
    let cost = |a: usize, b: usize| costs.cost(cands[a], cands[b]);
    let mut prev: Vec<f64> = (0..=groups)
        .map(|b| if b == 0 { f64::INFINITY } else { cost(0, b) })
        .collect();
    // from[l][b]: start of the last of l + 2 partitions ending at b.
    let mut from: Vec<Vec<u32>> = Vec::with_capacity(layers - 1);
    for l in 2..=layers {
        let mut cur = vec![f64::INFINITY; groups + 1];
        let mut arg = vec![0u32; groups + 1];
        let mut stack = vec![(l, groups, l - 1, groups - 1)];
        while let Some((lo, hi, opt_lo, opt_hi)) = stack.pop() {
            if lo > hi {
                continue;
            }
            let mid = lo + (hi - lo) / 2;
            let (mut best, mut best_at) = (f64::INFINITY, opt_lo);
            let last = opt_hi.min(mid - 1);
            for (a, &before) in prev.iter().enumerate().take(last + 1).skip(opt_lo) {
                let v = before + cost(a, mid);
                if v < best {
                    (best, best_at) = (v, a);
                }
            }
            cur[mid] = best;
            arg[mid] = best_at as u32;
            stack.push((lo, mid - 1, opt_lo, best_at));
            stack.push((mid + 1, hi, best_at, opt_hi));
        }
        prev = cur;
        from.push(arg);
    }
    let mut ends = vec![m];
    let mut b = groups;
    for arg in from.iter().rev() {
        b = arg[b] as usize;
        ends.push(cands[b]);
    }
    ends.reverse();
    ends
}
