//! Adaptive 15-point Gauss–Kronrod quadrature for integrands bounded by
//! `[0, 1]`, such as the S-curve and its complement.
//!
//! Each panel is integrated with the 15-point Kronrod rule; the embedded
//! 7-point Gauss rule gives the error estimate `|K15 − G7|`. A panel is kept
//! when that estimate is at most [`TOLERANCE`] times its width, otherwise it
//! is halved. For the smooth S-curve the Kronrod value is far more accurate
//! than this estimate, so the reported bound is conservative. Halving stops at
//! [`MAX_DEPTH`], when a panel can no longer be split in `f64`, or after
//! [`MAX_PANELS`] splits; a panel kept that way is off by at most its width
//! (the integrand lies in `[0, 1]`), which is what its error estimate becomes.

use alloc::vec::Vec;

/// Accepted error estimate per unit of panel width, so the whole integral over
/// a sub-interval of `[0, 1]` has an estimated error of at most this much.
pub(super) const TOLERANCE: f64 = 1e-13;

/// Deepest halving of a starting panel; `2⁻⁶⁰` is below the spacing of
/// doubles near 1.
const MAX_DEPTH: u32 = 60;

/// Splits allowed per integral. Bounds the work for any banding; the S-curve
/// tests show no integral near it (a steep curve needs a few dozen).
pub(super) const MAX_PANELS: usize = 20_000;

/// Nodes of the 15-point Kronrod rule on `[-1, 1]` (positive half, largest
/// first, then 0); the odd positions are the 7-point Gauss nodes. Values from
/// QUADPACK's tables, checked by the moment test in `tests.rs`.
#[allow(clippy::excessive_precision)] // the published digits; the compiler rounds
pub(super) const KRONROD_NODES: [f64; 8] = [
    0.991_455_371_120_812_639_206_854_697_526_329,
    0.949_107_912_342_758_524_526_189_684_047_851,
    0.864_864_423_359_769_072_789_712_788_640_926,
    0.741_531_185_599_394_439_863_864_773_280_788,
    0.586_087_235_467_691_130_294_144_845_693_013,
    0.405_845_151_377_397_166_906_606_412_076_961,
    0.207_784_955_007_898_467_600_689_403_773_245,
    0.0,
];

/// Kronrod weights matching [`KRONROD_NODES`].
#[allow(clippy::excessive_precision)] // the published digits; the compiler rounds
pub(super) const KRONROD_WEIGHTS: [f64; 8] = [
    0.022_935_322_010_529_224_963_732_008_058_970,
    0.063_092_092_629_978_553_290_700_663_189_204,
    0.104_790_010_322_250_183_839_876_322_541_518,
    0.140_653_259_715_525_918_745_189_590_510_238,
    0.169_004_726_639_267_902_826_583_426_598_550,
    0.190_350_578_064_785_409_913_256_402_421_014,
    0.204_432_940_075_298_892_414_161_999_234_649,
    0.209_482_141_084_727_828_012_999_174_891_714,
];

/// Gauss weights of the nodes `KRONROD_NODES[1]`, `[3]`, `[5]` and `[7]` (= 0).
#[allow(clippy::excessive_precision)] // the published digits; the compiler rounds
pub(super) const GAUSS_WEIGHTS: [f64; 4] = [
    0.129_484_966_168_869_693_270_611_432_679_082,
    0.279_705_391_489_276_667_901_467_771_423_780,
    0.381_830_050_505_118_944_950_369_775_488_975,
    0.417_959_183_673_469_387_755_102_040_816_327,
];

/// An integral and a bound on its error.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Estimate {
    pub(super) value: f64,
    /// Sum of the panels' `|K15 − G7|` (or widths, for forced panels).
    pub(super) error: f64,
    /// Panels split along the way.
    pub(super) splits: usize,
}

impl Estimate {
    /// The estimate of the integral over the union of two disjoint ranges.
    pub(super) fn merge(self, other: Self) -> Self {
        Self {
            value: self.value + other.value,
            error: self.error + other.error,
            splits: self.splits + other.splits,
        }
    }
}

/// Kronrod and Gauss values of `∫ₐᵇ f`.
pub(super) fn kronrod_gauss(f: &impl Fn(f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    let center = 0.5 * (a + b);
    let half = 0.5 * (b - a);
    let f0 = f(center);
    let mut kronrod = KRONROD_WEIGHTS[7] * f0;
    let mut gauss = GAUSS_WEIGHTS[3] * f0;
    for (i, (node, weight)) in KRONROD_NODES[..7].iter().zip(KRONROD_WEIGHTS).enumerate() {
        let dx = half * node;
        let pair = f(center - dx) + f(center + dx);
        kronrod += weight * pair;
        if i % 2 == 1 {
            gauss += GAUSS_WEIGHTS[i / 2] * pair;
        }
    }
    (kronrod * half, gauss * half)
}

/// `∫ₗₒʰⁱ f` for an `f` with values in `[0, 1]`, starting from panels cut at
/// the `breaks` that fall strictly inside `(lo, hi)`. Zero when `hi <= lo`.
pub(super) fn integrate(f: impl Fn(f64) -> f64, lo: f64, hi: f64, breaks: &[f64]) -> Estimate {
    let mut est = Estimate::default();
    if hi <= lo {
        return est;
    }
    let mut cuts: Vec<f64> = breaks
        .iter()
        .copied()
        .filter(|&x| x > lo && x < hi)
        .collect();
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    let mut stack: Vec<(f64, f64, u32)> = Vec::with_capacity(MAX_DEPTH as usize + 2);
    let mut start = lo;
    for end in cuts.into_iter().chain([hi]) {
        stack.push((start, end, 0));
        // Depth first, left half first: the stack never holds more than
        // MAX_DEPTH + 1 panels.
        while let Some((a, b, depth)) = stack.pop() {
            let (kronrod, gauss) = kronrod_gauss(&f, a, b);
            let width = b - a;
            let error = (kronrod - gauss).abs();
            let mid = 0.5 * (a + b);
            let splittable = depth < MAX_DEPTH && mid > a && mid < b;
            if error <= TOLERANCE * width {
                est.value += kronrod;
                est.error += error;
            } else if !splittable || est.splits >= MAX_PANELS {
                est.value += kronrod;
                est.error += width;
            } else {
                est.splits += 1;
                stack.push((mid, b, depth + 1));
                stack.push((a, mid, depth + 1));
            }
        }
        start = end;
    }
    est
}
