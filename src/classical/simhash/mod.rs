//! SimHash: a 64-bit sketch whose Hamming distance estimates the cosine
//! similarity of two documents' weighted token bags (Charikar 2002).
//!
//! - [`SimHashFingerprinter`] (offline) and [`SimHashStreaming`] (chunked
//!   input) produce a [`SimHash64`]; both feed the same internal sketch.
//! - [`Weighting`] picks the votes: per occurrence ([`Weighting::Tf`], the
//!   default), per distinct token ([`Weighting::Uniform`]) or `tf × idf`
//!   from an [`IdfTable`] ([`Weighting::IdfWeighted`]).
//! - [`hamming`] and [`cosine_estimate`] compare two signatures.
//! - Other widths: [`SimHash16`], [`SimHash32`], [`SimHash128`] through
//!   [`SimHashFingerprinter::fingerprint_bits`], compared through
//!   [`SimHashBits`]; with `lsh`, `SimHash128Index` searches 128-bit ones.
//! - Feature `interop`: the `simhash-doc-v1` scheme (`SimHashDocV1`, its
//!   tokenizer and stop lists, the lookup3 Jenkins hash `hashlittle2`) and
//!   the `newsbot` preset (MD5 tokens, hex strings).
//!
//! Tf and Uniform signatures are byte-identical to txtfp 0.3.2. IDF-weighted
//! ones differ where 0.3.2 truncated `tf × idf` to an integer (COMPAT.md W11): here
//! the weight is real-valued, invalid table weights are refused, and the table
//! is part of [`SimHashFingerprinter::config_hash`].
//!
//! ```
//! use txtfp::{Canonicalizer, Fingerprinter, IdfTable, SimHashFingerprinter, Weighting,
//!             WordTokenizer, cosine_estimate};
//! let idf = IdfTable::from_pairs([("the", 0.1_f32), ("a", 0.1)]);
//! let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer)
//!     .with_weighting(Weighting::IdfWeighted(idf));
//! let a = fp.fingerprint("the cat sat on the mat")?;
//! let b = fp.fingerprint("a cat sat on a mat")?;
//! assert!(cosine_estimate(a, b) > 0.5);
//! # Ok::<(), txtfp::Error>(())
//! ```

#[cfg(feature = "interop")]
mod doc_v1;
#[cfg(feature = "interop")]
mod doc_v1_stop;
#[cfg(feature = "interop")]
mod doc_v1_tokens;
mod fingerprinter;
mod idf;
#[cfg(feature = "interop")]
mod jenkins;
mod kernel;
#[cfg(feature = "interop")]
pub mod newsbot;
mod sig;
mod sketch;
mod streaming;
#[cfg(test)]
mod tests;
pub(crate) mod token_hash;
mod votes;
mod wide;
mod wide_fp;
mod word_batch;

#[cfg(feature = "interop")]
pub use doc_v1::{DocV1Match, SimHashDocV1};
#[cfg(feature = "interop")]
pub use doc_v1_tokens::{DocV1Tokenizer, StopWords};
pub use fingerprinter::{SimHashFingerprinter, SimHashFingerprinterBuilder, Weighting};
pub use idf::IdfTable;
#[cfg(feature = "interop")]
pub use jenkins::{hashlittle2, jenkins64};
pub use sig::{SimHash64, cosine_estimate, hamming};
pub(crate) use sketch::SimHashSketch;
pub use streaming::SimHashStreaming;
pub use wide::{SimHash16, SimHash32, SimHash128, SimHashBits};
// The 128-bit index lives with the other indexes; these names stay here.
#[cfg(feature = "lsh")]
pub use crate::lsh::{MAX_128_DISTANCE, SimHash128Index};

/// Version of the SimHash signature format. A [`SimHash64`] is a bare `u64`,
/// so this number is not stored in it; it appears in
/// [`FingerprintMetadata`](crate::FingerprintMetadata).
pub const SCHEMA_VERSION: u16 = 1;
