//! Containment search: LSH Ensemble (Zhu, Nargesian, Pu, Miller; VLDB 2016).
//!
//! Jaccard similarity penalises size differences: a paragraph that appears
//! whole inside a long document has a small Jaccard similarity with it. The
//! containment `|Q ∩ X| / |Q|` of the query `Q` in a stored set `X` does not,
//! and an [`LshEnsemble`] finds the sets whose containment of a query reaches
//! a threshold chosen per query.
//!
//! It converts the containment threshold into a Jaccard threshold, which
//! depends on `|X|`; so the sets are cut into partitions by size and each
//! partition is tuned on its own, with its largest size standing for every
//! set in it. The cuts minimise the false positives that stand-in causes
//! (the paper's optimal partitioning, by a dynamic program over the
//! distinct sizes; [`Partitioning`]). Each partition keeps band tables for every band
//! width `r ≤ max_rows` (the first `num_perm / r` bands of `r` slots), and a
//! query chooses per partition the `(bands, rows)` that minimise the
//! expected false positives plus false negatives (the paper's integrals,
//! computed by quadrature and cached per threshold and size ratio; see
//! [`LshEnsemble::bandings`]). Partitions whose largest set is smaller than
//! `threshold · |Q|` cannot qualify and are skipped.
//!
//! Results are candidates; [`LshEnsemble::query_estimated`] filters them by
//! the containment estimated from the signatures, and
//! [`LshEnsemble::query_verified`] by the exact containment from the sets.
//!
//! ```
//! use std::collections::HashSet;
//! use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, WordTokenizer};
//! use txtfp::lsh::ensemble::LshEnsembleBuilder;
//!
//! let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
//! let words = |text: &str| -> HashSet<String> {
//!     text.split_whitespace().map(str::to_owned).collect()
//! };
//! let long: String = (0..200).map(|i| format!("w{i} ")).collect();
//! let other: String = (500..700).map(|i| format!("w{i} ")).collect();
//! let docs = [(1, long.as_str()), (2, other.as_str())];
//!
//! let mut builder = LshEnsembleBuilder::<128>::new();
//! for (id, text) in docs {
//!     builder.insert(id, &fp.fingerprint(text)?, words(text).len() as u64)?;
//! }
//! let index = builder.build()?;
//!
//! // A quarter of document 1: contained in it (containment 1), yet with a
//! // Jaccard similarity of only 0.25.
//! let query: String = (50..100).map(|i| format!("w{i} ")).collect();
//! let (sig, q) = (fp.fingerprint(&query)?, words(&query));
//! assert_eq!(index.query(&sig, q.len() as u64, 0.8)?, [1]);
//!
//! let exact = index.query_verified(&sig, q.len() as u64, 0.8, |id| {
//!     let text = docs.iter().find(|d| d.0 == id).unwrap().1;
//!     words(text).intersection(&q).count() as u64
//! })?;
//! assert_eq!(exact, [(1, 1.0)]);
//! assert!(index.query(&sig, 0, 0.8).is_err()); // an empty query
//! assert!(index.query(&sig, 50, 1.5).is_err()); // threshold outside (0, 1]
//! # Ok::<(), txtfp::Error>(())
//! ```
//!
//! # Cost
//!
//! About `12 · Σᵣ num_perm / r` bytes of tables per set (4.1 KiB at 128
//! slots and `max_rows` 8) plus its signature; build sorts each table once.
//! The byte format ([`LshEnsemble::to_bytes`]) stores the sets and
//! parameters only and rebuilds the tables on load.

mod builder;
mod bytes;
mod index;
mod partition;
#[cfg(test)]
mod tests;
mod tune;

pub use builder::{
    DEFAULT_MAX_ROWS, DEFAULT_PARTITIONS, LshEnsembleBuilder, MAX_ENTRIES, MAX_PARTITIONS,
};
pub use bytes::ENSEMBLE_FORMAT_VERSION;
pub use index::{LshEnsemble, containment_from_jaccard};
pub use partition::Partitioning;
