use super::*;
use alloc::vec::Vec;
use proptest::prelude::*;

proptest! {
    #[test]
    fn batch_equals_reference(
        len in prop_oneof![Just(128usize), 0usize..200],
        start in proptest::collection::vec(any::<u64>(), 200),
        pairs in proptest::collection::vec(any::<[u64; 2]>(), 0..70),
    ) {
        let mut want = start[..len].to_vec();
        for &[lo, hi] in &pairs {
            update_slots_reference(&mut want, lo, hi);
        }
        for k in Kernel::all_available() {
            let mut got = start[..len].to_vec();
            k.update_batch(&mut got, &pairs);
            prop_assert_eq!(&got, &want, "{:?}", k);
        }
    }
}

/// Slot arrays that exercise the unsigned comparison: values near 0,
/// near 2^63 (where a signed compare would flip) and near u64::MAX.
fn slot_value() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        Just(u64::MAX),
        Just(0u64),
        (0u64..16).prop_map(|d| (1u64 << 63).wrapping_add(d).wrapping_sub(8)),
        (0u64..16).prop_map(|d| u64::MAX - d),
    ]
}

fn slots(max_len: usize) -> impl Strategy<Value = Vec<u64>> {
    proptest::collection::vec(slot_value(), 0..max_len)
}

#[test]
fn detection_finds_a_simd_path_on_x86_64_with_std() {
    let all = Kernel::all_available();
    assert_eq!(all[0], Kernel::scalar());
    assert_eq!(*all.last().unwrap(), Kernel::detect());
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    if Avx2::detect().is_some() {
        assert!(all.len() >= 2, "AVX2 detected but not offered: {all:?}");
    }
}

#[test]
fn update_slots_known_values() {
    // lo + i·hi wraps: hi = 2^63 alternates between lo and lo + 2^63.
    let mut s = [u64::MAX; 5];
    for k in Kernel::all_available() {
        let mut t = s;
        k.update_slots(&mut t, 3, 1 << 63);
        assert_eq!(t, [3, 3 + (1 << 63), 3, 3 + (1 << 63), 3], "{k:?}");
    }
    update_slots(&mut s, 10, u64::MAX); // hi = -1: 10, 9, 8, ...
    assert_eq!(s, [10, 9, 8, 7, 6]);
    update_slots(&mut s, 8, 0);
    assert_eq!(s, [8, 8, 8, 7, 6]);
}

#[test]
fn count_equal_known_values() {
    let a = [1u64, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
    let mut b = a;
    b[0] = 0;
    b[9] = 0;
    for k in Kernel::all_available() {
        assert_eq!(k.count_equal(&a, &b), 9, "{k:?}");
        assert_eq!(k.count_equal(&a, &a[..4]), 4, "{k:?}");
        assert_eq!(k.count_equal(&[], &[]), 0, "{k:?}");
    }
    assert_eq!(count_equal(&a, &b), 9);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_update_path_matches_reference(
        start in slots(300),
        lo in slot_value(),
        hi in slot_value(),
    ) {
        let mut want = start.clone();
        update_slots_reference(&mut want, lo, hi);
        for k in Kernel::all_available() {
            let mut got = start.clone();
            k.update_slots(&mut got, lo, hi);
            prop_assert_eq!(&got, &want, "kernel {:?}", k);
        }
        let mut got = start.clone();
        Kernel::scalar().update_slots(&mut got, lo, hi);
        prop_assert_eq!(&got, &want);
        let mut got = start;
        update_slots(&mut got, lo, hi);
        prop_assert_eq!(got, want);
    }

    #[test]
    fn repeated_updates_match_reference(
        start in slots(300),
        tokens in proptest::collection::vec((any::<u64>(), any::<u64>()), 0..8),
    ) {
        let mut want = start.clone();
        for &(lo, hi) in &tokens {
            update_slots_reference(&mut want, lo, hi);
        }
        for k in Kernel::all_available() {
            let mut got = start.clone();
            for &(lo, hi) in &tokens {
                k.update_slots(&mut got, lo, hi);
            }
            prop_assert_eq!(&got, &want, "kernel {:?}", k);
        }
    }

    #[test]
    fn every_count_path_matches_reference(
        a in slots(300),
        flips in proptest::collection::vec(any::<bool>(), 0..300),
        extra in 0usize..3,
    ) {
        // Start from equal arrays and perturb some positions, so that
        // counts are spread over the whole range rather than ~0.
        let mut b: Vec<u64> = a.clone();
        for (x, f) in b.iter_mut().zip(&flips) {
            if *f {
                *x ^= 1 << (*x % 64);
            }
        }
        b.extend(core::iter::repeat_n(7, extra));
        let want = count_equal_reference(&a, &b);
        for k in Kernel::all_available() {
            prop_assert_eq!(k.count_equal(&a, &b), want, "kernel {:?}", k);
            prop_assert_eq!(k.count_equal(&b, &a), want, "kernel {:?}", k);
        }
        prop_assert_eq!(Kernel::scalar().count_equal(&a, &b), want);
        prop_assert_eq!(count_equal(&a, &b), want);
    }
}
