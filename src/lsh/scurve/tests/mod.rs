//! Numerical tests: the quadrature rule, double-double arithmetic, and the
//! curve and its integrals against closed forms, 150-digit references and a
//! fine midpoint sum.

mod api;

use super::curve::Curve;
use super::dd::{self, Dd};
use super::quad::{self, GAUSS_WEIGHTS, KRONROD_NODES, MAX_PANELS, kronrod_gauss};
use crate::LshIndexBuilder;

/// `x^n` rounded to `f64`.
pub(super) fn pow(x: f64, n: usize) -> f64 {
    let p = dd::pow(Dd::from_f64(x), n);
    p.hi + p.lo
}

fn complement_pow(c: f64, n: usize) -> f64 {
    dd::complement_pow(Dd::from_f64(c), n).to_unit_f64()
}

pub(super) fn curve(bands: usize, rows: usize) -> Curve {
    Curve { bands, rows }
}

pub(super) fn fp(bands: usize, rows: usize, t: f64) -> f64 {
    LshIndexBuilder::new(bands, rows)
        .false_positive_mass(t)
        .unwrap()
}

pub(super) fn fn_(bands: usize, rows: usize, t: f64) -> f64 {
    LshIndexBuilder::new(bands, rows)
        .false_negative_mass(t)
        .unwrap()
}

/// `∫₀¹ (1 − P) = ∏ₖ₌₁ᵇ kr / (kr + 1)`: the Beta integral
/// `(1/r)·B(1/r, b + 1)` written as a product of terms in `(0, 1)`.
pub(super) fn total_miss(bands: usize, rows: usize) -> f64 {
    (1..=bands)
        .map(|k| {
            let kr = k as f64 * rows as f64;
            kr / (kr + 1.0)
        })
        .product()
}

pub(super) fn close(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol
}

#[test]
fn kronrod_and_gauss_rules_are_exact_on_their_degrees() {
    // K15 integrates degree <= 22 exactly, G7 degree <= 13; a wrong digit in
    // a node or weight shows up here at that digit.
    for k in 0..=22u32 {
        let (kronrod, gauss) = kronrod_gauss(&|x| pow(x, k as usize), -1.0, 1.0);
        let want = if k % 2 == 0 {
            2.0 / (k + 1) as f64
        } else {
            0.0
        };
        assert!(
            close(kronrod, want, 1e-15),
            "K15 x^{k}: {kronrod} vs {want}"
        );
        if k <= 13 {
            assert!(close(gauss, want, 1e-15), "G7 x^{k}: {gauss} vs {want}");
        }
    }
    let weights: f64 = GAUSS_WEIGHTS[..3].iter().sum::<f64>() * 2.0 + GAUSS_WEIGHTS[3];
    assert!(close(weights, 2.0, 1e-15));
    assert_eq!(KRONROD_NODES[7], 0.0);
}

#[test]
fn double_double_products_are_exact() {
    // Products of integers below 2^53 fit in 106 bits: hi + lo is exact.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..10_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let (a, b) = (x >> 11, (x.rotate_left(29)) >> 11);
        let p = Dd::from_f64(a as f64) * Dd::from_f64(b as f64);
        let exact = i128::from(a) * i128::from(b);
        assert_eq!(p.hi as i128 + p.lo as i128, exact, "{a} * {b}");
    }
    let d = Dd::one_minus(1e-30);
    assert_eq!((d.hi, d.lo), (1.0, -1e-30));
    let back = Dd::ONE - d;
    assert_eq!((back.hi, back.lo), (1e-30, 0.0));
}

#[test]
fn pow_matches_repeated_multiplication() {
    for &x in &[0.0, 1e-300, 0.3, 0.5, 0.999, 1.0] {
        let mut acc = 1.0f64;
        for n in 0..200usize {
            let p = pow(x, n);
            assert!(close(p, acc, acc * 1e-13), "{x}^{n}: {p} vs {acc}");
            acc *= x;
        }
    }
    assert_eq!(pow(0.5, usize::MAX), 0.0);
    assert_eq!(pow(1.0, usize::MAX), 1.0);
}

