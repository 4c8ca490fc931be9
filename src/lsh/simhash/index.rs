//! [`SimHashIndex`]: storage, insert/remove and queries, for every
//! [`SimHashWidth`].

use alloc::format;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use super::layout::SimHashLayout;
use super::table_key;
use super::width::SimHashWidth;
use crate::lsh::core::Core;
use crate::lsh::table::MAX_SLOTS;
use crate::{Error, Result, SimHash64, SimHash128};

/// An exact Hamming-radius index of SimHash fingerprints ([`SimHash64`] by
/// default, [`SimHash128`] as [`SimHash128Index`]) under caller-chosen `u64`
/// ids: [`query`](Self::query) returns every stored fingerprint within
/// [`max_distance`](Self::max_distance) differing bits of the probe, and
/// nothing else.
///
/// The default radius is 3 bits for 64-bit fingerprints, with the 16-table
/// layout of Manku et al. (see [`SimHashLayout`]);
/// [`with_max_distance`](Self::with_max_distance) picks a layout for radii
/// up to 7. A 128-bit fingerprint is filed once per 64-bit half, each half
/// under the layout for half the radius (see [`SimHashWidth`]): the default
/// is 6 bits, the limit [`MAX_128_DISTANCE`](super::MAX_128_DISTANCE).
/// Queries take `&self`; writes take `&mut self`.
///
/// ```
/// use txtfp::{
///     Canonicalizer, Fingerprinter, SimHashFingerprinter, SimHashIndex, WordTokenizer, hamming,
/// };
/// let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
/// let a = fp.fingerprint("the quick brown fox jumps over the lazy dog")?;
/// let mut idx = SimHashIndex::new();
/// idx.insert(1, a);
/// idx.insert(2, txtfp::SimHash64(a.0 ^ 0b101)); // two bits away
/// idx.insert(3, txtfp::SimHash64(!a.0));
/// assert_eq!(idx.query(&a), [1, 2]);
/// assert_eq!(idx.query_within(&a, 1)?, [(1, 0)]);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone)]
pub struct SimHashIndex<F: SimHashWidth = SimHash64> {
    /// The layout of each lane, of radius `⌊k / F::LANES⌋`.
    pub(super) layout: SimHashLayout,
    /// The radius of `query`.
    pub(super) k: u32,
    /// The `F::LANES` lanes of each slot's fingerprint, slot after slot
    /// (stale for dead and free slots).
    pub(super) fps: Vec<u64>,
    /// Ids, slots and the key tables: lane 0's tables in mask order, then
    /// lane 1's (the table order of the file).
    pub(super) core: Core,
    width: PhantomData<F>,
}

/// An exact Hamming-radius index of [`SimHash128`] fingerprints: the
/// 128-bit [`SimHashIndex`].
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
pub type SimHash128Index = SimHashIndex<SimHash128>;

impl<F: SimHashWidth> Default for SimHashIndex<F> {
    /// [`SimHashIndex::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl SimHashIndex<SimHash64> {
    /// An empty index over `layout`, whose radius becomes the index's.
    ///
    /// # Errors
    ///
    /// None today: every [`SimHashLayout`] is checked when it is built. The
    /// `Result` leaves room for limits on the storage side.
    pub fn with_layout(layout: SimHashLayout) -> Result<Self> {
        let k = layout.max_distance();
        Ok(Self::from_layout(layout, k))
    }
}

impl<F: SimHashWidth> SimHashIndex<F> {
    /// An empty index of the default radius: 3 for 64-bit fingerprints,
    /// with the layout of [`SimHashLayout::manku_k3`] (16 tables of 28-bit
    /// keys); 6 for 128-bit ones, each half with that layout.
    pub fn new() -> Self {
        Self::from_layout(SimHashLayout::manku_k3(), F::DEFAULT_MAX_DISTANCE)
    }

