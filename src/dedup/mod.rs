//! Corpus deduplication: `(id, text)` documents in, a keep/drop decision per
//! document out.
//!
//! A run
//! 1. fingerprints every document (on the rayon pool with the `parallel`
//!    feature, one after another without it);
//! 2. indexes the fingerprints and asks the index for *candidate* pairs;
//! 3. *verifies* each candidate pair: Jaccard at or above the threshold for
//!    [`MinHashDedup`] (estimated from the signatures, or exact over the
//!    token sets, see [`Verification`]), Hamming distance at most `k` for
//!    `SimHashDedup` (`simhash` feature);
//! 4. merges verified pairs into clusters (connected components, by
//!    union-find);
//! 5. keeps one document per cluster: the first in input order, or the one
//!    a caller-supplied priority ranks highest.
//!
//! The result, a [`DedupReport`], does not depend on the number of threads.
//!
//! ```
//! use txtfp::dedup::{MinHashDedup, Similarity, Verification};
//! let docs = vec![
//!     (1, "Deduplication removes repeated documents from a training corpus before use."),
//!     (2, "Tokenizers split canonical text into words, graphemes or shingles of words."),
//!     (3, "Deduplication removes repeated documents from a training corpus before use!"),
//!     (4, "deduplication removes repeated documents from a training corpus before use"),
//! ];
//! let report = MinHashDedup::new()
//!     .with_verification(Verification::Exact)
//!     .with_record_pairs(true)
//!     .run(docs)?;
//! assert_eq!(report.kept_ids().collect::<Vec<_>>(), [1, 2]);
//! assert_eq!(report.clusters[0].members, [1, 3, 4]);
//! assert_eq!(report.decisions[3].similarity, Some(Similarity::Jaccard(1.0)));
//! assert_eq!((report.stats.kept, report.stats.dropped, report.pairs.len()), (2, 2, 3));
//! # Ok::<(), txtfp::Error>(())
//! ```
//!
//! # Cost
//!
//! Fingerprints are fixed-size; [`Verification::Exact`] also holds the
//! token hashes (8 bytes per distinct token) of every document that has a
//! candidate. A group of `m` near-identical documents yields `m²/2`
//! candidate pairs: with pairs recorded all of them are compared and
//! listed, otherwise a candidate already in the same cluster is skipped.

mod banding;
mod engine;
mod exact;
#[cfg(feature = "external")]
pub mod external;
mod minhash;
mod report;
#[cfg(feature = "simhash")]
mod simhash;
mod union_find;

#[cfg(test)]
mod tests;

use alloc::vec::Vec;

pub use banding::DEFAULT_RECALL;
pub use minhash::MinHashDedup;
pub use report::{Cluster, Decision, DedupReport, DedupStats, Similarity, VerifiedPair};
#[cfg(feature = "simhash")]
pub use simhash::SimHashDedup;

use crate::Result;

/// How [`MinHashDedup`] checks the candidate pairs the index returns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Verification {
    /// Every candidate is a duplicate: the raw output of the banded index,
    /// with its false positives. The reported similarity is the estimate.
    None,
    /// Estimated Jaccard of the two MinHash signatures (the fraction of
    /// equal slots) at or above the threshold. Cheap; near the threshold the
    /// estimate errs both ways (standard deviation `√(J(1−J)/H)`, 0.035 at
    /// `J = 0.8`, `H = 128`): about 0.97 precision and recall on the
    /// bundled corpora at 0.8.
    Estimated,
    /// Exact Jaccard of the two documents' token sets (the quantity MinHash
    /// estimates) at or above the threshold: no false positives, and (with
    /// the default banding) precision and recall 1.000 on corpus-small and
    /// corpus-large at 0.5–0.9. Costs a second tokenization of every document
    /// that has a candidate (about a third more time). The default.
    #[default]
    Exact,
}

/// Which MinHash scheme [`MinHashDedup`] fingerprints with.
///
/// ```
/// use txtfp::dedup::{MinHashDedup, MinHashScheme};
/// let docs = [
///     "the quick brown fox jumps over the lazy dog near the river bank today",
///     "an entirely different document about astronomy and distant galaxies",
///     "The quick brown fox jumps over the lazy dog near the river bank today!",
/// ];
/// let report = MinHashDedup::new().with_scheme(MinHashScheme::Fast).run_texts(&docs)?;
/// assert_eq!(report.kept_ids().collect::<Vec<_>>(), [0, 1]);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum MinHashScheme {
    /// [`MinHashFingerprinter`](crate::MinHashFingerprinter): txtfp
    /// 0.3.2's signatures. The default.
    #[default]
    Default,
    /// [`FastMinHashFingerprinter`](crate::classical::minhash::FastMinHashFingerprinter) with
    /// the fingerprinter's canonicalizer, tokenizer and seed (its hash
    /// family is not used): about 1.8× faster to fingerprint, and its
    /// Jaccard estimates are at least as accurate. The banding, the
    /// verification and the report are the same; exact verification does
    /// not depend on the scheme at all.
    Fast,
}

/// What a run does with a document that yields no token (e.g. `""`,
/// `"   "`, or fewer characters than one token needs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum EmptyDocuments {
    /// Fail the run with [`Error::InvalidInput`](crate::Error::InvalidInput)
    /// naming the first such document.
    #[default]
    Error,
    /// Keep it, compared with nothing.
    Keep,
    /// Drop it, compared with nothing (`duplicate_of` stays `None`).
    Drop,
}

/// An index that proposes candidate pairs. Documents are inserted under
/// their input position; [`candidates`](Self::candidates) returns positions
/// without repeats, in any order, possibly including the probe itself, and
/// must be symmetric (`a` proposes `b` iff `b` proposes `a`): each pair is
/// handled only by its later document.
pub(crate) trait CandidateIndex<Sig>: Sync {
    /// Adds `(position, signature)` pairs, positions fresh and ascending.
    fn insert_batch(&mut self, docs: Vec<(u64, Sig)>) -> Result<()>;
    /// Positions of the documents that may be near `sig`.
    fn candidates(&self, sig: &Sig) -> Vec<u64>;
}

/// Decides whether a candidate pair (by input positions, `a < b`) is a
/// duplicate.
pub(crate) trait Verifier: Sync {
    /// The pair's similarity when it passes, `None` when it does not.
    fn verify(&self, a: usize, b: usize) -> Option<Similarity>;
    /// The pair's similarity whether or not it passes; `None` only when a
    /// document has no fingerprint.
    fn similarity(&self, a: usize, b: usize) -> Option<Similarity>;
}
