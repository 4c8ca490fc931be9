use super::*;
use crate::classical::{DEFAULT_SEED, HashFamily};
use crate::tokenize::{GraphemeTokenizer, ShingleTokenizer, WordTokenizer};
use alloc::string::String;
use proptest::prelude::*;

/// The plain Tf sketch: every token through `for_each_token`, the full
/// 128-bit hash, 64 signed counters.
fn reference<T: Tokenizer>(tok: &T, text: &str, seed: u64) -> (u64, u64) {
    let mut acc = [0i64; 64];
    let mut n = 0;
    tok.for_each_token(text, &mut |t| {
        let (lo, _) = HashFamily::Xxh3_64.hash128(t.as_bytes(), seed);
        n += 1;
        for (b, a) in acc.iter_mut().enumerate() {
            *a += if (lo >> b) & 1 == 1 { 1 } else { -1 };
        }
    });
    let bits = (0..64).fold(0u64, |o, b| o | (u64::from(acc[b] > 0) << b));
    (n, bits)
}

fn batched<T: Tokenizer>(tok: &T, text: &str, seed: u64) -> (u64, u64) {
    let mut votes = TfVotes::new();
    vote_tokens(tok, text, &TokenHasher::new(seed), &mut votes);
    (votes.votes(), votes.signature())
}

/// Words of every length class, long words, non-ASCII words and
/// punctuation, in texts long enough for several batches.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[a-z]{1,3}",
            "[a-zA-Z0-9]{4,8}",
            "[a-z]{9,16}",
            "[a-z_]{17,140}",
            "[éжß中]{1,5}",
            "[ .,;:'!\n-]{1,3}",
        ],
        0..300,
    )
    .prop_map(|parts| parts.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn words_match_the_plain_sketch(t in text(), seed in any::<u64>()) {
        prop_assert_eq!(batched(&WordTokenizer, &t, seed), reference(&WordTokenizer, &t, seed));
    }

    /// Shingles live in a buffer of their own: the out-of-text path.
    #[test]
    fn shingles_match_the_plain_sketch(t in text(), k in 1usize..4) {
        let tok = ShingleTokenizer { k, inner: WordTokenizer };
        prop_assert_eq!(batched(&tok, &t, DEFAULT_SEED), reference(&tok, &t, DEFAULT_SEED));
    }

    /// A tokenizer without a fused path, whose tokens are slices of the text.
    #[test]
    fn graphemes_match_the_plain_sketch(t in text()) {
        let tok = GraphemeTokenizer;
        prop_assert_eq!(batched(&tok, &t, 7), reference(&tok, &t, 7));
    }
}
