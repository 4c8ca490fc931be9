//! Tests of the public S-curve API: input validation, the optimisers against
//! brute force, and property tests.

use alloc::string::ToString;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::super::tests::{close, curve, fn_, fp, pow, total_miss};
use crate::{Error, LshIndex, LshIndexBuilder};

#[test]
fn bad_inputs_are_config_errors_naming_the_value() {
    let msg = |r: crate::Result<LshIndexBuilder>| r.unwrap_err().to_string();
    let b = LshIndexBuilder::new(16, 8);
    for s in [f64::NAN, -0.1, 1.5, f64::INFINITY] {
        let err = b.candidate_probability(s).unwrap_err();
        assert!(matches!(err, Error::Config(_)));
        assert_eq!(
            err.to_string(),
            alloc::format!("config error: similarity must be in [0.0, 1.0]; got {s}")
        );
        for r in [b.false_positive_mass(s), b.false_negative_mass(s)] {
            assert_eq!(
                r.unwrap_err().to_string(),
                alloc::format!("config error: threshold must be in [0.0, 1.0]; got {s}")
            );
        }
    }
    for (bands, rows) in [(0, 8), (8, 0), (0, 0)] {
        let b = LshIndexBuilder::new(bands, rows);
        let want = alloc::format!(
            "config error: bands and rows must be > 0; got bands = {bands}, rows = {rows}"
        );
        assert_eq!(b.candidate_probability(0.5).unwrap_err().to_string(), want);
        assert_eq!(b.false_positive_mass(0.5).unwrap_err().to_string(), want);
        assert_eq!(b.false_negative_mass(0.5).unwrap_err().to_string(), want);
    }
    assert_eq!(
        msg(LshIndexBuilder::for_recall(1.0, 128, 0.9)),
        "config error: threshold must be in (0.0, 1.0); got 1"
    );
    assert_eq!(
        msg(LshIndexBuilder::for_recall(0.5, 128, f64::NAN)),
        "config error: target recall must be in (0.0, 1.0); got NaN"
    );
    assert_eq!(
        msg(LshIndexBuilder::for_recall(0.5, 0, 0.9)),
        "config error: H cannot be zero"
    );
    assert_eq!(
        msg(LshIndexBuilder::for_weights(0.5, usize::MAX, 1.0, 1.0)),
        alloc::format!(
            "config error: H = {} is too large to auto-tune (at most 2147483647)",
            usize::MAX
        )
    );
    for (wp, wn) in [
        (-1.0, 1.0),
        (1.0, f64::NAN),
        (f64::INFINITY, 1.0),
        (0.0, 0.0),
    ] {
        assert_eq!(
            msg(LshIndexBuilder::for_weights(0.5, 128, wp, wn)),
            alloc::format!(
                "config error: weights must be finite, >= 0 and not both 0; \
                 got fp_weight = {wp}, fn_weight = {wn}"
            )
        );
    }
    assert_eq!(
        LshIndexBuilder::bandings(0).unwrap_err().to_string(),
        "config error: H cannot be zero"
    );
}

#[test]
fn for_recall_reports_the_best_reachable_recall() {
    // H = 4 at t = 0.1: 4 bands of 1 row give 1 − 0.9⁴ = 0.3439.
    let err = LshIndexBuilder::for_recall(0.1, 4, 0.9).unwrap_err();
    let best = 1.0 - pow(0.9, 4);
    assert_eq!(
        err.to_string(),
        alloc::format!(
            "config error: no banding of H = 4 reaches recall 0.9 at threshold 0.1; \
             the best is bands = 4, rows = 1 with recall {}",
            curve(4, 1).hit(0.1)
        )
    );
    assert!(close(curve(4, 1).hit(0.1), best, 1e-15));
    // Just below that it is reachable, and only by (4, 1).
    let b = LshIndexBuilder::for_recall(0.1, 4, 0.34).unwrap();
    assert_eq!(b, LshIndexBuilder::new(4, 1));
}

#[test]
fn for_weights_with_equal_weights_refines_for_threshold() {
    // The same objective: the choices agree on every threshold of this grid
    // (and of the 1/1000 grid, checked once; too slow to keep)...
    for h in [16usize, 32, 64, 100, 128, 256] {
        for t100 in 1..100u32 {
            let t32 = t100 as f32 / 100.0;
            let old = LshIndexBuilder::for_threshold(t32, h).unwrap();
            let new = LshIndexBuilder::for_weights(f64::from(t32), h, 1.0, 1.0).unwrap();
            assert_eq!(old, new, "h={h} t={t32}");
        }
    }
    // ...and differ only within ~1e-4 of a crossover, where the accurate
    // objective shows a near-tie that the f32 trapezoid rule got wrong: for
    // H = 256 it switches (2, 128) -> (1, 256) at t = 0.990433, this crate at
    // t = 0.990512.
    let t = 0.99047;
    let old = LshIndexBuilder::for_threshold(t as f32, 256).unwrap();
    let new = LshIndexBuilder::for_weights(t, 256, 1.0, 1.0).unwrap();
    assert_eq!(
        (old, new),
        (LshIndexBuilder::new(1, 256), LshIndexBuilder::new(2, 128))
    );
    let cost = |b: LshIndexBuilder| fp(b.bands, b.rows, t) + fn_(b.bands, b.rows, t);
    let gap = cost(old) - cost(new);
    assert!(gap > 0.0 && gap < 1e-4, "{gap}"); // 3.4e-5
    // Only the ratio of the weights matters, even for subnormal ones.
    for (wp, wn) in [(1.0, 3.0), (1.0, 0.0), (0.0, 1.0), (2.0, 1.0)] {
        let want = LshIndexBuilder::for_weights(0.7, 256, wp, wn).unwrap();
        for scale in [f64::MAX / 4.0, 1e-310] {
            let got = LshIndexBuilder::for_weights(0.7, 256, wp * scale, wn * scale).unwrap();
            assert_eq!(got, want, "{wp} : {wn} scaled by {scale}");
        }
    }
}

