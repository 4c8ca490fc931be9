//! Saving and loading [`SimHashIndex`] (file format:
//! [`persist`](crate::lsh::persist), kind 2) and [`SimHash128Index`]
//! (kind 3), through one writer and one reader of 64-bit *lanes*.
//!
//! Parameters of a SimHash file: `[k, tables, flags, 0]`, flag bit 0 = the
//! payload holds the fingerprints (always set by this build). Sections: the
//! ids (ascending), one `u64` fingerprint per document in id order, the
//! table masks, and one sorted run per table whose slots are id ranks.
//!
//! A 128-bit index is two 64-bit lanes over the same ids with the same
//! layout, so its file (kind 3) is a SimHash file with a second payload and
//! a second set of tables: `k` is the 128-bit radius (each lane has radius
//! `⌊k/2⌋`); sections: the ids, the low halves (tag 2), the high halves
//! (tag 4), the masks, tables `0..tables` over the low halves and
//! `tables..2·tables` over the high ones. Both lanes are checked as
//! strictly as a 64-bit file.
//!
//! Reading trusts nothing the checksum vouches for: the masks must form a
//! complete layout, and every table entry must be the key of its document's
//! fingerprint, each document exactly once per table. A forged file is an
//! error, never an index that silently misses neighbours.

use alloc::format;
use alloc::vec::Vec;

use super::index::SimHashIndex;
use super::layout::{MAX_TABLES, SimHashLayout};
use super::table_key;
use crate::classical::simhash::{MAX_128_DISTANCE, SimHash128Index};
use crate::lsh::core::Core;
use crate::lsh::persist::{self, FileView, Header, Kind, Spec, Writer, corrupt, tag};
use crate::lsh::run::{Run, RunRef};
use crate::lsh::table::MAX_SLOTS;
use crate::{Error, Result};

/// Flag bit: the payload section holds the fingerprints.
pub(super) const HAS_FINGERPRINTS: u64 = 1;

impl SimHashIndex {
    /// Writes the index in the versioned, checksummed index file format
    /// (ARCHITECTURE.md, "Index files") through `sink`, which receives
    /// consecutive pieces of the file.
    ///
    /// # Errors
    ///
    /// Whatever `sink` returns.
    pub fn write_to(&self, sink: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        write_lanes(self.max_distance(), &[self], sink)
    }

    /// The index file as bytes.
    ///
    /// ```
    /// use txtfp::{SimHash64, SimHashIndex};
    /// let mut idx = SimHashIndex::new();
    /// idx.insert(1, SimHash64(0xabc));
    /// idx.insert(2, SimHash64(0xabd));
    /// let bytes = idx.to_bytes();
    /// let back = SimHashIndex::from_bytes(&bytes)?;
    /// assert_eq!(back.query(&SimHash64(0xabc)), [1, 2]);
    /// let mut bad = bytes.clone();
    /// bad[100] ^= 1; // caught by the checksum
    /// assert!(SimHashIndex::from_bytes(&bad).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        persist::to_vec(|sink| self.write_to(sink))
    }

    /// Reads an index from the bytes of [`to_bytes`](Self::to_bytes) (or a
    /// saved file); the bytes may have any alignment.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`](crate::Error::Corrupt) when the bytes are
    /// truncated, damaged (checksum), of another format version or index
    /// kind, or fail a structural check (see the module docs).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        persist::with_view(bytes, Kind::SimHash, Self::from_view)
    }

    fn from_view(view: &FileView<'_>) -> Result<Self> {
        let [lane] = read_lanes::<1>(view)?;
        Ok(Self::from_file_parts(lane))
    }

    /// An owned index of validated file sections.
    pub(super) fn from_file_parts(parts: Parts<'_>) -> Self {
        let runs = parts
            .runs
            .iter()
            .map(|r| Run::from_sorted(r.entries.to_vec()))
            .collect();
        Self {
            layout: parts.layout,
            fps: parts.fps.to_vec(),
            core: Core::from_parts(parts.ids.to_vec(), runs),
        }
    }

    /// Saves the index to `path` atomically: written beside it under a
    /// temporary name, flushed, and renamed over `path`, so a crash never
    /// leaves a half-written index where a good one was.
    ///
    /// ```
    /// use txtfp::{SimHash64, SimHashIndex};
    /// let dir = std::env::temp_dir().join(format!("txtfp-doc-simidx-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("simhash.idx");
    /// let mut idx = SimHashIndex::with_max_distance(2)?;
    /// idx.insert(1, SimHash64(0b1100));
    /// idx.save(&path)?;
    /// let back = SimHashIndex::load(&path)?;
    /// assert_eq!(back.max_distance(), 2);
    /// assert_eq!(back.query(&SimHash64(0b0000)), [1]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Io`](crate::Error::Io) when the file cannot be written; the
    /// file at `path` is then unchanged.
    #[cfg(feature = "std")]
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        persist::save_atomically(path.as_ref(), |sink| self.write_to(sink))
    }

    /// Loads an index saved by [`save`](Self::save) into memory.
    ///
    /// # Errors
    ///
    /// [`Error::Io`](crate::Error::Io) when the file cannot be read, and the
    /// errors of [`from_bytes`](Self::from_bytes).
    #[cfg(feature = "std")]
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Self> {
        Self::from_bytes(&std::fs::read(path.as_ref())?)
    }
}

