//! [`MappedLshIndex`]: a saved [`LshIndex`] queried in place from a memory
//! map (`mmap` feature).

use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

use super::band_keys;
use super::map_file::{MapFile, RunAt};
use super::persist::Kind;
use super::save::Parts;
use crate::{Error, LshIndex, MinHashSig, Result, jaccard};

/// A read-only [`LshIndex`] file, memory-mapped: opening it reads the file
/// once to verify its checksum and structure, and copies nothing; queries
/// read the band tables and signatures straight from the page cache, so many
/// processes can share one index.
///
/// The answers are those of the [`LshIndex`] that was saved.
///
/// ```
/// use txtfp::{LshIndex, MinHashSig};
/// use txtfp::lsh::MappedLshIndex;
/// let dir = std::env::temp_dir().join(format!("txtfp-doc-map-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("lsh.idx");
/// let sig = |x: u64| MinHashSig::<8> { hashes: [x; 8], ..MinHashSig::empty() };
/// let mut idx = LshIndex::<8>::with_bands_rows(4, 2)?;
/// idx.insert(1, sig(7));
/// idx.insert(2, sig(9));
/// idx.save(&path)?;
/// let mapped = MappedLshIndex::<8>::open(&path)?;
/// assert_eq!(mapped.query(&sig(7)), [1]);
/// assert_eq!(mapped.get(2), Some(&sig(9)));
/// # drop(mapped);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # The file must not change while mapped
///
/// The map shares pages with the file. Replace index files by renaming a new
/// file over the old one (as [`LshIndex::save`] does), never by rewriting or
/// truncating them in place: another process truncating a mapped file makes
/// reads of the lost pages fault (`SIGBUS`).
pub struct MappedLshIndex<const H: usize> {
    file: MapFile,
    bands: usize,
    rows: usize,
    ids: Range<usize>,
    sigs: Range<usize>,
    runs: Vec<RunAt>,
}

impl<const H: usize> MappedLshIndex<H> {
    /// Maps the index file at `path` and validates it.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be opened or mapped; the errors of
    /// [`LshIndex::from_bytes`] when it is not a valid index of this `H`.
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Self> {
        let (file, (bands, rows, ids, sigs, runs)) =
            MapFile::open(path.as_ref(), Kind::Lsh, |m, view| {
                let parts = Parts::<H>::read(view)?;
                Ok((
                    parts.bands,
                    parts.rows,
                    m.range_of(parts.ids),
                    m.range_of(parts.sigs),
                    m.runs_at(&parts.runs),
                ))
            })?;
        Ok(Self {
            bands,
            rows,
            ids,
            sigs,
            runs,
            file,
        })
    }

    fn sig_array(&self) -> &[MinHashSig<H>] {
        self.file.slice(&self.sigs)
    }

    crate::lsh::builder::banding_accessors!();
    crate::lsh::map_file::mapped_id_accessors!("signature");

    /// The signature stored under `id`.
    pub fn get(&self, id: u64) -> Option<&MinHashSig<H>> {
        self.sig_array().get(self.slot_of(id)?)
    }

    /// All `(id, signature)` pairs, in ascending id order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &MinHashSig<H>)> + '_ {
        self.id_array().iter().copied().zip(self.sig_array())
    }

    /// Distinct slots sharing a band bucket with `sig`, ascending.
    fn candidate_slots(&self, sig: &MinHashSig<H>) -> Vec<u32> {
        let mut slots = Vec::new();
        for (r, key) in self.runs.iter().zip(band_keys(&sig.hashes, self.rows)) {
            slots.extend(self.file.run(r).get(key).iter().map(|e| e.slot()));
        }
        slots.sort_unstable();
        slots.dedup();
        slots
    }

    /// As [`LshIndex::query`]. (Slots are ranks of ascending ids, so the
    /// answer comes out sorted.)
    pub fn query(&self, sig: &MinHashSig<H>) -> Vec<u64> {
        let ids = self.id_array();
        self.candidate_slots(sig)
            .into_iter()
            .filter_map(|s| ids.get(s as usize).copied())
            .collect()
    }

    /// As [`LshIndex::query_with_threshold`].
    pub fn query_with_threshold(&self, sig: &MinHashSig<H>, threshold: f32) -> Vec<u64> {
        if threshold.is_nan() {
            return Vec::new();
        }
        let threshold = threshold.clamp(0.0, 1.0);
        let (ids, sigs) = (self.id_array(), self.sig_array());
        self.candidate_slots(sig)
            .into_iter()
            .filter(|&s| {
                sigs.get(s as usize)
                    .is_some_and(|x| jaccard(sig, x) >= threshold)
            })
            .filter_map(|s| ids.get(s as usize).copied())
            .collect()
    }

    /// As [`LshIndex::try_query_with_threshold`].
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `threshold` is NaN.
    pub fn try_query_with_threshold(
        &self,
        sig: &MinHashSig<H>,
        threshold: f32,
    ) -> Result<Vec<u64>> {
        if threshold.is_nan() {
            return Err(Error::InvalidInput(alloc::format!(
                "MappedLshIndex::try_query_with_threshold: threshold must be a number in [0.0, 1.0]; got {threshold}"
            )));
        }
        Ok(self.query_with_threshold(sig, threshold))
    }

    /// A mutable in-memory copy.
    ///
    /// # Errors
    ///
    /// Only what [`LshIndex::with_bands_rows`] reports for this banding
    /// (which the file was checked to have).
    pub fn to_index(&self) -> Result<LshIndex<H>> {
        let mut idx = LshIndex::with_bands_rows(self.bands, self.rows)?;
        idx.try_extend(self.iter().map(|(id, s)| (id, *s)))?;
        Ok(idx)
    }
}

impl<const H: usize> fmt::Debug for MappedLshIndex<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MappedLshIndex")
            .field("h", &H)
            .field("bands", &self.bands)
            .field("rows", &self.rows)
            .field("len", &self.len())
            .finish()
    }
}
