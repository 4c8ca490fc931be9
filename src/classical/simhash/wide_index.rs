//! [`SimHash128Index`]: exact Hamming-radius search over [`SimHash128`]
//! fingerprints, built from two 64-bit [`SimHashIndex`]es.
//!
//! If two 128-bit fingerprints differ in at most `k` bits, the differences
//! split between the halves as `d_lo + d_hi <= k`, so one half differs in
//! at most `⌊k/2⌋` bits (pigeonhole). Each half is filed in its own
//! `SimHashIndex` of radius `⌊k/2⌋`; a query collects the ids either half
//! finds and keeps those whose full 128-bit distance is at most `k`. No
//! neighbour is missed and nothing farther is returned.
//!
//! This is where the 64-bit index "makes sense" for 128 bits: the halves
//! reuse its layouts, storage, bulk paths and file format unchanged
//! (`save` / `load` write both halves into one file of kind 3). What is
//! not provided: memory-mapping, batch and parallel queries.

use alloc::format;
use alloc::vec::Vec;

use super::{SimHash64, SimHash128};
use crate::lsh::{MAX_AUTO_DISTANCE, SimHashIndex};
use crate::{Error, Result};

/// Largest radius [`SimHash128Index::with_max_distance`] accepts: each half
/// then has radius [`MAX_AUTO_DISTANCE`] (7), the largest a 64-bit index
/// picks a layout for.
pub const MAX_128_DISTANCE: u32 = 2 * MAX_AUTO_DISTANCE + 1;

/// An exact Hamming-radius index of [`SimHash128`] fingerprints under
/// caller-chosen `u64` ids.
///
/// The default radius is 6 bits (the 64-bit default of 3, scaled to twice
/// the bits); each half is then a default [`SimHashIndex`] (radius 3, the
/// 16 tables of Manku et al.). Memory is that of two 64-bit indexes.
///
/// ```
/// use txtfp::{SimHash128, SimHash128Index};
/// let a = SimHash128(0x0123_4567_89ab_cdef_0f1e_2d3c_4b5a_6978);
/// let mut idx = SimHash128Index::new();
/// idx.insert(1, a);
/// idx.insert(2, SimHash128(a.0 ^ 0b111 ^ (0b111 << 64))); // 6 bits away
/// idx.insert(3, SimHash128(!a.0));
/// assert_eq!(idx.query(&a), [1, 2]);
/// assert_eq!(idx.query_within(&a, 5)?, [(1, 0)]);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone)]
pub struct SimHash128Index {
    lo: SimHashIndex,
    hi: SimHashIndex,
    k: u32,
}

impl Default for SimHash128Index {
    /// [`SimHash128Index::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for SimHash128Index {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SimHash128Index")
            .field("len", &self.len())
            .field("max_distance", &self.k)
            .finish()
    }
}

impl SimHash128Index {
    /// An empty index of radius 6: two default 64-bit indexes of radius 3.
    pub fn new() -> Self {
        Self {
            lo: SimHashIndex::new(),
            hi: SimHashIndex::new(),
            k: 6,
        }
    }

    /// An empty index of radius `k`; each half gets the layout
    /// [`SimHashLayout::for_distance`](crate::lsh::SimHashLayout::for_distance)
    /// picks for `⌊k/2⌋`.
    ///
    /// ```
    /// use txtfp::SimHash128Index;
    /// assert_eq!(SimHash128Index::with_max_distance(9)?.max_distance(), 9);
    /// assert!(SimHash128Index::with_max_distance(16).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Config`] when `k` exceeds [`MAX_128_DISTANCE`] (15).
    pub fn with_max_distance(k: u32) -> Result<Self> {
        if k > MAX_128_DISTANCE {
            return Err(Error::Config(format!(
                "SimHash128Index::with_max_distance: max distance {k} exceeds the limit \
                 {MAX_128_DISTANCE}"
            )));
        }
        Ok(Self {
            lo: SimHashIndex::with_max_distance(k / 2)?,
            hi: SimHashIndex::with_max_distance(k / 2)?,
            k,
        })
    }

    /// The two 64-bit halves (low, high), for the file format.
    pub(crate) fn halves(&self) -> (&SimHashIndex, &SimHashIndex) {
        (&self.lo, &self.hi)
    }

    /// An index of two halves read from a file (same ids, layout of radius
    /// `⌊k/2⌋`).
    pub(crate) fn from_halves(lo: SimHashIndex, hi: SimHashIndex, k: u32) -> Self {
        Self { lo, hi, k }
    }

    /// The radius `query` searches.
    pub fn max_distance(&self) -> u32 {
        self.k
    }

    /// Number of stored fingerprints.
    pub fn len(&self) -> usize {
        self.lo.len()
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.lo.is_empty()
    }

