use super::*;

/// The fixed-point power against repeated floating-point products.
#[test]
fn miss_q32_matches_the_product() {
    for h in [1u64, 2, 5, 16, 128, 1000, 1 << 20] {
        for m in [0u64, 1, 2, 7, 64, 300, 5000] {
            let mut want = 1.0f64;
            for _ in 0..m {
                want *= 1.0 - 1.0 / h as f64;
            }
            let got = miss_q32(h, m) as f64 / 4_294_967_296.0;
            assert!(
                (got - want).abs() < 1e-6 + want * 1e-6,
                "h {h} m {m}: {got} vs {want}"
            );
        }
    }
    // Large arguments neither overflow nor loop long.
    assert_eq!(miss_q32(128, u64::MAX), 0);
    assert!(miss_q32(u64::MAX, 1) < 1 << 32);
}

/// Sorting waits for far more empty bins than distinct elements leave.
#[test]
fn dedup_only_when_repeats_are_likely() {
    // 56 distinct elements, 128 bins, 9 rounds: about 2.5 bins empty.
    assert!(!should_dedup(56, 128, 4, 3));
    assert!(!should_dedup(56, 128, 4, 12));
    assert!(should_dedup(56, 128, 4, 40));
    // A million copies of a few elements: sorted before round 1.
    assert!(should_dedup(1_000_000, 128, 0, 125));
    assert!(!should_dedup(1_000_000, 128, 0, 2));
    // Few elements, or a pair that is not checked: never.
    assert!(!should_dedup(32, 128, 4, 128));
    assert!(!should_dedup(1000, 128, 3, 128));
}

/// Whether the repeats are dropped or not, the slots are the same.
#[test]
fn dedup_changes_no_slot() {
    for copies in [1usize, 3, 40] {
        let distinct: Vec<u64> = (0..9u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 77)
            .collect();
        let mut a = FastSketch::<64>::new(5, 0);
        for _ in 0..copies {
            a.elems.extend(&distinct);
        }
        a.bin_all();
        let mut b = FastSketch::<64>::new(5, 0);
        b.elems.extend(&distinct);
        b.bin_all();
        assert_eq!(a.finish(), b.finish(), "copies {copies}");
    }
}
