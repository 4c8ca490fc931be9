use super::*;
use proptest::prelude::*;

proptest! {
    #[test]
    fn sorted_batch_is_the_sorted_multiset_with_its_directory(
        pairs in proptest::collection::vec((any::<u64>(), any::<u32>()), 0..3000),
        skew in 0u8..3,
    ) {
        let keys: Vec<u64> = pairs.iter().map(|p| match skew {
            // Keys sharing long prefixes crowd one scatter bucket.
            1 => p.0 & 0xffff,
            2 => p.0 | 0xffff_ffff_0000_0000,
            _ => p.0,
        }).collect();
        let slots: Vec<u32> = pairs.iter().map(|p| p.1).collect();
        let bits = dir_bits(keys.len());
        let (entries, dir) = sort_batch(&keys, &slots, bits);
        prop_assert!(entries.windows(2).all(|w| w[0].key() <= w[1].key()));
        prop_assert_eq!(&dir, &super::super::run::build_dir(&entries, bits));
        let mut got: Vec<(u64, u32)> = entries.iter().map(|e| (e.key(), e.slot())).collect();
        let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(slots.iter().copied()).collect();
        got.sort_unstable();
        want.sort_unstable();
        prop_assert_eq!(got, want);
    }
}