impl SimHash128Index {
    /// Writes the index in the versioned, checksummed index file format
    /// (ARCHITECTURE.md, "Index files") through `sink`, which receives
    /// consecutive pieces of the file.
    ///
    /// # Errors
    ///
    /// Whatever `sink` returns, and [`Error::Corrupt`] if the two halves
    /// disagree (which no public method can cause).
    pub fn write_to(&self, sink: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let (lo, hi) = self.halves();
        write_lanes(self.max_distance(), &[lo, hi], sink)
    }

    /// The index file as bytes.
    ///
    /// ```
    /// use txtfp::{SimHash128, SimHash128Index};
    /// let mut idx = SimHash128Index::new();
    /// idx.insert(1, SimHash128(0xabc));
    /// idx.insert(2, SimHash128(0xabd | (1 << 100)));
    /// let bytes = idx.to_bytes();
    /// let back = SimHash128Index::from_bytes(&bytes)?;
    /// assert_eq!(back.query(&SimHash128(0xabc)), [1, 2]);
    /// let mut bad = bytes.clone();
    /// bad[100] ^= 1; // caught by the checksum
    /// assert!(SimHash128Index::from_bytes(&bad).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        persist::to_vec(|sink| self.write_to(sink))
    }

    /// Reads an index from the bytes of [`to_bytes`](Self::to_bytes) (or a
    /// saved file); the bytes may have any alignment.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when the bytes are truncated, damaged (checksum),
    /// of another format version or index kind, or fail a structural check
    /// (either half's, as for [`SimHashIndex::from_bytes`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        persist::with_view(bytes, Kind::SimHash128, Self::from_view)
    }

    fn from_view(view: &FileView<'_>) -> Result<Self> {
        let [lo, hi] = read_lanes::<2>(view)?;
        Ok(Self::from_halves(
            SimHashIndex::from_file_parts(lo),
            SimHashIndex::from_file_parts(hi),
            view.header.params[0] as u32,
        ))
    }

    /// Saves the index to `path` atomically (a temporary file beside it,
    /// flushed and renamed over `path`).
    ///
    /// ```
    /// use txtfp::{SimHash128, SimHash128Index};
    /// let dir = std::env::temp_dir().join(format!("txtfp-doc-sim128-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("simhash128.idx");
    /// let mut idx = SimHash128Index::with_max_distance(4)?;
    /// idx.insert(7, SimHash128(u128::MAX));
    /// idx.save(&path)?;
    /// let back = SimHash128Index::load(&path)?;
    /// assert_eq!(back.max_distance(), 4);
    /// assert_eq!(back.query(&SimHash128(u128::MAX ^ 0b1111)), [7]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be written; the file at `path` is
    /// then unchanged.
    #[cfg(feature = "std")]
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        persist::save_atomically(path.as_ref(), |sink| self.write_to(sink))
    }

    /// Loads an index saved by [`save`](Self::save) into memory.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be read, and the errors of
    /// [`from_bytes`](Self::from_bytes).
    #[cfg(feature = "std")]
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Self> {
        Self::from_bytes(&std::fs::read(path.as_ref())?)
    }
}

