//! MinHash: fixed-size signatures whose slot agreement estimates the Jaccard
//! similarity of two documents' token sets.
//!
//! * [`MinHashFingerprinter`] (and [`MinHashFingerprinterBuilder`]) turn a
//!   document into a [`MinHashSig`]; [`MinHashStreaming`] does the same from
//!   byte chunks.
//! * [`jaccard`] compares two signatures.
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

#[cfg(all(test, feature = "std"))]
mod golden_tests;

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
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sig<const H: usize>(hashes: [u64; H]) -> MinHashSig<H> {
        MinHashSig {
            schema: SCHEMA_VERSION,
            _pad: [0; 6],
            hashes,
        }
    }

    #[test]
    fn constants() {
        assert_eq!(SCHEMA_VERSION, 1);
        assert_eq!(DEFAULT_MAX_BUFFER_BYTES, 16_777_216);
    }

    #[test]
    fn jaccard_edge_cases() {
        assert_eq!(jaccard(&sig([]), &sig([])), 0.0);
        assert_eq!(jaccard(&sig([7]), &sig([7])), 1.0);
        assert_eq!(jaccard(&sig([7]), &sig([8])), 0.0);
        let e = MinHashSig::<128>::empty();
        assert_eq!(jaccard(&e, &e), 1.0);
        // Schema and pad are not looked at.
        let mut odd = sig([1, 2, 3]);
        odd.schema = 9;
        odd._pad = [1; 6];
        assert_eq!(jaccard(&odd, &sig([1, 2, 4])), 2.0 / 3.0);
    }

    proptest! {
        #[test]
        fn jaccard_is_equal_count_over_h(
            a in proptest::array::uniform32(0u64..4),
            b in proptest::array::uniform32(0u64..4),
        ) {
            let want = a.iter().zip(&b).filter(|(x, y)| x == y).count() as f32 / 32.0;
            prop_assert_eq!(jaccard(&sig(a), &sig(b)), want);
            prop_assert_eq!(jaccard(&sig(a), &sig(b)), jaccard(&sig(b), &sig(a)));
        }

        #[test]
        fn jaccard_odd_width(
            a in proptest::array::uniform13(0u64..3),
            b in proptest::array::uniform13(0u64..3),
        ) {
            let want = a.iter().zip(&b).filter(|(x, y)| x == y).count() as f32 / 13.0;
            prop_assert_eq!(jaccard(&sig(a), &sig(b)), want);
        }
    }
}
