//! The candidate pairs of [`MinHashDedup`](super::MinHashDedup): star edges
//! from each band bucket's representative to its other members.
//!
//! Documents here are *dense* indices: the fingerprinted documents with a
//! token, in input order, so a smaller index is an earlier document.

use alloc::vec::Vec;

use hashbrown::HashMap;

use super::Similarity;
use super::engine::map_range;

/// `reps[b][d]`: the smallest document whose key in band `b` equals that of
/// document `d` (`d` itself when none comes before it), from `keys[b][d]`.
///
/// A table per band maps a key to the first document that had it; the bands
/// are independent, so they run on the thread pool, each in input order.
pub(super) fn bucket_reps(keys: &[Vec<u64>]) -> Vec<Vec<u32>> {
    map_range(0..keys.len(), HashMap::<u64, u32>::new, |b, first| {
        first.clear();
        keys[b]
            .iter()
            .enumerate()
            .map(|(d, &key)| *first.entry(key).or_insert(d as u32))
            .collect()
    })
}

/// The candidates of document `d` into `out`: its representatives in every
/// band other than itself, ascending and distinct (a pair several bands
/// give is one candidate). All of them come before `d`.
pub(super) fn candidates_of(reps: &[Vec<u32>], d: usize, out: &mut Vec<u32>) {
    out.clear();
    out.extend(reps.iter().map(|band| band[d]).filter(|&r| r as usize != d));
    out.sort_unstable();
    out.dedup();
}

/// Which documents represent a bucket with another member: the only ones a
/// candidate pair is ever compared against.
pub(super) fn representatives(reps: &[Vec<u32>], n: usize) -> Vec<bool> {
    let mut is_rep = alloc::vec![false; n];
    for band in reps {
        for (d, &r) in band.iter().enumerate() {
            if r as usize != d {
                is_rep[r as usize] = true;
            }
        }
    }
    is_rep
}

/// How two documents compare: one side is *loaded* into a probe (a
/// per-worker scratch value), the other is looked up.
pub(super) trait Measure: Sync {
    /// The per-worker scratch a loaded document lives in.
    type Probe: Send;
    /// A probe holding no document.
    fn probe(&self) -> Self::Probe;
    /// Makes `probe` stand for document `d`.
    fn load(&self, d: u32, probe: &mut Self::Probe);
    /// The similarity of document `r` to the loaded one; `None` only when
    /// the measure holds nothing for `r` (a run holds what it looks up).
    fn similarity(&self, r: u32, probe: &Self::Probe) -> Option<Similarity>;
    /// The similarity when the pair passes verification, `None` when it
    /// does not.
    fn verify(&self, r: u32, probe: &Self::Probe) -> Option<Similarity>;
}

/// What verifying every candidate pair found.
pub(super) struct Scan {
    /// Distinct candidate pairs.
    pub(super) candidates: u64,
    /// For each document, the earlier documents it verified against, with
    /// the similarity, ascending.
    pub(super) edges: Vec<Vec<(u32, Similarity)>>,
}

impl Scan {
    /// The similarity of verified pair `(a, b)`, if it is one.
    pub(super) fn edge(&self, a: u32, b: u32) -> Option<Similarity> {
        let (lo, hi) = (a.min(b), a.max(b));
        let e = &self.edges[hi as usize];
        e.binary_search_by_key(&lo, |&(r, _)| r)
            .ok()
            .map(|x| e[x].1)
    }
}

/// Verifies every candidate pair, each document against its
/// representatives, on the thread pool.
pub(super) fn scan<M: Measure>(reps: &[Vec<u32>], n: usize, measure: &M) -> Scan {
    let per_doc = map_range(
        0..n,
        || (Vec::new(), measure.probe()),
        |d, (cands, probe)| {
            candidates_of(reps, d, cands);
            if cands.is_empty() {
                return (0, Vec::new());
            }
            measure.load(d as u32, probe);
            let edges: Vec<(u32, Similarity)> = cands
                .iter()
                .filter_map(|&r| measure.verify(r, probe).map(|s| (r, s)))
                .collect();
            (cands.len() as u64, edges)
        },
    );
    let mut candidates = 0;
    let edges = per_doc
        .into_iter()
        .map(|(c, e)| {
            candidates += c;
            e
        })
        .collect();
    Scan { candidates, edges }
}

#[cfg(test)]
mod tests;