#[test]
fn index_methods_use_its_banding() {
    let idx = LshIndex::<128>::with_bands_rows(16, 8).unwrap();
    let b = LshIndexBuilder::new(16, 8);
    for &s in &[0.0, 0.3, 0.7, 1.0] {
        assert_eq!(
            idx.candidate_probability(s).unwrap(),
            b.candidate_probability(s).unwrap()
        );
        assert_eq!(
            idx.false_positive_mass(s).unwrap(),
            b.false_positive_mass(s).unwrap()
        );
        assert_eq!(
            idx.false_negative_mass(s).unwrap(),
            b.false_negative_mass(s).unwrap()
        );
    }
    assert!(idx.candidate_probability(f64::NAN).is_err());
}

/// Brute-force reference for `for_recall`, through the public per-banding API.
fn naive_for_recall(t: f64, h: usize, recall: f64) -> Option<LshIndexBuilder> {
    let mut best: Option<(LshIndexBuilder, f64)> = None;
    for b in LshIndexBuilder::bandings(h).unwrap() {
        if b.candidate_probability(t).unwrap() >= recall {
            let m = b.false_positive_mass(t).unwrap();
            if best.is_none_or(|(_, bm)| m < bm) {
                best = Some((b, m));
            }
        }
    }
    best.map(|(b, _)| b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn probability_is_monotone_in_similarity(
        bands in 1usize..5000, rows in 1usize..5000, a in 0.0f64..=1.0, d in 0.0f64..=1.0,
    ) {
        let (lo, hi) = (a.min(d), a.max(d));
        let b = LshIndexBuilder::new(bands, rows);
        let (p_lo, p_hi) = (b.candidate_probability(lo)?, b.candidate_probability(hi)?);
        // Exact in real arithmetic; rounding may reorder values within a few ulps.
        prop_assert!(p_lo <= p_hi * (1.0 + 1e-13), "P({lo}) = {p_lo} > P({hi}) = {p_hi}");
        prop_assert!((0.0..=1.0).contains(&p_lo) && (0.0..=1.0).contains(&p_hi));
    }

    #[test]
    fn masses_are_consistent(bands in 1usize..3000, rows in 1usize..3000, t in 0.0f64..=1.0) {
        let b = LshIndexBuilder::new(bands, rows);
        let (f_p, f_n) = (b.false_positive_mass(t)?, b.false_negative_mass(t)?);
        prop_assert!((0.0..=t + 1e-13).contains(&f_p) && (0.0..=1.0 - t + 1e-13).contains(&f_n));
        // ∫₀ᵗ P − ∫ₜ¹ (1 − P) = ∫₀¹ P − (1 − t) = t − ∫₀¹ (1 − P).
        let want = t - total_miss(bands, rows);
        prop_assert!(close(f_p - f_n, want, 1e-12), "{} vs {}", f_p - f_n, want);
        // Raising the threshold moves mass from FN to FP.
        let t2 = (t + 0.05).min(1.0);
        prop_assert!(b.false_positive_mass(t2)? >= f_p - 1e-13);
        prop_assert!(b.false_negative_mass(t2)? <= f_n + 1e-13);
    }

    #[test]
    fn recommended_banding_meets_its_recall(
        h in 1usize..2000, t in 0.01f64..0.99, recall in 0.5f64..0.9999,
    ) {
        let got = LshIndexBuilder::for_recall(t, h, recall);
        match naive_for_recall(t, h, recall) {
            Some(want) => {
                let got = got?;
                prop_assert_eq!(got, want);
                prop_assert_eq!(got.bands * got.rows, h);
                prop_assert!(got.candidate_probability(t)? >= recall);
            }
            None => {
                let err = got.unwrap_err().to_string();
                prop_assert!(err.contains("no banding of H = "), "{}", err);
            }
        }
    }

    #[test]
    fn weighted_choice_minimises_its_cost(
        h in 1usize..600, t in 0.01f64..0.99, wp in 0.0f64..10.0, wn in 0.01f64..10.0,
    ) {
        let got = LshIndexBuilder::for_weights(t, h, wp, wn)?;
        let cost = |b: LshIndexBuilder| -> Result<f64, Error> {
            Ok(wp * b.false_positive_mass(t)? + wn * b.false_negative_mass(t)?)
        };
        let got_cost = cost(got)?;
        for b in LshIndexBuilder::bandings(h)? {
            prop_assert!(got_cost <= cost(b)?, "{:?} beats {:?}", b, got);
        }
    }
}

#[test]
fn bandings_are_all_divisor_pairs() {
    for h in 1..300usize {
        let all: Vec<_> = LshIndexBuilder::bandings(h).unwrap();
        let naive: Vec<_> = (1..=h)
            .filter(|b| h.is_multiple_of(*b))
            .map(|b| LshIndexBuilder::new(b, h / b))
            .collect();
        assert_eq!(all, naive);
    }
}
