//! The sparse representation of HyperLogLog++: one `u32` per occupied
//! register of a precision-25 sketch, `index << 6 | rank`, kept while that
//! list takes no more bytes than the dense registers would.
//!
//! Inserts go to an unsorted buffer that is sorted and merged into the
//! sorted list when the two together pass the limit, so the representation
//! depends only on the set of items: a sketch is dense exactly when it has
//! seen more distinct precision-25 registers than [`limit`] allows.

use alloc::borrow::Cow;
use alloc::vec;
use alloc::vec::Vec;

/// The precision of the sparse entries.
pub(super) const SPARSE_P: u32 = 25;
/// Bits of an entry holding the rank.
const RANK_BITS: u32 = 6;
const RANK_MASK: u32 = (1 << RANK_BITS) - 1;
/// The largest rank at precision 25: `64 - 25 + 1`.
pub(super) const MAX_SPARSE_RANK: u32 = 64 - SPARSE_P + 1;

/// The most entries a sparse sketch of precision `p` holds: `m / 4`, so the
/// list (4 bytes an entry) never outgrows the `m` one-byte dense registers.
pub(super) fn limit(p: u8) -> usize {
    (1usize << p) / 4
}

/// The sparse entry of `hash`.
#[inline(always)]
fn encode(hash: u64) -> u32 {
    let idx = (hash >> (64 - SPARSE_P)) as u32;
    let rest = hash << SPARSE_P;
    let rank = (rest.leading_zeros() + 1).min(MAX_SPARSE_RANK);
    (idx << RANK_BITS) | rank
}

#[inline(always)]
fn index_of(e: u32) -> u32 {
    e >> RANK_BITS
}

/// The dense register index and rank at precision `p` of a sparse entry:
/// the same pair [`super::index_rank`] gives for the hash the entry came
/// from, since the entry keeps the hash's top 25 bits and the rank of the
/// rest.
#[inline(always)]
pub(super) fn to_dense_pair(e: u32, p: u8) -> (usize, u8) {
    let shift = SPARSE_P - u32::from(p);
    let idx = index_of(e);
    let low = idx & ((1 << shift) - 1);
    let rank = if low != 0 {
        // Leading zeros of `low` within its `shift`-bit field, plus one.
        low.leading_zeros() - (32 - shift) + 1
    } else {
        shift + (e & RANK_MASK)
    };
    ((idx >> shift) as usize, rank as u8)
}

/// Sorted, one entry per index (the largest rank), plus unsorted new
/// entries.
#[derive(Clone, Debug)]
pub(super) struct Sparse {
    p: u8,
    list: Vec<u32>,
    buf: Vec<u32>,
}

impl Sparse {
    pub(super) fn new(p: u8) -> Self {
        Self {
            p,
            list: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// From a list already checked to be sorted by index, one entry per
    /// index, ranks in range, at most [`limit`] entries.
    pub(super) fn from_sorted(p: u8, list: Vec<u32>) -> Self {
        Self {
            p,
            list,
            buf: Vec::new(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty() && self.buf.is_empty()
    }

    /// Add `hash`; `false` when the sketch has outgrown the sparse limit (the
    /// list then holds every entry, ready for [`Sparse::to_dense`]).
    #[inline]
    pub(super) fn insert(&mut self, hash: u64) -> bool {
        self.insert_entry(encode(hash))
    }

    #[inline]
    fn insert_entry(&mut self, e: u32) -> bool {
        // A repeat of a listed item is the common case in text (shingles
        // recur); a binary search keeps it from filling the buffer.
        let idx = index_of(e);
        if let Ok(at) = self.list.binary_search_by_key(&idx, |&x| index_of(x))
            && self.list[at] >= e
        {
            return true;
        }
        self.buf.push(e);
        if self.list.len() + self.buf.len() > limit(self.p) {
            self.flush();
            return self.list.len() <= limit(self.p);
        }
        true
    }

    /// Add every entry of `other`; `false` as for [`Sparse::insert`] (then
    /// some of `other` may be missing: the caller applies it to the dense
    /// registers).
    pub(super) fn absorb(&mut self, other: &Sparse) -> bool {
        other
            .list
            .iter()
            .chain(&other.buf)
            .all(|&e| self.insert_entry(e))
    }

    /// Sort the buffer into the list.
    fn flush(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        let merged = merge_sorted(&self.list, &mut self.buf);
        self.list = merged;
        self.buf.clear();
    }

    /// The entries, sorted, one per index.
    pub(super) fn normalized(&self) -> Cow<'_, [u32]> {
        if self.buf.is_empty() {
            Cow::Borrowed(&self.list)
        } else {
            let mut buf = self.buf.clone();
            Cow::Owned(merge_sorted(&self.list, &mut buf))
        }
    }

    /// Linear counting over the `2^25` precision-25 registers: nearly exact
    /// while the occupied ones are few (at most `2^16` of `2^25` here).
    pub(super) fn estimate(&self) -> f64 {
        let n = self.normalized().len() as f64;
        let m = (1u64 << SPARSE_P) as f64;
        m * (m / (m - n)).ln()
    }

    pub(super) fn to_dense(&self) -> Vec<u8> {
        let mut regs = vec![0u8; 1 << self.p];
        self.apply_to_dense(&mut regs);
        regs
    }

    /// Raise `regs` (of this sketch's precision) by every entry.
    pub(super) fn apply_to_dense(&self, regs: &mut [u8]) {
        for &e in self.list.iter().chain(&self.buf) {
            let (j, rank) = to_dense_pair(e, self.p);
            if let Some(r) = regs.get_mut(j) {
                *r = (*r).max(rank);
            }
        }
    }
}

/// `list` (sorted, one entry per index) merged with the entries of `buf`
/// (sorted here), keeping the largest rank of each index.
fn merge_sorted(list: &[u32], buf: &mut [u32]) -> Vec<u32> {
    buf.sort_unstable();
    let mut out: Vec<u32> = Vec::with_capacity(list.len() + buf.len());
    let (mut i, mut j) = (0, 0);
    while i < list.len() || j < buf.len() {
        let e = if j == buf.len() || (i < list.len() && list[i] <= buf[j]) {
            i += 1;
            list[i - 1]
        } else {
            j += 1;
            buf[j - 1]
        };
        // Entries sort by index then rank: a later entry of the same index
        // has the larger rank and replaces the earlier.
        match out.last_mut() {
            Some(last) if index_of(*last) == index_of(e) => *last = e,
            _ => out.push(e),
        }
    }
    out
}
