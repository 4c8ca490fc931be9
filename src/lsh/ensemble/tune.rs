//! Choosing `(bands, rows)` for one partition and one query: the false
//! positive and false negative integrals of LSH Ensemble over containment.
//!
//! A partition's sets are at most `u` large; the query has `q` elements. A
//! set `X` with containment `c = |Q ∩ X| / |Q|` and `|X| = u` has Jaccard
//! similarity `s(c) = c / (1 + u/q − c)` with `Q`, so it becomes a candidate
//! of a `b × r` banding with probability `P(c) = 1 − (1 − s(c)^r)^b`. With
//! containments spread evenly over their possible range `[0, min(1, u/q)]`,
//! a threshold `t` has the expected error masses
//!
//! ```text
//! FP = ∫₀^min(t, u/q) P(c) dc        FN = ∫ₜ^min(1, u/q) (1 − P(c)) dc
//! ```
//!
//! and the banding minimising `w_fp·FP + w_fn·FN` over `r ≤ max_rows` and
//! `b ≤ num_perm / r` is chosen. Using the upper bound `u` for every set of
//! the partition is what makes partitions by size pay off: the
//! narrower the partition, the closer `u` is to each set's true size.
//!
//! The integrals use composite 8-point Gauss–Legendre quadrature; for each
//! `r` the factor `1 − s^r` is computed once per node and `(1 − s^r)^b` is
//! carried from `b` to `b + 1` by one product, so a full search costs about
//! `Σᵣ (num_perm / r) · 2 · NODES` multiply-adds.

use alloc::vec::Vec;

/// Steps of the ratio grid per unit of `ln(u / q)`: ratios are rounded up
/// to the next `e^(k / RATIO_STEPS)`, at most 13 % above the true ratio.
pub(crate) const RATIO_STEPS: f64 = 8.0;

/// Grid indices are clamped to this magnitude (`e^±40`), far outside any
/// real size ratio, so a hostile size cannot make the cache key overflow.
const MAX_BUCKET: i32 = 320;

/// Panels per integral; each holds the eight Gauss–Legendre nodes.
const PANELS: usize = 12;

/// Nodes and weights of 8-point Gauss–Legendre quadrature on `[-1, 1]`.
const GL8: [(f64, f64); 8] = [
    (-0.960_289_856_497_536_3, 0.101_228_536_290_376_26),
    (-0.796_666_477_413_626_7, 0.222_381_034_453_374_47),
    (-0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (-0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.183_434_642_495_649_8, 0.362_683_783_378_362),
    (0.525_532_409_916_329, 0.313_706_645_877_887_3),
    (0.796_666_477_413_626_7, 0.222_381_034_453_374_47),
    (0.960_289_856_497_536_3, 0.101_228_536_290_376_26),
];

/// The tuning parameters fixed at build time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Tuner {
    pub(crate) num_perm: usize,
    pub(crate) max_rows: usize,
    pub(crate) fp_weight: f64,
    pub(crate) fn_weight: f64,
}

/// The grid index of the ratio `upper / size`, rounded up.
pub(crate) fn ratio_bucket(upper: u64, size: u64) -> i32 {
    let ln = (upper as f64 / size as f64).ln() * RATIO_STEPS;
    // A tiny slack keeps exact grid points (ratio 1) on their own index.
    let k = (ln - 1e-9).ceil();
    if k.is_nan() {
        0
    } else {
        (k.clamp(-f64::from(MAX_BUCKET), f64::from(MAX_BUCKET))) as i32
    }
}

/// The ratio a grid index stands for.
pub(crate) fn bucket_ratio(bucket: i32) -> f64 {
    (f64::from(bucket) / RATIO_STEPS).exp()
}

/// Quadrature nodes `(c, weight)` of `[lo, hi]`, none when empty.
fn nodes(lo: f64, hi: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    if hi <= lo {
        return out;
    }
    let width = (hi - lo) / PANELS as f64;
    for p in 0..PANELS {
        let mid = lo + (p as f64 + 0.5) * width;
        for &(x, w) in &GL8 {
            out.push((mid + 0.5 * width * x, 0.5 * width * w));
        }
    }
    out
}

/// Jaccard similarity of a set of size `ratio·q` with containment `c` of a
/// query of size `q`.
#[inline]
fn jaccard_of(c: f64, ratio: f64) -> f64 {
    (c / (1.0 + ratio - c)).clamp(0.0, 1.0)
}

impl Tuner {
    /// The `(bands, rows)` minimising the weighted error for containment
    /// threshold `t` and size ratio `ratio = u / q` (`t ≤ ratio`; smaller
    /// ratios cannot reach `t` and are skipped by the caller). Ties go to
    /// the fewer rows, then the fewer bands.
    pub(crate) fn optimal(&self, t: f64, ratio: f64) -> (usize, usize) {
        let fp_nodes = nodes(0.0, t.min(ratio));
        let fn_nodes = nodes(t, ratio.min(1.0));
        let s_fp: Vec<(f64, f64)> = fp_nodes
            .iter()
            .map(|&(c, w)| (jaccard_of(c, ratio), w))
            .collect();
        let s_fn: Vec<(f64, f64)> = fn_nodes
            .iter()
            .map(|&(c, w)| (jaccard_of(c, ratio), w))
            .collect();
        let mut miss_fp = alloc::vec![0.0f64; s_fp.len()];
        let mut miss_fn = alloc::vec![0.0f64; s_fn.len()];
        let mut step_fp = alloc::vec![0.0f64; s_fp.len()];
        let mut step_fn = alloc::vec![0.0f64; s_fn.len()];
        let fp_total: f64 = s_fp.iter().map(|&(_, w)| w).sum();
        let mut best = (f64::INFINITY, (1, 1));
        for r in 1..=self.max_rows.min(self.num_perm) {
            let exp = r as i32;
            for (k, &(s, _)) in s_fp.iter().enumerate() {
                step_fp[k] = 1.0 - s.powi(exp);
                miss_fp[k] = 1.0;
            }
            for (k, &(s, _)) in s_fn.iter().enumerate() {
                step_fn[k] = 1.0 - s.powi(exp);
                miss_fn[k] = 1.0;
            }
            for b in 1..=self.num_perm / r {
                // miss = (1 − s^r)^b: the probability no band matches.
                let mut missed_fp = 0.0;
                for (k, &(_, w)) in s_fp.iter().enumerate() {
                    miss_fp[k] *= step_fp[k];
                    missed_fp += w * miss_fp[k];
                }
                let mut fnm = 0.0;
                for (k, &(_, w)) in s_fn.iter().enumerate() {
                    miss_fn[k] *= step_fn[k];
                    fnm += w * miss_fn[k];
                }
                let fpm = fp_total - missed_fp;
                let err = self.fp_weight * fpm + self.fn_weight * fnm;
                if err < best.0 {
                    best = (err, (b, r));
                }
            }
        }
        best.1
    }

    /// The error masses `(FP, FN)` of one banding by the same quadrature
    /// (the tests compare them with a fine midpoint sum).
    #[cfg(test)]
    pub(crate) fn masses(t: f64, ratio: f64, b: usize, r: usize) -> (f64, f64) {
        let p = |c: f64| 1.0 - (1.0 - jaccard_of(c, ratio).powi(r as i32)).powi(b as i32);
        let fp = nodes(0.0, t.min(ratio))
            .iter()
            .map(|&(c, w)| w * p(c))
            .sum();
        let fnm = nodes(t, ratio.min(1.0))
            .iter()
            .map(|&(c, w)| w * (1.0 - p(c)))
            .sum();
        (fp, fnm)
    }
}
