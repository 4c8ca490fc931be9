//! MinHash: fixed-size signatures whose slot agreement estimates the Jaccard
//! similarity of two documents' token sets.
//!
//! * [`MinHashFingerprinter`] (and [`MinHashFingerprinterBuilder`]) turn a
//!   document into a [`MinHashSig`]; [`MinHashStreaming`] does the same from
//!   byte chunks.
//! * [`jaccard`] compares two signatures.
//! * [`BBitSignature`] keeps the lowest `b` bits of each slot, with the
//!   bias-corrected estimate.
//!
//! Signatures are byte-identical to txtfp 0.3.2 for the same configuration.
//! Differences from 0.3.2, all on malformed input:
//! [`MinHashSig::from_bytes`] accepts unaligned slices (0.3.2 panicked) and
//! rejects nonzero pad bytes; deserialization (feature `serde`) rejects a
//! schema other than [`SCHEMA_VERSION`] and repeated fields.
//!
//! ```
//! use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, WordTokenizer, jaccard};
//! let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
//! let a = fp.fingerprint("the cat sat on the mat")?;
//! let b = fp.fingerprint("The cat sat on a mat")?;
//! // token sets {the,cat,sat,on,mat} and {the,cat,sat,on,a,mat}: Jaccard 5/6
//! assert!((jaccard(&a, &b) - 5.0 / 6.0).abs() < 0.2);
//! # Ok::<(), txtfp::Error>(())
//! ```

mod bbit;
pub mod fast;
mod fingerprinter;
mod kernel;
pub(crate) mod scheme;
pub(crate) mod shingle_hash;
mod sig;
#[cfg(feature = "serde")]
mod sig_serde;
mod sketch;
mod slots;
#[cfg(feature = "serde")]
mod slots_serde;
mod streaming;

pub use bbit::{BBIT_SCHEMA, BBIT_WIDTHS, BBitSignature};
pub use fast::{FAST_SCHEMA, FastMinHashFingerprinter, FastMinHashSig, FastMinHashStreaming};
#[cfg(feature = "lsh")]
pub use fast::{FastLshCandidateIndex, FastLshIndex};
pub use fingerprinter::{MinHashFingerprinter, MinHashFingerprinterBuilder};
pub(crate) use scheme::StreamSource;
pub use scheme::{Classic, Fast, Scheme};
#[cfg(feature = "lsh")]
pub(crate) use scheme::{FAST_INDEX_MAGICS, IndexMagics};
pub use sig::MinHashSig;
pub(crate) use sketch::MinHashSketch;
pub use streaming::MinHashStreaming;

/// Schema version written into every [`MinHashSig`] and required when
/// reading one back.
pub const SCHEMA_VERSION: u16 = 1;

/// Default cap on the bytes a [`MinHashStreaming`] buffers: 16 MiB.
pub const DEFAULT_MAX_BUFFER_BYTES: usize = 16 * 1024 * 1024;

/// Estimated Jaccard similarity: the fraction of slots on which `a` and `b`
/// agree, `equal slots / H` (`0.0` when `H = 0`).
///
/// Only the slots are compared; it is up to the caller to compare
/// signatures made with the same configuration (see
/// [`MinHashFingerprinter::config_hash`]).
///
/// ```
/// use txtfp::{MinHashSig, jaccard};
/// let a = MinHashSig::<4> { schema: 1, _pad: [0; 6], hashes: [1, 2, 3, 4] };
/// let b = MinHashSig::<4> { schema: 1, _pad: [0; 6], hashes: [1, 2, 0, 0] };
/// assert_eq!(jaccard(&a, &b), 0.5);
/// assert_eq!(jaccard(&a, &a), 1.0);
/// ```
pub fn jaccard<const H: usize>(a: &MinHashSig<H>, b: &MinHashSig<H>) -> f32 {
    if H == 0 {
        return 0.0;
    }
    kernel::count_equal(&a.hashes, &b.hashes) as f32 / H as f32
}

#[cfg(test)]
mod tests;
