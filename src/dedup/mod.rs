//! Corpus deduplication: `(id, text)` documents in, a keep/drop decision per
//! document out.
//!
//! A run
//! 1. collapses exact copies: a document whose text repeats an earlier one
//!    byte for byte is linked to that one and not fingerprinted;
//! 2. fingerprints every other document (on the rayon pool with the
//!    `parallel` feature, one after another without it);
//! 3. forms *candidate* pairs: star edges in the band buckets for
//!    [`MinHashDedup`], every pair within `k` bits for `SimHashDedup`
//!    (`simhash` feature);
//! 4. *verifies* each candidate pair: Jaccard at or above the threshold for
//!    [`MinHashDedup`] (estimated from the signatures, or exact over the
//!    token sets, see [`Verification`]), Hamming distance at most `k` for
//!    `SimHashDedup`;
//! 5. merges the verified pairs and the collapse links into clusters
//!    (connected components, by union-find);
//! 6. keeps one document per cluster: the first in input order, or the one
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
//! // Star edges: 1–3 and 1–4, not 3–4.
//! assert_eq!((report.stats.kept, report.stats.dropped, report.pairs.len()), (2, 2, 2));
//! # Ok::<(), txtfp::Error>(())
//! ```
//!
//! # The definition of a run
//!
//! Positions `0..n` are input order. The *content key* of a document is
//! `xxh3_128` of its raw text bytes, as given (before canonicalization). A
//! document whose content key equals that of an earlier document is an
//! *exact copy* of the *first* document with that key: it is not
//! fingerprinted and joins no bucket or index. It is linked to that first
//! document with similarity `Jaccard(1.0)` ([`MinHashDedup`], whatever the
//! verification) or `Hamming(0)` (`SimHashDedup`), unless the first
//! document has no token: then its copies have none either and the
//! [`EmptyDocuments`] policy treats them like it (never linked).
//!
//! **[`MinHashDedup`].** For every fingerprinted document with a token and
//! every band `b` of the run's banding (`bands × rows`), the band key is
//! the one an [`LshCandidateIndex`](crate::LshCandidateIndex) of that
//! banding computes: the unseeded XXH3-64 of the little-endian bytes of
//! slots `b·rows .. (b+1)·rows` (see [`lsh`](crate::lsh)). A *bucket* is the
//! set of documents with equal `(b, key)`; its *representative* is its
//! smallest position. Every other member `m` of a bucket gives the
//! candidate pair `(representative, m)`; a pair that several bands give is
//! one candidate, and two members that are not the representative are
//! never paired by that bucket. Each distinct candidate pair is verified by
//! the [`Verification`] mode: exact Jaccard of the token-hash sets at or
//! above the threshold, the signatures' estimated Jaccard at or above it,
//! or no check at all.
//!
//! **`SimHashDedup`.** Among the fingerprinted documents with a token, one
//! whose 64-bit signature equals that of an earlier one is linked to the
//! first document with that value at `Hamming(0)`, with no index query.
//! Only the first document of each value goes into the index and queries
//! it; a value found there stands for every document with that value. Every
//! pair of those first documents within `k` bits is a candidate pair and is
//! verified by its distance. The clusters are those of "every pair within
//! `k` bits", since pairs at distance 0 always pass.
//!
//! **Clusters and decisions.** The clusters are the connected components,
//! with two or more members, of the verified pairs plus the collapse links
//! (exact copies, and equal SimHash values). Each keeps its smallest
//! position, or under `run_by_priority` the member with the largest key
//! (ties to the smallest position). Every other member is dropped with
//! `duplicate_of` its cluster's kept document and `similarity` measured
//! between the two (`Jaccard(1.0)` or `Hamming(0)` when they have the same
//! content key); a cluster can chain documents through intermediate ones,
//! so that similarity may fail the threshold.
//!
//! **Pairs and counts.** With `with_record_pairs(true)`,
//! [`DedupReport::pairs`] lists the links the clusters were built from,
//! sorted by the positions `(a, b)`, `a < b`: the verified candidate pairs
//! and the collapse links, not every pair within a cluster.
//! [`DedupStats::candidate_pairs`] counts the distinct candidate pairs plus
//! the collapse links; every one of them is compared (`compared_pairs`
//! equals it), and `verified_pairs` counts those that passed plus the
//! collapse links, which is the length of `pairs` when they are recorded.
//!
//! # Cost
//!
//! A [`MinHashDedup`] run forms at most `bands` candidate pairs per distinct
//! text (each document meets one representative per band), so `n` copies of
//! one boilerplate page, or `n` pages that share most bands, cost a number
//! of comparisons linear in `n`. It holds the band keys and representatives
//! (12 bytes per band and distinct text), and the signatures only for
//! [`Verification::Estimated`] and [`Verification::None`];
//! [`Verification::Exact`] instead holds the token hashes (8 bytes per
//! distinct token) of the bucket representatives and kept documents, and
//! tokenizes every other document it compares once more. Exact copies cost
//! a hash of their bytes. A `SimHashDedup` run queries its index once per
//! distinct signature value; distinct values that lie within `k` bits of
//! each other still pair up all-against-all.

mod banding;
mod engine;
mod exact;
#[cfg(feature = "external")]
pub mod external;
mod minhash;
pub mod parts;
mod report;
#[cfg(feature = "simhash")]
mod simhash;
mod star;
mod union_find;

#[cfg(test)]
mod tests;

pub use banding::DEFAULT_RECALL;
pub use minhash::MinHashDedup;
pub use report::{Cluster, Decision, DedupReport, DedupStats, Similarity, VerifiedPair};
#[cfg(feature = "simhash")]
pub use simhash::SimHashDedup;

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
    /// `J = 0.8`, `H = 128`): about 0.97 precision, and 0.97–0.99 recall of
    /// the documents an exact all-pairs join drops, on the bundled corpora
    /// at 0.8.
    Estimated,
    /// Exact Jaccard of the two documents' token sets (the quantity MinHash
    /// estimates) at or above the threshold: no false positives. With the
    /// default scheme and banding, at 0.5–0.9, runs drop exactly the
    /// documents an exact all-pairs join drops on corpus-large, and all but
    /// one of them on corpus-small (at 0.8: its two near-duplicates lie in
    /// buckets led by an earlier document it fails against). Costs a second
    /// tokenization of every document that has a candidate (about a third
    /// more time). The default.
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
