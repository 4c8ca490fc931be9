//! [`MinHashSig`]: the fixed-size MinHash signature of either scheme and
//! its byte format.

use alloc::vec::Vec;
use core::fmt;

use super::scheme::{Classic, Scheme, sealed::Sealed};
use super::slots::{self, SlotSig};
use crate::{Error, Result};

/// A MinHash signature with `H` slots, made by the scheme `S`: by default
/// [`Classic`], where slot `i` is the minimum over the document's tokens of
/// `lo + i·hi`, `(lo, hi)` the token's 128-bit hash (see
/// [`MinHashFingerprinter`](super::MinHashFingerprinter)); with
/// [`Fast`](super::Fast) it is a
/// [`FastMinHashSig`](super::fast::FastMinHashSig).
///
/// The layout is fixed (`repr(C)`, `8 + 8·H` bytes, 8-byte aligned, no
/// implicit padding): a `u16` schema word ([`Scheme::SCHEMA`]: `1`, or
/// `0x4601` for the fast scheme), six zero bytes, then the slots. That
/// makes the type [`bytemuck::Pod`], so a slice of signatures can be viewed
/// as bytes without copying:
///
/// ```
/// use txtfp::MinHashSig;
/// let sigs = [MinHashSig::<4>::empty(); 3];
/// let bytes: &[u8] = bytemuck::cast_slice(&sigs);
/// assert_eq!(bytes.len(), 3 * (8 + 8 * 4));
/// ```
///
/// The persisted byte format is little-endian: [`MinHashSig::to_le_bytes`]
/// writes it on every host, [`MinHashSig::from_bytes`] reads it on every
/// host, and [`MinHashSig::as_bytes`] (the in-memory view) equals it on
/// little-endian hosts. Bytes, serde and text forms of one scheme are
/// rejected as the other (the schema word differs), and the two schemes'
/// signatures are different types:
///
/// ```compile_fail
/// use txtfp::MinHashSig;
/// use txtfp::classical::minhash::FastMinHashSig;
/// let _ = txtfp::jaccard(&FastMinHashSig::<4>::empty(), &MinHashSig::<4>::empty());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct MinHashSig<const H: usize, S: Scheme = Classic> {
    /// Schema word of this layout, [`Scheme::SCHEMA`] (`1` by default).
    pub schema: u16,
    /// Always zero (`[u8; 6]` in every scheme); makes the padding before
    /// `hashes` explicit so that every byte of the struct is initialized.
    pub _pad: <S as Sealed>::Pad,
    /// The `H` slot values.
    pub hashes: [u64; H],
}

// SAFETY: the all-zero bit pattern is a valid `MinHashSig<H, S>`: every
// field is an integer or an array of integers (`S::Pad` is `[u8; 6]` for
// every scheme, which `Scheme`'s supertrait fixes), for which zero is a
// valid value. (Written by hand: bytemuck implements its traits for
// `[u64; H]` of every `H` only under its `min_const_generics` feature,
// which this crate does not enable, and its derives refuse generic
// structs.)
unsafe impl<const H: usize, S: Scheme> bytemuck::Zeroable for MinHashSig<H, S> {}

// SAFETY: `Pod` is asserted by hand for the reason given above. The
// requirements hold for every `H` and scheme:
// - `repr(C)` fixes the field order: `schema` at offset 0 (2 bytes), `_pad`
//   (`[u8; 6]`) at 2 (6 bytes), `hashes` at 8 (align 8, 8·H bytes). The
//   struct's size is 8 + 8·H, a multiple of its alignment 8, so there is no
//   padding, neither between fields nor at the end (checked by
//   `layout_has_no_padding`);
// - every field is a plain integer or integer array (u16, [u8; 6],
//   [u64; H]), so every bit pattern is a valid value and there are no
//   pointers or interior mutability; the scheme is a type-level marker that
//   occupies no bytes;
// - the type is `Copy + 'static` and `Zeroable` (above).
unsafe impl<const H: usize, S: Scheme> bytemuck::Pod for MinHashSig<H, S> {}

