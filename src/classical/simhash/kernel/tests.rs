use super::*;
use alloc::vec::Vec;
use proptest::prelude::*;

/// The plain formulation: 64 signed counters, ±1 per vote (also the
/// reference of `votes.rs`'s tests).
pub(in crate::classical::simhash) fn reference(hashes: &[u64]) -> ([i64; 64], u64) {
    let mut acc = [0i64; 64];
    for &h in hashes {
        for (b, a) in acc.iter_mut().enumerate() {
            *a += if (h >> b) & 1 == 1 { 1 } else { -1 };
        }
    }
    let bits = acc
        .iter()
        .enumerate()
        .fold(0u64, |o, (b, &a)| o | (u64::from(a > 0) << b));
    (acc, bits)
}

fn run(hashes: &[u64]) -> BitCounter {
    let mut c = BitCounter::new();
    for &h in hashes {
        c.add(h);
    }
    c
}

#[test]
fn lanes_survive_long_runs_of_one_hash() {
    // Every lane byte fills to its limit many times over.
    for n in [1usize, 254, 255, 256, 509, 510, 511, 10_000] {
        let hashes = alloc::vec![0xf0f0_1234_8000_0001u64; n];
        let c = run(&hashes);
        let (acc, bits) = reference(&hashes);
        assert_eq!(c.counters(), acc, "n = {n}");
        assert_eq!(c.signature(), bits, "n = {n}");
        assert_eq!(c.votes(), n as u64);
    }
}

#[test]
fn ties_clear_the_bit() {
    let c = run(&[0b1100, 0b1010]);
    assert_eq!(c.signature(), 0b1000);
}

#[test]
fn weighted_signature_signs() {
    // 0.2 on `a`'s bits against 0.8 on `b`'s: b wins wherever they differ.
    let (a, b) = (0x0123_4567_89ab_cdefu64, 0xfedc_ba98_7654_3210u64);
    assert_eq!(weighted_signature([(a, 0.2), (b, 0.8)]), b);
    assert_eq!(weighted_signature([(a, 0.8), (b, 0.2)]), a);
    // Equal weights: only shared ones survive; zero weights vote nothing.
    assert_eq!(weighted_signature([(a, 1.0), (b, 1.0)]), a & b);
    assert_eq!(weighted_signature([(a, 0.0)]), 0);
}

proptest! {
    #[test]
    fn counter_matches_reference(hashes in prop::collection::vec(any::<u64>(), 0..1200)) {
        let c = run(&hashes);
        let (acc, bits) = reference(&hashes);
        prop_assert_eq!(c.counters(), acc);
        prop_assert_eq!(c.signature(), bits);
    }

    /// Few distinct hashes repeated many times give large, skewed counts.
    #[test]
    fn counter_matches_reference_on_skewed_counts(
        pool in prop::collection::vec(any::<u64>(), 1..4),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 0..2000),
    ) {
        let hashes: Vec<u64> = picks.iter().map(|i| pool[i.index(pool.len())]).collect();
        let c = run(&hashes);
        let (acc, bits) = reference(&hashes);
        prop_assert_eq!(c.counters(), acc);
        prop_assert_eq!(c.signature(), bits);
    }

    /// Integer weights through the f64 path agree with repeated ±1 votes.
    #[test]
    fn weighted_matches_repeated_votes(
        items in prop::collection::vec((any::<u64>(), 0u32..50), 1..40),
    ) {
        let mut expanded = Vec::new();
        for &(h, n) in &items {
            expanded.extend(core::iter::repeat_n(h, n as usize));
        }
        let (_, bits) = reference(&expanded);
        let got = weighted_signature(items.iter().map(|&(h, n)| (h, f64::from(n))));
        prop_assert_eq!(got, bits);
    }
}
