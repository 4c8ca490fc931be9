//! Saving and loading [`SimHashIndex`] (file format:
//! [`persist`](crate::lsh::persist); kind 2 for 64-bit fingerprints, kind 3
//! for 128-bit ones), through one writer and one reader of 64-bit *lanes*.
//!
//! Parameters of a SimHash file: `[k, tables, flags, 0]`, flag bit 0 = the
//! payload holds the fingerprints (always set by this build). Sections: the
//! ids (ascending), one `u64` fingerprint per document in id order, the
//! table masks, and one sorted run per table whose slots are id ranks.
//!
//! A 128-bit index is two 64-bit lanes over the same ids with the same
//! layout, so its file (kind 3) is a SimHash file with a second payload and
//! a second set of tables (in memory too: the index's tables are lane
//! major): `k` is the 128-bit radius (each lane has radius
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

use super::index::{SimHashIndex, key_at};
use super::layout::{MAX_TABLES, SimHashLayout};
use super::width::SimHashWidth;
use crate::lsh::core::Core;
use crate::lsh::persist::{self, FileView, Header, Kind, Spec, Writer, corrupt, tag};
use crate::lsh::run::{Run, RunRef};
use crate::lsh::table::MAX_SLOTS;
use crate::{Result, SimHash128};

/// Flag bit: the payload section holds the fingerprints.
pub(super) const HAS_FINGERPRINTS: u64 = 1;

/// The payload section of each lane: the low (or only) 64 bits, then the
/// high 64 bits of a 128-bit fingerprint.
const LANE_PAYLOAD: [u32; 2] = [tag::PAYLOAD, tag::PAYLOAD_HI];

/// The file kind of an index of `F` fingerprints.
fn kind_of<F: SimHashWidth>() -> Kind {
    if F::FILE_KIND == Kind::SimHash128 as u32 {
        Kind::SimHash128
    } else {
        Kind::SimHash
    }
}

impl<F: SimHashWidth> SimHashIndex<F> {
    /// Writes the index in the versioned, checksummed index file format
    /// (ARCHITECTURE.md, "Index files") through `sink`, which receives
    /// consecutive pieces of the file.
    ///
    /// # Errors
    ///
    /// Whatever `sink` returns.
    pub fn write_to(&self, mut sink: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        // Slots are renumbered by ascending id (slot = rank), so a mapped file
        // finds an id by binary search and needs no id map.
        let dense = self.core.dense();
        let tables = self.layout.tables();
        let n = dense.order.len() as u64;
        let mut specs = alloc::vec![Spec {
            tag: tag::IDS,
            aux: 0,
            len: n * 8
        }];
        specs.extend(LANE_PAYLOAD[..F::LANES].iter().map(|&payload| Spec {
            tag: payload,
            aux: 0,
            len: n * 8,
        }));
        specs.push(Spec {
            tag: tag::MASKS,
            aux: 0,
            len: tables as u64 * 8,
        });
        for (t, run) in dense.runs.iter().enumerate() {
            specs.extend(persist::run_specs(t as u32, run.as_ref()));
        }
        let header = Header {
            kind: kind_of::<F>(),
            params: [u64::from(self.k), tables as u64, HAS_FINGERPRINTS, 0],
            docs: n,
        };
        let mut w = Writer::begin(&mut sink, header, specs)?;
        let ids: Vec<u64> = dense.order.iter().map(|e| e.0).collect();
        w.write_pod(&ids)?;
        for lane in 0..F::LANES {
            let fps: Vec<u64> = dense
                .order
                .iter()
                .map(|&(_, s)| self.lanes_of(s)[lane])
                .collect();
            w.write_pod(&fps)?;
        }
        w.write_pod(self.layout.masks())?;
        for run in &dense.runs {
            persist::write_run(&mut w, run.as_ref())?;
        }
        w.finish()
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
    /// assert!(SimHashIndex::<SimHash64>::from_bytes(&bad).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    ///
    /// A 128-bit index the same way:
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
    /// [`Error::Corrupt`](crate::Error::Corrupt) when the bytes are
    /// truncated, damaged (checksum), of another format version or index
    /// kind (a 64-bit index does not read a 128-bit file, nor the reverse),
    /// or fail a structural check (see the module docs).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        persist::with_view(bytes, kind_of::<F>(), |view| {
            let parts = Parts::read(view, F::LANES)?;
            Ok(Self::from_file_parts(parts, view.header.params[0] as u32))
        })
    }

    /// An owned index of radius `k` of validated file sections.
    fn from_file_parts(parts: Parts<'_>, k: u32) -> Self {
        let runs = parts
            .runs
            .iter()
            .map(|r| Run::from_sorted(r.entries.to_vec()))
            .collect();
        let docs = parts.ids.len();
        let fps = (0..docs)
            .flat_map(|s| parts.fps.iter().map(move |lane| lane[s]))
            .collect();
        let mut idx = Self::from_layout(parts.layout, k);
        idx.fps = fps;
        idx.core = Core::from_parts(parts.ids.to_vec(), runs);
        idx
    }

    crate::lsh::persist::save_and_load! {
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
        /// let back = SimHashIndex::<SimHash64>::load(&path)?;
        /// assert_eq!(back.max_distance(), 2);
        /// assert_eq!(back.query(&SimHash64(0b0000)), [1]);
        /// # std::fs::remove_dir_all(&dir)?;
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        ///
        /// A 128-bit index the same way:
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
    }
}

