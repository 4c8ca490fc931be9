//! Layout tests: shapes, completeness (exhaustive up to k = 5, sampled
//! above), the completeness checker against a plain scan, and errors.

use alloc::string::ToString;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::super::layout::{MAX_TABLES, binomial, choose, uncovered};
use super::super::{MAX_AUTO_DISTANCE, SimHashLayout};
use crate::Error;

/// Whether some mask avoids `pattern`: the definition of coverage.
fn covered(l: &SimHashLayout, pattern: u64) -> bool {
    l.masks().iter().any(|m| m & pattern == 0)
}

/// A fast deterministic generator for the sampled checks.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A random set of exactly `k` bit positions.
fn random_pattern(state: &mut u64, k: u32) -> u64 {
    let mut p = 0u64;
    while p.count_ones() < k {
        p |= 1 << (splitmix(state) % 64);
    }
    p
}

#[test]
fn manku_k3_matches_the_paper() {
    let l = SimHashLayout::manku_k3();
    assert_eq!(l, SimHashLayout::default());
    assert_eq!(l.tables(), 16);
    assert_eq!(l.max_distance(), 3);
    assert!(l.masks().iter().all(|m| m.count_ones() == 28));
    // Each mask holds exactly one whole 16-bit block...
    for &m in l.masks() {
        let whole = (0..4)
            .filter(|b| (m >> (16 * b)) & 0xffff == 0xffff)
            .count();
        assert_eq!(whole, 1, "{m:#018x}");
    }
    // ...and the 16 masks are distinct.
    let mut sorted = l.masks().to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), 16);
    assert_eq!(uncovered(l.masks(), 3), None);
    // Four bits, one in each 16-bit block, escape every table.
    let four = 1 | 1 << 16 | 1 << 32 | 1 << 48;
    assert!(!covered(&l, four));
    assert!(uncovered(l.masks(), 4).is_some());
}

#[test]
fn default_layouts_have_the_documented_shape() {
    let want = [
        (1, 64),
        (2, 32),
        (3, 21),
        (16, 28),
        (15, 20),
        (21, 18),
        (28, 16),
        (36, 14),
    ];
    for (k, &(tables, bits)) in want.iter().enumerate() {
        let l = SimHashLayout::for_distance(k as u32).unwrap();
        assert_eq!((l.tables(), l.min_key_bits()), (tables, bits), "k = {k}");
        assert_eq!(l.max_distance(), k as u32);
    }
    assert_eq!(
        SimHashLayout::for_distance(3).unwrap(),
        SimHashLayout::manku_k3()
    );
}

/// Every pattern of `k` bits (hence of fewer) is avoided by some mask.
#[test]
fn default_layouts_are_complete_exhaustively_up_to_5() {
    for k in 0..=5 {
        let l = SimHashLayout::for_distance(k).unwrap();
        assert_eq!(uncovered(l.masks(), k), None, "k = {k}");
        // And not for k + 1: each layout is as tight as its blocks allow.
        // (Checked up to 5 bits; the search for 6 is slow and proves little.)
        if k < 5 {
            assert!(uncovered(l.masks(), k + 1).is_some(), "k = {k} + 1");
        }
    }
}

#[test]
fn default_layouts_6_and_7_cover_sampled_and_adversarial_patterns() {
    let mut state = 7;
    for k in 6..=MAX_AUTO_DISTANCE {
        let l = SimHashLayout::for_distance(k).unwrap();
        for _ in 0..200_000 {
            let p = random_pattern(&mut state, k);
            assert!(covered(&l, p), "k = {k}: {p:#018x}");
        }
        // One bit in each of k blocks, at block edges: the hardest shape.
        let n = k as usize + 2;
        for pick in choose(n, k as usize) {
            for edge in [0usize, 1] {
                let p = pick.iter().fold(0u64, |acc, &b| {
                    let lo = b * 64 / n;
                    let hi = (b + 1) * 64 / n - 1;
                    acc | 1 << if edge == 0 { lo } else { hi }
                });
                assert!(covered(&l, p), "k = {k}: {p:#018x}");
            }
        }
        // One more bit, one per block, escapes.
        let p = (0..n).fold(0u64, |acc, b| acc | 1 << (b * 64 / n));
        assert!(!covered(&l, p));
    }
}

#[test]
fn blocks_and_two_level_are_complete() {
    for n in 1..=12usize {
        for k in 0..(n as u32).min(4) {
            let l = SimHashLayout::blocks(n, k).unwrap();
            assert_eq!(l.tables(), binomial(n, k as usize), "blocks({n}, {k})");
            assert_eq!(uncovered(l.masks(), k), None, "blocks({n}, {k})");
        }
    }
    for (n1, n2, k) in [
        (4, 4, 3),
        (3, 3, 2),
        (5, 5, 4),
        (4, 6, 3),
        (2, 5, 1),
        (6, 4, 3),
    ] {
        let l = SimHashLayout::two_level(n1, n2, k).unwrap();
        assert_eq!(
            l.tables(),
            binomial(n1, k as usize) * binomial(n2, k as usize)
        );
        assert_eq!(uncovered(l.masks(), k), None, "two_level({n1}, {n2}, {k})");
        // Longer keys than the single level with the same outer blocks.
        let flat = SimHashLayout::blocks(n1, k).unwrap();
        assert!(l.min_key_bits() > flat.min_key_bits());
    }
    // Zero radius: one table keyed on all 64 bits.
    assert_eq!(SimHashLayout::blocks(7, 0).unwrap().masks(), [u64::MAX]);
    assert_eq!(
        SimHashLayout::two_level(3, 5, 0).unwrap().masks(),
        [u64::MAX]
    );
}

