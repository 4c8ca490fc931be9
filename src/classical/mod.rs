//! Stage 3: classical sketches of a token stream.
//!
//! One module per sketch, like datasketch: [`minhash`] (Jaccard) and
//! [`simhash`] (cosine); with feature `tlsh`, `tlsh` (TLSH over bytes, no
//! tokenizer). Every sketch has an offline [`Fingerprinter`] and a
//! [`StreamingFingerprinter`] that holds only bounded state.

use crate::Result;

mod batch;
pub(crate) mod hash;
#[cfg(feature = "hll")]
pub mod hll;
#[cfg(feature = "minhash")]
pub mod minhash;
#[cfg(feature = "simhash")]
pub mod simhash;
#[cfg(feature = "interop")]
pub mod text_form;
#[cfg(feature = "tlsh")]
pub mod tlsh;
#[cfg(feature = "weighted-minhash")]
pub mod weighted;

pub use batch::FingerprintBatch;
pub use hash::{DEFAULT_SEED, HashFamily, murmur3_x64_128};
pub(crate) use hash::{hex16, xxh3_64};
#[cfg(feature = "interop")]
pub use text_form::{TextEncoding, TextForm};

/// One-shot fingerprinting of an in-memory document. `&self`: one instance is
/// shared across threads.
pub trait Fingerprinter {
    /// The signature type.
    type Output;
    /// Canonicalize, tokenize and sketch `input`.
    fn fingerprint(&self, input: &str) -> Result<Self::Output>;
}

/// Incremental fingerprinting of a byte stream (UTF-8 text in chunks).
pub trait StreamingFingerprinter {
    /// The signature type.
    type Output;
    /// Feed the next chunk; it may split a UTF-8 sequence anywhere.
    fn update(&mut self, chunk: &[u8]) -> Result<()>;
    /// Finish the stream and return the signature.
    fn finalize(self) -> Result<Self::Output>;
    /// Forget everything fed so far, keeping allocations.
    fn reset(&mut self);
}

/// A sketch under construction: consumes tokens one at a time. Shared by the
/// offline and streaming paths so both compute the same thing.
pub(crate) trait TokenSketch {
    type Output;
    fn push(&mut self, token: &str);
    fn finish(self) -> Result<Self::Output>;
}
