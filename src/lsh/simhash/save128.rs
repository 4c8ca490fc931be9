//! Saving and loading [`SimHash128Index`] (file format:
//! [`persist`](crate::lsh::persist), kind 3).
//!
//! A 128-bit index is two 64-bit indexes over the same ids with the same
//! layout, so its file is a SimHash file (kind 2) with a second payload and
//! a second set of tables: parameters `[k, tables, flags, 0]` where `k` is
//! the 128-bit radius (each half has radius `⌊k/2⌋`); sections: the ids,
//! the low halves (tag 2), the high halves (tag 4), the masks, tables
//! `0..tables` over the low halves and `tables..2·tables` over the high
//! ones. Both halves are checked as strictly as a 64-bit file.

use alloc::format;
use alloc::vec::Vec;

use super::index::SimHashIndex;
use super::save::{HAS_FINGERPRINTS, Parts, check_params};
use crate::classical::simhash::{MAX_128_DISTANCE, SimHash128Index};
use crate::lsh::persist::{self, FileView, Header, Kind, Spec, Writer, corrupt, tag};
use crate::{Error, Result};

impl SimHash128Index {
    /// Writes the index in the versioned, checksummed index file format
    /// (ARCHITECTURE.md, "Index files") through `sink`, which receives
    /// consecutive pieces of the file.
    ///
    /// # Errors
    ///
    /// Whatever `sink` returns, and [`Error::Corrupt`] if the two halves
    /// disagree (which no public method can cause).
    pub fn write_to(&self, mut sink: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        let (lo, hi) = self.halves();
        let lo_dense = lo.core.dense();
        let hi_dense = hi.core.dense();
        let same_ids = lo_dense.order.len() == hi_dense.order.len()
            && lo_dense
                .order
                .iter()
                .zip(&hi_dense.order)
                .all(|(a, b)| a.0 == b.0);
        if !same_ids || lo.layout.masks() != hi.layout.masks() {
            return Err(Error::Corrupt(
                "SimHash128Index: the two halves hold different ids or layouts".into(),
            ));
        }
        let tables = lo.layout.tables();
        let n = lo_dense.order.len() as u64;
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
                tag: tag::PAYLOAD_HI,
                aux: 0,
                len: n * 8
            },
            Spec {
                tag: tag::MASKS,
                aux: 0,
                len: tables as u64 * 8
            },
        ];
        for (t, run) in lo_dense.runs.iter().chain(&hi_dense.runs).enumerate() {
            specs.extend(persist::run_specs(t as u32, run.as_ref()));
        }
        let header = Header {
            kind: Kind::SimHash128,
            params: [
                u64::from(self.max_distance()),
                tables as u64,
                HAS_FINGERPRINTS,
                0,
            ],
            docs: n,
        };
        let mut w = Writer::begin(&mut sink, header, specs)?;
        let ids: Vec<u64> = lo_dense.order.iter().map(|e| e.0).collect();
        w.write_pod(&ids)?;
        for (half, dense) in [(lo, &lo_dense), (hi, &hi_dense)] {
            let fps: Vec<u64> = dense
                .order
                .iter()
                .map(|&(_, s)| half.fps[s as usize])
                .collect();
            w.write_pod(&fps)?;
        }
        w.write_pod(lo.layout.masks())?;
        for run in lo_dense.runs.iter().chain(&hi_dense.runs) {
            persist::write_run(&mut w, run.as_ref())?;
        }
        w.finish()
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
        let [k, tables, flags, reserved] = view.header.params;
        if k > u64::from(MAX_128_DISTANCE) {
            return Err(corrupt(format!(
                "max distance {k} exceeds the 128-bit limit {MAX_128_DISTANCE}"
            )));
        }
        check_params(k / 2, tables, flags, reserved)?;
        let lo = Parts::read_half(view, k / 2, tables, tag::PAYLOAD, 0)?;
        let hi = Parts::read_half(view, k / 2, tables, tag::PAYLOAD_HI, tables as u32)?;
        Ok(Self::from_halves(
            SimHashIndex::from_file_parts(lo),
            SimHashIndex::from_file_parts(hi),
            k as u32,
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
