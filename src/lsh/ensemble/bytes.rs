//! The byte format of an [`LshEnsemble`] (version 1) and its serde form.
//!
//! ```text
//! offset  size  field (little endian)
//!      0     8  magic "TXTFPLE\0"
//!      8     2  format version (1)
//!     10     2  MinHash schema word of the signatures (1, or 0x4601 fast)
//!     12     4  H, slots per signature
//!     16     4  num_perm
//!     20     4  partitions asked for
//!     24     4  max_rows
//!     28     4  partitioning: 0 equi-depth, 1 optimal
//!     32     8  fp weight (f64 bits)
//!     40     8  fn weight (f64 bits)
//!     48     8  number of sets n
//!     56     n × (8 + 8 + 8·H)  per set, by ascending id: id, size, slots
//!   end−8    8  XXH3-64 of every byte before it
//! ```
//!
//! The band tables are not stored: they are a function of the sets and the
//! parameters, and rebuilding them on load is cheaper than checking stored
//! ones against hostile input.

use alloc::format;
use alloc::vec::Vec;

use super::LshEnsemble;
use super::builder::LshEnsembleBuilder;
use super::partition::Partitioning;
use crate::classical::minhash::Scheme;
use crate::classical::xxh3_64;
use crate::{Error, MinHashSig, Result};

/// Magic number of the format.
const MAGIC: [u8; 8] = *b"TXTFPLE\0";
/// The version this build writes and reads.
pub const ENSEMBLE_FORMAT_VERSION: u16 = 1;
const HEADER: usize = 56;
const TRAILER: usize = 8;

