//! Persistence tests of [`SimHash128Index`]: round trips, damaged, forged
//! and mismatched files.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use proptest::prelude::*;

use crate::{Error, SimHash64, SimHash128, SimHash128Index, SimHashIndex};

fn sorted_items(idx: &SimHash128Index) -> Vec<(u64, SimHash128)> {
    let mut v: Vec<_> = idx.iter().collect();
    v.sort_unstable_by_key(|e| e.0);
    v
}

/// Every stored fingerprint within `k` bits of `h`, by scanning.
fn scan(idx: &SimHash128Index, h: SimHash128, k: u32) -> Vec<u64> {
    idx.iter()
        .filter(|(_, g)| (g.0 ^ h.0).count_ones() <= k)
        .map(|(id, _)| id)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 16;
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..body]);
    bytes[body..body + 8].copy_from_slice(&sum.to_le_bytes());
}

fn small_index() -> SimHash128Index {
    let mut idx = SimHash128Index::with_max_distance(3).unwrap();
    for i in 0..6u64 {
        let v = u128::from(i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        idx.insert(i * 5, SimHash128(v | (v << 64)));
    }
    idx
}

proptest! {
    #[test]
    fn round_trip_after_random_traffic(
        k in 0u32..=9,
        ops in prop::collection::vec((0u64..60, any::<u128>(), any::<bool>()), 0..120),
        probes in prop::collection::vec(any::<u128>(), 1..8),
        compact in any::<bool>(),
    ) {
        let mut idx = SimHash128Index::with_max_distance(k).unwrap();
        for &(id, v, remove) in &ops {
            // Few distinct patterns, so neighbours exist.
            let v = v & 0x0f0f_0000_0000_0000_00ff_0000_0000_f00f;
            if remove { idx.remove(id); } else { idx.insert(id, SimHash128(v)); }
        }
        if compact { idx.compact(); }
        let back = SimHash128Index::from_bytes(&idx.to_bytes()).unwrap();
        prop_assert_eq!(back.max_distance(), k);
        prop_assert_eq!(back.len(), idx.len());
        prop_assert_eq!(sorted_items(&back), sorted_items(&idx));
        for p in probes.iter().map(|&p| SimHash128(p & 0x0f0f_0000_0000_0000_00ff_0000_0000_f00f)) {
            prop_assert_eq!(back.query(&p), idx.query(&p));
            prop_assert_eq!(back.query(&p), scan(&idx, p, k));
            prop_assert_eq!(back.query_within(&p, k / 2).unwrap(), idx.query_within(&p, k / 2).unwrap());
        }
        // The loaded index keeps working as a mutable index.
        let mut back = back;
        back.insert(1_000, SimHash128(0));
        prop_assert_eq!(back.get(1_000), Some(SimHash128(0)));
    }
}

#[test]
fn every_truncation_and_bit_flip_is_an_error() {
    let bytes = small_index().to_bytes();
    for len in 0..bytes.len() {
        let err = SimHash128Index::from_bytes(&bytes[..len]).unwrap_err();
        assert!(matches!(err, Error::Corrupt(_)), "len {len}: {err}");
    }
    for at in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        let err = SimHash128Index::from_bytes(&bad).unwrap_err();
        assert!(matches!(err, Error::Corrupt(_)), "byte {at}: {err}");
    }
}

#[test]
fn forged_files_are_refused_or_still_exact() {
    let idx = small_index();
    let bytes = idx.to_bytes();
    let mut caught = 0;
    for at in 16..bytes.len() - 16 {
        let mut bad = bytes.clone();
        bad[at] = bad[at].wrapping_add(0x41);
        reseal(&mut bad);
        match SimHash128Index::from_bytes(&bad) {
            Err(Error::Corrupt(_)) => caught += 1,
            Err(e) => panic!("byte {at}: unexpected error {e}"),
            Ok(back) => {
                for (_, h) in back.iter() {
                    let k = back.max_distance();
                    assert_eq!(back.query(&h), scan(&back, h, k), "byte {at}");
                }
            }
        }
    }
    assert!(caught > bytes.len() / 2, "{caught} of {}", bytes.len());
}

#[test]
fn a_high_half_that_does_not_match_its_keys_is_refused() {
    let mut idx = SimHash128Index::new();
    idx.insert(1, SimHash128(0x1234_5678_9abc_def0_u128 << 64 | 7));
    let bytes = idx.to_bytes();
    // The high half's fingerprint: change one bit of it and reseal.
    let hi = 0x1234_5678_9abc_def0_u64.to_le_bytes();
    let at = bytes.windows(8).position(|w| w == hi).unwrap();
    let mut bad = bytes.clone();
    bad[at] ^= 1;
    reseal(&mut bad);
    let err = SimHash128Index::from_bytes(&bad).unwrap_err().to_string();
    assert!(err.contains("does not match its fingerprint"), "{err}");
}

#[test]
fn other_kinds_and_radii_are_refused() {
    let mut one = SimHashIndex::new();
    one.insert(1, SimHash64(3));
    let err = SimHash128Index::from_bytes(&one.to_bytes()).unwrap_err();
    assert!(err.to_string().contains("expected 3"), "{err}");
    let err = SimHashIndex::<SimHash64>::from_bytes(&small_index().to_bytes()).unwrap_err();
    assert!(err.to_string().contains("expected 2"), "{err}");
    // A radius above the 128-bit limit in the header.
    let mut bad = small_index().to_bytes();
    bad[16..24].copy_from_slice(&16u64.to_le_bytes());
    reseal(&mut bad);
    let err = SimHash128Index::from_bytes(&bad).unwrap_err().to_string();
    assert!(err.contains("exceeds the 128-bit limit"), "{err}");
    // A radius whose half does not fit the stored layout.
    let mut bad = small_index().to_bytes();
    bad[16..24].copy_from_slice(&9u64.to_le_bytes());
    reseal(&mut bad);
    let err = SimHash128Index::from_bytes(&bad).unwrap_err().to_string();
    assert!(err.contains("layout"), "{err}");
}

#[cfg(feature = "std")]
#[test]
fn save_and_load() {
    let dir = std::env::temp_dir().join(format!("txtfp-sim128-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("idx");
    let idx = small_index();
    idx.save(&path).unwrap();
    let back = SimHash128Index::load(&path).unwrap();
    assert_eq!(sorted_items(&back), sorted_items(&idx));
    std::fs::write(&path, b"not an index").unwrap();
    assert!(matches!(
        SimHash128Index::load(&path),
        Err(Error::Corrupt(_))
    ));
    assert!(matches!(
        SimHash128Index::load(dir.join("missing")),
        Err(Error::Io(_))
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
