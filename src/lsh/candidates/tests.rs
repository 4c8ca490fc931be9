//! Tests of `candidates.rs` with the fast scheme: the same index, typed
//! and saved as the fast scheme's, held to the fast `LshIndex` (the default
//! scheme's tests are in `lsh/tests.rs`).

use alloc::vec::Vec;

use proptest::prelude::*;

use crate::{
    Error, LshIndex, classical::minhash::FastLshCandidateIndex, classical::minhash::FastLshIndex,
    classical::minhash::FastMinHashSig,
};

use crate::lsh::tests::fast_sig as sig;

#[test]
fn forwards_and_keeps_the_type() {
    let mut idx = FastLshCandidateIndex::<8>::with_bands_rows(4, 2).unwrap();
    assert!(idx.is_empty());
    idx.insert(1, &sig(5)).unwrap();
    idx.insert(2, &sig(6)).unwrap();
    assert_eq!((idx.len(), idx.bands(), idx.rows()), (2, 4, 2));
    // Both share the bands [1, 2] and [3, x]'s first half.
    assert_eq!(idx.query(&sig(5)), [1, 2]);
    assert_eq!(
        idx.query_batch(&[sig(6), sig(99)]),
        [vec![1, 2], vec![1, 2]]
    );
    assert!(idx.remove(1));
    assert!(!idx.remove(1));
    assert!(!idx.contains(1) && idx.contains(2));
    idx.compact();
    assert_eq!(idx.query(&sig(5)), [2]);
    assert!(idx.memory_usage() > 0);
    assert!(alloc::format!("{idx:?}").starts_with("FastLshCandidateIndex { h: 8, bands: 4"));
    assert!(FastLshCandidateIndex::<8>::with_bands_rows(3, 2).is_err());
}

#[test]
fn try_extend_is_all_or_nothing() {
    let mut idx = FastLshCandidateIndex::<8>::with_bands_rows(8, 1).unwrap();
    idx.try_extend([(1, &sig(10)), (2, &sig(20))]).unwrap();
    assert!(idx.try_extend([(3, &sig(30)), (1, &sig(40))]).is_err());
    assert!(idx.try_extend([(4, &sig(30)), (4, &sig(40))]).is_err());
    assert_eq!(idx.len(), 2);
    assert!(!idx.contains(3) && !idx.contains(4));
}

/// Smaller than the index that keeps signatures, for the same documents.
#[test]
fn keeps_no_signatures() {
    let mut keys = FastLshCandidateIndex::<128>::with_bands_rows(16, 8).unwrap();
    let mut full = FastLshIndex::<128>::with_bands_rows(16, 8).unwrap();
    for id in 0..2000u64 {
        let mut s = FastMinHashSig::<128>::empty();
        for (i, h) in s.hashes.iter_mut().enumerate() {
            *h = id.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i as u64).wrapping_mul(0xff51_afd7);
        }
        keys.insert(id, &s).unwrap();
        full.insert(id, s);
    }
    keys.compact();
    full.compact();
    assert!(
        keys.memory_usage() * 3 < full.memory_usage(),
        "{} {}",
        keys.memory_usage(),
        full.memory_usage()
    );
}

