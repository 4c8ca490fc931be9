use alloc::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::classical::minhash::kernel::update_slots_reference;

fn reference<const H: usize>(tokens: &[&[u8]], fam: HashFamily, seed: u64) -> [u64; H] {
    let mut slots = [u64::MAX; H];
    for t in tokens {
        let (lo, hi) = fam.hash128(t, seed);
        update_slots_reference(&mut slots, lo, hi);
    }
    slots
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Tokens of every length, in batches and a partial batch at the
    /// end, equal hashing each token at once.
    #[test]
    fn sketch_equals_reference(
        tokens in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..90), 0..120),
        fam in prop_oneof![Just(HashFamily::Xxh3_64), Just(HashFamily::MurmurHash3_x64_128)],
        seed in any::<u64>(),
    ) {
        let all: Vec<&[u8]> = tokens.iter().map(Vec::as_slice).collect();
        let want: [u64; 128] = reference(&all, fam, seed);
        let mut s = MinHashSketch::<128>::new(fam, seed);
        for t in &all {
            s.push_bytes(t);
        }
        if all.is_empty() {
            prop_assert!(s.finish().is_err());
        } else {
            prop_assert_eq!(s.finish().unwrap().hashes, want);
        }
    }

    /// Tokens as ranges of one text, in batches of any size (the
    /// batch hasher's length classes included), equal the reference.
    #[test]
    fn spans_equal_reference(
        text in proptest::collection::vec(any::<u8>(), 0..300),
        spans in proptest::collection::vec((0usize..300, 0usize..90), 0..150),
        cut in 0usize..150,
        fam in prop_oneof![Just(HashFamily::Xxh3_64), Just(HashFamily::MurmurHash3_x64_128)],
        seed in any::<u64>(),
    ) {
        let spans: Vec<(usize, usize)> = spans.into_iter()
            .map(|(s, l)| (s.min(text.len()), (s + l).min(text.len())))
            .collect();
        let all: Vec<&[u8]> = spans.iter().map(|&(s, e)| &text[s..e]).collect();
        let want: [u64; 128] = reference(&all, fam, seed);
        let starts: Vec<usize> = spans.iter().map(|s| s.0).collect();
        let ends: Vec<usize> = spans.iter().map(|s| s.1).collect();
        let cut = cut.min(spans.len());
        let mut s = MinHashSketch::<128>::new(fam, seed);
        s.push_spans(&text, &starts[..cut], &ends[..cut]);
        s.push_spans(&text, &starts[cut..], &ends[cut..]);
        if all.is_empty() {
            prop_assert!(s.finish().is_err());
        } else {
            prop_assert_eq!(s.finish().unwrap().hashes, want);
        }
    }
}
