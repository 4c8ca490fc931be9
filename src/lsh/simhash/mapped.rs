//! [`MappedSimHashIndex`]: a saved [`SimHashIndex`] queried in place from a
//! memory map (`mmap` feature).

use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

use super::index::SimHashIndex;
use super::layout::SimHashLayout;
use super::save::Parts;
use super::table_key;
use crate::lsh::map_file::{MapFile, RunAt};
use crate::lsh::persist::Kind;
use crate::{Error, Result, SimHash64};

/// A read-only [`SimHashIndex`] file, memory-mapped: opening it reads the
/// file once to verify its checksum and structure and copies nothing;
/// queries read the tables and fingerprints straight from the page cache,
/// so many processes can share one index. The answers are those of the
/// [`SimHashIndex`] that was saved.
///
/// ```
/// use txtfp::{SimHash64, SimHashIndex};
/// use txtfp::lsh::MappedSimHashIndex;
/// let dir = std::env::temp_dir().join(format!("txtfp-doc-simmap-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("simhash.idx");
/// let mut idx = SimHashIndex::new();
/// idx.insert(1, SimHash64(0xf00));
/// idx.insert(2, SimHash64(0xf07));
/// idx.save(&path)?;
/// let mapped = MappedSimHashIndex::open(&path)?;
/// assert_eq!(mapped.query(&SimHash64(0xf00)), [1, 2]);
/// assert_eq!(mapped.query_within(&SimHash64(0xf00), 1)?, [(1, 0)]);
/// assert_eq!(mapped.get(2), Some(SimHash64(0xf07)));
/// # drop(mapped);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # The file must not change while mapped
///
/// The map shares pages with the file. Replace index files by renaming a new
/// file over the old one (as [`SimHashIndex::save`] does), never by
/// rewriting or truncating them in place: another process truncating a
/// mapped file makes reads of the lost pages fault (`SIGBUS`).
pub struct MappedSimHashIndex {
    file: MapFile,
    layout: SimHashLayout,
    ids: Range<usize>,
    fps: Range<usize>,
    runs: Vec<RunAt>,
}

impl MappedSimHashIndex {
    /// Maps the index file at `path` and validates it.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be opened or mapped; the errors of
    /// [`SimHashIndex::from_bytes`] when it is not a valid SimHash index.
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Self> {
        let (file, (layout, ids, fps, runs)) =
            MapFile::open(path.as_ref(), Kind::SimHash, |m, view| {
                let parts = Parts::read(view, 1)?;
                Ok((
                    parts.layout,
                    m.range_of(parts.ids),
                    m.range_of(parts.fps[0]),
                    m.runs_at(&parts.runs),
                ))
            })?;
        Ok(Self {
            layout,
            ids,
            fps,
            runs,
            file,
        })
    }

    fn fp_array(&self) -> &[u64] {
        self.file.slice(&self.fps)
    }

    /// As [`SimHashIndex::max_distance`].
    pub fn max_distance(&self) -> u32 {
        self.layout.max_distance()
    }

    /// The table layout.
    pub fn layout(&self) -> &SimHashLayout {
        &self.layout
    }

    crate::lsh::map_file::mapped_id_accessors!("fingerprint");

    /// The fingerprint stored under `id`.
    pub fn get(&self, id: u64) -> Option<SimHash64> {
        self.fp_array()
            .get(self.slot_of(id)?)
            .map(|&f| SimHash64(f))
    }

    /// All `(id, fingerprint)` pairs, in ascending id order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, SimHash64)> + '_ {
        self.id_array()
            .iter()
            .copied()
            .zip(self.fp_array().iter().map(|&f| SimHash64(f)))
    }

    /// Distinct slots within `k` bits of `f` with their distances, by slot
    /// (= by id, slots being id ranks).
    fn matches(&self, f: u64, k: u32) -> Vec<(u32, u32)> {
        let fps = self.fp_array();
        let mut out = Vec::new();
        for (r, &mask) in self.runs.iter().zip(self.layout.masks()) {
            for e in self.file.run(r).get(table_key(f, mask)) {
                let s = e.slot();
                if let Some(d) = fps.get(s as usize).map(|&x| (x ^ f).count_ones())
                    && d <= k
                {
                    out.push((s, d));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// As [`SimHashIndex::query`].
    pub fn query(&self, h: &SimHash64) -> Vec<u64> {
        let ids = self.id_array();
        self.matches(h.0, self.max_distance())
            .into_iter()
            .filter_map(|(s, _)| ids.get(s as usize).copied())
            .collect()
    }

    /// As [`SimHashIndex::query_within`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `k` exceeds
    /// [`max_distance`](Self::max_distance).
    pub fn query_within(&self, h: &SimHash64, k: u32) -> Result<Vec<(u64, u32)>> {
        if k > self.max_distance() {
            return Err(Error::InvalidInput(alloc::format!(
                "MappedSimHashIndex::query_within: distance {k} exceeds the index's max distance {}",
                self.max_distance()
            )));
        }
        let ids = self.id_array();
        let mut out: Vec<(u64, u32)> = self
            .matches(h.0, k)
            .into_iter()
            .filter_map(|(s, d)| ids.get(s as usize).map(|&id| (id, d)))
            .collect();
        out.sort_unstable_by_key(|&(id, d)| (d, id));
        Ok(out)
    }

    /// A mutable in-memory copy.
    ///
    /// # Errors
    ///
    /// None in practice (the file was checked to hold distinct ids and a
    /// valid layout); the `Result` is that of [`SimHashIndex::try_extend`].
    pub fn to_index(&self) -> Result<SimHashIndex> {
        let mut idx = SimHashIndex::with_layout(self.layout.clone())?;
        idx.try_extend(self.iter())?;
        Ok(idx)
    }
}

impl fmt::Debug for MappedSimHashIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MappedSimHashIndex")
            .field("max_distance", &self.max_distance())
            .field("tables", &self.layout.tables())
            .field("len", &self.len())
            .finish()
    }
}
