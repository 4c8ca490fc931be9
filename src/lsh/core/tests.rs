use super::*;
use proptest::prelude::*;

proptest! {
    #[test]
    fn sort_entries_sorts(mut v in proptest::collection::vec((any::<u64>(), any::<u32>()), 0..3000), skew in any::<bool>()) {
        if skew {
            for e in &mut v {
                e.0 &= 0xffff;
            }
        }
        let mut want = v.clone();
        want.sort_unstable();
        let mut by_key = v.clone();
        sort_by_key(&mut by_key);
        prop_assert!(by_key.windows(2).all(|w| w[0].0 <= w[1].0));
        let mut multiset = by_key.clone();
        multiset.sort_unstable();
        prop_assert_eq!(&multiset, &want);
        sort_entries(&mut v);
        prop_assert_eq!(v, want);
    }
}
