//! Persistence tests of [`SimHashIndex`] at both widths: round trips,
//! damaged, forged and mismatched files, and the memory-mapped reader.

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::super::table_key;
use super::super::{SimHashIndex, SimHashLayout, SimHashWidth};
use crate::lsh::tests::{assert_damage_is_corrupt, forgeries, reseal};
use crate::{Error, SimHash64, SimHash128, SimHash128Index};

/// An index with removals and replacements, so that runs, hash tables and
/// dead slots are all present when it is saved.
fn messy_index(seed: u64, layout: SimHashLayout) -> SimHashIndex {
    let mut idx = SimHashIndex::with_layout(layout).unwrap();
    let mut x = seed | 1;
    for i in 0..300u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Few distinct high bits: many near and exact duplicates.
        idx.insert(i % 200, SimHash64((x & 0xf00f) | (x >> 60) << 40));
        if x.is_multiple_of(7) {
            idx.remove(x % 200);
        }
    }
    idx
}

fn probes() -> Vec<SimHash64> {
    (0..64u64)
        .map(|i| SimHash64((i * 0x0101) & 0xf00f))
        .collect()
}

/// Per probe: the query answer and the radius-1 answer with distances.
type Answers = Vec<(Vec<u64>, Vec<(u64, u32)>)>;

fn answers(idx: &SimHashIndex) -> Answers {
    probes()
        .iter()
        .map(|p| {
            (
                idx.query(p),
                idx.query_within(p, 1.min(idx.max_distance())).unwrap(),
            )
        })
        .collect()
}

fn sorted_items<F: SimHashWidth>(idx: &SimHashIndex<F>) -> Vec<(u64, F)> {
    let mut v: Vec<_> = idx.iter().collect();
    v.sort_unstable_by_key(|e| e.0);
    v
}

