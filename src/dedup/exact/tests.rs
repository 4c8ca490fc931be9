use super::*;
use proptest::prelude::*;

fn sorted_set(v: Vec<u64>) -> Vec<u64> {
    let mut v = v;
    v.sort_unstable();
    v.dedup();
    v
}

proptest! {
    #[test]
    fn intersection_matches_naive(
        a in proptest::collection::vec(0u64..50, 0..40),
        b in proptest::collection::vec(0u64..50, 0..40),
    ) {
        let (a, b) = (sorted_set(a), sorted_set(b));
        let naive = a.iter().filter(|x| b.contains(x)).count();
        prop_assert_eq!(intersection_size(&a, &b), naive);
        let union = a.len() + b.len() - naive;
        let want = if union == 0 { 0.0 } else { (naive as f64 / union as f64) as f32 };
        prop_assert_eq!(set_jaccard(&a, &b), want);
    }
}

#[test]
fn length_filter_never_rejects_a_passing_pair() {
    // |a| = 4, |b| = 5, b ⊇ a: J = 0.8 exactly, equal to small / large.
    let v = ExactVerifier {
        sets: alloc::vec![
            Some(Box::from([1, 2, 3, 4])),
            Some(Box::from([1, 2, 3, 4, 5])),
            None
        ],
        threshold: 0.8,
    };
    assert_eq!(v.verify(0, 1), Some(Similarity::Jaccard(0.8)));
    assert_eq!(v.verify(0, 2), None);
    assert_eq!(v.similarity(1, 2), None);
    let strict = ExactVerifier {
        threshold: 0.81,
        ..v
    };
    assert_eq!(strict.verify(0, 1), None);
    assert_eq!(strict.similarity(0, 1), Some(Similarity::Jaccard(0.8)));
}
