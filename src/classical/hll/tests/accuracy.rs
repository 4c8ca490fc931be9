//! Accuracy over many independent sketches: fixed seeds, so the figures
//! are the same on every run (the tolerances are not probabilistic).

use super::super::{Hll, HyperLogLog, HyperLogLogPlusPlus, Variant};
use super::splitmix;

/// Mean signed and root-mean-square relative error of `runs` sketches of
/// `n` distinct items each (hash stream `seed`).
fn errors<V: Variant>(p: u8, n: u64, runs: u64) -> (f64, f64) {
    let (mut sum, mut sq) = (0.0, 0.0);
    for run in 0..runs {
        let mut h = Hll::<V>::new(p).unwrap();
        let base = splitmix(run ^ (u64::from(p) << 40) ^ (n << 8));
        for i in 0..n {
            h.insert_hash(splitmix(base.wrapping_add(i)));
        }
        let e = h.count() / n as f64 - 1.0;
        sum += e;
        sq += e * e;
    }
    (sum / runs as f64, (sq / runs as f64).sqrt())
}

/// `(p, n)` pairs from the small range through linear counting's switch
/// to far beyond `m`.
const CASES: [(u8, u64); 8] = [
    (8, 50),
    (8, 600),
    (8, 5_000),
    (8, 100_000),
    (12, 1_000),
    (12, 10_000),
    (12, 200_000),
    (14, 100_000),
];

/// `transition`: the factor and whether bias is checked where `2m <= n <= 5m`,
/// the range in which the classic estimator switches from linear counting
/// to the raw estimate and is known to be biased (the defect HyperLogLog++
/// removes).
fn check<V: Variant>(rmse_factor: f64, transition: (f64, bool)) {
    for (p, n) in CASES {
        let runs = if n >= 100_000 { 40 } else { 200 };
        let (mean, rmse) = errors::<V>(p, n, runs);
        let m = f64::from(1u32 << p);
        let se = 1.04 / m.sqrt();
        let in_transition = (2.0 * m..=5.0 * m).contains(&(n as f64));
        let (factor, bias_checked) = if in_transition {
            transition
        } else {
            (rmse_factor, true)
        };
        assert!(
            rmse <= factor * se,
            "{}: p = {p}, n = {n}: rmse {rmse:.4} above {factor} x {se:.4}",
            V::NAME
        );
        // The mean of `runs` sketches has error se / sqrt(runs): a bias of
        // four such errors is a defect, not chance.
        let bias_bound = 4.0 * se / (runs as f64).sqrt() + 0.002;
        assert!(
            !bias_checked || mean.abs() <= bias_bound,
            "{}: p = {p}, n = {n}: bias {mean:.4} above {bias_bound:.4}",
            V::NAME
        );
    }
}

#[test]
fn hyperloglog_error_is_near_the_standard_error() {
    check::<super::super::Classic>(1.25, (2.2, false));
}

#[test]
fn hyperloglog_plus_plus_error_is_near_the_standard_error() {
    check::<super::super::PlusPlus>(1.15, (1.15, true));
}

#[test]
fn plus_plus_is_nearly_exact_while_sparse() {
    for n in [1u64, 10, 100, 1_000] {
        let mut h = HyperLogLogPlusPlus::new(14).unwrap();
        for i in 0..n {
            h.insert_str(&format!("shingle {i}"));
        }
        assert!(h.is_sparse());
        let err = (h.count() - n as f64).abs();
        assert!(err <= 1.0 + n as f64 * 1e-3, "n = {n}: {}", h.count());
        assert_eq!(h.len(), n);
    }
    // The classic sketch at the same precision, by comparison, is exact
    // only while linear counting over 2^14 registers happens to be.
    let mut c = HyperLogLog::new(14).unwrap();
    c.insert_tokens(["a", "b", "c"]);
    assert_eq!(c.len(), 3);
}
