//! Persistence, merge and concurrency tests of [`LshIndex`].

use alloc::vec::Vec;

use proptest::prelude::*;

use super::super::LshIndex;
use super::{assert_damage_is_corrupt, forgeries, sig};
use crate::{Error, MinHashSig};

/// A small index with removals and replacements, so that runs, hash tables
/// and dead slots are all present when it is saved.
fn messy_index(seed: u64) -> LshIndex<8> {
    let mut idx = LshIndex::<8>::with_bands_rows(4, 2).unwrap();
    let mut x = seed | 1;
    for i in 0..300u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let h: [u64; 8] = core::array::from_fn(|j| (x >> (j * 3)) % 5);
        idx.insert(i % 200, sig(h));
        if x.is_multiple_of(7) {
            idx.remove(x % 200);
        }
    }
    idx
}

fn answers<const H: usize>(
    idx: &LshIndex<H>,
    probes: &[MinHashSig<H>],
) -> Vec<(Vec<u64>, Vec<u64>)> {
    probes
        .iter()
        .map(|p| (idx.query(p), idx.query_with_threshold(p, 0.5)))
        .collect()
}

fn probes() -> Vec<MinHashSig<8>> {
    (0..40u64)
        .map(|i| sig(core::array::from_fn(|j| (i * 7 + j as u64 * 3) % 5)))
        .collect()
}

#[test]
fn bytes_round_trip_answers_the_same() {
    for seed in [1, 2, 3, 99] {
        let idx = messy_index(seed);
        let back = LshIndex::<8>::from_bytes(&idx.to_bytes()).unwrap();
        assert_eq!(back.len(), idx.len());
        let mut a: Vec<_> = idx.iter().map(|(i, s)| (i, *s)).collect();
        let mut b: Vec<_> = back.iter().map(|(i, s)| (i, *s)).collect();
        a.sort_unstable_by_key(|e| e.0);
        b.sort_unstable_by_key(|e| e.0);
        assert!(a == b);
        assert_eq!(answers(&idx, &probes()), answers(&back, &probes()));
        // Saving is deterministic and a loaded index saves identically.
        assert!(idx.to_bytes() == back.to_bytes());
    }
}

#[test]
fn unaligned_bytes_are_read() {
    let idx = messy_index(5);
    let mut buf = alloc::vec![0u8];
    buf.extend(idx.to_bytes());
    let back = LshIndex::<8>::from_bytes(&buf[1..]).unwrap();
    assert_eq!(answers(&idx, &probes()), answers(&back, &probes()));
}

#[test]
fn every_truncation_and_bit_flip_is_an_error() {
    let mut idx = LshIndex::<8>::with_bands_rows(4, 2).unwrap();
    for i in 0..5u64 {
        idx.insert(i, sig([i, 1, 2, 3, i, 5, 6, 7]));
    }
    assert_damage_is_corrupt(&idx.to_bytes(), LshIndex::<8>::from_bytes);
}

#[test]
fn forged_files_fail_structural_checks() {
    let mut idx = LshIndex::<8>::with_bands_rows(4, 2).unwrap();
    for i in 0..50u64 {
        idx.insert(i * 3, sig([i, i, 2, 3, 4, 5, i, 7]));
    }
    let bytes = idx.to_bytes();
    // Every single-byte change past the header, resealed, must be caught
    // by a structural check or leave a readable index — never panic.
    let mut caught = 0;
    for (at, bad) in forgeries(&bytes, 64) {
        match LshIndex::<8>::from_bytes(&bad) {
            Err(Error::Corrupt(_) | Error::Config(_)) => caught += 1,
            Err(e) => panic!("byte {at}: unexpected error {e}"),
            Ok(back) => {
                // Keys or signatures changed consistently with a valid
                // structure: the index must still answer without panicking.
                for p in probes() {
                    let _ = back.query_with_threshold(&p, 0.3);
                }
            }
        }
    }
    assert!(caught > 0);
    // Wrong H is a configuration error naming both values.
    let err = LshIndex::<4>::from_bytes(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "config error: index file holds H = 8 signatures, this index has H = 4"
    );
}

#[test]
fn merge_joins_shards_and_refuses_mismatches() {
    let all = messy_index(11);
    let mut items: Vec<(u64, MinHashSig<8>)> = all.iter().map(|(i, s)| (i, *s)).collect();
    items.sort_unstable_by_key(|e| e.0);
    let (left, right) = items.split_at(items.len() / 2);
    let mut a = LshIndex::<8>::with_bands_rows(4, 2).unwrap();
    let mut b = LshIndex::<8>::with_bands_rows(4, 2).unwrap();
    a.extend(left.iter().copied());
    b.extend(right.iter().copied());
    a.merge(&b).unwrap();
    assert_eq!(answers(&a, &probes()), answers(&all, &probes()));

    let before = a.to_bytes();
    let err = a.merge(&b).unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    let other = LshIndex::<8>::with_bands_rows(2, 4).unwrap();
    let err = a.merge(&other).unwrap_err();
    assert_eq!(
        err.to_string(),
        "config error: LshIndex::merge: cannot merge an index of 2 bands × 4 rows into one of 4 bands × 2 rows"
    );
    assert!(a.to_bytes() == before, "a failed merge changed the index");
}

#[cfg(feature = "std")]
#[test]
fn concurrent_readers_see_consistent_answers() {
    let idx = messy_index(21);
    let want = answers(&idx, &probes());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..20 {
                    assert_eq!(answers(&idx, &probes()), want);
                }
            });
        }
    });
}