/// The validated sections of a SimHash file, borrowed in place.
pub(super) struct Parts<'a> {
    pub(super) layout: SimHashLayout,
    pub(super) ids: &'a [u64],
    pub(super) fps: &'a [u64],
    pub(super) runs: Vec<RunRef<'a>>,
}

impl<'a> Parts<'a> {
    /// The one lane of a 64-bit file (what the memory-mapped index reads).
    #[cfg(feature = "mmap")]
    pub(super) fn read(view: &FileView<'a>) -> Result<Self> {
        let [lane] = read_lanes::<1>(view)?;
        Ok(lane)
    }

    /// One 64-bit lane of the file: the shared ids and masks, the
    /// fingerprints in section `payload`, and tables `base..base + tables`.
    fn read_lane(
        view: &FileView<'a>,
        k: u64,
        tables: u64,
        payload: u32,
        base: u32,
    ) -> Result<Self> {
        let docs = view.header.docs;
        if docs > MAX_SLOTS as u64 {
            return Err(corrupt(format!("{docs} documents")));
        }
        let ids = view.ids()?;
        let fps: &[u64] = view.array(payload, docs)?;
        let masks: &[u64] = view.array(tag::MASKS, tables)?;
        let layout = SimHashLayout::from_file(masks.to_vec(), k as u32).ok_or_else(|| {
            corrupt(format!(
                "the {tables} table masks are not a complete layout for max distance {k}"
            ))
        })?;
        let mut runs = Vec::with_capacity(tables as usize);
        let mut seen = alloc::vec![0u64; fps.len().div_ceil(64)];
        for (i, &mask) in layout.masks().iter().enumerate() {
            let t = base + i as u32;
            let run = view.run(t)?;
            if run.len() as u64 != docs {
                return Err(corrupt(format!(
                    "table {t} has {} entries for {docs} documents",
                    run.len()
                )));
            }
            seen.fill(0);
            for (key, slot) in run.iter() {
                let s = slot as usize;
                let fresh = seen.get(s / 64).is_some_and(|w| w & (1 << (s % 64)) == 0);
                let matches = fps.get(s).is_some_and(|&f| table_key(f, mask) == key);
                if !(fresh && matches) {
                    return Err(corrupt(format!(
                        "table {t}: the entry of document {s} repeats or does not match its fingerprint"
                    )));
                }
                seen[s / 64] |= 1 << (s % 64);
            }
            runs.push(run);
        }
        Ok(Self {
            layout,
            ids,
            fps,
            runs,
        })
    }
}

/// The payload section of each lane: the low (or only) 64 bits, then the
/// high 64 bits of a 128-bit fingerprint.
const LANE_PAYLOAD: [u32; 2] = [tag::PAYLOAD, tag::PAYLOAD_HI];

/// The file kind of an index of `lanes` 64-bit lanes.
fn kind_of(lanes: usize) -> Kind {
    if lanes == 1 {
        Kind::SimHash
    } else {
        Kind::SimHash128
    }
}

