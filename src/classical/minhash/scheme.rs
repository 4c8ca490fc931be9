//! The MinHash schemes as types: [`Classic`] (the default, txtfp 0.3.2's
//! signatures) and [`Fast`] (the opt-in fast scheme of
//! [`fast`](super::fast)).
//!
//! Every MinHash type that holds or takes signatures is generic over the
//! scheme: [`MinHashSig<H, S>`](super::MinHashSig),
//! [`MinHashStreaming<T, H, S>`](super::MinHashStreaming) and, with feature
//! `lsh`, `LshIndex<H, S>` and `LshCandidateIndex<H, S>`. The scheme
//! parameter defaults to [`Classic`], so `MinHashSig<128>` is the 0.3.2
//! type; the fast scheme's names (`FastMinHashSig<H>`, `FastLshIndex<H>`,
//! ...) are aliases with `S = Fast`. Signatures of the two schemes are
//! different types, so they cannot be mixed by mistake, while everything
//! they share (layout, slot agreement, banding, files) is written once.
//!
//! The run-time choice between the two, where a type parameter is not
//! wanted, is `dedup::MinHashScheme` (feature `lsh`).
//!
//! ```
//! use txtfp::classical::minhash::{Classic, Fast, Scheme};
//! use txtfp::MinHashSig;
//! use txtfp::classical::minhash::FastMinHashSig;
//! fn schema_of<S: Scheme>(_: &MinHashSig<4, S>) -> u16 {
//!     S::SCHEMA
//! }
//! assert_eq!(schema_of(&MinHashSig::<4>::empty()), Classic::SCHEMA);
//! assert_eq!(schema_of(&FastMinHashSig::<4>::empty()), Fast::SCHEMA);
//! assert_eq!((Classic::SCHEMA, Fast::SCHEMA), (1, 0x4601));
//! ```

use core::fmt::Debug;
use core::hash::Hash;

use super::MinHashSig;
use crate::canonical::Canonicalizer;
use crate::classical::TokenSketch;
use crate::tokenize::Tokenizer;

/// A MinHash scheme: how the slots of a [`MinHashSig`] were computed, and
/// the schema word that tags its persisted forms. Sealed: the crate's two
/// schemes, [`Classic`] and [`Fast`], are the only ones.
pub trait Scheme:
    sealed::Sealed<Pad = [u8; 6]> + Copy + Eq + Ord + Hash + Debug + Send + Sync + 'static
{
    /// The schema word of this scheme's signatures, written first in every
    /// persisted form and required when reading one.
    const SCHEMA: u16;

    /// The signature type's name in messages, `Display` and serde:
    /// `MinHashSig` or `FastMinHashSig`.
    const SIG_NAME: &'static str;

    /// The fingerprinter that makes this scheme's signatures:
    /// [`MinHashFingerprinter`](super::MinHashFingerprinter) or
    /// [`FastMinHashFingerprinter`](super::fast::FastMinHashFingerprinter).
    type Fingerprinter<T: Tokenizer, const H: usize>: StreamSource<T, H, Self>;
}

/// The default MinHash scheme: XXH3-128 (or Murmur3) of each token, slot
/// `i` the minimum of `lo + i·hi`; schema word
/// [`SCHEMA_VERSION`](super::SCHEMA_VERSION) `1`. Byte-compatible with
/// txtfp 0.3.2. A marker type, never constructed.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Classic {}

/// The opt-in fast MinHash scheme (see [`fast`](super::fast)); schema word
/// [`FAST_SCHEMA`](super::fast::FAST_SCHEMA) `0x4601`. A marker type, never
/// constructed.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Fast {}

impl Scheme for Classic {
    const SCHEMA: u16 = super::SCHEMA_VERSION;
    const SIG_NAME: &'static str = "MinHashSig";
    type Fingerprinter<T: Tokenizer, const H: usize> = super::MinHashFingerprinter<T, H>;
}

impl Scheme for Fast {
    const SCHEMA: u16 = super::fast::FAST_SCHEMA;
    const SIG_NAME: &'static str = "FastMinHashSig";
    type Fingerprinter<T: Tokenizer, const H: usize> = super::fast::FastMinHashFingerprinter<T, H>;
}

