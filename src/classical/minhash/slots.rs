//! What [`MinHashSig`](super::MinHashSig) and
//! [`FastMinHashSig`](super::fast::FastMinHashSig) have in common: the
//! `8 + 8·H` byte layout (a `u16` schema word, six zero pad bytes, `H` `u64`
//! slots), its little-endian persisted form and the `Display` text.
//!
//! The two types differ only in their name (used in messages) and their
//! schema word, so one generic implementation serves both; each type keeps
//! its own public, documented methods that forward here.

use alloc::format;
use alloc::vec::Vec;
use core::fmt;

use crate::{Error, Result};

/// A signature laid out as schema word, pad, `H` slots. Crate-private: it
/// only lets the byte, text and serde code be written once.
pub(crate) trait SlotSig<const H: usize>: Sized {
    /// Type name in messages and the serde struct name, e.g. `MinHashSig`.
    const NAME: &'static str;
    /// The schema word every value carries and every reader requires.
    const SCHEMA: u16;
    /// Appended to the expected schema in serde's mismatch message (empty
    /// for the default scheme, whose message is 0.3.2's).
    #[cfg(feature = "serde")]
    const SERDE_SCHEMA_NOTE: &'static str;

    /// The schema word, pad bytes and slots as stored.
    fn parts(&self) -> (u16, [u8; 6], &[u64; H]);

    /// The value with schema [`Self::SCHEMA`], a zero pad and `hashes`.
    fn with_hashes(hashes: [u64; H]) -> Self;
}

/// The byte size of a signature of `h` slots.
pub(crate) const fn byte_len(h: usize) -> usize {
    8 + 8 * h
}

/// Schema (2 bytes LE), the pad as stored, each slot as 8 bytes LE.
pub(crate) fn to_le_bytes<T: SlotSig<H>, const H: usize>(sig: &T) -> Vec<u8> {
    let (schema, pad, hashes) = sig.parts();
    let mut out = Vec::with_capacity(byte_len(H));
    out.extend_from_slice(&schema.to_le_bytes());
    out.extend_from_slice(&pad);
    for h in hashes {
        out.extend_from_slice(&h.to_le_bytes());
    }
    out
}

/// Parses [`to_le_bytes`]'s output at any alignment, checking the length,
/// then the schema word, then the pad.
pub(crate) fn from_bytes<T: SlotSig<H>, const H: usize>(bytes: &[u8]) -> Result<T> {
    if bytes.len() != byte_len(H) {
        return Err(Error::InvalidInput(format!(
            "{}<{H}> is {} bytes, got {}",
            T::NAME,
            byte_len(H),
            bytes.len()
        )));
    }
    let (header, body) = bytes.split_at(8);
    let schema = u16::from_le_bytes([header[0], header[1]]);
    if schema != T::SCHEMA {
        return Err(Error::SchemaMismatch {
            expected: T::SCHEMA,
            actual: schema,
        });
    }
    let pad = &header[2..8];
    if pad.iter().any(|&b| b != 0) {
        return Err(Error::InvalidInput(format!(
            "{}<{H}> pad bytes 2..8 must be zero, got {pad:02x?}",
            T::NAME
        )));
    }
    let mut hashes = [0u64; H];
    for (slot, word) in hashes.iter_mut().zip(body.chunks_exact(8)) {
        let mut le = [0u8; 8];
        le.copy_from_slice(word);
        *slot = u64::from_le_bytes(le);
    }
    Ok(T::with_hashes(hashes))
}

/// `NAME<H>[` + the first `min(4, H)` slots as 16 lowercase hex digits,
/// `, `-separated, + `, ..+{H-4} more` when `H > 4`, + `]`.
pub(crate) fn fmt_display<T: SlotSig<H>, const H: usize>(
    sig: &T,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    write!(f, "{}<{H}>[", T::NAME)?;
    for (i, h) in sig.parts().2.iter().take(4).enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{h:016x}")?;
    }
    if H > 4 {
        write!(f, ", ..+{} more", H - 4)?;
    }
    f.write_str("]")
}
