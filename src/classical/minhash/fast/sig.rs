//! [`FastMinHashSig`]: the fast scheme's signature and its byte format.

use alloc::vec::Vec;
use core::fmt;

use super::FAST_SCHEMA;
use crate::classical::minhash::slots::{self, SlotSig};
use crate::{Error, Result};

/// A fast-scheme MinHash signature with `H` slots (see
/// [`FastMinHashFingerprinter`](super::FastMinHashFingerprinter)).
///
/// The layout mirrors [`MinHashSig`](crate::MinHashSig) (`repr(C)`,
/// `8 + 8·H` bytes: a `u16` schema word, six zero bytes, the slots), but
/// the schema word is [`FAST_SCHEMA`] (`0x4601`), never `1`: bytes, serde
/// and text forms of one type are rejected by the other, and the two types
/// cannot be mixed in Rust code.
///
/// ```
/// use txtfp::FastMinHashSig;
/// let sigs = [FastMinHashSig::<4>::empty(); 2];
/// let bytes: &[u8] = bytemuck::cast_slice(&sigs);
/// assert_eq!(bytes.len(), 2 * (8 + 8 * 4));
/// ```
///
/// The default scheme's [`jaccard`](crate::jaccard) does not take it:
///
/// ```compile_fail
/// use txtfp::{FastMinHashSig, MinHashSig};
/// let _ = txtfp::jaccard(&FastMinHashSig::<4>::empty(), &MinHashSig::<4>::empty());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(C)]
pub struct FastMinHashSig<const H: usize> {
    /// Scheme tag and version of this layout, [`FAST_SCHEMA`].
    pub schema: u16,
    /// Always zero (explicit padding, so every byte is initialized).
    pub _pad: [u8; 6],
    /// The `H` slot values.
    pub hashes: [u64; H],
}

// SAFETY: every field is an integer or an integer array, for which the
// all-zero bit pattern is valid. (By hand: bytemuck's derives refuse generic
// structs and `[u64; H]` is Zeroable for all H only behind a feature.)
unsafe impl<const H: usize> bytemuck::Zeroable for FastMinHashSig<H> {}

// SAFETY: `repr(C)` puts `schema` at 0 (2 bytes), `_pad` at 2 (6 bytes) and
// `hashes` at 8 (align 8, 8·H bytes); the size 8 + 8·H is a multiple of the
// alignment 8, so there is no padding anywhere (checked by a test). All
// fields are plain integers: every bit pattern is valid, no pointers, no
// interior mutability; the type is `Copy + 'static` and `Zeroable`.
unsafe impl<const H: usize> bytemuck::Pod for FastMinHashSig<H> {}

impl<const H: usize> FastMinHashSig<H> {
    /// A signature with every slot `u64::MAX` (no fingerprint produces
    /// it: real slot values stay below `2⁶⁴ − 2⁴⁰`).
    ///
    /// ```
    /// let e = txtfp::FastMinHashSig::<2>::empty();
    /// assert_eq!((e.schema, e.hashes), (txtfp::FAST_SCHEMA, [u64::MAX; 2]));
    /// ```
    pub const fn empty() -> Self {
        Self {
            schema: FAST_SCHEMA,
            _pad: [0; 6],
            hashes: [u64::MAX; H],
        }
    }

    /// The number of slots, `H`.
    pub const fn slot_count(&self) -> usize {
        H
    }

    /// Estimated Jaccard similarity: the fraction of slots on which the two
    /// signatures agree (`0.0` when `H = 0`). Compare only signatures of the
    /// same configuration ([`config_hash`](super::FastMinHashFingerprinter::config_hash)).
    ///
    /// ```
    /// use txtfp::FastMinHashSig;
    /// let a = FastMinHashSig::<4> { hashes: [1, 2, 3, 4], ..FastMinHashSig::empty() };
    /// let b = FastMinHashSig::<4> { hashes: [1, 2, 0, 0], ..FastMinHashSig::empty() };
    /// assert_eq!(a.jaccard(&b), 0.5);
    /// ```
    pub fn jaccard(&self, other: &Self) -> f32 {
        if H == 0 {
            return 0.0;
        }
        super::super::kernel::count_equal(&self.hashes, &other.hashes) as f32 / H as f32
    }