#[cfg(feature = "std")]
#[test]
fn save_load_and_failed_save_keeps_the_old_file() {
    let dir = std::env::temp_dir().join(alloc::format!("txtfp-persist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.idx");
    let idx = messy_index(8);
    idx.save(&path).unwrap();
    let back = LshIndex::<8>::load(&path).unwrap();
    assert_eq!(answers(&idx, &probes()), answers(&back, &probes()));
    // Saving into a missing directory fails and leaves nothing behind.
    let err = idx.save(dir.join("missing").join("b.idx")).unwrap_err();
    assert!(matches!(err, Error::Io(_)));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    #[cfg(feature = "mmap")]
    {
        let mapped = super::super::MappedLshIndex::<8>::open(&path).unwrap();
        assert_eq!(mapped.len(), idx.len());
        for p in probes() {
            assert_eq!(mapped.query(&p), idx.query(&p));
            assert_eq!(
                mapped.query_with_threshold(&p, 0.5),
                idx.query_with_threshold(&p, 0.5)
            );
        }
        for (id, s) in idx.iter() {
            assert_eq!(mapped.get(id), Some(s));
        }
        let copy = mapped.to_index().unwrap();
        assert_eq!(answers(&copy, &probes()), answers(&idx, &probes()));
        std::fs::write(dir.join("junk.idx"), b"not an index").unwrap();
        assert!(matches!(
            super::super::MappedLshIndex::<8>::open(dir.join("junk.idx")),
            Err(Error::Corrupt(_))
        ));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any traffic, saved and loaded, answers like the original.
    #[test]
    fn round_trip_after_random_traffic(
        ops in proptest::collection::vec((0u64..40, proptest::array::uniform4(0u64..3), any::<bool>()), 0..120),
    ) {
        let mut idx = LshIndex::<4>::with_bands_rows(2, 2).unwrap();
        for (id, h, remove) in ops {
            if remove {
                idx.remove(id);
            } else {
                idx.insert(id, sig(h));
            }
        }
        let back = LshIndex::<4>::from_bytes(&idx.to_bytes()).unwrap();
        let probes: Vec<MinHashSig<4>> = (0..81u64)
            .map(|i| sig([i % 3, i / 3 % 3, i / 9 % 3, i / 27 % 3]))
            .collect();
        prop_assert_eq!(answers(&idx, &probes), answers(&back, &probes));
    }
}

#[test]
fn candidate_index_answers_like_the_full_index() {
    use super::super::LshCandidateIndex;
    let full = messy_index(31);
    let mut lean = LshCandidateIndex::<8>::with_bands_rows(4, 2).unwrap();
    let mut items: Vec<(u64, MinHashSig<8>)> = full.iter().map(|(i, s)| (i, *s)).collect();
    items.sort_unstable_by_key(|e| e.0);
    let (a, b) = items.split_at(items.len() / 3);
    for (id, s) in a {
        lean.insert(*id, s).unwrap();
    }
    lean.try_extend(b.iter().map(|(i, s)| (*i, s))).unwrap();
    assert!(lean.try_extend([(a[0].0, &a[0].1)]).is_err());
    for p in probes() {
        assert_eq!(lean.query(&p), full.query(&p));
    }
    let queries: Vec<MinHashSig<8>> = probes().into_iter().collect();
    let want: Vec<Vec<u64>> = queries.iter().map(|p| full.query(p)).collect();
    assert_eq!(lean.query_batch(&queries), want);
    #[cfg(feature = "parallel")]
    assert_eq!(lean.query_batch_par(&queries), want);
    // A rejected batch (an id repeated after fresh ones were given slots)
    // leaves the index as it was, and the slots it took are usable again.
    let before = lean.len();
    let fresh: Vec<(u64, MinHashSig<8>)> = (0..5u64).map(|i| (1_000 + i, queries[0])).collect();
    let err = lean
        .try_extend(fresh.iter().chain(&fresh[..1]).map(|(i, s)| (*i, s)))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: LshCandidateIndex::try_extend: id 1000 occurs more than once in the batch"
    );
    assert_eq!(lean.len(), before);
    assert!(!lean.contains(1_000));
    assert_eq!(lean.query_batch(&queries), want);
    lean.try_extend(fresh.iter().map(|(i, s)| (*i, s))).unwrap();
    assert!(lean.query(&queries[0]).contains(&1_004));
    for (id, _) in &fresh {
        assert!(lean.remove(*id));
    }
    let back = LshCandidateIndex::<8>::from_bytes(&lean.to_bytes()).unwrap();
    for p in probes() {
        assert_eq!(back.query(&p), full.query(&p));
    }
    // Each kind refuses the other's files.
    assert!(matches!(
        LshIndex::<8>::from_bytes(&lean.to_bytes()),
        Err(Error::Config(_))
    ));
    assert!(matches!(
        LshCandidateIndex::<8>::from_bytes(&full.to_bytes()),
        Err(Error::Config(_))
    ));
    // Removal and replacement.
    let (id, s) = items[0];
    assert!(lean.remove(id));
    assert!(!lean.query(&s).contains(&id));
    lean.insert(id, &s).unwrap();
    lean.compact();
    assert!(lean.query(&s).contains(&id));
    assert!(lean.memory_usage() > 0);
}