    /// An empty index of radius `k`; each 64-bit lane gets the layout
    /// [`SimHashLayout::for_distance`] picks for `⌊k / lanes⌋`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `k` exceeds
    /// [`MAX_AUTO_DISTANCE`](crate::lsh::MAX_AUTO_DISTANCE) (7) for 64-bit
    /// fingerprints, [`MAX_128_DISTANCE`](super::MAX_128_DISTANCE) (15) for
    /// 128-bit ones.
    ///
    /// ```
    /// use txtfp::{SimHash64, SimHash128Index, SimHashIndex};
    /// assert_eq!(SimHashIndex::<SimHash64>::with_max_distance(5)?.max_distance(), 5);
    /// assert!(SimHashIndex::<SimHash64>::with_max_distance(8).is_err());
    /// assert_eq!(SimHash128Index::with_max_distance(9)?.max_distance(), 9);
    /// assert!(SimHash128Index::with_max_distance(16).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn with_max_distance(k: u32) -> Result<Self> {
        // A single lane reports the layout's own error.
        if F::LANES > 1 && k > F::MAX_DISTANCE {
            return Err(Error::Config(format!(
                "{}::with_max_distance: max distance {k} exceeds the limit {}",
                F::INDEX_NAME,
                F::MAX_DISTANCE
            )));
        }
        let layout = SimHashLayout::for_distance(k / F::LANES as u32)?;
        Ok(Self::from_layout(layout, k))
    }

    /// An empty index of radius `k` whose lanes use `layout` (of radius
    /// `⌊k / lanes⌋`).
    pub(super) fn from_layout(layout: SimHashLayout, k: u32) -> Self {
        let core = Core::new(layout.tables() * F::LANES);
        Self {
            layout,
            k,
            fps: Vec::new(),
            core,
            width: PhantomData,
        }
    }

    /// The radius of [`query`](Self::query): most differing bits a match may
    /// have.
    pub fn max_distance(&self) -> u32 {
        self.k
    }

    /// The table layout (of each 64-bit lane).
    pub fn layout(&self) -> &SimHashLayout {
        &self.layout
    }

    crate::lsh::core::core_accessors!("fingerprint");

    /// The lanes stored in `slot`.
    #[inline]
    pub(super) fn lanes_of(&self, slot: u32) -> &[u64] {
        let at = slot as usize * F::LANES;
        &self.fps[at..at + F::LANES]
    }

    /// The fingerprint stored in `slot`.
    #[inline]
    pub(super) fn fp(&self, slot: u32) -> F {
        F::from_lanes(self.lanes_of(slot))
    }

    /// Differing bits between `h` and the fingerprint in `slot`.
    #[inline]
    pub(super) fn distance(&self, slot: u32, h: F) -> u32 {
        self.lanes_of(slot)
            .iter()
            .enumerate()
            .map(|(i, &w)| (w ^ h.lane(i)).count_ones())
            .sum()
    }

    /// The table keys of `h`, one per table.
    pub(super) fn keys(&self, h: F) -> impl Iterator<Item = u64> + '_ {
        keys_of(self.layout.masks(), h)
    }

    /// Stores `h` under `id`, replacing (and unindexing) any fingerprint
    /// previously stored under the same id.
    ///
    /// # Panics
    ///
    /// When a new id would make the index hold more than 2³¹ − 1
    /// fingerprints; [`try_insert`](Self::try_insert) reports that as an
    /// error instead.
    #[track_caller]
    pub fn insert(&mut self, id: u64, h: F) {
        if let Err(e) = self.try_insert(id, h) {
            panic!("{}::insert: {e}", F::INDEX_NAME);
        }
    }

    /// [`insert`](Self::insert) that reports a full index instead of
    /// panicking.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `id` is new and the index already holds
    /// 2³¹ − 1 fingerprints; the index is then unchanged.
    pub fn try_insert(&mut self, id: u64, h: F) -> Result<()> {
        if let Some(slot) = self.core.slot(id) {
            if self.fp(slot) == h {
                return Ok(());
            }
            self.core.kill(id);
        } else if !self.core.fits(1) {
            return Err(full_error::<F>(1));
        }
        let slot = self.place(id, h).ok_or_else(|| full_error::<F>(1))?;
        self.core.link(slot, keys_of(self.layout.masks(), h));
        self.core.maybe_compact();
        Ok(())
    }

    /// Gives the new `id` a slot holding `h`, filed in no table yet.
    pub(super) fn place(&mut self, id: u64, h: F) -> Option<u32> {
        let (fresh, slot) = self.core.alloc(id)?;
        let lanes = (0..F::LANES).map(|i| h.lane(i));
        if fresh {
            self.fps.extend(lanes);
        } else {
            let at = slot as usize * F::LANES;
            for (dst, w) in self.fps[at..at + F::LANES].iter_mut().zip(lanes) {
                *dst = w;
            }
        }
        Some(slot)
    }

    /// Removes and returns the fingerprint stored under `id`.
    pub fn remove(&mut self, id: u64) -> Option<F> {
        let slot = self.core.kill(id)?;
        let h = self.fp(slot);
        self.core.maybe_compact();
        Some(h)
    }

    /// The fingerprint stored under `id`.
    pub fn get(&self, id: u64) -> Option<F> {
        self.core.slot(id).map(|slot| self.fp(slot))
    }

    /// Ids of all stored fingerprints, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.core.id_slots().map(|(id, _)| id)
    }

    /// All `(id, fingerprint)` pairs, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, F)> + '_ {
        self.core.id_slots().map(|(id, slot)| (id, self.fp(slot)))
    }

    /// Ids of every stored fingerprint within
    /// [`max_distance`](Self::max_distance) bits of `h`, ascending. A stored
    /// copy of `h` itself is included.
    pub fn query(&self, h: &F) -> Vec<u64> {
        let mut out: Vec<u64> = self
            .matches(*h, self.max_distance())
            .into_iter()
            .map(|(slot, _)| self.core.id(slot))
            .collect();
        out.sort_unstable();
        out
    }

    /// `(id, distance)` of every stored fingerprint within `k` bits of `h`,
    /// nearest first (ties by ascending id).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `k` exceeds
    /// [`max_distance`](Self::max_distance): the layout cannot promise to
    /// find such neighbours.
    ///
    /// ```
    /// use txtfp::{SimHash64, SimHashIndex};
    /// let mut idx = SimHashIndex::new();
    /// idx.insert(7, SimHash64(0b111));
    /// idx.insert(8, SimHash64(0b001));
    /// assert_eq!(idx.query_within(&SimHash64(0b011), 1)?, [(7, 1), (8, 1)]);
    /// assert_eq!(idx.query_within(&SimHash64(0b001), 3)?, [(8, 0), (7, 2)]);
    /// let err = idx.query_within(&SimHash64(0), 4).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid input: SimHashIndex::query_within: distance 4 exceeds the index's max distance 3"
    /// );
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn query_within(&self, h: &F, k: u32) -> Result<Vec<(u64, u32)>> {
        if k > self.max_distance() {
            return Err(Error::InvalidInput(format!(
                "{}::query_within: distance {k} exceeds the index's max distance {}",
                F::INDEX_NAME,
                self.max_distance()
            )));
        }
        let mut out: Vec<(u64, u32)> = self
            .matches(*h, k)
            .into_iter()
            .map(|(slot, d)| (self.core.id(slot), d))
            .collect();
        out.sort_unstable_by_key(|&(id, d)| (d, id));
        Ok(out)
    }

    /// Distinct live slots within `k` bits of `h`, with their distances.
    fn matches(&self, h: F, k: u32) -> Vec<(u32, u32)> {
        let mut slots = Vec::new();
        self.core.candidates(self.keys(h), &mut slots);
        // Most candidates of a large index are unrelated fingerprints that
        // share one key by chance: drop them before sorting.
        let mut out: Vec<(u32, u32)> = slots
            .into_iter()
            .map(|s| (s, self.distance(s, h)))
            .filter(|&(_, d)| d <= k)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Moves every table into the compact sorted layout and frees the slots
    /// of removed fingerprints. Inserts and removals do this on their own
    /// from time to time; calling it after a burst of updates (and before
    /// measuring [`memory_usage`](Self::memory_usage)) gives the leanest
    /// index. Queries answer the same before and after.
    pub fn compact(&mut self) {
        self.core.compact();
        self.core.shrink_to_fit();
        self.fps.truncate(self.core.slot_count() * F::LANES);
        self.fps.shrink_to_fit();
    }

    /// Heap bytes the index holds: fingerprints, ids and tables (an estimate
    /// within a few percent; hash-map layouts are approximated).
    ///
    /// ```
    /// use txtfp::{SimHash64, SimHashIndex};
    /// let mut idx = SimHashIndex::new();
    /// let items = (0..10_000u64).map(|id| (id, SimHash64(id.wrapping_mul(0x9e37_79b9_7f4a_7c15))));
    /// idx.try_extend(items)?;
    /// idx.compact();
    /// let per_doc = idx.memory_usage() / idx.len();
    /// assert!(per_doc <= 16 * 12 + 64, "{per_doc} bytes per document");
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn memory_usage(&self) -> usize {
        self.fps.capacity() * 8
            + self.core.heap_bytes()
            + self.core.tables() * core::mem::size_of::<crate::lsh::run::Run>()
            + self.layout.masks().len() * 8
    }
}