    /// Stores `h` under `id`, replacing any fingerprint stored under it.
    ///
    /// # Panics
    /// When a new id would make the index hold more than 2³¹ − 1
    /// fingerprints; [`try_insert`](Self::try_insert) reports that instead.
    #[track_caller]
    pub fn insert(&mut self, id: u64, h: SimHash128) {
        if let Err(e) = self.try_insert(id, h) {
            panic!("SimHash128Index::insert: {e}");
        }
    }

    /// [`insert`](Self::insert) that reports a full index instead of
    /// panicking; the index is then unchanged.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when `id` is new and the index is full.
    pub fn try_insert(&mut self, id: u64, h: SimHash128) -> Result<()> {
        let old_lo = self.lo.get(id);
        self.lo.try_insert(id, h.low64())?;
        if let Err(e) = self.hi.try_insert(id, h.high64()) {
            // Both halves hold the same ids, so this cannot happen unless
            // the two disagree on capacity; undo the low half regardless.
            match old_lo {
                Some(old) => self.lo.insert(id, old),
                None => {
                    self.lo.remove(id);
                }
            }
            return Err(e);
        }
        Ok(())
    }

    /// Inserts every `(id, fingerprint)` of `items` through the halves' bulk
    /// path (the last occurrence of a repeated id wins).
    ///
    /// # Panics
    /// As [`SimHashIndex::extend`].
    #[track_caller]
    pub fn extend<I>(&mut self, items: I)
    where
        I: IntoIterator<Item = (u64, SimHash128)>,
    {
        let items: Vec<(u64, SimHash128)> = items.into_iter().collect();
        self.lo.extend(items.iter().map(|&(id, h)| (id, h.low64())));
        self.hi
            .extend(items.iter().map(|&(id, h)| (id, h.high64())));
    }

    /// Removes and returns the fingerprint stored under `id`.
    pub fn remove(&mut self, id: u64) -> Option<SimHash128> {
        let lo = self.lo.remove(id)?;
        let hi = self.hi.remove(id)?;
        Some(join(lo, hi))
    }

    /// The fingerprint stored under `id`.
    pub fn get(&self, id: u64) -> Option<SimHash128> {
        Some(join(self.lo.get(id)?, self.hi.get(id)?))
    }

    /// Whether a fingerprint is stored under `id`.
    pub fn contains(&self, id: u64) -> bool {
        self.lo.contains(id)
    }

    /// All `(id, fingerprint)` pairs, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, SimHash128)> + '_ {
        self.lo
            .iter()
            .filter_map(|(id, lo)| Some((id, join(lo, self.hi.get(id)?))))
    }

    /// Ids of every stored fingerprint within
    /// [`max_distance`](Self::max_distance) bits of `h`, ascending.
    pub fn query(&self, h: &SimHash128) -> Vec<u64> {
        let mut out: Vec<u64> = self.matches(h, self.k).into_iter().map(|m| m.0).collect();
        out.sort_unstable();
        out
    }

    /// `(id, distance)` of every stored fingerprint within `k` bits of `h`,
    /// nearest first (ties by ascending id).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when `k` exceeds
    /// [`max_distance`](Self::max_distance).
    pub fn query_within(&self, h: &SimHash128, k: u32) -> Result<Vec<(u64, u32)>> {
        if k > self.k {
            return Err(Error::InvalidInput(format!(
                "SimHash128Index::query_within: distance {k} exceeds the index's max distance {}",
                self.k
            )));
        }
        let mut out = self.matches(h, k);
        out.sort_unstable_by_key(|&(id, d)| (d, id));
        Ok(out)
    }

    /// Moves both halves into their compact layout (see
    /// [`SimHashIndex::compact`]).
    pub fn compact(&mut self) {
        self.lo.compact();
        self.hi.compact();
    }

    /// Approximate heap bytes held: the sum of the two halves'.
    pub fn memory_usage(&self) -> usize {
        self.lo.memory_usage() + self.hi.memory_usage()
    }

    /// Distinct `(id, distance)` within `k` bits of `h`, in no order.
    fn matches(&self, h: &SimHash128, k: u32) -> Vec<(u64, u32)> {
        let half = k / 2;
        // `half` never exceeds either half's radius (`self.k / 2`).
        let lo = self.lo.query_within(&h.low64(), half).unwrap_or_default();
        let hi = self.hi.query_within(&h.high64(), half).unwrap_or_default();
        let mut ids: Vec<u64> = lo.iter().chain(&hi).map(|&(id, _)| id).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter()
            .filter_map(|id| {
                let d = (self.get(id)?.0 ^ h.0).count_ones();
                (d <= k).then_some((id, d))
            })
            .collect()
    }
}

fn join(lo: SimHash64, hi: SimHash64) -> SimHash128 {
    SimHash128(u128::from(lo.0) | (u128::from(hi.0) << 64))
}

#[cfg(test)]
mod tests;
