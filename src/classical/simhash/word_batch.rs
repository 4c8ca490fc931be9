//! Tf votes for all the tokens of a text, hashed in batches.
//!
//! The token loop only records where each token lies in the text (two
//! stores), so it stays small enough to inline into the tokenizer's scan.
//! Every [`SPANS`] tokens, [`TokenHasher::hash_spans`] hashes the batch in
//! tight loops without length branches (the multiplies of different tokens
//! overlap freely there) and the vote kernel takes the hashes in one call.

use super::token_hash::{SPAN_BATCH as SPANS, TokenHasher};
use super::votes::TfVotes;
use crate::tokenize::Tokenizer;

/// Byte ranges of the text waiting to be hashed.
struct SpanBatch {
    starts: [usize; SPANS],
    ends: [usize; SPANS],
    len: usize,
}

impl SpanBatch {
    /// Queues `start..end`; true when the batch is full.
    #[inline(always)]
    fn push(&mut self, start: usize, end: usize) -> bool {
        // `len < SPANS` always holds here; the `if let` only spares the
        // compiler a panic path.
        if let (Some(s), Some(e)) = (self.starts.get_mut(self.len), self.ends.get_mut(self.len)) {
            *s = start;
            *e = end;
            self.len += 1;
        }
        self.len == SPANS
    }

    /// Hashes the queued ranges of `text` and votes them.
    #[inline(never)]
    fn drain(&mut self, hasher: &TokenHasher, text: &[u8], votes: &mut TfVotes) {
        let n = self.len.min(SPANS);
        let mut hashes = [0u64; SPANS];
        let k = hasher.hash_spans(text, &self.starts[..n], &self.ends[..n], &mut hashes);
        votes.push_all(&hashes[..k]);
        self.len = 0;
    }
}

/// One Tf vote, by the low half of its XXH3-128 hash, for every token `tok`
/// yields from `text` (the same tokens, hence the same votes, as
/// [`Tokenizer::for_each_token`]).
pub(crate) fn vote_tokens<T: Tokenizer + ?Sized>(
    tok: &T,
    text: &str,
    hasher: &TokenHasher,
    votes: &mut TfVotes,
) {
    let bytes = text.as_bytes();
    let mut batch = SpanBatch {
        starts: [0; SPANS],
        ends: [0; SPANS],
        len: 0,
    };
    crate::tokenize::fused::for_each_token_bytes(tok, text, |w| {
        // Where `w` starts in `text`, if it lies inside it (word tokens do;
        // shingles are built in a buffer of their own). Only addresses are
        // compared: a range of `text` with the address and length of `w` is
        // the same memory, so it holds the same bytes.
        let start = (w.as_ptr() as usize).wrapping_sub(bytes.as_ptr() as usize);
        match bytes.len().checked_sub(start) {
            Some(room) if w.len() <= room => {
                if batch.push(start, start + w.len()) {
                    batch.drain(hasher, bytes, votes);
                }
            }
            _ => vote_outside(hasher, votes, w),
        }
    });
    batch.drain(hasher, bytes, votes);
}

/// The vote of a token that is not a range of the text (a shingle): hashed
/// at once. Out of line, so that the token loop stays small enough to
/// inline; Tf counts do not depend on the order of the votes.
#[inline(never)]
fn vote_outside(hasher: &TokenHasher, votes: &mut TfVotes, w: &[u8]) {
    votes.push(hasher.hash(w));
}

#[cfg(test)]
mod tests {
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
}
