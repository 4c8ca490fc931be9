//! One prefix tree of an [`LshForest`](super::LshForest), as a sorted array.

use alloc::vec::Vec;

use crate::MinHashSig;
use crate::classical::minhash::Scheme;

/// The slots `0..n` ordered by their band `start..start + rows` read as a
/// string of `u64`s (ties by slot), with each one's first band slot beside
/// it. Every prefix of the band is then one contiguous range.
#[derive(Clone, Default)]
pub(super) struct Tree {
    /// First slot of the band of `order[i]`, ascending.
    first: Vec<u64>,
    /// Signature slots in band order.
    order: Vec<u32>,
}

impl Tree {
    /// Sorts the signatures by band `start..start + rows`.
    pub(super) fn build<const H: usize, S: Scheme>(
        sigs: &[MinHashSig<H, S>],
        start: usize,
        rows: usize,
    ) -> Self {
        // The first slot decides almost every comparison: sort packed
        // (first, slot) keys, then order only the runs of equal first slots
        // by the rest of the band.
        let mut keys: Vec<(u64, u32)> = sigs
            .iter()
            .enumerate()
            .map(|(s, sig)| (sig.hashes[start], s as u32))
            .collect();
        keys.sort_unstable();
        let band = |s: u32| &sigs[s as usize].hashes[start + 1..start + rows];
        let mut i = 0;
        while i < keys.len() {
            let mut j = i + 1;
            while j < keys.len() && keys[j].0 == keys[i].0 {
                j += 1;
            }
            if j - i > 1 && rows > 1 {
                keys[i..j].sort_unstable_by(|a, b| band(a.1).cmp(band(b.1)).then(a.1.cmp(&b.1)));
            }
            i = j;
        }
        Self {
            first: keys.iter().map(|k| k.0).collect(),
            order: keys.iter().map(|k| k.1).collect(),
        }
    }

    /// The positions whose band (`start..start + q.len()`) starts with
    /// `q[..d]`, for `d = 1..=q.len()` (index `d − 1`), each range inside the
    /// one before; empty ranges from the first depth that matches nothing on.
    pub(super) fn ranges<const H: usize, S: Scheme>(
        &self,
        sigs: &[MinHashSig<H, S>],
        start: usize,
        q: &[u64],
        out: &mut Vec<(usize, usize)>,
    ) {
        out.clear();
        let lo = self.first.partition_point(|&v| v < q[0]);
        let hi = lo + self.first[lo..].partition_point(|&v| v == q[0]);
        let (mut lo, mut hi) = (lo, hi);
        out.push((lo, hi));
        for (d, &qd) in q.iter().enumerate().skip(1) {
            if lo < hi {
                // Inside the range of depth d the bands agree on slots
                // `..d`, so they are sorted by slot `d`.
                let run = &self.order[lo..hi];
                let at = |s: &u32| sigs[*s as usize].hashes[start + d];
                let a = run.partition_point(|s| at(s) < qd);
                let b = a + run[a..].partition_point(|s| at(s) == qd);
                (lo, hi) = (lo + a, lo + b);
            }
            out.push((lo, hi));
        }
    }

    /// The slot at sorted position `pos`.
    #[inline]
    pub(super) fn slot(&self, pos: usize) -> u32 {
        self.order[pos]
    }

    /// Heap bytes held.
    pub(super) fn memory_usage(&self) -> usize {
        self.first.capacity() * 8 + self.order.capacity() * 4
    }
}
