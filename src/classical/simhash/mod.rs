//! SimHash: a 64-bit sketch whose Hamming distance estimates the cosine
//! similarity of two documents' weighted token bags (Charikar 2002).
//!
//! - [`SimHashFingerprinter`] (offline) and [`SimHashStreaming`] (chunked
//!   input) produce a [`SimHash64`]; both feed the same internal sketch.
//! - [`Weighting`] picks the votes: per occurrence ([`Weighting::Tf`], the
//!   default), per distinct token ([`Weighting::Uniform`]) or `tf × idf`
//!   from an [`IdfTable`] ([`Weighting::IdfWeighted`]).
//! - [`hamming`] and [`cosine_estimate`] compare two signatures.
//!
//! Tf and Uniform signatures are byte-identical to txtfp 0.3.2. IDF-weighted
//! ones differ where 0.3.2 truncated `tf × idf` to an integer (spec W11): here
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

mod fingerprinter;
mod idf;
mod kernel;
mod sig;
mod streaming;
#[cfg(test)]
mod tests;

pub use fingerprinter::{SimHashFingerprinter, SimHashFingerprinterBuilder, Weighting};
pub use idf::IdfTable;
pub(crate) use kernel::SimHashSketch;
pub use sig::{SimHash64, cosine_estimate, hamming};
pub use streaming::SimHashStreaming;

/// Version of the SimHash signature format. A [`SimHash64`] is a bare `u64`,
/// so this number is not stored in it; it appears in
/// [`FingerprintMetadata`](crate::FingerprintMetadata).
pub const SCHEMA_VERSION: u16 = 1;