/// Writes a file of `lanes` (one for a 64-bit index, two for a 128-bit
/// one, low half first) of an index of radius `k` through `sink`.
///
/// # Errors
/// Whatever `sink` returns, and [`Error::Corrupt`] if the lanes disagree on
/// ids or layout (which no public method can cause).
fn write_lanes(
    k: u32,
    lanes: &[&SimHashIndex],
    mut sink: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    // Slots are renumbered by ascending id (slot = rank), so a mapped file
    // finds an id by binary search and needs no id map.
    let dense: Vec<crate::lsh::core::Dense> = lanes.iter().map(|l| l.core.dense()).collect();
    let first = lanes[0];
    let agree = dense.iter().zip(lanes).all(|(d, l)| {
        d.order.len() == dense[0].order.len()
            && d.order.iter().zip(&dense[0].order).all(|(a, b)| a.0 == b.0)
            && l.layout.masks() == first.layout.masks()
    });
    if !agree {
        return Err(Error::Corrupt(
            "SimHash128Index: the two halves hold different ids or layouts".into(),
        ));
    }
    let tables = first.layout.tables();
    let order = &dense[0].order;
    let n = order.len() as u64;
    let mut specs = alloc::vec![Spec {
        tag: tag::IDS,
        aux: 0,
        len: n * 8
    }];
    specs.extend(LANE_PAYLOAD[..lanes.len()].iter().map(|&payload| Spec {
        tag: payload,
        aux: 0,
        len: n * 8,
    }));
    specs.push(Spec {
        tag: tag::MASKS,
        aux: 0,
        len: tables as u64 * 8,
    });
    let runs = || dense.iter().flat_map(|d| &d.runs);
    for (t, run) in runs().enumerate() {
        specs.extend(persist::run_specs(t as u32, run.as_ref()));
    }
    let header = Header {
        kind: kind_of(lanes.len()),
        params: [u64::from(k), tables as u64, HAS_FINGERPRINTS, 0],
        docs: n,
    };
    let mut w = Writer::begin(&mut sink, header, specs)?;
    let ids: Vec<u64> = order.iter().map(|e| e.0).collect();
    w.write_pod(&ids)?;
    for (lane, d) in lanes.iter().zip(&dense) {
        let fps: Vec<u64> = d.order.iter().map(|&(_, s)| lane.fps[s as usize]).collect();
        w.write_pod(&fps)?;
    }
    w.write_pod(first.layout.masks())?;
    for run in runs() {
        persist::write_run(&mut w, run.as_ref())?;
    }
    w.finish()
}

/// The `L` lanes of a file of kind 1 (`L = 1`) or 3 (`L = 2`), each
/// validated as a 64-bit file of radius `⌊k/L⌋`.
fn read_lanes<'a, const L: usize>(view: &FileView<'a>) -> Result<[Parts<'a>; L]> {
    let [k, tables, flags, reserved] = view.header.params;
    if L > 1 && k > u64::from(MAX_128_DISTANCE) {
        return Err(corrupt(format!(
            "max distance {k} exceeds the 128-bit limit {MAX_128_DISTANCE}"
        )));
    }
    let lane_k = k / L as u64;
    check_params(lane_k, tables, flags, reserved)?;
    let mut lanes = Vec::with_capacity(L);
    for (i, &payload) in LANE_PAYLOAD[..L].iter().enumerate() {
        lanes.push(Parts::read_lane(
            view,
            lane_k,
            tables,
            payload,
            (i as u64 * tables) as u32,
        )?);
    }
    lanes.try_into().map_err(|_| corrupt("lane count"))
}

/// The header parameters every SimHash file shares: `[k, tables, flags, 0]`.
fn check_params(k: u64, tables: u64, flags: u64, reserved: u64) -> Result<()> {
    if flags != HAS_FINGERPRINTS || reserved != 0 {
        return Err(corrupt(format!(
            "unknown flags {flags:#x} or reserved word {reserved:#x}"
        )));
    }
    if tables == 0 || tables > MAX_TABLES as u64 || k >= 64 {
        return Err(corrupt(format!("{tables} tables for max distance {k}")));
    }
    Ok(())
}
