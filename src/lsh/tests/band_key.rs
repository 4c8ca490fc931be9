//! The unrolled band-key hash against the xxh3 crate.

use super::super::*;
use proptest::prelude::*;

proptest! {
    #[test]
    fn unrolled_xxh3_equals_the_crate(w in proptest::array::uniform8(any::<u64>())) {
        let bytes: alloc::vec::Vec<u8> = w.iter().flat_map(|s| s.to_le_bytes()).collect();
        prop_assert_eq!(xxh3_64_of_8_words(&w), xxhash_rust::xxh3::xxh3_64(&bytes));
        prop_assert_eq!(band_key(&w), xxhash_rust::xxh3::xxh3_64(&bytes));
    }
}

#[test]
fn unrolled_xxh3_edge_words() {
    for v in [0u64, 1, u64::MAX, 0x8000_0000_0000_0000] {
        let w = [v; 8];
        let bytes: alloc::vec::Vec<u8> = w.iter().flat_map(|s| s.to_le_bytes()).collect();
        assert_eq!(xxh3_64_of_8_words(&w), xxhash_rust::xxh3::xxh3_64(&bytes));
    }
}
