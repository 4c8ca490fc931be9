//! Index tests of the 128-bit width: queries against a linear scan,
//! replacement, removal and errors.

use alloc::vec::Vec;

use crate::{SimHash128, SimHash128Index};
use proptest::prelude::*;

fn scan(items: &[(u64, SimHash128)], h: SimHash128, k: u32) -> Vec<(u64, u32)> {
    let mut out: Vec<(u64, u32)> = items
        .iter()
        .map(|&(id, f)| (id, (f.0 ^ h.0).count_ones()))
        .filter(|&(_, d)| d <= k)
        .collect();
    out.sort_unstable_by_key(|&(id, d)| (d, id));
    out
}

/// `base` with the bits at `positions` flipped.
fn flip(base: u128, positions: &[u8]) -> u128 {
    positions
        .iter()
        .fold(base, |v, &p| v ^ (1u128 << (p % 128)))
}

proptest! {
    #[test]
    fn equals_a_linear_scan(
        base in any::<u128>(),
        flips in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..10), 1..40),
        k in 0u32..=9,
        probe_flips in prop::collection::vec(any::<u8>(), 0..4),
    ) {
        let items: Vec<(u64, SimHash128)> = flips
            .iter()
            .enumerate()
            .map(|(i, f)| (i as u64 * 3, SimHash128(flip(base, f))))
            .collect();
        let mut idx = SimHash128Index::with_max_distance(k).unwrap();
        for &(id, h) in &items {
            idx.insert(id, h);
        }
        let probe = SimHash128(flip(base, &probe_flips));
        prop_assert_eq!(idx.query_within(&probe, k).unwrap(), scan(&items, probe, k));
        let mut ids: Vec<u64> = scan(&items, probe, k).into_iter().map(|m| m.0).collect();
        ids.sort_unstable();
        prop_assert_eq!(idx.query(&probe), ids);
        let mut bulk = SimHash128Index::with_max_distance(k).unwrap();
        bulk.extend(items.iter().copied());
        prop_assert_eq!(bulk.query_within(&probe, k).unwrap(), scan(&items, probe, k));
    }
}

#[test]
fn replace_remove_and_errors() {
    let mut idx = SimHash128Index::new();
    idx.insert(5, SimHash128(1));
    idx.insert(5, SimHash128(u128::MAX));
    assert_eq!(idx.len(), 1);
    assert_eq!(idx.get(5), Some(SimHash128(u128::MAX)));
    assert_eq!(idx.query(&SimHash128(1)), Vec::<u64>::new());
    assert_eq!(idx.iter().collect::<Vec<_>>(), [(5, SimHash128(u128::MAX))]);
    assert_eq!(idx.remove(5), Some(SimHash128(u128::MAX)));
    assert!(idx.is_empty() && !idx.contains(5));
    assert_eq!(idx.remove(5), None);
    let err = idx.query_within(&SimHash128(0), 7).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: SimHash128Index::query_within: distance 7 exceeds the index's \
             max distance 6"
    );
    let err = SimHash128Index::with_max_distance(16).unwrap_err();
    assert_eq!(
        err.to_string(),
        "config error: SimHash128Index::with_max_distance: max distance 16 exceeds the \
             limit 15"
    );
    assert_eq!(
        SimHash128Index::with_max_distance(15)
            .unwrap()
            .max_distance(),
        15
    );
}

#[test]
fn a_neighbour_split_unevenly_between_halves_is_found() {
    let a = SimHash128(0);
    // 6 differing bits: 5 in the low half, 1 in the high one.
    let b = SimHash128(0b11111 | (1u128 << 100));
    let mut idx = SimHash128Index::new();
    idx.insert(1, b);
    assert_eq!(idx.query_within(&a, 6).unwrap(), [(1, 6)]);
    assert!(idx.query_within(&a, 5).unwrap().is_empty());
}