    /// The in-memory bytes (`8 + 8·H`, host byte order; equal to
    /// [`Self::to_le_bytes`] on little-endian hosts).
    ///
    /// ```
    /// let s = txtfp::FastMinHashSig::<1> { hashes: [0], ..txtfp::FastMinHashSig::empty() };
    /// # #[cfg(target_endian = "little")]
    /// assert_eq!(s.as_bytes(), [1, 0x46, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::bytes_of(self)
    }

    /// The persisted format on every host: schema (2 bytes LE, so the file
    /// starts `01 46`), six zero bytes, each slot as 8 bytes LE.
    ///
    /// ```
    /// let s = txtfp::FastMinHashSig::<1> { hashes: [0x0102], ..txtfp::FastMinHashSig::empty() };
    /// assert_eq!(s.to_le_bytes(), [1, 0x46, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0]);
    /// ```
    pub fn to_le_bytes(&self) -> Vec<u8> {
        slots::to_le_bytes(self)
    }

    /// Parses the bytes of [`Self::to_le_bytes`] (any alignment).
    ///
    /// # Errors
    /// - [`Error::InvalidInput`] if `bytes.len() != 8 + 8·H`;
    /// - [`Error::SchemaMismatch`] if the schema word is not [`FAST_SCHEMA`]
    ///   (a default-scheme [`MinHashSig`](crate::MinHashSig) has `1`);
    /// - [`Error::InvalidInput`] if a pad byte is not zero.
    ///
    /// ```
    /// use txtfp::{FastMinHashSig, MinHashSig};
    /// let fast = FastMinHashSig::<2> { hashes: [5, 7], ..FastMinHashSig::empty() };
    /// assert_eq!(FastMinHashSig::<2>::from_bytes(&fast.to_le_bytes())?, fast);
    /// let default = MinHashSig::<2>::empty().to_le_bytes();
    /// let err = FastMinHashSig::<2>::from_bytes(&default).unwrap_err();
    /// assert_eq!(err.to_string(), "schema version mismatch: expected 17921, got 1");
    /// assert!(MinHashSig::<2>::from_bytes(&fast.to_le_bytes()).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        slots::from_bytes(bytes)
    }
}

impl<const H: usize> SlotSig<H> for FastMinHashSig<H> {
    const NAME: &'static str = "FastMinHashSig";
    const SCHEMA: u16 = FAST_SCHEMA;
    #[cfg(feature = "serde")]
    const SERDE_SCHEMA_NOTE: &'static str = " (a FastMinHashSig)";

    fn parts(&self) -> (u16, [u8; 6], &[u64; H]) {
        (self.schema, self._pad, &self.hashes)
    }

    fn with_hashes(hashes: [u64; H]) -> Self {
        Self {
            hashes,
            ..Self::empty()
        }
    }
}

impl<const H: usize> TryFrom<&[u8]> for FastMinHashSig<H> {
    type Error = Error;

    /// Same as [`FastMinHashSig::from_bytes`].
    fn try_from(bytes: &[u8]) -> Result<Self> {
        Self::from_bytes(bytes)
    }
}

/// `FastMinHashSig<H>[` + the first `min(4, H)` slots in hex + `, ..+{H-4}
/// more` when `H > 4` + `]`.
///
/// ```
/// let s = txtfp::FastMinHashSig::<5> { hashes: [1, 2, 3, 4, 5], ..txtfp::FastMinHashSig::empty() };
/// assert_eq!(
///     s.to_string(),
///     "FastMinHashSig<5>[0000000000000001, 0000000000000002, 0000000000000003, 0000000000000004, ..+1 more]"
/// );
/// ```
impl<const H: usize> fmt::Display for FastMinHashSig<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        slots::fmt_display(self, f)
    }
}
