//! Exact Hamming-radius search over [`SimHash64`] fingerprints with permuted
//! tables (Manku, Jain and Das Sarma, "Detecting near-duplicates for web
//! crawling", WWW 2007).
//!
//! A query for every stored fingerprint within `k` differing bits of a probe
//! would be a scan. Instead the index keeps `T` tables; table `t` files each
//! fingerprint under its bits `f & m_t` for a mask `m_t`. If the masks form a
//! *complete* [`SimHashLayout`] (every set of at most `k` bit positions is
//! missed by some mask), a neighbour within distance `k` agrees with the
//! probe on all bits of at least one mask, so it is among the fingerprints
//! filed under the probe's own key in that table. The candidates of the `T`
//! lookups are then checked for their true distance: no false negatives, no
//! false positives.
//!
//! # Keys
//!
//! The key of `f` in table `t` is the MurmurHash3 `fmix64` finaliser of
//! `f & m_t`. The finaliser is a bijection on `u64`, so equal keys mean equal
//! masked bits (no collisions to filter), and it spreads keys evenly over the
//! top bits the sorted runs of the storage engine bucket on.
//!
//! # Storage
//!
//! The tables live in the engine [`LshIndex`](crate::LshIndex) uses: caller
//! ids are mapped to dense slots, each table is a sorted run plus a small hash
//! table for recent inserts, and removal is lazy. Per document the index
//! holds its fingerprint (8 bytes), its id, and 12 bytes per table.
//!
//! # Files
//!
//! [`SimHashIndex::save`] writes the checksummed index file format shared
//! with `LshIndex` (kind 2); [`SimHashIndex::load`] reads it back and, with
//! the `mmap` feature, `MappedSimHashIndex` queries it in place. A
//! [`SimHash128Index`] (the same index over [`SimHash128`], one set of
//! tables per 64-bit half, see [`SimHashWidth`]) writes kind 3.
//!
//! [`SimHash64`]: crate::SimHash64
//! [`SimHash128`]: crate::SimHash128

mod batch;
mod index;
mod layout;
#[cfg(feature = "mmap")]
mod mapped;
mod query_batch;
mod save;
#[cfg(test)]
mod tests;
mod width;

pub use index::{SimHash128Index, SimHashIndex};
pub use layout::{MAX_AUTO_DISTANCE, MAX_TABLES, MAX_VERIFIED_DISTANCE, SimHashLayout};
#[cfg(feature = "mmap")]
pub use mapped::MappedSimHashIndex;
pub use width::{MAX_128_DISTANCE, SimHashWidth};

/// The key of fingerprint bits `fp` in the table of `mask`.
#[inline]
pub(crate) fn table_key(fp: u64, mask: u64) -> u64 {
    crate::classical::hash::fmix64(fp & mask)
}
