//! Tf votes for all the tokens of a text, hashed in batches.
//!
//! The token loop ([`for_each_token_batch`]) only records where each token
//! lies (two stores), so it stays small enough to inline into the
//! tokenizer's scan. Each batch is hashed by [`TokenHasher::hash_spans`] in
//! tight loops without length branches (the multiplies of different tokens
//! overlap freely there), and the vote kernel takes the hashes in one call.
//! Tf counts do not depend on the order of the votes.

use super::token_hash::{SPAN_BATCH, TokenHasher};
use super::votes::TfVotes;
use crate::tokenize::Tokenizer;
use crate::tokenize::fused::for_each_token_batch;

/// One Tf vote, by the low half of its XXH3-128 hash, for every token `tok`
/// yields from `text` (the same tokens, hence the same votes, as
/// [`Tokenizer::for_each_token`]).
pub(crate) fn vote_tokens<T: Tokenizer + ?Sized>(
    tok: &T,
    text: &str,
    hasher: &TokenHasher,
    votes: &mut TfVotes,
) {
    let mut hashes = [0u64; SPAN_BATCH];
    for_each_token_batch(tok, text, |buf, starts, ends| {
        for (starts, ends) in starts.chunks(SPAN_BATCH).zip(ends.chunks(SPAN_BATCH)) {
            let k = hasher.hash_spans(buf, starts, ends, &mut hashes);
            votes.push_all(&hashes[..k]);
        }
    });
}

#[cfg(test)]
mod tests;