#[cfg(feature = "std")]
#[test]
fn pow_matches_std_powi() {
    for &x in &[0.1f64, 0.5, 0.77, 0.99, 0.999_999] {
        for n in [0usize, 1, 2, 3, 7, 64, 100, 1000, 1 << 20] {
            let want = x.powi(n as i32);
            assert!(close(pow(x, n), want, want * 1e-12), "{x}^{n}");
        }
    }
}

#[test]
fn complement_pow_keeps_tiny_results() {
    // 1 − (1 − c)^n = n·c − C(n, 2)·c² + …; with n·c <= 1e-6 the series has
    // converged to full precision after three terms.
    for n in [1usize, 2, 3, 10, 100, 1000] {
        for &c in &[1e-300, 1e-200, 1e-40, 1e-20, 1e-12] {
            let nf = n as f64;
            if nf * c > 1e-6 {
                continue;
            }
            let series = nf * c - nf * (nf - 1.0) / 2.0 * c * c
                + nf * (nf - 1.0) * (nf - 2.0) / 6.0 * c * c * c;
            let got = complement_pow(c, n);
            assert!(
                close(got, series, series * 1e-14),
                "n={n} c={c}: {got} vs {series}"
            );
        }
    }
    // The textbook form gets 0 here.
    assert_eq!(1.0 - pow(1.0 - 1e-20, 4), 0.0);
    assert!(close(complement_pow(1e-20, 4), 4e-20, 4e-34));
    assert_eq!(complement_pow(0.0, 7), 0.0);
    assert_eq!(complement_pow(1.0, 7), 1.0);
    assert_eq!(complement_pow(0.5, 0), 0.0);
}

#[test]
fn candidate_probability_matches_textbook_where_it_is_safe() {
    for (b, r) in [
        (1, 1),
        (4, 2),
        (16, 8),
        (32, 4),
        (8, 16),
        (128, 1),
        (1, 128),
    ] {
        let c = curve(b, r);
        for i in 0..=100 {
            let s = f64::from(i) / 100.0;
            let textbook = 1.0 - pow(1.0 - pow(s, r), b);
            let p = LshIndexBuilder::new(b, r).candidate_probability(s).unwrap();
            assert!(close(p, textbook, 1e-14), "({b},{r}) s={s}");
            assert!(close(p + c.miss(s), 1.0, 1e-14), "({b},{r}) s={s}");
        }
        assert_eq!(c.hit(0.0), 0.0);
        assert_eq!(c.hit(1.0), 1.0);
        assert_eq!(c.miss(0.0), 1.0);
        assert_eq!(c.miss(1.0), 0.0);
    }
    // The documented examples of tiny probabilities.
    let p = LshIndexBuilder::new(1, 1)
        .candidate_probability(1e-9)
        .unwrap();
    assert!(close(p, 1e-9, 1e-24));
    let p = LshIndexBuilder::new(4, 2)
        .candidate_probability(1e-9)
        .unwrap();
    assert!(close(p, 4e-18, 4e-31));
}

#[test]
fn masses_match_closed_forms_for_one_band_or_one_row() {
    let ts = [0.0, 1e-9, 0.05, 0.3, 0.5, 0.77, 0.9, 0.99, 0.999_999, 1.0];
    let sizes = [
        1usize,
        2,
        3,
        7,
        16,
        100,
        1000,
        65_536,
        1 << 30,
        2_147_483_629,
    ];
    for &n in &sizes {
        let nf = n as f64;
        for &t in &ts {
            // bands = 1: P(s) = s^n.
            let tn1 = pow(t, n + 1);
            let want_fp = tn1 / (nf + 1.0);
            let want_fn = (1.0 - t) - (1.0 - tn1) / (nf + 1.0);
            assert!(close(fp(1, n, t), want_fp, 1e-12), "(1,{n}) t={t}");
            assert!(close(fn_(1, n, t), want_fn, 1e-12), "(1,{n}) t={t}");
            // rows = 1: P(s) = 1 − (1 − s)^n.
            let ut1 = pow(1.0 - t, n + 1);
            let want_fp = t - (1.0 - ut1) / (nf + 1.0);
            let want_fn = ut1 / (nf + 1.0);
            assert!(close(fp(n, 1, t), want_fp, 1e-12), "({n},1) t={t}");
            assert!(close(fn_(n, 1, t), want_fn, 1e-12), "({n},1) t={t}");
        }
    }
}

