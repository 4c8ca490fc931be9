//! [`token_hash`](super::hash::token_hash) for a stream of tokens that
//! overlap like shingles.
//!
//! The stream engine hands a sketch each token as a string. Consecutive word
//! shingles share all their pieces but one, so hashing each shingle from
//! scratch would hash every word k times; [`Roller`] keeps the piece hashes
//! of the last token and, when the next token is that token shifted by one
//! piece (checked on the bytes, so any token stream is handled), hashes only
//! the new piece.

use alloc::collections::VecDeque;
use alloc::string::String;

use super::hash::{BASE, Keys, finish, word_hash};

/// The last token, its pieces' hashes and lengths, and their polynomial.
#[derive(Default)]
pub(super) struct Roller {
    last: String,
    pieces: VecDeque<(u64, usize)>,
    /// `Σ wᵢ·Bⁿ⁻¹⁻ⁱ` over the pieces.
    acc: u64,
    /// `Bⁿ⁻¹` for the current number of pieces `n`.
    top: u64,
}

impl Roller {
    /// `token_hash(token, keys)`.
    pub(super) fn hash(&mut self, token: &str, keys: &Keys) -> u64 {
        if !self.shift(token, keys.word) {
            self.pieces.clear();
            let (mut acc, mut top) = (0u64, 0u64);
            for p in token.as_bytes().split(|&b| b == b' ') {
                let w = word_hash(p, keys.word);
                self.pieces.push_back((w, p.len()));
                acc = acc.wrapping_mul(BASE).wrapping_add(w);
                top = if top == 0 { 1 } else { top.wrapping_mul(BASE) };
            }
            (self.acc, self.top) = (acc, top);
        }
        self.last.clear();
        self.last.push_str(token);
        finish(self.acc, keys.finish)
    }

    /// If `token` is the last token without its first piece, then a space
    /// and one more piece, updates the pieces and returns true.
    fn shift(&mut self, token: &str, key: u64) -> bool {
        let Some(&(_, first)) = self.pieces.front() else {
            return false;
        };
        if self.pieces.len() < 2 {
            return false;
        }
        let tail = &self.last.as_bytes()[first + 1..];
        let t = token.as_bytes();
        // A space is one byte, so after `tail` and a space `token` is at a
        // char boundary; `str::contains` of a char searches with `memchr`.
        let fits = t.len() > tail.len()
            && t.starts_with(tail)
            && t[tail.len()] == b' '
            && !token[tail.len() + 1..].contains(' ');
        if !fits {
            return false;
        }
        let new = &t[tail.len() + 1..];
        let w = word_hash(new, key);
        if let Some((old, _)) = self.pieces.pop_front() {
            // Same number of pieces: drop the oldest term, shift, add.
            self.acc = self
                .acc
                .wrapping_sub(old.wrapping_mul(self.top))
                .wrapping_mul(BASE)
                .wrapping_add(w);
        }
        self.pieces.push_back((w, new.len()));
        true
    }
}

#[cfg(test)]
mod tests;
