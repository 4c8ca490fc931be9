//! What a deduplication run returns: one [`Decision`] per input document, the
//! [`Cluster`]s, optionally the [`VerifiedPair`]s, and [`DedupStats`].

use alloc::vec::Vec;

/// How similar two documents were found, in the measure of the method that
/// compared them.
///
/// ```
/// use txtfp::dedup::Similarity;
/// assert_eq!(Similarity::Jaccard(0.9).jaccard(), Some(0.9));
/// assert_eq!(Similarity::Hamming(2).hamming(), Some(2));
/// assert_eq!(Similarity::Hamming(2).jaccard(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Similarity {
    /// Jaccard similarity in `[0, 1]`: estimated from MinHash signatures or
    /// exact over the token sets (see [`Verification`](super::Verification)).
    Jaccard(f32),
    /// Hamming distance between two 64-bit SimHash signatures (`0..=64`,
    /// smaller is more similar).
    Hamming(u32),
}

impl Similarity {
    /// The Jaccard value, if this is one.
    pub fn jaccard(self) -> Option<f32> {
        match self {
            Similarity::Jaccard(j) => Some(j),
            Similarity::Hamming(_) => None,
        }
    }

    /// The Hamming distance, if this is one.
    pub fn hamming(self) -> Option<u32> {
        match self {
            Similarity::Hamming(d) => Some(d),
            Similarity::Jaccard(_) => None,
        }
    }
}

/// The verdict on one input document.
///
/// A document is *dropped* when it belongs to a cluster of near-duplicates
/// and another member of that cluster was chosen to be kept. `duplicate_of`
/// names the kept member and `similarity` is measured between the two. A
/// cluster is a connected component of verified pairs and copy links (see
/// [`VerifiedPair`]), so a dropped document can reach its kept member
/// through a chain of near-duplicates; its `similarity` to the kept member
/// may then fail the threshold.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Decision {
    /// The document's id.
    pub id: u64,
    /// Whether to keep the document.
    pub keep: bool,
    /// For a dropped near-duplicate: the id of its cluster's kept document.
    pub duplicate_of: Option<u64>,
    /// For a dropped near-duplicate: its similarity to `duplicate_of`.
    pub similarity: Option<Similarity>,
    /// Index into [`DedupReport::clusters`] when the document has at least
    /// one near-duplicate.
    pub cluster: Option<usize>,
    /// The document yielded no token (see
    /// [`EmptyDocuments`](super::EmptyDocuments)); it was compared with
    /// nothing.
    pub empty: bool,
}

/// A group of two or more documents connected by verified pairs and copy
/// links.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Cluster {
    /// The member that is kept.
    pub kept: u64,
    /// Every member's id (`kept` included), in input order.
    pub members: Vec<u64>,
}

/// A link a cluster was built from: a candidate pair that passed
/// verification, or an exact copy (or, for SimHash, an equal signature)
/// with its first occurrence. `a` comes before `b` in the input.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct VerifiedPair {
    /// The earlier document's id.
    pub a: u64,
    /// The later document's id.
    pub b: u64,
    /// Their verified similarity.
    pub similarity: Similarity,
}

/// Counts of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DedupStats {
    /// Input documents.
    pub documents: usize,
    /// Documents kept.
    pub kept: usize,
    /// Documents dropped (near-duplicates, plus empty documents under
    /// [`EmptyDocuments::Drop`](super::EmptyDocuments::Drop)).
    pub dropped: usize,
    /// Documents that yielded no token.
    pub empty: usize,
    /// Clusters of two or more documents.
    pub clusters: usize,
    /// Distinct candidate pairs, plus one per collapse link (an exact copy
    /// with its first occurrence, or for SimHash a document with the first
    /// one of its signature value).
    pub candidate_pairs: u64,
    /// Candidate pairs that were compared: all of them, so equal to
    /// `candidate_pairs` (a collapse link counts as compared).
    pub compared_pairs: u64,
    /// Compared pairs that passed verification, collapse links included:
    /// the length of [`DedupReport::pairs`] when pairs are recorded.
    pub verified_pairs: u64,
}

/// The result of a deduplication run.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct DedupReport {
    /// One decision per input document, in input order.
    pub decisions: Vec<Decision>,
    /// Clusters of two or more documents, ordered by their first member's
    /// input position.
    pub clusters: Vec<Cluster>,
    /// The links the clusters were built from (verified candidate pairs and
    /// collapse links, not every pair within a cluster; see the
    /// [module documentation](super)), ordered by the earlier document's
    /// input position and then the later one's; empty unless pairs were
    /// asked for (`with_record_pairs(true)`).
    pub pairs: Vec<VerifiedPair>,
    /// Counts.
    pub stats: DedupStats,
}

impl DedupReport {
    /// Ids of the kept documents, in input order.
    pub fn kept_ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.decisions.iter().filter(|d| d.keep).map(|d| d.id)
    }

    /// Ids of the dropped documents, in input order.
    pub fn dropped_ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.decisions.iter().filter(|d| !d.keep).map(|d| d.id)
    }
}