impl sealed::Sealed for Classic {
    type Pad = [u8; 6];
    #[cfg(feature = "serde")]
    const SERDE_SCHEMA_NOTE: &'static str = "";
    const STREAMING_NAME: &'static str = "MinHashStreaming";
    const INDEX_NAME: &'static str = "LshIndex";
    const CANDIDATE_INDEX_NAME: &'static str = "LshCandidateIndex";
    // 0.3.2's index files have no scheme header.
    const INDEX_MAGICS: Option<IndexMagics> = None;
}

impl sealed::Sealed for Fast {
    type Pad = [u8; 6];
    #[cfg(feature = "serde")]
    const SERDE_SCHEMA_NOTE: &'static str = " (a FastMinHashSig)";
    const STREAMING_NAME: &'static str = "FastMinHashStreaming";
    const INDEX_NAME: &'static str = "FastLshIndex";
    const CANDIDATE_INDEX_NAME: &'static str = "FastLshCandidateIndex";
    const INDEX_MAGICS: Option<IndexMagics> = Some(FAST_INDEX_MAGICS);
}

/// The fast scheme's index files: `TXTFPFMH` with signatures, `TXTFPFMC`
/// with band keys only.
pub(crate) const FAST_INDEX_MAGICS: IndexMagics = IndexMagics {
    full: *b"TXTFPFMH",
    keys: *b"TXTFPFMC",
};

/// The magics of the 16-byte header a scheme's index files start with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexMagics {
    /// Files with signatures (`LshIndex`).
    pub(crate) full: [u8; 8],
    /// Files of band keys only (`LshCandidateIndex`).
    pub(crate) keys: [u8; 8],
}

/// What a scheme's fingerprinter lends the streaming type: its
/// configuration and a sketch that takes tokens as they arrive.
/// Implemented by the two fingerprinters only; it cannot be named outside
/// the crate.
// The bound on `Sketch` names a crate-private trait: that is the point, the
// trait is sealed and only the crate implements or calls it.
#[allow(private_bounds)]
pub trait StreamSource<T: Tokenizer, const H: usize, S: Scheme>: Sized {
    /// The online sketch a stream feeds.
    #[doc(hidden)]
    type Sketch: TokenSketch<Output = MinHashSig<H, S>>;

    /// `self` as the scheme's fingerprinter type (the same type).
    #[doc(hidden)]
    fn into_fingerprinter(self) -> S::Fingerprinter<T, H>;

    /// The canonicalizer applied before tokenizing.
    #[doc(hidden)]
    fn stream_canonicalizer(&self) -> &Canonicalizer;

    /// The tokenizer.
    #[doc(hidden)]
    fn stream_tokenizer(&self) -> &T;

    /// A fresh sketch for a stream capped at `max_bytes`.
    #[doc(hidden)]
    fn stream_sketch(&self, max_bytes: usize) -> Self::Sketch;

    /// Applies a new cap of `max_bytes` to `sketch`.
    #[doc(hidden)]
    fn set_sketch_cap(sketch: &mut Self::Sketch, max_bytes: usize);

    /// A fresh sketch that keeps the cap of `old`.
    #[doc(hidden)]
    fn restart_sketch(&self, old: &Self::Sketch) -> Self::Sketch;

    /// Token hashes `sketch` holds for later (`None`: the scheme holds
    /// none).
    #[doc(hidden)]
    fn kept_hashes(sketch: &Self::Sketch) -> Option<usize>;
}

pub(crate) mod sealed {
    /// The crate-private half of [`Scheme`](super::Scheme): names and the
    /// pad type. Public in a private module, so that no other crate can
    /// implement `Scheme`.
    pub trait Sealed: 'static {
        /// The type of [`MinHashSig::_pad`](crate::MinHashSig::_pad):
        /// `[u8; 6]` in every scheme. Naming the scheme in a field's type
        /// is what lets `MinHashSig` carry it without an extra field, so
        /// that 0.3.2's struct literals keep compiling.
        type Pad: Copy + Eq + core::hash::Hash + core::fmt::Debug + Send + Sync + 'static;
        /// Appended to the expected schema in serde's mismatch message.
        #[cfg(feature = "serde")]
        const SERDE_SCHEMA_NOTE: &'static str;
        /// The streaming type's name in `Debug`.
        const STREAMING_NAME: &'static str;
        /// The LSH index's name in `Debug` and messages.
        const INDEX_NAME: &'static str;
        /// The candidate index's name in `Debug` and messages.
        const CANDIDATE_INDEX_NAME: &'static str;
        /// The header of this scheme's index files, if any.
        const INDEX_MAGICS: Option<super::IndexMagics>;
    }
}

#[cfg(test)]
mod tests;
