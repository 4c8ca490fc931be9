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
