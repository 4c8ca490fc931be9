//! Persistence tests of [`SimHashIndex`]: round trips, damaged and forged
//! files, and the memory-mapped reader.

use alloc::vec::Vec;

use proptest::prelude::*;

use super::super::table_key;
use super::super::{SimHashIndex, SimHashLayout};
use crate::{Error, SimHash64};

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

fn sorted_items(idx: &SimHashIndex) -> Vec<(u64, SimHash64)> {
    let mut v: Vec<_> = idx.iter().collect();
    v.sort_unstable_by_key(|e| e.0);
    v
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
    let bytes = idx.to_bytes();
    for len in 0..bytes.len() {
        let err = SimHashIndex::<SimHash64>::from_bytes(&bytes[..len]).unwrap_err();
        assert!(matches!(err, Error::Corrupt(_)), "len {len}: {err}");
    }
    for at in 0..bytes.len() {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        let err = SimHashIndex::<SimHash64>::from_bytes(&bad).unwrap_err();
        assert!(matches!(err, Error::Corrupt(_)), "byte {at}: {err}");
    }
}

/// Recomputes the checksum after an edit, as a forger would.
fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 16;
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..body]);
    bytes[body..body + 8].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn forged_files_are_refused_or_still_exact() {
    let mut idx = SimHashIndex::with_max_distance(2).unwrap();
    for i in 0..40u64 {
        idx.insert(i * 3, SimHash64(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    }
    let bytes = idx.to_bytes();
    let mut caught = 0;
    for at in 16..bytes.len() - 16 {
        let mut bad = bytes.clone();
        bad[at] = bad[at].wrapping_add(0x41);
        reseal(&mut bad);
        match SimHashIndex::<SimHash64>::from_bytes(&bad) {
            Err(Error::Corrupt(_)) => caught += 1,
            Err(e) => panic!("byte {at}: unexpected error {e}"),
            Ok(back) => {
                // Only changes that keep every check true get here (e.g. an
                // id that stays in order): the loaded index must still be an
                // exact index of what it holds.
                for (_, h) in back.iter() {
                    let want: Vec<u64> = back
                        .iter()
                        .filter(|(_, g)| (g.0 ^ h.0).count_ones() <= 2)
                        .map(|(id, _)| id)
                        .collect::<alloc::collections::BTreeSet<_>>()
                        .into_iter()
                        .collect();
                    assert_eq!(back.query(&h), want, "byte {at}");
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
