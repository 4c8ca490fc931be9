//! TLSH (Trend Micro Locality Sensitive Hash), 128 buckets / 1-byte
//! checksum: a 72-character digest of a byte string whose
//! [`tlsh_distance`] grows with how different two inputs are.
//!
//! * [`TlshFingerprinter`] canonicalizes text and digests its UTF-8 bytes
//!   ([`Fingerprinter::fingerprint`](crate::Fingerprinter::fingerprint)), or
//!   digests raw bytes ([`TlshFingerprinter::sketch_bytes`]).
//! * [`TlshStreaming`] digests raw bytes fed in chunks, in constant memory;
//!   the digest equals `sketch_bytes` of the concatenation for every
//!   chunking. It does **not** canonicalize.
//! * [`TlshTextStreaming`] ([`TlshFingerprinter::streaming`]) canonicalizes
//!   text fed in chunks and digests it: `fingerprint`'s digest, in bounded
//!   memory.
//! * [`TlshFingerprint`] is a validated digest: `T1` + 70 hex digits,
//!   stored in upper case.
//!
//! Digests are those of the reference TLSH 128/1 (`T1` prefix; `py-tlsh`
//! 5's `tlsh.hash`), identical to txtfp 0.3.2's (which used the `tlsh2`
//! crate). This module computes them itself (`histogram`, with an AVX-512
//! VBMI kernel where the CPU has it, and `digest`); the tests compare it
//! with tlsh2 and py-tlsh. Distances still come from tlsh2. Needs only `alloc` (works without `std`); [`TlshStreaming`]
//! implements `std::io::Write` under `std`.
//!
//! Differences from 0.3.2 (COMPAT.md W10): the digest string is still the
//! public field `hex`, but it is validated where it is used (distance,
//! serialization) as well as where it is made, and equality, hashing and
//! ordering compare it with hex letters in upper case, so two spellings of
//! one digest are one value. Inputs longer than `u32::MAX` bytes are
//! rejected instead of wrapping TLSH's length field.
//!
//! ```
//! use txtfp::{Canonicalizer, Fingerprinter, TlshFingerprinter, tlsh_distance};
//! let fp = TlshFingerprinter::new(Canonicalizer::default());
//! let text = "the quick brown fox jumps over the lazy dog at noon today\n\
//!             the slow grey wolf creeps under the loud ravens at dusk\n";
//! let a = fp.fingerprint(text)?;
//! assert_eq!(
//!     a.hex(),
//!     "T1EFB02B0A1005D3D01CC116AD474F55F550CC8110110210000828E00304000320E6D0D5"
//! );
//! let b = fp.fingerprint(&text.replace("noon", "dusk"))?;
//! assert_eq!(tlsh_distance(&a, &b)?, 116);
//! # Ok::<(), txtfp::Error>(())
//! ```

mod digest;
mod fingerprint;
mod fingerprinter;
pub(crate) mod histogram;
#[cfg(feature = "serde")]
mod serde_impl;
mod streaming;
pub(crate) mod tables;
mod text_streaming;

#[cfg(test)]
mod tests;

use alloc::format;

pub use fingerprint::{TLSH_HEX_LEN, TlshFingerprint};
pub use fingerprinter::TlshFingerprinter;
pub use streaming::TlshStreaming;
pub use text_streaming::TlshTextStreaming;

use crate::{Error, Result};

/// The fewest input bytes TLSH digests (fewer → `InvalidInput`).
pub const TLSH_MIN_INPUT_BYTES: usize = 50;

/// The most input bytes TLSH digests: its length field is computed from a
/// 32-bit length (0.3.2 silently wrapped above it).
pub const TLSH_MAX_INPUT_BYTES: u64 = u32::MAX as u64;

/// The algorithm part of [`TlshFingerprinter::config_hash`]'s input.
pub(crate) const ALGORITHM_CONFIG: &str = "tlsh-128-1";

/// The reference TLSH difference of two digests, **including** the length
/// term: 0 for equal digests, larger for more different inputs (the
/// literature treats `< 50` as very similar for 128/1; unrelated text is
/// usually well above 200).
///
/// It is the sum of
/// * the length term: `d = |Δ lvalue|` (mod 256); `0 → 0`, `1 → 1`, else `12·d`;
/// * the two quartile-ratio terms: `d = |Δ q|` (mod 16); `≤ 1 → d`, else `12·(d−1)`;
/// * `1` if the checksums differ;
/// * the body distance over the 128 two-bit codes (`|Δ|`, with `3` counting `6`).
///
/// # Errors
/// `InvalidInput("invalid TLSH hex string of length {n}")` (0.3.2's message)
/// when either digest does not parse: possible only for a digest written
/// into the public [`TlshFingerprint::hex`] field, since every value this
/// crate makes is valid.
///
/// ```
/// use txtfp::{TlshFingerprint, tlsh_distance};
/// let a: TlshFingerprint =
///     "T1EFB02B0A1005D3D01CC116AD474F55F550CC8110110210000828E00304000320E6D0D5".parse()?;
/// let b = TlshFingerprint::new(format!("T1{}", a.hex()[2..].to_ascii_lowercase()))?;
/// assert_eq!(a, b);
/// assert_eq!(tlsh_distance(&a, &b)?, 0);
/// # Ok::<(), txtfp::Error>(())
/// ```
pub fn tlsh_distance(a: &TlshFingerprint, b: &TlshFingerprint) -> Result<i32> {
    Ok(parse(a)?.diff(&parse(b)?, true))
}

/// tlsh2's digest, after our own validation (so that tlsh2's parser only
/// ever sees `T1` and 70 upper-case hex digits, whatever was written into
/// the public field).
fn parse(f: &TlshFingerprint) -> Result<tlsh2::Tlsh128_1> {
    let invalid =
        || Error::InvalidInput(format!("invalid TLSH hex string of length {}", f.hex.len()));
    f.validate().map_err(|_| invalid())?;
    let upper = if f.hex.bytes().any(|b| b.is_ascii_lowercase()) {
        alloc::borrow::Cow::Owned(f.hex.to_ascii_uppercase())
    } else {
        alloc::borrow::Cow::Borrowed(f.hex.as_str())
    };
    upper.parse().map_err(|_| invalid())
}

/// `InvalidInput` when `n` bytes are too many for TLSH's length field.
pub(crate) fn check_max_len(n: u64) -> Result<()> {
    if n > TLSH_MAX_INPUT_BYTES {
        return Err(Error::InvalidInput(format!(
            "tlsh input exceeds {TLSH_MAX_INPUT_BYTES} bytes, got {n}"
        )));
    }
    Ok(())
}

/// Digest of the bytes `hist` has seen, with 0.3.2's errors: too short,
/// then too little entropy.
pub(crate) fn build(hist: &histogram::Histogram) -> Result<TlshFingerprint> {
    let len = hist.len;
    if len < TLSH_MIN_INPUT_BYTES as u64 {
        return Err(Error::InvalidInput(format!(
            "tlsh requires at least {TLSH_MIN_INPUT_BYTES} bytes, got {len}"
        )));
    }
    check_max_len(len)?;
    let text = digest::digest(hist)
        .ok_or_else(|| Error::InvalidInput("tlsh build failed (insufficient entropy)".into()))?;
    TlshFingerprint::from_ascii(&text)
}
