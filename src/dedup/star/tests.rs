use super::*;
use proptest::prelude::*;

#[test]
fn representatives_are_the_first_of_each_bucket() {
    // Band 0: buckets {0, 2, 3} and {1}; band 1: {0}, {1, 2} and {3}.
    let keys = alloc::vec![alloc::vec![7, 9, 7, 7], alloc::vec![1, 5, 5, 8]];
    let reps = bucket_reps(&keys);
    assert_eq!(reps, [[0, 1, 0, 0], [0, 1, 1, 3]]);
    let mut out = Vec::new();
    candidates_of(&reps, 2, &mut out);
    assert_eq!(out, [0, 1]);
    // 2 and 3 share band 0 but neither represents it: no pair.
    candidates_of(&reps, 3, &mut out);
    assert_eq!(out, [0]);
    candidates_of(&reps, 0, &mut out);
    assert!(out.is_empty());
    assert_eq!(representatives(&reps, 4), [true, true, false, false]);
}

proptest! {
    #[test]
    fn candidates_are_star_edges(
        keys in proptest::collection::vec(proptest::collection::vec(0u64..4, 12), 1..5),
    ) {
        let n = 12;
        let reps = bucket_reps(&keys);
        let mut out = Vec::new();
        for d in 0..n {
            candidates_of(&reps, d, &mut out);
            // Each band's smallest earlier document with the same key,
            // found by looking.
            let mut want: Vec<u32> = keys
                .iter()
                .filter_map(|band| (0..d).find(|&e| band[e] == band[d]).map(|e| e as u32))
                .collect();
            want.sort_unstable();
            want.dedup();
            prop_assert_eq!(&out, &want);
            prop_assert!(out.len() <= keys.len());
        }
    }
}

/// Two documents share a band key here exactly when an
/// [`LshCandidateIndex`](crate::LshCandidateIndex) of the same banding
/// makes them candidates, for the 8-row fast path and the general one.
#[test]
fn band_keys_agree_with_the_candidate_index() {
    use crate::{LshCandidateIndex, LshIndexBuilder, MinHashSig};
    // Slots from a tiny alphabet, so that many bands collide.
    let sigs: Vec<MinHashSig<16>> = (0..40u64)
        .map(|d| {
            let mut s = MinHashSig::<16>::empty();
            for (i, h) in s.hashes.iter_mut().enumerate() {
                *h = (d.wrapping_mul(0x9E37_79B9) >> (i % 5)) % 3;
            }
            s
        })
        .collect();
    for (bands, rows) in [(2, 8), (4, 4), (16, 1)] {
        let mut index =
            LshCandidateIndex::<16>::from_builder(LshIndexBuilder::new(bands, rows)).unwrap();
        index
            .try_extend(sigs.iter().enumerate().map(|(d, s)| (d as u64, s)))
            .unwrap();
        let keys: Vec<Vec<u64>> = (0..bands)
            .map(|b| {
                sigs.iter()
                    .map(|s| crate::lsh::band_key_at(&s.hashes, rows, b))
                    .collect()
            })
            .collect();
        let mut shared_any = false;
        for (d, sig) in sigs.iter().enumerate() {
            let mut want: Vec<u64> = (0..sigs.len())
                .filter(|&e| keys.iter().any(|band| band[e] == band[d]))
                .map(|e| e as u64)
                .collect();
            want.sort_unstable();
            let mut got = index.query(sig);
            got.sort_unstable();
            shared_any |= want.len() > 1;
            assert_eq!(got, want, "document {d}, {bands} × {rows}");
        }
        assert!(
            shared_any,
            "{bands} × {rows}: no two documents share a band"
        );
    }
}
