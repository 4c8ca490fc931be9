//! What the store keeps: fingerprint records, document entries and
//! decisions (metadata only, never the text).

use serde::{Deserialize, Serialize};

/// A document offered to [`GlobalFingerprintStore::ingest`](super::GlobalFingerprintStore::ingest).
///
/// ```
/// use txtfp::store::IncomingDocument;
/// let d = IncomingDocument::new("wiki-42", "Some text.", "wikipedia_stream").with_language("en");
/// assert_eq!(d.language.as_deref(), Some("en"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncomingDocument {
    /// Globally unique id. Ingesting an id again replays its first
    /// decision (ingest is idempotent, so a crashed job can be re-run).
    pub doc_id: String,
    /// The text (fingerprinted, never stored).
    pub text: String,
    /// Source (dataset) name, as used by `source_to_document_type` and
    /// `source_priority`.
    pub source: String,
    /// Optional language tag, recorded with every fingerprint.
    pub language: Option<String>,
}

impl IncomingDocument {
    /// A document without a language tag.
    pub fn new(
        doc_id: impl Into<String>,
        text: impl Into<String>,
        source: impl Into<String>,
    ) -> Self {
        Self {
            doc_id: doc_id.into(),
            text: text.into(),
            source: source.into(),
            language: None,
        }
    }

    /// Sets the language tag.
    pub fn with_language(mut self, language: impl Into<String>) -> Self {
        self.language = Some(language.into());
        self
    }
}

/// The three fingerprint kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FingerprintType {
    /// 64-bit SimHash of the word tokens.
    SimHash,
    /// MinHash signature of the word shingles.
    MinHash,
    /// SHA-256 of one normalized chunk.
    Chunk,
}

/// One stored fingerprint: the seed's schema.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FingerprintRecord {
    /// `<doc_id>/simhash`, `<doc_id>/minhash` or `<doc_id>/chunk/<n>`.
    pub fingerprint_id: String,
    /// Which kind.
    pub fingerprint_type: FingerprintType,
    /// Lower-case hex: the 16 digits of the SimHash, the little-endian
    /// bytes of the MinHash slots, or the 64 digits of the SHA-256.
    pub value: String,
    /// The document.
    pub doc_id: String,
    /// Chunk number (from 0) for chunk records.
    pub chunk_id: Option<u32>,
    /// The document's source.
    pub source: String,
    /// The document's language tag.
    pub language: Option<String>,
    /// Unix time of the ingest, in milliseconds.
    pub created_at: u64,
    /// The config's `fingerprint_version`.
    pub fingerprint_version: String,
    /// The parameters of this kind, e.g. `ngram=5;num_perm=128;bands=32`.
    pub hash_params: String,
}

/// What the decision engine did with a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// No match: kept and indexed.
    Accept,
    /// Full-document duplicate of a document that outranks it (or a tie,
    /// which the stored document wins): dropped.
    Drop,
    /// As `Drop`, with `on_duplicate = "mark"`: kept by the caller but
    /// marked, not indexed.
    MarkDuplicate,
    /// Full-document duplicate that outranks every document it matches:
    /// kept and indexed; those documents are marked superseded.
    Replace,
    /// Only chunks are shared: kept, indexed, linked to the documents that
    /// hold the chunks; the duplicated chunks are listed to drop.
    Link,
    /// Partial overlap (MinHash similarity in `[partial, threshold)`):
    /// kept, indexed and marked with the similar document.
    MarkPartial,
}

impl Action {
    /// Whether the document stays in the caller's output (everything but
    /// [`Action::Drop`]).
    pub fn is_kept(self) -> bool {
        self != Action::Drop
    }

    /// Whether the document is a full-document duplicate (dropped or
    /// marked).
    pub fn is_duplicate(self) -> bool {
        matches!(self, Action::Drop | Action::MarkDuplicate)
    }

    /// Whether the document is indexed (later documents match it).
    pub fn is_indexed(self) -> bool {
        !self.is_duplicate()
    }
}

/// Why: the match that decided.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum MatchReason {
    /// No match of any kind.
    NoMatch,
    /// SimHash within the radius.
    SimHash {
        /// Hamming distance.
        distance: u32,
    },
    /// MinHash at or above the threshold.
    MinHash {
        /// Estimated Jaccard.
        jaccard: f64,
    },
    /// MinHash in the partial-overlap band.
    PartialMinHash {
        /// Estimated Jaccard.
        jaccard: f64,
    },
    /// Some chunks are stored already.
    ChunkOverlap {
        /// Chunks of this document found in the store.
        shared: u32,
        /// Chunks of this document.
        total: u32,
    },
}

/// The decision on one document, as recorded in the store.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// The document.
    pub doc_id: String,
    /// Its source.
    pub source: String,
    /// What was done.
    pub action: Action,
    /// The match that decided.
    pub reason: MatchReason,
    /// The stored document that decided it (the one kept instead, the
    /// similar one, or the first chunk owner); `None` for a plain accept.
    pub matched_doc_id: Option<String>,
    /// The matched document's source.
    pub matched_source: Option<String>,
    /// Documents this one replaced ([`Action::Replace`]).
    pub superseded: Vec<String>,
    /// Documents holding chunks of this one, in first-seen order.
    pub linked_docs: Vec<String>,
    /// Chunk numbers of this document already in the store (or repeated
    /// within it): the chunks to drop.
    pub duplicate_chunks: Vec<u32>,
    /// Unix time of the decision, in milliseconds.
    pub decided_at: u64,
    /// `true` when this is the stored decision of an id ingested before
    /// (nothing was written).
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    pub replayed: bool,
}

/// Where a stored document stands now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum DocStatus {
    /// Indexed; later documents are compared with it.
    Live,
    /// A full duplicate, dropped or marked; never indexed.
    Duplicate,
    /// Was live, then replaced by a higher-priority duplicate.
    Superseded {
        /// The document that replaced it.
        by: String,
    },
}

/// A document's entry in the store.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredDocument {
    /// The id.
    pub doc_id: String,
    /// The source.
    pub source: String,
    /// Its document type under the config of its ingest.
    pub document_type: Option<String>,
    /// Language tag.
    pub language: Option<String>,
    /// Unix time of the ingest, in milliseconds.
    pub created_at: u64,
    /// Current status.
    pub status: DocStatus,
    /// The ingest decision.
    pub decision: DecisionRecord,
}

/// One stored document similar to a queried text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Match {
    /// The stored document.
    pub doc_id: String,
    /// Its source.
    pub source: String,
    /// How it matches (SimHash, MinHash, partial MinHash or chunks).
    pub reason: MatchReason,
    /// Chunk numbers of the query shared with this document.
    pub shared_chunks: Vec<u32>,
}