impl<const H: usize, S: Scheme> MinHashSig<H, S> {
    /// The signature of no tokens: the scheme's schema word, every slot
    /// `u64::MAX` (no fast-scheme fingerprint produces it).
    ///
    /// ```
    /// let e = txtfp::MinHashSig::<2>::empty();
    /// assert_eq!(e.hashes, [u64::MAX; 2]);
    /// assert_eq!(e.schema, 1);
    /// let f = txtfp::classical::minhash::FastMinHashSig::<2>::empty();
    /// assert_eq!((f.schema, f.hashes), (txtfp::classical::minhash::FAST_SCHEMA, [u64::MAX; 2]));
    /// ```
    pub const fn empty() -> Self {
        Self {
            schema: S::SCHEMA,
            _pad: [0; 6],
            hashes: [u64::MAX; H],
        }
    }

    /// The number of slots, `H`.
    pub const fn slot_count(&self) -> usize {
        H
    }

    /// Estimated Jaccard similarity: the fraction of slots on which the two
    /// signatures agree (`0.0` when `H = 0`), as [`jaccard`](super::jaccard)
    /// for the default scheme. Compare only signatures of the same
    /// configuration (the fingerprinter's `config_hash`).
    ///
    /// ```
    /// use txtfp::classical::minhash::FastMinHashSig;
    /// let a = FastMinHashSig::<4> { hashes: [1, 2, 3, 4], ..FastMinHashSig::empty() };
    /// let b = FastMinHashSig::<4> { hashes: [1, 2, 0, 0], ..FastMinHashSig::empty() };
    /// assert_eq!(a.jaccard(&b), 0.5);
    /// ```
    #[inline]
    pub fn jaccard(&self, other: &Self) -> f32 {
        if H == 0 {
            return 0.0;
        }
        super::kernel::count_equal(&self.hashes, &other.hashes) as f32 / H as f32
    }

    /// The in-memory bytes of the signature (`8 + 8·H` of them): schema,
    /// six pad bytes, slots, each in the host's byte order. On little-endian
    /// hosts this is the persisted format; use [`Self::to_le_bytes`] for
    /// bytes that are little-endian on every host.
    ///
    /// ```
    /// let b = txtfp::MinHashSig::<1>::empty();
    /// # #[cfg(target_endian = "little")]
    /// assert_eq!(b.as_bytes(), [1, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255]);
    /// let s = txtfp::classical::minhash::FastMinHashSig::<1> { hashes: [0], ..txtfp::classical::minhash::FastMinHashSig::empty() };
    /// # #[cfg(target_endian = "little")]
    /// assert_eq!(s.as_bytes(), [1, 0x46, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::bytes_of(self)
    }

    /// The persisted format, little-endian on every host: schema (2 bytes
    /// LE; a fast signature starts `01 46`), six zero bytes, each slot as 8
    /// bytes LE.
    ///
    /// ```
    /// let s = txtfp::MinHashSig::<1> { schema: 1, _pad: [0; 6], hashes: [0x0102] };
    /// assert_eq!(s.to_le_bytes(), [1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0]);
    /// let f = txtfp::classical::minhash::FastMinHashSig::<1> { hashes: [0x0102], ..txtfp::classical::minhash::FastMinHashSig::empty() };
    /// assert_eq!(f.to_le_bytes(), [1, 0x46, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0]);
    /// ```
    pub fn to_le_bytes(&self) -> Vec<u8> {
        slots::to_le_bytes(self)
    }

    /// Parse the persisted format (see [`Self::to_le_bytes`]).
    ///
    /// The input needs no particular alignment: slots are decoded one by one
    /// as little-endian words (0.3.2 panicked on unaligned input).
    ///
    /// # Errors
    /// - [`Error::InvalidInput`] if `bytes.len() != 8 + 8·H`;
    /// - [`Error::SchemaMismatch`] if the schema word is not the scheme's
    ///   ([`SCHEMA_VERSION`](super::SCHEMA_VERSION) by default, so a
    ///   fast-scheme signature is refused, and the other way round);
    /// - [`Error::InvalidInput`] if a pad byte is not zero (0.3.2 ignored
    ///   them; a nonzero pad means the bytes are not a signature).
    ///
    /// ```
    /// use txtfp::MinHashSig;
    /// use txtfp::classical::minhash::FastMinHashSig;
    /// let sig = MinHashSig::<2> { schema: 1, _pad: [0; 6], hashes: [5, 7] };
    /// let mut buf = vec![0u8];
    /// buf.extend(sig.to_le_bytes());
    /// assert_eq!(MinHashSig::<2>::from_bytes(&buf[1..])?, sig); // unaligned is fine
    /// let err = MinHashSig::<2>::from_bytes(&buf).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid input: MinHashSig<2> is 24 bytes, got 25");
    /// let err = FastMinHashSig::<2>::from_bytes(&buf[1..]).unwrap_err();
    /// assert_eq!(err.to_string(), "schema version mismatch: expected 17921, got 1");
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        slots::from_bytes(bytes)
    }
}