fn corrupt(what: &str) -> Error {
    Error::Corrupt(format!("LSH Ensemble bytes: {what}"))
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

impl<const H: usize, S: Scheme> LshEnsemble<H, S> {
    /// The ensemble in the versioned, checksummed byte format above (sets,
    /// sizes and parameters; the tables are rebuilt by
    /// [`from_bytes`](Self::from_bytes)).
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.ids.len();
        let mut out = Vec::with_capacity(HEADER + n * (16 + 8 * H) + TRAILER);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&ENSEMBLE_FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&S::SCHEMA.to_le_bytes());
        // The builder caps every one of these far below u32::MAX.
        for v in [
            H,
            self.tuner.num_perm,
            self.partitions_requested,
            self.tuner.max_rows,
            self.partitioning.tag() as usize,
        ] {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
        out.extend_from_slice(&self.tuner.fp_weight.to_bits().to_le_bytes());
        out.extend_from_slice(&self.tuner.fn_weight.to_bits().to_le_bytes());
        out.extend_from_slice(&(n as u64).to_le_bytes());
        for &slot in &self.by_id {
            let s = slot as usize;
            out.extend_from_slice(&self.ids[s].to_le_bytes());
            out.extend_from_slice(&self.sizes[s].to_le_bytes());
            for h in &self.sigs[s].hashes {
                out.extend_from_slice(&h.to_le_bytes());
            }
        }
        let sum = xxh3_64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads [`to_bytes`](Self::to_bytes) output and rebuilds the tables.
    ///
    /// # Errors
    ///
    /// - [`Error::Corrupt`] for a wrong magic, length or checksum, or
    ///   contents no builder would accept (a zero size, a repeated or
    ///   unordered id, parameters out of range);
    /// - [`Error::SchemaMismatch`] for a format version other than 1;
    /// - [`Error::InvalidInput`] when the bytes hold signatures of another
    ///   scheme or another `H` than this type's.
    ///
    /// The allocation is bounded by the input's length; nothing panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < HEADER + TRAILER {
            return Err(corrupt("shorter than the header"));
        }
        if bytes[..8] != MAGIC {
            return Err(corrupt("bad magic"));
        }
        let (body, tail) = bytes.split_at(bytes.len() - TRAILER);
        if xxh3_64(body) != u64_at(tail, 0) {
            return Err(corrupt("checksum mismatch"));
        }
        let version = u16_at(bytes, 8);
        if version != ENSEMBLE_FORMAT_VERSION {
            return Err(Error::SchemaMismatch {
                expected: ENSEMBLE_FORMAT_VERSION,
                actual: version,
            });
        }
        let schema = u16_at(bytes, 10);
        if schema != S::SCHEMA {
            return Err(Error::InvalidInput(format!(
                "LSH Ensemble bytes hold signatures of schema {schema:#x}; this type reads {:#x}",
                S::SCHEMA
            )));
        }
        let h = u32_at(bytes, 12) as usize;
        if h != H {
            return Err(Error::InvalidInput(format!(
                "LSH Ensemble bytes hold {h}-slot signatures; this type has H = {H}"
            )));
        }
        let partitioning = Partitioning::from_tag(u32_at(bytes, 28))
            .ok_or_else(|| corrupt("unknown partitioning"))?;
        let n = u64_at(bytes, 48);
        let record = 16 + 8 * H;
        let expected = (n as u128) * (record as u128) + (HEADER + TRAILER) as u128;
        if expected != bytes.len() as u128 {
            return Err(corrupt("length does not match the number of sets"));
        }
        let mut builder = LshEnsembleBuilder::<H, S>::new()
            .num_perm(u32_at(bytes, 16) as usize)
            .partitions(u32_at(bytes, 20) as usize)
            .partitioning(partitioning)
            .max_rows(u32_at(bytes, 24) as usize)
            .weights(
                f64::from_bits(u64_at(bytes, 32)),
                f64::from_bits(u64_at(bytes, 40)),
            );
        let tuner = builder.tuner().map_err(|e| corrupt(&format!("{e}")))?;
        // n · record fits in the input, so this reservation is bounded.
        builder.entries.reserve_exact(n as usize);
        let mut prev: Option<u64> = None;
        for rec in body[HEADER..].chunks_exact(record) {
            let id = u64_at(rec, 0);
            if prev.is_some_and(|p| p >= id) {
                return Err(corrupt("ids are not strictly ascending"));
            }
            prev = Some(id);
            let size = u64_at(rec, 8);
            if size == 0 {
                return Err(corrupt("a set of size 0"));
            }
            let mut sig = MinHashSig::<H, S>::empty();
            for (slot, w) in sig.hashes.iter_mut().zip(rec[16..].chunks_exact(8)) {
                *slot = u64_at(w, 0);
            }
            builder.entries.push((id, size, sig));
        }
        let partitions = builder.partitions;
        LshEnsemble::from_entries(tuner, partitions, partitioning, builder.entries)
            .map_err(|e| corrupt(&format!("{e}")))
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    //! serde as the byte format: `serialize_bytes` of
    //! [`to_bytes`](LshEnsemble::to_bytes), read back through
    //! [`from_bytes`](LshEnsemble::from_bytes) with all its checks (formats
    //! without a bytes type, such as JSON, carry an array of numbers).

    use alloc::vec::Vec;
    use core::fmt;
    use core::marker::PhantomData;

    use serde::de::{self, SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::LshEnsemble;
    use crate::classical::minhash::Scheme;

    impl<const H: usize, S: Scheme> Serialize for LshEnsemble<H, S> {
        fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
            serializer.serialize_bytes(&self.to_bytes())
        }
    }

    struct BytesVisitor<const H: usize, S: Scheme>(PhantomData<S>);

    impl<'de, const H: usize, S: Scheme> Visitor<'de> for BytesVisitor<H, S> {
        type Value = LshEnsemble<H, S>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the bytes of an LshEnsemble")
        }

        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
            LshEnsemble::from_bytes(v).map_err(E::custom)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            // The size hint comes from the input; cap what it may reserve.
            let mut buf = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
            while let Some(b) = seq.next_element::<u8>()? {
                buf.push(b);
            }
            LshEnsemble::from_bytes(&buf).map_err(de::Error::custom)
        }
    }

    impl<'de, const H: usize, S: Scheme> Deserialize<'de> for LshEnsemble<H, S> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_bytes(BytesVisitor::<H, S>(PhantomData))
        }
    }
}