#[test]
fn files_round_trip_and_foreign_files_are_refused() {
    let mut idx = FastLshCandidateIndex::<8>::with_bands_rows(4, 2).unwrap();
    idx.insert(1, &sig(5)).unwrap();
    idx.insert(9, &sig(7)).unwrap();
    let bytes = idx.to_bytes();
    assert_eq!(&bytes[..8], b"TXTFPFMC");
    let back = FastLshCandidateIndex::<8>::from_bytes(&bytes).unwrap();
    assert_eq!((back.len(), back.bands(), back.rows()), (2, 4, 2));
    assert_eq!(back.query(&sig(7)), idx.query(&sig(7)));

    let default_keys = crate::LshCandidateIndex::<8>::with_bands_rows(4, 2)
        .unwrap()
        .to_bytes();
    let default_full = LshIndex::<8>::with_bands_rows(4, 2).unwrap().to_bytes();
    let fast_full = FastLshIndex::<8>::with_bands_rows(4, 2).unwrap().to_bytes();
    for (other, what) in [
        (&default_keys, "LshCandidateIndex"),
        (&default_full, "LshIndex"),
        (&fast_full, "FastLshIndex"),
    ] {
        let e = FastLshCandidateIndex::<8>::from_bytes(other).unwrap_err();
        assert!(matches!(e, Error::Config(_)), "{e}");
        assert!(e.to_string().contains(what), "{e}");
    }
    // Its files go nowhere else.
    assert!(crate::LshCandidateIndex::<8>::from_bytes(&bytes).is_err());
    assert!(LshIndex::<8>::from_bytes(&bytes).is_err());
    let e = FastLshIndex::<8>::from_bytes(&bytes).unwrap_err();
    assert!(matches!(e, Error::Config(_)), "{e}");
    assert!(
        e.to_string().contains("FastLshCandidateIndex::from_bytes"),
        "{e}"
    );
    // Another H, another schema, a dirty header, damage, truncation.
    assert!(FastLshCandidateIndex::<16>::from_bytes(&bytes).is_err());
    let mut schema = bytes.clone();
    schema[8] ^= 1;
    assert!(matches!(
        FastLshCandidateIndex::<8>::from_bytes(&schema),
        Err(Error::SchemaMismatch { .. })
    ));
    let mut pad = bytes.clone();
    pad[12] = 1;
    assert!(matches!(
        FastLshCandidateIndex::<8>::from_bytes(&pad),
        Err(Error::Corrupt(_))
    ));
    let mut damaged = bytes.clone();
    let last = damaged.len() - 1;
    damaged[last] ^= 0x40;
    assert!(FastLshCandidateIndex::<8>::from_bytes(&damaged).is_err());
    for n in 0..bytes.len() {
        assert!(
            FastLshCandidateIndex::<8>::from_bytes(&bytes[..n]).is_err(),
            "{n}"
        );
    }
}

#[cfg(feature = "std")]
#[test]
fn save_and_load() {
    extern crate std;
    let dir = std::env::temp_dir().join(alloc::format!("txtfp-fastc-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("c.idx");
    let mut idx = FastLshCandidateIndex::<8>::with_bands_rows(4, 2).unwrap();
    idx.insert(3, &sig(4)).unwrap();
    idx.save(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), idx.to_bytes());
    assert_eq!(
        FastLshCandidateIndex::<8>::load(&path)
            .unwrap()
            .query(&sig(4)),
        [3]
    );
    assert!(FastLshCandidateIndex::<8>::load(dir.join("missing")).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

proptest! {
    /// Under any sequence of inserts (some replacing) and removals, the
    /// candidates are those of the index that keeps the signatures.
    #[test]
    fn candidates_equal_the_full_index(
        ops in proptest::collection::vec((0u64..20, proptest::array::uniform8(0u64..4), any::<bool>()), 0..60),
        probes in proptest::collection::vec(proptest::array::uniform8(0u64..4), 1..6),
    ) {
        let mut keys = FastLshCandidateIndex::<8>::with_bands_rows(4, 2).unwrap();
        let mut full = FastLshIndex::<8>::with_bands_rows(4, 2).unwrap();
        for (id, hashes, remove) in ops {
            if remove {
                prop_assert_eq!(keys.remove(id), full.remove(id).is_some());
            } else {
                let s = FastMinHashSig { hashes, ..FastMinHashSig::empty() };
                keys.insert(id, &s).unwrap();
                full.insert(id, s);
            }
        }
        let sigs: Vec<FastMinHashSig<8>> = probes
            .into_iter()
            .map(|hashes| FastMinHashSig { hashes, ..FastMinHashSig::empty() })
            .collect();
        let batch = keys.query_batch(&sigs);
        for (s, b) in sigs.iter().zip(&batch) {
            prop_assert_eq!(&keys.query(s), &full.query(s));
            prop_assert_eq!(b, &full.query(s));
        }
        prop_assert_eq!(keys.len(), full.len());
        let back = FastLshCandidateIndex::<8>::from_bytes(&keys.to_bytes()).unwrap();
        for s in &sigs {
            prop_assert_eq!(back.query(s), keys.query(s));
        }
    }
}
