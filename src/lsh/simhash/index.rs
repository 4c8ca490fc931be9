//! [`SimHashIndex`]: storage, insert/remove and queries.

use alloc::format;
use alloc::vec::Vec;
use core::fmt;

use super::layout::SimHashLayout;
use super::table_key;
use crate::lsh::core::Core;
use crate::lsh::table::MAX_SLOTS;
use crate::{Error, Result, SimHash64};

/// An exact Hamming-radius index of [`SimHash64`] fingerprints under
/// caller-chosen `u64` ids: [`query`](Self::query) returns every stored
/// fingerprint within [`max_distance`](Self::max_distance) differing bits of
/// the probe, and nothing else.
///
/// The default radius is 3 bits, with the 16-table layout of Manku et al.
/// (see [`SimHashLayout`]); [`with_max_distance`](Self::with_max_distance)
/// picks a layout for radii up to 7. Queries take `&self`; writes take
/// `&mut self`.
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
pub struct SimHashIndex {
    pub(super) layout: SimHashLayout,
    /// Fingerprint of each slot (stale for dead and free slots).
    pub(super) fps: Vec<u64>,
    /// Ids, slots and one key table per mask.
    pub(super) core: Core,
}

impl Default for SimHashIndex {
    /// [`SimHashIndex::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl SimHashIndex {
    /// An empty index of radius 3 with the layout of
    /// [`SimHashLayout::manku_k3`] (16 tables of 28-bit keys).
    pub fn new() -> Self {
        Self::from_layout(SimHashLayout::manku_k3())
    }

