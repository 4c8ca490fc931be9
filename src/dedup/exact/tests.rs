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
    let (a, b) = ([1, 2, 3, 4], [1, 2, 3, 4, 5]);
    assert_eq!(jaccard_at_least(&a, &b, 0.8), Some(0.8));
    assert_eq!(jaccard_at_least(&b, &a, 0.8), Some(0.8));
    assert_eq!(jaccard_at_least(&a, &b, 0.81), None);
    assert_eq!(jaccard_at_least(&a, &[], 0.1), None);
    assert_eq!(jaccard_at_least(&[], &[], 0.1), None);
}

proptest! {
    #[test]
    fn threshold_check_matches_the_jaccard(
        a in proptest::collection::vec(0u64..30, 0..20),
        b in proptest::collection::vec(0u64..30, 0..20),
        t in prop::sample::select(vec![0.1f32, 0.25, 0.5, 0.8, 1.0]),
    ) {
        let (a, b) = (sorted_set(a), sorted_set(b));
        let j = set_jaccard(&a, &b);
        let want = (!(a.is_empty() && b.is_empty()) && j >= t).then_some(j);
        prop_assert_eq!(jaccard_at_least(&a, &b, t), want);
    }
}
