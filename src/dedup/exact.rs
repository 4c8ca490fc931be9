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

use super::Similarity;
use super::engine::map_range;
use super::star::Measure;
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
    /// The sorted distinct token hashes of `text` into `out`; `buf` holds
    /// the canonical text meanwhile.
    pub(crate) fn token_set_into(&self, text: &str, buf: &mut String, out: &mut Vec<u64>) {
        self.canon.canonicalize_into(text, buf);
        out.clear();
        crate::tokenize::fused::for_each_token(self.tok, buf, |t| {
            out.push(self.family.hash128(t.as_bytes(), self.seed).0);
        });
        out.sort_unstable();
        out.dedup();
    }

    /// [`token_set_into`](Self::token_set_into) a fresh set.
    pub(crate) fn token_set(&self, text: &str, buf: &mut String) -> Box<[u64]> {
        let mut out = Vec::new();
        self.token_set_into(text, buf, &mut out);
        out.into_boxed_slice()
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
///
/// ```
/// use txtfp::dedup::parts::set_jaccard;
/// assert_eq!(set_jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
/// assert_eq!(set_jaccard(&[], &[]), 0.0);
/// ```
pub fn set_jaccard(a: &[u64], b: &[u64]) -> f32 {
    let inter = intersection_size(a, b);
    let union = a.len() + b.len() - inter;
    if union == 0 {
        return 0.0;
    }
    (inter as f64 / union as f64) as f32
}

/// `J(a, b)` when it is at least `threshold`, else `None`.
pub(crate) fn jaccard_at_least(a: &[u64], b: &[u64], threshold: f32) -> Option<f32> {
    // J <= |small| / |large|: skip the merge when even that is too low.
    let (small, large) = (a.len().min(b.len()), a.len().max(b.len()));
    if large == 0 || ((small as f64 / large as f64) as f32) < threshold {
        return None;
    }
    let j = set_jaccard(a, b);
    (j >= threshold).then_some(j)
}

/// Exact Jaccard over the token sets of the documents (dense indices into
/// `live`). Only the sets of bucket representatives (and, before the
/// decisions, of kept documents) are held; a probe tokenizes any other
/// document into its own scratch, so memory follows the representatives,
/// not the corpus.
pub(crate) struct ExactMeasure<'a, T, S> {
    pub(crate) maker: SetMaker<'a, T>,
    pub(crate) texts: &'a [S],
    pub(crate) live: &'a [u32],
    pub(crate) sets: Vec<Option<Box<[u64]>>>,
    pub(crate) threshold: f32,
}

/// A loaded document: its held set, or one made in `set`.
pub(crate) struct ExactProbe {
    doc: u32,
    buf: String,
    set: Vec<u64>,
}

impl<T: Tokenizer + Sync, S: AsRef<str> + Sync> ExactMeasure<'_, T, S> {
    /// Holds the sets of the documents `wanted` flags.
    pub(crate) fn hold(&mut self, wanted: &[bool]) {
        let missing: Vec<u32> = (0..wanted.len() as u32)
            .filter(|&d| wanted[d as usize] && self.sets[d as usize].is_none())
            .collect();
        let made = map_range(0..missing.len(), String::new, |j, buf| {
            let pos = self.live[missing[j] as usize] as usize;
            self.maker.token_set(self.texts[pos].as_ref(), buf)
        });
        for (d, set) in missing.into_iter().zip(made) {
            self.sets[d as usize] = Some(set);
        }
    }

    fn own<'p>(&'p self, probe: &'p ExactProbe) -> &'p [u64] {
        self.sets[probe.doc as usize]
            .as_deref()
            .unwrap_or(&probe.set)
    }
}

impl<T: Tokenizer + Sync, S: AsRef<str> + Sync> Measure for ExactMeasure<'_, T, S> {
    type Probe = ExactProbe;

    fn probe(&self) -> ExactProbe {
        ExactProbe {
            doc: 0,
            buf: String::new(),
            set: Vec::new(),
        }
    }

    fn load(&self, d: u32, probe: &mut ExactProbe) {
        probe.doc = d;
        if self.sets[d as usize].is_none() {
            let text = self.texts[self.live[d as usize] as usize].as_ref();
            self.maker
                .token_set_into(text, &mut probe.buf, &mut probe.set);
        }
    }

    fn similarity(&self, r: u32, probe: &ExactProbe) -> Option<Similarity> {
        let held = self.sets[r as usize].as_deref()?;
        Some(Similarity::Jaccard(set_jaccard(held, self.own(probe))))
    }

    fn verify(&self, r: u32, probe: &ExactProbe) -> Option<Similarity> {
        let held = self.sets[r as usize].as_deref()?;
        jaccard_at_least(held, self.own(probe), self.threshold).map(Similarity::Jaccard)
    }
}

#[cfg(test)]
mod tests;