/// Every stored fingerprint within `k` bits of `h`, by scanning.
fn scan<F: SimHashWidth>(idx: &SimHashIndex<F>, h: F, k: u32) -> Vec<u64> {
    idx.iter()
        .filter(|&(_, g)| g.hamming(h) <= k)
        .map(|(id, _)| id)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

#[test]
fn bytes_round_trip_answers_the_same() {
    let layouts = [
        SimHashLayout::manku_k3(),
        SimHashLayout::for_distance(0).unwrap(),
        SimHashLayout::for_distance(6).unwrap(),
        SimHashLayout::two_level(6, 6, 5).unwrap(),
        SimHashLayout::custom(alloc::vec![0xffff_ffff, !0xffff_ffff], 1).unwrap(),
    ];
    for (seed, layout) in [1u64, 2, 3, 99, 5].into_iter().zip(layouts) {
        let idx = messy_index(seed, layout.clone());
        let back = SimHashIndex::<SimHash64>::from_bytes(&idx.to_bytes()).unwrap();
        assert_eq!(back.layout(), &layout);
        assert_eq!(sorted_items(&back), sorted_items(&idx));
        assert_eq!(answers(&back), answers(&idx));
        // Saving is deterministic and a loaded index saves identically.
        assert!(idx.to_bytes() == back.to_bytes());
    }
    // Unaligned input is copied, not refused.
    let idx = messy_index(7, SimHashLayout::manku_k3());
    let mut buf = alloc::vec![0u8];
    buf.extend(idx.to_bytes());
    assert_eq!(
        answers(&SimHashIndex::<SimHash64>::from_bytes(&buf[1..]).unwrap()),
        answers(&idx)
    );
}

#[test]
fn every_truncation_and_bit_flip_is_an_error() {
    let mut idx = SimHashIndex::with_max_distance(1).unwrap();
    for i in 0..5u64 {
        idx.insert(i, SimHash64(i << 30 | i));
    }
    assert_damage_is_corrupt(&idx.to_bytes(), SimHashIndex::<SimHash64>::from_bytes);
}

#[test]
fn forged_files_are_refused_or_still_exact() {
    let mut idx = SimHashIndex::with_max_distance(2).unwrap();
    for i in 0..40u64 {
        idx.insert(i * 3, SimHash64(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    }
    let bytes = idx.to_bytes();
    let mut caught = 0;
    for (at, bad) in forgeries(&bytes, 16) {
        match SimHashIndex::<SimHash64>::from_bytes(&bad) {
            Err(Error::Corrupt(_)) => caught += 1,
            Err(e) => panic!("byte {at}: unexpected error {e}"),
            Ok(back) => {
                // Only changes that keep every check true get here (e.g. an
                // id that stays in order): the loaded index must still be an
                // exact index of what it holds.
                for (_, h) in back.iter() {
                    assert_eq!(back.query(&h), scan(&back, h, 2), "byte {at}");
                }
            }
        }
    }
    assert!(caught > bytes.len() / 2, "{caught} of {}", bytes.len());
}

#[test]
fn forged_layouts_and_keys_are_refused() {
    // A file from an index whose single table keys on the low half only:
    // built by hand, since no constructor makes such a layout.
    let mut idx = SimHashIndex::with_layout(
        SimHashLayout::custom(alloc::vec![0xffff_ffff, !0xffff_ffff], 1).unwrap(),
    )
    .unwrap();
    idx.insert(1, SimHash64(5));
    let bytes = idx.to_bytes();
    // The masks section follows the ids and fingerprints: find it by value.
    let low = 0xffff_ffffu64.to_le_bytes();
    let at = bytes.windows(8).position(|w| w == low).unwrap();
    let mut bad = bytes.clone();
    // Keying table 0 on all bits leaves a difference in the high half
    // (which table 1 keys on) to no table.
    bad[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    reseal(&mut bad);
    let err = SimHashIndex::<SimHash64>::from_bytes(&bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a complete layout"), "{err}");
    // A key that is not its fingerprint's key.
    let key = table_key(5, 0xffff_ffff).to_le_bytes();
    let at = bytes.windows(8).position(|w| w == key).unwrap();
    let mut bad = bytes.clone();
    bad[at] ^= 1;
    reseal(&mut bad);
    let err = SimHashIndex::<SimHash64>::from_bytes(&bad)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("does not match its fingerprint") || err.contains("not a sorted run"),
        "{err}"
    );
    // An LSH file is not a SimHash file.
    let lsh = crate::LshIndex::<4>::with_bands_rows(2, 2)
        .unwrap()
        .to_bytes();
    assert!(matches!(
        SimHashIndex::<SimHash64>::from_bytes(&lsh),
        Err(Error::Corrupt(_))
    ));
}

#[test]
fn layouts_from_files_must_be_constructible_above_k4() {
    let six = SimHashLayout::for_distance(6).unwrap();
    assert_eq!(
        SimHashLayout::from_file(six.masks().to_vec(), 6),
        Some(six.clone())
    );
    let two = SimHashLayout::two_level(6, 6, 5).unwrap();
    assert_eq!(SimHashLayout::from_file(two.masks().to_vec(), 5), Some(two));
    // The same masks claimed for a larger radius are not a known layout.
    assert_eq!(SimHashLayout::from_file(six.masks().to_vec(), 7), None);
    let mut tweaked = six.masks().to_vec();
    tweaked[3] |= 1 << 63;
    assert_eq!(SimHashLayout::from_file(tweaked, 6), None);
}

#[cfg(feature = "std")]
#[test]
fn save_load_and_mapped_reader() {
    let dir = std::env::temp_dir().join(alloc::format!("txtfp-simidx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.idx");
    let idx = messy_index(8, SimHashLayout::manku_k3());
    idx.save(&path).unwrap();
    let back = SimHashIndex::load(&path).unwrap();
    assert_eq!(answers(&back), answers(&idx));
    let err = idx.save(dir.join("missing").join("b.idx")).unwrap_err();
    assert!(matches!(err, Error::Io(_)));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    #[cfg(feature = "mmap")]
    {
        let mapped = super::super::MappedSimHashIndex::open(&path).unwrap();
        assert_eq!(mapped.len(), idx.len());
        assert_eq!(mapped.max_distance(), 3);
        for p in probes() {
            assert_eq!(mapped.query(&p), idx.query(&p));
            for k in 0..=3 {
                assert_eq!(
                    mapped.query_within(&p, k).unwrap(),
                    idx.query_within(&p, k).unwrap()
                );
            }
        }
        assert!(mapped.query_within(&SimHash64(0), 4).is_err());
        for (id, h) in idx.iter() {
            assert_eq!(mapped.get(id), Some(h));
            assert!(mapped.contains(id));
        }
        assert_eq!(mapped.iter().collect::<Vec<_>>(), sorted_items(&idx));
        assert_eq!(answers(&mapped.to_index().unwrap()), answers(&idx));
        std::fs::write(dir.join("junk.idx"), b"not an index").unwrap();
        assert!(matches!(
            super::super::MappedSimHashIndex::open(dir.join("junk.idx")),
            Err(Error::Corrupt(_))
        ));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any traffic, saved and loaded, answers like the original.
    #[test]
    fn round_trip_after_random_traffic(
        ops in proptest::collection::vec((0u64..40, 0u64..64, any::<bool>()), 0..120),
        k in 0u32..=4,
    ) {
        let mut idx = SimHashIndex::with_max_distance(k).unwrap();
        for (id, f, remove) in ops {
            if remove {
                idx.remove(id);
            } else {
                idx.insert(id, SimHash64((f & 0xf00f) | f << 50));
            }
        }
        let back = SimHashIndex::<SimHash64>::from_bytes(&idx.to_bytes()).unwrap();
        prop_assert_eq!(answers(&back), answers(&idx));
        prop_assert_eq!(sorted_items(&back), sorted_items(&idx));
    }
}

// 128-bit fingerprints: kind 3 files, two lanes of tables.

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
    fn round_trip_after_random_traffic_128(
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
fn every_truncation_and_bit_flip_of_a_128_bit_file_is_an_error() {
    assert_damage_is_corrupt(&small_index().to_bytes(), SimHash128Index::from_bytes);
}

#[test]
fn forged_128_bit_files_are_refused_or_still_exact() {
    let bytes = small_index().to_bytes();
    let mut caught = 0;
    for (at, bad) in forgeries(&bytes, 16) {
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
fn save_and_load_128() {
    let dir = std::env::temp_dir().join(alloc::format!("txtfp-sim128-{}", std::process::id()));
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