#[test]
fn custom_accepts_complete_layouts() {
    let manku = SimHashLayout::manku_k3();
    let l = SimHashLayout::custom(manku.masks().to_vec(), 3).unwrap();
    assert_eq!(l, manku);
    // The same masks cover any smaller radius too.
    assert!(SimHashLayout::custom(manku.masks().to_vec(), 2).is_ok());
    let b = SimHashLayout::blocks(6, 4).unwrap();
    assert!(SimHashLayout::custom(b.masks().to_vec(), 4).is_ok());
    assert!(SimHashLayout::custom(alloc::vec![u64::MAX], 0).is_ok());
}

#[test]
fn custom_rejects_bad_masks_with_clear_messages() {
    let msg = |r: crate::Result<SimHashLayout>| match r {
        Err(Error::Config(m)) => m,
        other => panic!("expected Error::Config, got {other:?}"),
    };
    assert_eq!(
        msg(SimHashLayout::custom(alloc::vec![1, 2], 5)),
        "SimHashLayout::custom: max distance 5 cannot be verified (the limit is 4); \
         use SimHashLayout::blocks or two_level"
    );
    assert_eq!(
        msg(SimHashLayout::custom(Vec::new(), 1)),
        "SimHashLayout::custom: at least one mask is needed"
    );
    assert!(msg(SimHashLayout::custom(alloc::vec![1, 0], 0)).contains("mask 1 is 0"));
    assert!(msg(SimHashLayout::custom(alloc::vec![3, 5, 3], 0)).contains("mask 2"));
    let many: Vec<u64> = (1..=MAX_TABLES as u64 + 1).collect();
    assert!(msg(SimHashLayout::custom(many, 0)).contains("exceed the limit of 256"));
    // Two halves cover 1 bit but not 2 (one bit in each half).
    let halves = alloc::vec![0xffff_ffff, !0xffff_ffff];
    assert_eq!(
        msg(SimHashLayout::custom(halves, 2)),
        "SimHashLayout::custom: incomplete for max distance 2: \
         no mask avoids a difference in bits [0, 32]"
    );
    // Manku's layout misses 4 bits, e.g. one in each 12-bit group of the
    // low 48 bits: every table keyed on the top block hits one of them.
    let m = SimHashLayout::manku_k3().masks().to_vec();
    assert!(msg(SimHashLayout::custom(m, 4)).contains("incomplete for max distance 4"));
    assert!(!covered(
        &SimHashLayout::manku_k3(),
        1 | 1 << 12 | 1 << 24 | 1 << 36
    ));
}

#[test]
fn constructors_reject_bad_parameters() {
    let bad = |r: crate::Result<SimHashLayout>| matches!(r, Err(Error::Config(_)));
    assert!(bad(SimHashLayout::blocks(3, 3)));
    assert!(bad(SimHashLayout::blocks(0, 0)));
    assert!(bad(SimHashLayout::blocks(65, 1)));
    assert!(bad(SimHashLayout::blocks(64, 32))); // C(64, 32) tables
    assert!(bad(SimHashLayout::two_level(4, 3, 3)));
    assert!(bad(SimHashLayout::two_level(4, 49, 3))); // 48 bits left over
    assert!(!bad(SimHashLayout::two_level(4, 16, 1)));
    assert!(bad(SimHashLayout::two_level(4, 17, 1))); // 16 bits left over
    assert!(bad(SimHashLayout::two_level(9, 9, 7))); // 36 · 36 tables
    assert!(bad(SimHashLayout::for_distance(MAX_AUTO_DISTANCE + 1)));
    assert_eq!(
        SimHashLayout::blocks(3, 3).unwrap_err().to_string(),
        "config error: SimHashLayout::blocks: n_blocks = 3 must be greater than \
         the max distance 3 and at most 64"
    );
    assert_eq!(
        SimHashLayout::for_distance(8).unwrap_err().to_string(),
        "config error: SimHashLayout::for_distance: no default layout for max distance 8; \
         the limit is 7 (use SimHashLayout::blocks for more)"
    );
}

#[test]
fn binomial_and_choose_agree() {
    for n in 0..=12 {
        for r in 0..=n + 1 {
            let subsets = choose(n, r);
            assert_eq!(subsets.len(), binomial(n, r), "C({n}, {r})");
            assert!(subsets.windows(2).all(|w| w[0] < w[1]));
            assert!(subsets.iter().all(|s| s.windows(2).all(|p| p[0] < p[1])));
        }
    }
    assert_eq!(binomial(64, 32), 1_832_624_140_942_590_534);
    assert_eq!(binomial(64, 4), 635_376);
}

/// The checker against a plain scan of every pattern of at most 2 bits.
fn scan_uncovered(masks: &[u64], k: u32) -> bool {
    let ok = |p: u64| masks.iter().any(|m| m & p == 0);
    match k {
        0 => !ok(0),
        1 => (0..64).any(|i| !ok(1 << i)),
        _ => (0..64).any(|i| (i + 1..64).any(|j| !ok(1 << i | 1 << j))),
    }
}

proptest! {
    #[test]
    fn checker_agrees_with_a_scan(
        masks in proptest::collection::vec(any::<u64>(), 1..6),
        keep in 1u32..64,
        k in 0u32..=2,
    ) {
        // Dense random masks cover almost nothing; clear random bits so both
        // outcomes occur.
        let masks: Vec<u64> = masks
            .iter()
            .enumerate()
            .map(|(i, m)| m & m.rotate_left(keep + i as u32) & m.rotate_left(2 * keep))
            .collect();
        let found = uncovered(&masks, k);
        prop_assert_eq!(found.is_some(), scan_uncovered(&masks, k));
        if let Some(p) = found {
            prop_assert_eq!(p.count_ones(), k);
            prop_assert!(masks.iter().all(|m| m & p != 0));
        }
    }
}