#[test]
fn masses_match_binomial_expansion_for_few_bands() {
    // P(s) = Σₖ (−1)^(k+1) C(b, k) s^(rk): exact term by term, and with b <= 6
    // the alternating sum loses at most a few digits.
    for b in 1..=6usize {
        for r in 1..=24usize {
            for &t in &[0.1, 0.4, 0.5, 0.65, 0.8, 0.95] {
                let (mut below, mut above) = (0.0, 0.0);
                let mut binom = 1.0;
                for k in 1..=b {
                    binom = binom * (b + 1 - k) as f64 / k as f64;
                    let sign = if k % 2 == 1 { 1.0 } else { -1.0 };
                    let e = (r * k + 1) as f64;
                    let tk = pow(t, r * k + 1);
                    below += sign * binom * tk / e;
                    above += sign * binom * (1.0 - tk) / e;
                }
                assert!(close(fp(b, r, t), below, 1e-12), "({b},{r}) t={t}");
                assert!(
                    close(fn_(b, r, t), (1.0 - t) - above, 1e-12),
                    "({b},{r}) t={t}"
                );
            }
        }
    }
}

#[test]
fn masses_match_a_fine_midpoint_sum() {
    // Midpoint rule with N panels: error <= (1/N)²/24 · ∫|P''|, and
    // ∫|P''| <= 2·max P' <= 2·b·r, so below 2.2e-9 for every H <= 256.
    const N: usize = 100_000;
    let midpoint = |f: &dyn Fn(f64) -> f64, lo: f64, hi: f64| {
        let dx = (hi - lo) / N as f64;
        (0..N).map(|i| f(lo + (i as f64 + 0.5) * dx)).sum::<f64>() * dx
    };
    for h in [12usize, 100, 256] {
        for b in LshIndexBuilder::bandings(h).unwrap() {
            let c = curve(b.bands, b.rows);
            for &t in &[0.2, 0.5, 0.8] {
                let want_fp = midpoint(&|s| c.hit(s), 0.0, t);
                let want_fn = midpoint(&|s| c.miss(s), t, 1.0);
                assert!(
                    close(fp(b.bands, b.rows, t), want_fp, 2.2e-9),
                    "{b:?} t={t}"
                );
                assert!(
                    close(fn_(b.bands, b.rows, t), want_fn, 2.2e-9),
                    "{b:?} t={t}"
                );
            }
        }
    }
}

#[test]
fn quadrature_converges_for_every_banding_of_extreme_sizes() {
    // Estimated errors stay within tolerance (no forced panel) and far from
    // the split budget, from flat to needle-steep curves.
    let mut most_splits = 0;
    for h in [1usize, 128, 720_720, 1 << 30, 2_095_133_040] {
        for bands in super::divisors_ascending(h) {
            let c = curve(bands, h / bands);
            let breaks = c.breakpoints();
            for &t in &[0.01, 0.5, 0.9, 0.999] {
                for est in [
                    c.false_positive_mass(t, &breaks),
                    c.false_negative_mass(t, &breaks),
                ] {
                    assert!(est.error <= quad::TOLERANCE, "{c:?} t={t}: {est:?}");
                    most_splits = most_splits.max(est.splits);
                }
            }
        }
    }
    assert!(most_splits < MAX_PANELS / 10, "{most_splits}");
}