    /// An empty index of radius `k`, with the layout
    /// [`SimHashLayout::for_distance`] picks for it.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `k` exceeds
    /// [`MAX_AUTO_DISTANCE`](crate::lsh::MAX_AUTO_DISTANCE) (7).
    ///
    /// ```
    /// use txtfp::SimHashIndex;
    /// assert_eq!(SimHashIndex::with_max_distance(5)?.max_distance(), 5);
    /// assert!(SimHashIndex::with_max_distance(8).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn with_max_distance(k: u32) -> Result<Self> {
        Ok(Self::from_layout(SimHashLayout::for_distance(k)?))
    }

    /// An empty index over `layout`, whose radius becomes the index's.
    ///
    /// # Errors
    ///
    /// None today: every [`SimHashLayout`] is checked when it is built. The
    /// `Result` leaves room for limits on the storage side.
    pub fn with_layout(layout: SimHashLayout) -> Result<Self> {
        Ok(Self::from_layout(layout))
    }

    pub(super) fn from_layout(layout: SimHashLayout) -> Self {
        let core = Core::new(layout.tables());
        Self {
            layout,
            fps: Vec::new(),
            core,
        }
    }

    /// The radius of [`query`](Self::query): most differing bits a match may
    /// have.
    pub fn max_distance(&self) -> u32 {
        self.layout.max_distance()
    }

    /// The table layout.
    pub fn layout(&self) -> &SimHashLayout {
        &self.layout
    }

    /// Number of stored fingerprints.
    pub fn len(&self) -> usize {
        self.core.len()
    }

    /// Whether the index holds no fingerprint.
    pub fn is_empty(&self) -> bool {
        self.core.len() == 0
    }

    /// The table keys of fingerprint bits `f`, one per table.
    pub(super) fn keys(&self, f: u64) -> impl Iterator<Item = u64> + '_ {
        self.layout.masks().iter().map(move |&m| table_key(f, m))
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
    pub fn insert(&mut self, id: u64, h: SimHash64) {
        if let Err(e) = self.try_insert(id, h) {
            panic!("SimHashIndex::insert: {e}");
        }
    }

    /// [`insert`](Self::insert) that reports a full index instead of
    /// panicking.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `id` is new and the index already holds
    /// 2³¹ − 1 fingerprints; the index is then unchanged.
    pub fn try_insert(&mut self, id: u64, h: SimHash64) -> Result<()> {
        if let Some(slot) = self.core.slot(id) {
            if self.fps[slot as usize] == h.0 {
                return Ok(());
            }
            self.core.kill(id);
        } else if !self.core.fits(1) {
            return Err(full_error(1));
        }
        let slot = self.place(id, h.0).ok_or_else(|| full_error(1))?;
        let masks = self.layout.masks();
        self.core
            .link(slot, masks.iter().map(|&m| table_key(h.0, m)));
        self.core.maybe_compact();
        Ok(())
    }

    /// Gives the new `id` a slot holding `f`, filed in no table yet.
    pub(super) fn place(&mut self, id: u64, f: u64) -> Option<u32> {
        let (fresh, slot) = self.core.alloc(id)?;
        if fresh {
            self.fps.push(f);
        } else {
            self.fps[slot as usize] = f;
        }
        Some(slot)
    }

    /// Removes and returns the fingerprint stored under `id`.
    pub fn remove(&mut self, id: u64) -> Option<SimHash64> {
        let slot = self.core.kill(id)?;
        let f = self.fps[slot as usize];
        self.core.maybe_compact();
        Some(SimHash64(f))
    }

    /// The fingerprint stored under `id`.
    pub fn get(&self, id: u64) -> Option<SimHash64> {
        self.core
            .slot(id)
            .map(|slot| SimHash64(self.fps[slot as usize]))
    }

    /// Whether a fingerprint is stored under `id`.
    pub fn contains(&self, id: u64) -> bool {
        self.core.slot(id).is_some()
    }

    /// Ids of all stored fingerprints, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.core.id_slots().map(|(id, _)| id)
    }

    /// All `(id, fingerprint)` pairs, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, SimHash64)> + '_ {
        self.core
            .id_slots()
            .map(|(id, slot)| (id, SimHash64(self.fps[slot as usize])))
    }

    /// Ids of every stored fingerprint within
    /// [`max_distance`](Self::max_distance) bits of `h`, ascending. A stored
    /// copy of `h` itself is included.
    pub fn query(&self, h: &SimHash64) -> Vec<u64> {
        let mut out: Vec<u64> = self
            .matches(h.0, self.max_distance())
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
    pub fn query_within(&self, h: &SimHash64, k: u32) -> Result<Vec<(u64, u32)>> {
        if k > self.max_distance() {
            return Err(Error::InvalidInput(format!(
                "SimHashIndex::query_within: distance {k} exceeds the index's max distance {}",
                self.max_distance()
            )));
        }
        let mut out: Vec<(u64, u32)> = self
            .matches(h.0, k)
            .into_iter()
            .map(|(slot, d)| (self.core.id(slot), d))
            .collect();
        out.sort_unstable_by_key(|&(id, d)| (d, id));
        Ok(out)
    }

    /// Distinct live slots within `k` bits of `f`, with their distances.
    fn matches(&self, f: u64, k: u32) -> Vec<(u32, u32)> {
        let mut slots = Vec::new();
        self.core.candidates(self.keys(f), &mut slots);
        // Most candidates of a large index are unrelated fingerprints that
        // share one key by chance: drop them before sorting.
        let mut out: Vec<(u32, u32)> = slots
            .into_iter()
            .map(|s| (s, (self.fps[s as usize] ^ f).count_ones()))
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
        self.fps.truncate(self.core.slot_count());
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

/// The error for a batch of `wanted` new ids that does not fit.
pub(super) fn full_error(wanted: usize) -> Error {
    Error::InvalidInput(format!(
        "SimHashIndex is full: cannot add {wanted} new id(s) beyond {MAX_SLOTS} fingerprints"
    ))
}

/// A summary (the fingerprints themselves would be pages of hex).
impl fmt::Debug for SimHashIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimHashIndex")
            .field("max_distance", &self.max_distance())
            .field("tables", &self.layout.tables())
            .field("min_key_bits", &self.layout.min_key_bits())
            .field("len", &self.len())
            .finish()
    }
}
