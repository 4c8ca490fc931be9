//! # txtfp — text fingerprinting and near-duplicate detection
//!
//! The module tree is the pipeline:
//!
//! | stage | module | what |
//! |---|---|---|
//! | 1 | [`canonical`] | Unicode normalization, case folding, invisible-character stripping |
//! | 2 | [`tokenize`] | words, graphemes, k-shingles; `tokenize::cjk`: CJK segmentation (`cjk`) |
//! | 3 | [`classical`] | the sketchers, offline and streaming, and their shared traits |
//! | | [`classical::minhash`] | MinHash (Jaccard); `classical::minhash::fast`: the opt-in fast scheme |
//! | | [`classical::simhash`] | SimHash (cosine) at 16 to 128 bits; `classical::simhash::newsbot`: the newsbot port (`interop`) |
//! | | `classical::tlsh` | TLSH (`tlsh`) |
//! | | `classical::text_form` | hex and base64 text forms of signatures (`interop`) |
//! | 4 | [`lsh`] | banded LSH and SimHash indexes for sub-linear near-duplicate search |
//! | 5 | [`dedup`] | corpus deduplication: a keep/drop decision per document |
//!
//! Beside it:
//!
//! | module | what |
//! |---|---|
//! | [`fingerprint`] | the [`Fingerprint`] enum over every algorithm, metadata, config hashes; [`fingerprint::algo`]: algorithm names |
//! | `markup` | HTML, Markdown and PDF to text (features `markup`, `pdf`) |
//! | `semantic` | embeddings, the provider trait, chunking (`semantic-core` and up); `semantic::local`: local ONNX (`semantic`); `semantic::providers`: cloud providers (`openai`, `voyage`, `cohere`) |
//! | `store` | the global fingerprint store and its duplicate decisions (`store`); `store::backend`: its storage backends |
//! | `corpus` | sharded corpora (JSONL, gzip, zstd, text folders; Parquet with `parquet`) resolved, streamed in bounded blocks and written back filtered (`corpus`) |
//!
//! The crate root re-exports txtfp 0.3.2's names, so code written for 0.3.2
//! compiles unchanged, and a few central types added since: [`SimHash128`],
//! [`SimHashIndex`], [`SimHash128Index`], [`LshCandidateIndex`],
//! [`MinHashDedup`], [`SimHashDedup`], [`DedupReport`] and
//! `GlobalFingerprintStore` (`store`). Everything else is reached through
//! its module, e.g. `txtfp::classical::minhash::FastMinHashSig`,
//! `txtfp::lsh::SimHashLayout`, `txtfp::store::GlobalStoreConfig`.
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
#[cfg(feature = "corpus")]
pub mod corpus;
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

// The crate root holds txtfp 0.3.2's names, so code written for 0.3.2
// compiles unchanged, plus the few central types added since (wide SimHash,
// its index, the candidate index, corpus deduplication, the global store).
// Every other public item is reached through the module that defines it.

// 0.3.2's root names.
pub use canonical::{Canonicalizer, CanonicalizerBuilder, CaseFold, Normalization, canonicalize};
pub use classical::{Fingerprinter, HashFamily, StreamingFingerprinter};
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
pub use tokenize::{GraphemeTokenizer, ShingleTokenizer, Tokenizer, WordTokenizer};

#[cfg(feature = "minhash")]
pub use classical::minhash::{
    MinHashFingerprinter, MinHashFingerprinterBuilder, MinHashSig, MinHashStreaming, jaccard,
};
#[cfg(feature = "simhash")]
pub use classical::simhash::{
    IdfTable, SimHash64, SimHashFingerprinter, SimHashFingerprinterBuilder, SimHashStreaming,
    Weighting, cosine_estimate, hamming,
};
#[cfg(feature = "tlsh")]
pub use classical::tlsh::{
    TLSH_MIN_INPUT_BYTES, TlshFingerprint, TlshFingerprinter, tlsh_distance,
};
#[cfg(feature = "lsh")]
pub use lsh::{LshIndex, LshIndexBuilder};

#[cfg(feature = "semantic-core")]
pub use semantic::{
    ChunkMode, ChunkingStrategy, Embedding, EmbeddingProvider, Pooling, chunk_for_model,
    semantic_similarity,
};
#[cfg(feature = "semantic")]
pub use semantic::{LocalProvider, LocalProviderBuilder};

#[cfg(feature = "markup")]
pub use markup::{MarkdownOptions, html_to_text, markdown_to_text, markdown_to_text_with};

// Central names added since 0.3.2.
#[cfg(feature = "simhash")]
pub use classical::simhash::SimHash128;
#[cfg(all(feature = "lsh", feature = "simhash"))]
pub use dedup::SimHashDedup;
#[cfg(feature = "lsh")]
pub use dedup::{DedupReport, MinHashDedup};
#[cfg(feature = "lsh")]
pub use lsh::LshCandidateIndex;
#[cfg(all(feature = "lsh", feature = "simhash"))]
pub use lsh::{SimHash128Index, SimHashIndex};
#[cfg(feature = "store")]
pub use store::GlobalFingerprintStore;

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
