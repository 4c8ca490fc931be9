//! Saving and loading [`SimHashIndex`] (file format:
//! [`persist`](crate::lsh::persist), kind 2).
//!
//! Parameters of a SimHash file: `[k, tables, flags, 0]`, flag bit 0 = the
//! payload holds the fingerprints (always set by this build). Sections: the
//! ids (ascending), one `u64` fingerprint per document in id order, the
//! table masks, and one sorted run per table whose slots are id ranks.
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
use crate::Result;
use crate::lsh::core::Core;
use crate::lsh::persist::{self, FileView, Header, Kind, Spec, Writer, corrupt, tag};
use crate::lsh::run::{Run, RunRef};
use crate::lsh::table::MAX_SLOTS;

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
    pub fn write_to(&self, mut sink: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        // Slots are renumbered by ascending id (slot = rank), so a mapped
        // file finds an id by binary search and needs no id map.
        let crate::lsh::core::Dense { order, runs } = self.core.dense();
        let tables = self.layout.tables();
        let n = order.len() as u64;
        let mut specs = alloc::vec![
            Spec {
                tag: tag::IDS,
                aux: 0,
                len: n * 8
            },
            Spec {
                tag: tag::PAYLOAD,
                aux: 0,
                len: n * 8
            },
            Spec {
                tag: tag::MASKS,
                aux: 0,
                len: tables as u64 * 8
            },
        ];
        for (t, run) in runs.iter().enumerate() {
            specs.extend(persist::run_specs(t as u32, run.as_ref()));
        }
        let header = Header {
            kind: Kind::SimHash,
            params: [
                u64::from(self.max_distance()),
                tables as u64,
                HAS_FINGERPRINTS,
                0,
            ],
            docs: n,
        };
        let mut w = Writer::begin(&mut sink, header, specs)?;
        let ids: Vec<u64> = order.iter().map(|e| e.0).collect();
        w.write_pod(&ids)?;
        let fps: Vec<u64> = order.iter().map(|&(_, s)| self.fps[s as usize]).collect();
        w.write_pod(&fps)?;
        w.write_pod(self.layout.masks())?;
        for run in &runs {
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
        Ok(Self::from_file_parts(Parts::read(view)?))
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

/// The validated sections of a SimHash file, borrowed in place.
pub(super) struct Parts<'a> {
    pub(super) layout: SimHashLayout,
    pub(super) ids: &'a [u64],
    pub(super) fps: &'a [u64],
    pub(super) runs: Vec<RunRef<'a>>,
}

impl<'a> Parts<'a> {
    pub(super) fn read(view: &FileView<'a>) -> Result<Self> {
        let [k, tables, flags, reserved] = view.header.params;
        check_params(k, tables, flags, reserved)?;
        Self::read_half(view, k, tables, tag::PAYLOAD, 0)
    }

    /// One 64-bit index of the file: the shared ids and masks, the
    /// fingerprints in section `payload`, and tables `base..base + tables`.
    pub(super) fn read_half(
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

/// The header parameters every SimHash file shares: `[k, tables, flags, 0]`.
pub(super) fn check_params(k: u64, tables: u64, flags: u64, reserved: u64) -> Result<()> {
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
