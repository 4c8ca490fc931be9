//! The byte format of an [`LshForest`]: parameters and `(id, signature)`
//! records; the trees are rebuilt on reading (a sort, faster than reading
//! them would be to check).
//!
//! ```text
//! offset  size       field (integers little-endian)
//!      0     8       magic "TXTFPLF\0"
//!      8     4       FOREST_FORMAT_VERSION (1)
//!     12     2       the scheme's schema word (1, or 0x4601 for the fast scheme)
//!     14     2       zero
//!     16     4       H
//!     20     4       trees l
//!     24     4       candidates per result
//!     28     4       zero
//!     32     8       documents n
//!     40     n·(8+8H) records: id u64, then the H slots, in insertion order
//!  end−8     8       XXH3-64 of every byte before it
//! ```

use alloc::format;
use alloc::vec::Vec;

use super::{LshForest, LshForestBuilder, check_params};
use crate::classical::minhash::Scheme;
use crate::{Error, MinHashSig, Result};

/// Version of the [`LshForest`] byte format ([`LshForest::to_bytes`]).
pub const FOREST_FORMAT_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"TXTFPLF\0";
const HEADER: usize = 40;
const TRAILER: usize = 8;

impl<const H: usize, S: Scheme> LshForest<H, S> {
    /// The forest as bytes (format in ARCHITECTURE.md, "Formats and version
    /// tags"): parameters, then every stored `(id, signature)`; removed
    /// signatures are not written.
    ///
    /// ```
    /// use txtfp::MinHashSig;
    /// use txtfp::lsh::forest::LshForest;
    /// let mut forest = LshForest::<4>::new(2)?;
    /// forest.insert(1, &MinHashSig { hashes: [1, 2, 3, 4], ..MinHashSig::empty() })?;
    /// let bytes = forest.to_bytes();
    /// assert_eq!(bytes.len(), 40 + (8 + 32) + 8);
    /// let back = LshForest::<4>::from_bytes(&bytes)?;
    /// assert_eq!(back.query(forest.get(1).unwrap(), 1)?, [(1, 1.0)]);
    /// let mut damaged = bytes.clone();
    /// damaged[50] ^= 1;
    /// assert!(matches!(LshForest::<4>::from_bytes(&damaged), Err(txtfp::Error::Corrupt(_))));
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.len();
        let mut out = Vec::with_capacity(HEADER + n * (8 + 8 * H) + TRAILER);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FOREST_FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&S::SCHEMA.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        // The builder keeps H, l and the factor within u32 (see from_bytes).
        for v in [H, self.trees.len(), self.per_result] {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&(n as u64).to_le_bytes());
        for slot in (0..self.sigs.len()).filter(|&s| self.live[s]) {
            out.extend_from_slice(&self.ids[slot].to_le_bytes());
            for h in &self.sigs[slot].hashes {
                out.extend_from_slice(&h.to_le_bytes());
            }
        }
        let sum = crate::classical::xxh3_64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads what [`to_bytes`](Self::to_bytes) writes and sorts the trees.
    /// Allocates only after the length matches the document count.
    ///
    /// # Errors
    /// - [`Error::Corrupt`] when the bytes are truncated, extended, fail
    ///   their checksum, or hold impossible values (bad magic, nonzero
    ///   reserved bytes, invalid parameters, a repeated id);
    /// - [`Error::SchemaMismatch`] for another format version, or for
    ///   signatures of the other MinHash scheme;
    /// - [`Error::Config`] when the file's `H` is not this type's.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let corrupt = |what: &str| Error::Corrupt(format!("LshForest bytes: {what}"));
        if bytes.len() < HEADER + TRAILER {
            return Err(corrupt("shorter than the header"));
        }
        if &bytes[..8] != MAGIC {
            return Err(corrupt("bad magic"));
        }
        let u32_at = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let u64_at = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(w)
        };
        let version = u32_at(8);
        if version != FOREST_FORMAT_VERSION {
            return Err(Error::SchemaMismatch {
                expected: FOREST_FORMAT_VERSION as u16,
                actual: u16::try_from(version).unwrap_or(u16::MAX),
            });
        }
        let body = bytes.len() - TRAILER;
        if crate::classical::xxh3_64(&bytes[..body]) != u64_at(body) {
            return Err(corrupt("checksum mismatch"));
        }
        let schema = u16::from_le_bytes([bytes[12], bytes[13]]);
        if schema != S::SCHEMA {
            return Err(Error::SchemaMismatch {
                expected: S::SCHEMA,
                actual: schema,
            });
        }
        if bytes[14..16] != [0, 0] || bytes[28..32] != [0; 4] {
            return Err(corrupt("nonzero reserved bytes"));
        }
        let (h, trees, per_result) = (
            u32_at(16) as usize,
            u32_at(20) as usize,
            u32_at(24) as usize,
        );
        if h != H {
            return Err(Error::Config(format!(
                "the bytes hold signatures of {h} slots; this forest has H = {H}"
            )));
        }
        check_params(h, trees, per_result, H).map_err(|e| corrupt(&format!("{e}")))?;
        let record = 8 + 8 * H;
        let n = u64_at(32);
        let expected = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_mul(record))
            .and_then(|len| len.checked_add(HEADER));
        if expected != Some(body) || n > super::MAX_DOCS as u64 {
            return Err(corrupt(&format!("length does not match {n} documents")));
        }
        let mut forest: Self = LshForestBuilder::new(H, trees)
            .candidates_per_result(per_result)
            .try_build()?;
        let n = n as usize;
        forest.sigs.reserve_exact(n);
        forest.ids.reserve_exact(n);
        for (slot, rec) in bytes[HEADER..body].chunks_exact(record).enumerate() {
            let mut id = [0u8; 8];
            id.copy_from_slice(&rec[..8]);
            let id = u64::from_le_bytes(id);
            let mut sig = MinHashSig::<H, S>::empty();
            for (h, w) in sig.hashes.iter_mut().zip(rec[8..].chunks_exact(8)) {
                let mut b = [0u8; 8];
                b.copy_from_slice(w);
                *h = u64::from_le_bytes(b);
            }
            if forest.slot_of.insert(id, slot as u32).is_some() {
                return Err(corrupt(&format!("id {id} appears twice")));
            }
            forest.sigs.push(sig);
            forest.ids.push(id);
            forest.live.push(true);
        }
        forest.index();
        Ok(forest)
    }
}
