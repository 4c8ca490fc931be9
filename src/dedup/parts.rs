//! The definition of a run (see the [module](super) documentation), piece by
//! piece, for engines that spread one over many machines.
//!
//! A distributed engine (the Python package's Spark path) reaches the
//! clusters of [`MinHashDedup`] on the same documents, taken in the same
//! order, by computing these pieces where the data lives and joining them by
//! key: the content key of every text, the band keys of every signature,
//! and, for exact verification, the token set of each document of a
//! candidate pair.
//!
//! ```
//! use txtfp::Fingerprinter;
//! use txtfp::dedup::{MinHashDedup, parts};
//! let dedup = MinHashDedup::new();
//! let (a, b) = ("one two three four five six seven", "one two three four five six eight");
//! assert_eq!(parts::content_key(a), parts::content_key(a));
//! let sig = dedup.fingerprinter().fingerprint(a)?;
//! let banding = dedup.banding()?;
//! assert_eq!(parts::band_keys(&sig.hashes, banding.rows)?.len(), banding.bands);
//! let j = parts::set_jaccard(&dedup.token_set(a), &dedup.token_set(b));
//! assert_eq!(j, 2.0 / 4.0); // shingles of 5 words: 3 each, 2 shared
//! # Ok::<(), txtfp::Error>(())
//! ```

use alloc::format;
use alloc::vec::Vec;

use super::MinHashDedup;
use crate::tokenize::Tokenizer;
use crate::{Error, Result};

pub use super::exact::set_jaccard;

/// The content key of a text: `xxh3_128` of its raw UTF-8 bytes, before any
/// canonicalization. Documents with equal keys are exact copies; a run links
/// every copy to the first document with the key and fingerprints only that
/// one.
///
/// ```
/// use txtfp::dedup::parts::content_key;
/// assert_eq!(content_key("a b c"), content_key("a b c"));
/// assert_ne!(content_key("a b c"), content_key("A b c"));
/// ```
pub fn content_key(text: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes())
}

/// The keys of the bands of a signature's `slots` cut into runs of `rows`,
/// in band order: the keys [`MinHashDedup`] and
/// [`LshCandidateIndex`](crate::LshCandidateIndex) bucket documents by
/// (XXH3-64 of each band's slots as little-endian bytes).
///
/// # Errors
/// [`Error::Config`] when `rows` is zero or does not divide the number of
/// slots.
pub fn band_keys(slots: &[u64], rows: usize) -> Result<Vec<u64>> {
    if rows == 0 || !slots.len().is_multiple_of(rows) {
        return Err(Error::Config(format!(
            "band rows ({rows}) must be non-zero and divide the {} slots",
            slots.len()
        )));
    }
    Ok(crate::lsh::band_keys(slots, rows).collect())
}

impl<T: Tokenizer, const H: usize> MinHashDedup<T, H> {
    /// The token set exact verification compares for `text`: the sorted,
    /// distinct 64-bit hashes of its tokens under this run's canonicalizer,
    /// tokenizer, hash family and seed. The exact Jaccard of two documents
    /// is [`set_jaccard`] of their sets; a run verifies a pair when it is
    /// at least the threshold.
    pub fn token_set(&self, text: &str) -> Vec<u64> {
        let fp = self.fingerprinter();
        let maker = super::exact::SetMaker {
            canon: fp.canonicalizer(),
            tok: fp.tokenizer(),
            family: fp.hasher(),
            seed: fp.seed(),
        };
        let mut out = Vec::new();
        maker.token_set_into(text, &mut alloc::string::String::new(), &mut out);
        out
    }
}
