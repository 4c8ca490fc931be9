//! The byte format of [`Hll`] sketches.
//!
//! ```text
//! offset  size  field
//! 0       4     magic "TXHL"
//! 4       2     format version, u16 LE (1)
//! 6       1     variant: 1 = HyperLogLog, 2 = HyperLogLog++
//! 7       1     precision p, 4..=18
//! 8       1     representation: 0 = dense, 1 = sparse (HyperLogLog++ only)
//! 9       ...   body
//!               dense:  2^p registers, one byte each, each <= 65 - p
//!               sparse: u32 LE count n <= 2^p / 4, then n u32 LE entries
//!                       (index << 6 | rank; index < 2^25 strictly
//!                       ascending, rank in 1..=40)
//! end-8   8     XXH3_64 of every byte before it, u64 LE
//! ```
//!
//! Sketches that are equal (see [`Hll`]) have equal bytes.

use alloc::format;
use alloc::vec::Vec;

use super::sparse::{MAX_SPARSE_RANK, SPARSE_P, Sparse, limit};
use super::{Hll, MAX_PRECISION, MIN_PRECISION, Repr, Variant};
use crate::{Error, Result};

/// The first four bytes of every serialized sketch.
pub const MAGIC: [u8; 4] = *b"TXHL";
/// The format version [`Hll::to_bytes`] writes and [`Hll::from_bytes`]
/// reads.
pub const FORMAT_VERSION: u16 = 1;

const HEADER: usize = 9;
const CHECKSUM: usize = 8;
const DENSE: u8 = 0;
const SPARSE: u8 = 1;

fn corrupt(what: impl core::fmt::Display) -> Error {
    Error::Corrupt(format!("hll: {what}"))
}

impl<V: Variant> Hll<V> {
    /// The sketch as bytes (layout in ARCHITECTURE.md, "Formats and version
    /// tags"): a tagged header, the dense registers or the sparse entries,
    /// and a checksum.
    ///
    /// ```
    /// use txtfp::classical::hll::{HyperLogLog, HyperLogLogPlusPlus};
    /// let mut h = HyperLogLogPlusPlus::new(12)?;
    /// h.insert_str("shingle");
    /// let bytes = h.to_bytes();
    /// assert_eq!(&bytes[..4], b"TXHL");
    /// assert_eq!(HyperLogLogPlusPlus::from_bytes(&bytes)?, h);
    /// // The variant is part of the format.
    /// assert!(HyperLogLog::from_bytes(&bytes).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + (1 << self.p) + CHECKSUM);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.push(V::TAG);
        out.push(self.p);
        match &self.repr {
            Repr::Dense(regs) => {
                out.push(DENSE);
                out.extend_from_slice(regs);
            }
            Repr::Sparse(s) => {
                out.push(SPARSE);
                let entries = s.normalized();
                // At most 2^16 entries (p <= 18): fits a u32.
                out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
                for e in entries.iter() {
                    out.extend_from_slice(&e.to_le_bytes());
                }
            }
        }
        let sum = crate::classical::xxh3_64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Read a sketch written by [`Hll::to_bytes`] for the same variant.
    /// [`Error::SchemaMismatch`] for another format version,
    /// [`Error::Corrupt`] for anything truncated, damaged or of the other
    /// variant; never allocates more than the precision in the header
    /// implies (at most 256 KiB).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < HEADER + CHECKSUM {
            return Err(corrupt(format!(
                "{} bytes is shorter than the {}-byte header and checksum",
                bytes.len(),
                HEADER + CHECKSUM
            )));
        }
        if bytes[..4] != MAGIC {
            return Err(corrupt("bad magic (not a txtfp HyperLogLog sketch)"));
        }
        let version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if version != FORMAT_VERSION {
            return Err(Error::SchemaMismatch {
                expected: FORMAT_VERSION,
                actual: version,
            });
        }
        let body_end = bytes.len() - CHECKSUM;
        let mut sum = [0u8; 8];
        sum.copy_from_slice(&bytes[body_end..]);
        if crate::classical::xxh3_64(&bytes[..body_end]) != u64::from_le_bytes(sum) {
            return Err(corrupt("checksum mismatch"));
        }
        let (tag, p, repr) = (bytes[6], bytes[7], bytes[8]);
        if tag != V::TAG {
            return Err(corrupt(format!(
                "variant tag {tag}, expected {} ({})",
                V::TAG,
                V::NAME
            )));
        }
        if !(MIN_PRECISION..=MAX_PRECISION).contains(&p) {
            return Err(corrupt(format!("precision {p} outside 4..=18")));
        }
        let body = &bytes[HEADER..body_end];
        let repr = match repr {
            DENSE => Repr::Dense(read_dense(body, p)?),
            SPARSE if V::SPARSE => Repr::Sparse(read_sparse(body, p)?),
            other => return Err(corrupt(format!("representation tag {other}"))),
        };
        Ok(Self {
            p,
            repr,
            _variant: core::marker::PhantomData,
        })
    }
}

fn read_dense(body: &[u8], p: u8) -> Result<Vec<u8>> {
    let m = 1usize << p;
    if body.len() != m {
        return Err(corrupt(format!(
            "dense body of {} bytes, expected {m}",
            body.len()
        )));
    }
    let top = 65 - p;
    if let Some(j) = body.iter().position(|&r| r > top) {
        return Err(corrupt(format!(
            "register {j} holds {}, above the maximum {top}",
            body[j]
        )));
    }
    Ok(body.to_vec())
}

fn read_sparse(body: &[u8], p: u8) -> Result<Sparse> {
    if body.len() < 4 {
        return Err(corrupt("sparse body shorter than its count"));
    }
    let n = u32::from_le_bytes([body[0], body[1], body[2], body[3]]) as usize;
    if n > limit(p) {
        return Err(corrupt(format!(
            "{n} sparse entries, above the limit {} for p = {p}",
            limit(p)
        )));
    }
    let entries = &body[4..];
    if entries.len() != 4 * n {
        return Err(corrupt(format!(
            "{} bytes of sparse entries, expected {}",
            entries.len(),
            4 * n
        )));
    }
    let mut list = Vec::with_capacity(n);
    let mut prev: Option<u32> = None;
    for (i, c) in entries.chunks_exact(4).enumerate() {
        let e = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let (idx, rank) = (e >> 6, e & 63);
        if idx >> SPARSE_P != 0 || rank == 0 || rank > MAX_SPARSE_RANK {
            return Err(corrupt(format!("sparse entry {i} ({e:#x}) out of range")));
        }
        if prev.is_some_and(|q| q >= idx) {
            return Err(corrupt(format!("sparse entry {i} out of order")));
        }
        prev = Some(idx);
        list.push(e);
    }
    Ok(Sparse::from_sorted(p, list))
}
