//! Exact Jaccard verification over the documents' token sets.
//!
//! A token set is kept as the sorted, distinct 64-bit hashes of the tokens
//! (the low half of the same 128-bit hash MinHash uses): 8 bytes per
//! distinct token instead of the token text. Two different tokens share a
//! 64-bit hash with probability about 2⁻⁶⁴, so the Jaccard computed here is
//! exact unless such a collision happens.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Similarity, Verifier};
use crate::canonical::Canonicalizer;
use crate::classical::HashFamily;
use crate::tokenize::Tokenizer;

/// How a document becomes a token set: the fingerprinter's configuration.
pub(crate) struct SetMaker<'a, T> {
    pub(crate) canon: &'a Canonicalizer,
    pub(crate) tok: &'a T,
    pub(crate) family: HashFamily,
    pub(crate) seed: u64,
}

impl<T: Tokenizer> SetMaker<'_, T> {
    /// The sorted distinct token hashes of `text`; `buf` holds the canonical
    /// text meanwhile.
    pub(crate) fn token_set(&self, text: &str, buf: &mut String) -> Box<[u64]> {
        self.canon.canonicalize_into(text, buf);
        let mut hashes = Vec::new();
        crate::tokenize::fused::for_each_token(self.tok, buf, |t| {
            hashes.push(self.family.hash128(t.as_bytes(), self.seed).0);
        });
        hashes.sort_unstable();
        hashes.dedup();
        hashes.into_boxed_slice()
    }
}

/// `|a ∩ b|` of two sorted, distinct slices.
pub(crate) fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            core::cmp::Ordering::Less => i += 1,
            core::cmp::Ordering::Greater => j += 1,
            core::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Jaccard of two sorted, distinct slices, rounded to `f32` like every
/// similarity the crate reports; `0.0` when both are empty.
pub(crate) fn set_jaccard(a: &[u64], b: &[u64]) -> f32 {
    let inter = intersection_size(a, b);
    let union = a.len() + b.len() - inter;
    if union == 0 {
        return 0.0;
    }
    (inter as f64 / union as f64) as f32
}

/// Verifies by exact Jaccard. Sets exist for the documents that have a
/// candidate; the others are never asked about.
pub(crate) struct ExactVerifier {
    pub(crate) sets: Vec<Option<Box<[u64]>>>,
    pub(crate) threshold: f32,
}

impl Verifier for ExactVerifier {
    fn verify(&self, a: usize, b: usize) -> Option<Similarity> {
        let (sa, sb) = (self.sets[a].as_deref()?, self.sets[b].as_deref()?);
        // J <= |small| / |large|: skip the merge when even that is too low.
        let (small, large) = (sa.len().min(sb.len()), sa.len().max(sb.len()));
        if large == 0 || ((small as f64 / large as f64) as f32) < self.threshold {
            return None;
        }
        let j = set_jaccard(sa, sb);
        (j >= self.threshold).then_some(Similarity::Jaccard(j))
    }

    fn similarity(&self, a: usize, b: usize) -> Option<Similarity> {
        let (sa, sb) = (self.sets[a].as_deref()?, self.sets[b].as_deref()?);
        Some(Similarity::Jaccard(set_jaccard(sa, sb)))
    }
}

#[cfg(test)]
mod tests;