/// The validated sections of a SimHash file, borrowed in place.
pub(super) struct Parts<'a> {
    pub(super) layout: SimHashLayout,
    pub(super) ids: &'a [u64],
    /// Each lane's fingerprints, lane 0 first.
    pub(super) fps: Vec<&'a [u64]>,
    /// Every table, lane major.
    pub(super) runs: Vec<RunRef<'a>>,
}

impl<'a> Parts<'a> {
    /// The `lanes` lanes of a file of kind 2 (`lanes = 1`) or 3
    /// (`lanes = 2`), each validated as a 64-bit file of radius
    /// `⌊k / lanes⌋`.
    pub(super) fn read(view: &FileView<'a>, lanes: usize) -> Result<Self> {
        let [k, tables, flags, reserved] = view.header.params;
        if lanes > 1 && k > u64::from(SimHash128::MAX_DISTANCE) {
            return Err(corrupt(format!(
                "max distance {k} exceeds the 128-bit limit {}",
                SimHash128::MAX_DISTANCE
            )));
        }
        let lane_k = k / lanes as u64;
        check_params(lane_k, tables, flags, reserved)?;
        let docs = view.header.docs;
        if docs > MAX_SLOTS as u64 {
            return Err(corrupt(format!("{docs} documents")));
        }
        let ids = view.ids()?;
        let fps: &[u64] = view.array(tag::PAYLOAD, docs)?;
        let masks: &[u64] = view.array(tag::MASKS, tables)?;
        let layout = SimHashLayout::from_file(masks.to_vec(), lane_k as u32).ok_or_else(|| {
            corrupt(format!(
                "the {tables} table masks are not a complete layout for max distance {lane_k}"
            ))
        })?;
        let mut parts = Parts {
            layout,
            ids,
            fps: alloc::vec![fps],
            runs: Vec::with_capacity(lanes * tables as usize),
        };
        parts.read_tables(view, 0)?;
        for (lane, &payload) in LANE_PAYLOAD[..lanes].iter().enumerate().skip(1) {
            parts.fps.push(view.array(payload, docs)?);
            parts.read_tables(view, lane)?;
        }
        Ok(parts)
    }

    /// Reads and checks the tables of `lane`: every entry must be the key of
    /// its document's fingerprint, each document exactly once per table.
    fn read_tables(&mut self, view: &FileView<'a>, lane: usize) -> Result<()> {
        let docs = view.header.docs;
        let fps = self.fps[lane];
        let masks = self.layout.masks();
        let mut seen = alloc::vec![0u64; fps.len().div_ceil(64)];
        for i in 0..masks.len() {
            let t = lane * masks.len() + i;
            let run = view.run(t as u32)?;
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
                let matches = fps.get(s).is_some_and(|&f| key_at(masks, |_| f, t) == key);
                if !(fresh && matches) {
                    return Err(corrupt(format!(
                        "table {t}: the entry of document {s} repeats or does not match its fingerprint"
                    )));
                }
                seen[s / 64] |= 1 << (s % 64);
            }
            self.runs.push(run);
        }
        Ok(())
    }
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
