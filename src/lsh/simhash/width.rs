//! The fingerprint widths a [`SimHashIndex`](super::SimHashIndex) holds:
//! how a fingerprint splits into 64-bit lanes, the radii it allows and the
//! kind of its index file.

use super::layout::MAX_AUTO_DISTANCE;
use crate::classical::simhash::SimHashBits;
use crate::{SimHash64, SimHash128};

/// Largest radius [`SimHash128Index::with_max_distance`](crate::SimHash128Index::with_max_distance)
/// accepts: each 64-bit half then has radius [`MAX_AUTO_DISTANCE`] (7), the
/// largest a layout is picked for.
pub const MAX_128_DISTANCE: u32 = 2 * MAX_AUTO_DISTANCE + 1;

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::SimHash64 {}
    impl Sealed for crate::SimHash128 {}
}

/// A fingerprint width [`SimHashIndex`](super::SimHashIndex) can index:
/// [`SimHash64`] and [`SimHash128`] (sealed: no other type).
///
/// A fingerprint of [`LANES`](Self::LANES) 64-bit words is filed once per
/// word, each lane in its own set of tables of one shared layout. Two
/// fingerprints within `k` bits differ in at most `⌊k / LANES⌋` bits in
/// some lane (pigeonhole), so lanes of radius `⌊k / LANES⌋` find every
/// neighbour, and the full distance then drops the rest.
///
/// ```
/// use txtfp::lsh::SimHashWidth;
/// use txtfp::{SimHash64, SimHash128};
/// assert_eq!((SimHash64::LANES, SimHash128::LANES), (1, 2));
/// assert_eq!(SimHash128(1 << 64 | 2).lane(1), 1);
/// ```
pub trait SimHashWidth: SimHashBits + sealed::Sealed {
    /// Number of 64-bit lanes a fingerprint splits into.
    const LANES: usize;
    /// The radius of `SimHashIndex::new`.
    const DEFAULT_MAX_DISTANCE: u32;
    /// The largest radius `SimHashIndex::with_max_distance` accepts.
    const MAX_DISTANCE: u32;
    /// The kind number of its index files (ARCHITECTURE.md, "Index files").
    const FILE_KIND: u32;
    /// The type's name in messages and `Debug` output.
    #[doc(hidden)]
    const INDEX_NAME: &'static str;

    /// Lane `i` (0 = bits 0–63) of the fingerprint, `i < LANES`.
    #[inline]
    fn lane(self, i: usize) -> u64 {
        (self.to_u128() >> (64 * i)) as u64
    }

    /// The fingerprint of `lanes`, lane 0 first (missing lanes are zero).
    #[inline]
    fn from_lanes(lanes: &[u64]) -> Self {
        let at = |i: usize| lanes.get(i).copied().unwrap_or(0);
        Self::from_halves(at(0), at(1))
    }
}

impl SimHashWidth for SimHash64 {
    const LANES: usize = 1;
    const DEFAULT_MAX_DISTANCE: u32 = 3;
    const MAX_DISTANCE: u32 = MAX_AUTO_DISTANCE;
    const FILE_KIND: u32 = 2;
    const INDEX_NAME: &'static str = "SimHashIndex";
}

impl SimHashWidth for SimHash128 {
    const LANES: usize = 2;
    // The 64-bit default of 3 scaled to twice the bits: each half keeps the
    // 16 tables of Manku et al.
    const DEFAULT_MAX_DISTANCE: u32 = 6;
    const MAX_DISTANCE: u32 = MAX_128_DISTANCE;
    const FILE_KIND: u32 = 3;
    const INDEX_NAME: &'static str = "SimHash128Index";
}