/// Key of lanes `lanes` in table `t` of a layout of `masks`: lane
/// `t / masks.len()` under mask `t % masks.len()`.
#[inline]
pub(super) fn key_at(masks: &[u64], lanes: impl Fn(usize) -> u64, t: usize) -> u64 {
    table_key(lanes(t / masks.len()), masks[t % masks.len()])
}

/// The keys of `h` in every table of a layout of `masks`, in table order.
fn keys_of<F: SimHashWidth>(masks: &[u64], h: F) -> impl Iterator<Item = u64> + '_ {
    (0..masks.len() * F::LANES).map(move |t| key_at(masks, |i| h.lane(i), t))
}

/// The error for a batch of `wanted` new ids that does not fit.
pub(super) fn full_error<F: SimHashWidth>(wanted: usize) -> Error {
    Error::InvalidInput(format!(
        "{} is full: cannot add {wanted} new id(s) beyond {MAX_SLOTS} fingerprints",
        F::INDEX_NAME
    ))
}

/// A summary (the fingerprints themselves would be pages of hex).
impl<F: SimHashWidth> fmt::Debug for SimHashIndex<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct(F::INDEX_NAME);
        if F::LANES == 1 {
            s.field("max_distance", &self.max_distance())
                .field("tables", &self.layout.tables())
                .field("min_key_bits", &self.layout.min_key_bits())
                .field("len", &self.len());
        } else {
            // The summary the two-index form of the 128-bit index printed.
            s.field("len", &self.len())
                .field("max_distance", &self.max_distance());
        }
        s.finish()
    }
}