/// Reference values from 150-digit mpmath: `(bands, rows, s, P(s), 1 − P(s))`.
#[rustfmt::skip]
#[allow(clippy::excessive_precision)] // 20 digits as computed
const PROBABILITY_VECTORS: [(usize, usize, f64, f64, f64); 10] = [
    (16, 8, 0.5, 6.070_190_410_618_356_2e-2, 9.392_980_958_938_164_4e-1),
    (20, 5, 0.3, 4.749_425_912_497_031_5e-2, 9.525_057_408_750_296_9e-1),
    (10920, 66, 0.85, 2.132_266_689_756_229_1e-1, 7.867_733_310_243_771e-1),
    (1, 1 << 30, 0.999_999_999_9, 8.981_895_154_075_79e-1, 1.018_104_845_924_21e-1),
    (1 << 30, 1, 1e-10, 1.018_104_766_127_439_1e-1, 8.981_895_233_872_561e-1),
    (4, 2, 1e-9, 4.000_000_000_000_000_5e-18, 1.0),
    (128, 1, 0.01, 7.237_483_323_007_914e-1, 2.762_516_676_992_086e-1),
    (7, 13, 0.77, 2.119_127_153_546_063e-1, 7.880_872_846_453_937e-1),
    (64, 2, 1e-12, 6.4e-23, 1.0),
    (2, 64, 0.999, 9.961_528_948_875_948e-1, 3.847_105_112_405_174_6e-3),
];

/// Exact binomial sums in 150-digit mpmath: `(bands, rows, t, FP, FN)`.
#[rustfmt::skip]
#[allow(clippy::excessive_precision)] // 20 digits as computed
const MASS_VECTORS: [(usize, usize, f64, f64, f64); 8] = [
    (32, 4, 0.8, 4.207_466_119_640_551e-1, 4.026_061_379_764_832_7e-10),
    (64, 2, 0.3, 1.899_177_347_865_408_6e-1, 5.224_780_612_420_632e-5),
    (8, 16, 0.8, 1.007_877_195_627_598e-2, 5.629_856_614_352_078e-2),
    (10, 10, 0.7, 1.683_766_627_611_160_2e-2, 6.845_944_854_452_653e-2),
    (200, 5, 0.6, 2.819_786_836_486_188_7e-1, 6.308_324_190_597_560_4e-10),
    (150, 1, 0.05, 4.338_034_951_805_139e-2, 2.866_074_342_777_994_8e-6),
    (1, 200, 0.97, 1.091_245_661_540_245e-5, 2.503_578_807_850_597_6e-2),
    (25, 4, 0.5, 1.080_884_274_380_092_3e-1, 1.094_333_447_370_242_7e-2),
];

#[test]
fn probabilities_match_high_precision_references() {
    for (b, r, s, p, q) in PROBABILITY_VECTORS {
        let c = curve(b, r);
        // Within 4 ulps, relative: the double-double evaluation rounds once.
        assert!(
            close(c.hit(s), p, p * 9e-16),
            "P ({b},{r}) s={s}: {} vs {p}",
            c.hit(s)
        );
        assert!(
            close(c.miss(s), q, q * 9e-16),
            "1-P ({b},{r}) s={s}: {} vs {q}",
            c.miss(s)
        );
    }
}

#[test]
fn masses_match_high_precision_references() {
    for (b, r, t, want_fp, want_fn) in MASS_VECTORS {
        let (got_fp, got_fn) = (fp(b, r, t), fn_(b, r, t));
        assert!(
            close(got_fp, want_fp, 1e-13),
            "FP ({b},{r}) t={t}: {got_fp} vs {want_fp}"
        );
        assert!(
            close(got_fn, want_fn, 1e-13),
            "FN ({b},{r}) t={t}: {got_fn} vs {want_fn}"
        );
    }
}