impl<const H: usize, S: Scheme> SlotSig<H> for MinHashSig<H, S> {
    const NAME: &'static str = S::SIG_NAME;
    const SCHEMA: u16 = S::SCHEMA;
    #[cfg(feature = "serde")]
    const SERDE_SCHEMA_NOTE: &'static str = S::SERDE_SCHEMA_NOTE;

    #[inline]
    fn parts(&self) -> (u16, [u8; 6], &[u64; H]) {
        (self.schema, self._pad, &self.hashes)
    }

    #[inline]
    fn with_hashes(hashes: [u64; H]) -> Self {
        Self {
            hashes,
            ..Self::empty()
        }
    }
}

impl<const H: usize, S: Scheme> TryFrom<&[u8]> for MinHashSig<H, S> {
    type Error = Error;

    /// Same as [`MinHashSig::from_bytes`].
    fn try_from(bytes: &[u8]) -> Result<Self> {
        Self::from_bytes(bytes)
    }
}

/// The type's name (`MinHashSig` or `FastMinHashSig`) and its fields, as a
/// derived `Debug` would print them.
impl<const H: usize, S: Scheme> fmt::Debug for MinHashSig<H, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(S::SIG_NAME)
            .field("schema", &self.schema)
            .field("_pad", &self._pad)
            .field("hashes", &self.hashes)
            .finish()
    }
}

/// `MinHashSig<H>[` (`FastMinHashSig<H>[` for the fast scheme) + the first
/// `min(4, H)` slots as 16 lowercase hex digits, `, `-separated, + `, ..+{H-4}
/// more` when `H > 4`, + `]`.
///
/// ```
/// let s = txtfp::MinHashSig::<6> { schema: 1, _pad: [0; 6], hashes: [1, 2, 3, 4, 5, 6] };
/// assert_eq!(
///     s.to_string(),
///     "MinHashSig<6>[0000000000000001, 0000000000000002, 0000000000000003, 0000000000000004, ..+2 more]"
/// );
/// let f = txtfp::classical::minhash::FastMinHashSig::<5> { hashes: [1, 2, 3, 4, 5], ..txtfp::classical::minhash::FastMinHashSig::empty() };
/// assert_eq!(
///     f.to_string(),
///     "FastMinHashSig<5>[0000000000000001, 0000000000000002, 0000000000000003, 0000000000000004, ..+1 more]"
/// );
/// ```
impl<const H: usize, S: Scheme> fmt::Display for MinHashSig<H, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        slots::fmt_display(self, f)
    }
}

#[cfg(test)]
mod tests;
