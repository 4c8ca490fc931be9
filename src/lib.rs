//! # txtfp — text fingerprinting and near-duplicate detection
//!
//! The module tree is the pipeline:
//!
//! | stage | module | what |
//! |---|---|---|
//! | 1 | [`canonical`] | Unicode normalization, case folding, invisible-character stripping |
//! | 2 | [`tokenize`] | words, graphemes, k-shingles, CJK segmentation |
//! | 3 | [`classical`] | MinHash (Jaccard), SimHash (cosine), TLSH; offline and streaming |
//! | 4 | [`lsh`] | banded LSH and SimHash indexes for sub-linear near-duplicate search |
//! | 5 | [`dedup`] | corpus deduplication: a keep/drop decision per document |
//!
//! Beside it:
//!
//! | module | what |
//! |---|---|
//! | [`fingerprint`] | the [`Fingerprint`] enum over every algorithm, metadata, config hashes |
//! | `markup` | HTML, Markdown and PDF to text (features `markup`, `pdf`) |
//! | `semantic` | embeddings: the provider trait, local ONNX and cloud providers, chunking (`semantic-core` and up) |
//! | `store` | the global fingerprint store and its duplicate decisions (`store`) |
//!
//! Architecture-specific SIMD kernels live in one private tree, `arch`, each
//! behind a safe entry point chosen by run-time CPU detection.
//!
//! Signatures are byte-identical to txtfp 0.3.2 for the same configuration
//! (golden files freeze the format); COMPAT.md lists every deliberate fix.
//!
//! ```
//! use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, ShingleTokenizer, WordTokenizer, jaccard};
//! let fp = MinHashFingerprinter::<_, 128>::new(
//!     Canonicalizer::default(),
//!     ShingleTokenizer { k: 5, inner: WordTokenizer },
//! );
//! let a = fp.fingerprint("the quick brown fox jumps over the lazy dog at noon today")?;
//! let b = fp.fingerprint("the quick brown fox jumps over the lazy dog at dusk today")?;
//! assert!(jaccard(&a, &b) > 0.1 && jaccard(&a, &b) < 0.9);
//! # Ok::<(), txtfp::Error>(())
//! ```
#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

extern crate alloc;

mod arch;
pub mod canonical;
pub mod classical;
#[cfg(feature = "lsh")]
pub mod dedup;
mod error;
pub mod fingerprint;
#[cfg(feature = "lsh")]
pub mod lsh;
#[cfg(any(feature = "markup", feature = "pdf"))]
pub mod markup;
#[cfg(feature = "semantic-core")]
pub mod semantic;
#[cfg(feature = "store")]
pub mod store;
mod stream;
pub mod tokenize;

pub use canonical::{
    Canonicalizer, CanonicalizerBuilder, CaseFold, Normalization, UnicodeVersions, canonicalize,
    unicode_versions,
};
pub use classical::{
    DEFAULT_SEED, FingerprintBatch, Fingerprinter, HashFamily, StreamingFingerprinter,
};
pub use error::{Error, Result};
#[cfg(any(
    feature = "minhash",
    feature = "simhash",
    feature = "tlsh",
    feature = "semantic-core"
))]
pub use fingerprint::Fingerprint;
pub use fingerprint::{
    FingerprintMetadata, UNCOMPUTED_CONFIG_HASH, algo, config_hash, config_hash_classical,
};
#[cfg(feature = "cjk")]
pub use tokenize::{CjkSegmenter, CjkTokenizer};
pub use tokenize::{GraphemeTokenizer, MAX_SHINGLE_K, ShingleTokenizer, Tokenizer, WordTokenizer};

#[cfg(feature = "minhash")]
pub use classical::minhash::fast::{
    FAST_SCHEMA, FastMinHashFingerprinter, FastMinHashSig, FastMinHashStreaming,
};
#[cfg(feature = "lsh")]
pub use classical::minhash::fast::{FastLshCandidateIndex, FastLshIndex};
#[cfg(feature = "minhash")]
pub use classical::minhash::{
    MinHashFingerprinter, MinHashFingerprinterBuilder, MinHashSig, MinHashStreaming, jaccard,
};
#[cfg(feature = "interop")]
pub use classical::simhash::{
    DocV1Match, DocV1Tokenizer, SimHashDocV1, StopWords, hashlittle2, jenkins64, newsbot,
};
#[cfg(feature = "simhash")]
pub use classical::simhash::{
    IdfTable, SimHash64, SimHashFingerprinter, SimHashFingerprinterBuilder, SimHashStreaming,
    Weighting, cosine_estimate, hamming,
};
#[cfg(all(feature = "lsh", feature = "simhash"))]
pub use classical::simhash::{MAX_128_DISTANCE, SimHash128Index};
#[cfg(feature = "simhash")]
pub use classical::simhash::{SimHash16, SimHash32, SimHash128, SimHashBits};
#[cfg(feature = "tlsh")]
pub use classical::tlsh::{
    TLSH_MIN_INPUT_BYTES, TlshFingerprint, TlshFingerprinter, TlshStreaming, tlsh_distance,
};
#[cfg(feature = "interop")]
pub use classical::{TextEncoding, TextForm};
#[cfg(feature = "mmap")]
pub use lsh::MappedLshIndex;
#[cfg(all(feature = "mmap", feature = "simhash"))]
pub use lsh::MappedSimHashIndex;
#[cfg(feature = "lsh")]
pub use lsh::{INDEX_FORMAT_VERSION, LshCandidateIndex, LshIndex, LshIndexBuilder};
#[cfg(all(feature = "lsh", feature = "simhash"))]
pub use lsh::{SimHashIndex, SimHashLayout};

#[cfg(all(feature = "lsh", feature = "simhash"))]
pub use dedup::SimHashDedup;
#[cfg(feature = "lsh")]
pub use dedup::{DedupReport, MinHashDedup};

#[cfg(feature = "openai")]
pub use semantic::OpenAiProvider;
#[cfg(feature = "semantic-core")]
pub use semantic::{
    ChunkMode, ChunkingStrategy, Embedding, EmbeddingProvider, MAX_EMBEDDING_DIM, Pooling,
    chunk_for_model, semantic_similarity,
};
#[cfg(feature = "cohere")]
pub use semantic::{CohereInputType, CohereProvider};
#[cfg(feature = "semantic")]
pub use semantic::{LocalProvider, LocalProviderBuilder};
#[cfg(feature = "voyage")]
pub use semantic::{VoyageInputType, VoyageProvider};

#[cfg(feature = "markup")]
pub use markup::{
    HtmlOptions, MarkdownOptions, MarkdownSyntax, html_to_text, html_to_text_with,
    markdown_to_text, markdown_to_text_as, markdown_to_text_with,
};
#[cfg(feature = "pdf")]
pub use markup::{PdfOptions, pdf_to_text, pdf_to_text_with};
#[cfg(feature = "store")]
pub use store::{
    DecisionRecord, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument, StoreMetrics,
};

/// This crate's version (`CARGO_PKG_VERSION`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Version of the persisted signature formats. Bumped only when stored bytes
/// would change meaning.
pub const FORMAT_VERSION: u32 = 1;

/// Every Rust example in USAGE.md, compiled and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../USAGE.md")]
pub struct UsageDoctests;

/// The Rust examples in README.md, compiled and run by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
