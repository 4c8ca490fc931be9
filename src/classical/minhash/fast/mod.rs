//! The opt-in fast MinHash scheme: [`FastMinHashFingerprinter`] →
//! [`FastMinHashSig`].
//!
//! **What it computes.** Each word is hashed once (64 bits, seeded); a word
//! k-shingle's hash is the polynomial `Σ wᵢ·Bᵏ⁻¹⁻ⁱ mod 2⁶⁴` of its word
//! hashes, rolled forward with two multiplies per word and finished with a
//! seeded folded multiply. Each shingle hash then updates one slot
//! (*one-permutation hashing*: slot = high bits, value = low 40 bits).
//! Slots no shingle reached are filled by further rounds over the same
//! shingles, each sending every shingle to a fresh random slot, a value
//! carrying its round in its top bits, until no slot is empty (Dahlgaard, Knudsen & Thorup 2017, *fast
//! similarity sketching*). Every slot of two documents agrees with
//! probability exactly their Jaccard similarity, as with the default
//! scheme; [`FastMinHashSig::jaccard`] is the fraction of agreeing slots.
//!
//! **Why this variant.** Per token it costs one multiply-and-min instead of
//! the default's 128-slot update and XXH3-128 of the joined shingle. Of the
//! candidates that cost as little, one-permutation hashing with optimal
//! densification (Shrivastava 2017) copies a few nonempty slots into many
//! empty ones, so on short documents (fewer shingles than slots) its
//! estimates were measurably worse than the default's; the filling rounds
//! give every slot its own sample and matched or beat the default (figures
//! in BENCHMARKS.md, "MinHash, fast scheme"). C-MinHash still needs `H` hash
//! evaluations per token, so it saves nothing here.
//!
//! **Wire tag.** [`FastMinHashSig`] has [`MinHashSig`](crate::MinHashSig)'s
//! layout with schema word [`FAST_SCHEMA`] (`0x4601`) instead of `1`;
//! bytes, serde and text forms of either type are rejected as the other.
//! With feature `lsh`, `FastLshIndex` indexes fast signatures only.
//! [`FastMinHashStreaming`] computes the same signature from a byte
//! stream, `Fingerprint::FastMinHash` carries it in the unified enum, and
//! `dedup::MinHashDedup::with_scheme(MinHashScheme::Fast)` deduplicates
//! with it.
//!
//! Tokens are exactly those of the tokenizer's own
//! [`for_each_token`](crate::Tokenizer::for_each_token); words and word
//! shingles take fused loops that property tests hold to the generic path.
//!
//! ```
//! use txtfp::{Canonicalizer, FastMinHashFingerprinter, Fingerprinter, ShingleTokenizer, WordTokenizer};
//! let fp = FastMinHashFingerprinter::<_, 128>::new(
//!     Canonicalizer::default(),
//!     ShingleTokenizer { k: 5, inner: WordTokenizer },
//! );
//! let sig = fp.fingerprint("a document of a few words, long enough for some shingles")?;
//! assert_eq!(sig.schema, txtfp::FAST_SCHEMA);
//! assert_eq!(sig.jaccard(&sig), 1.0);
//! # Ok::<(), txtfp::Error>(())
//! ```

mod fingerprinter;
mod hash;
#[cfg(feature = "lsh")]
mod index_file;
#[cfg(feature = "lsh")]
mod lsh;
#[cfg(feature = "lsh")]
mod lsh_candidates;
mod roll;
mod sig;
#[cfg(feature = "serde")]
mod sig_serde;
mod sketch;
mod streaming;
#[cfg(feature = "interop")]
mod text;

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

pub use fingerprinter::FastMinHashFingerprinter;
#[cfg(feature = "lsh")]
pub use lsh::FastLshIndex;
#[cfg(feature = "lsh")]
pub use lsh_candidates::FastLshCandidateIndex;
pub use sig::FastMinHashSig;
pub use streaming::FastMinHashStreaming;

/// The schema word of every [`FastMinHashSig`]: `0x4601` (`'F'`, version
/// 1), never the default scheme's [`SCHEMA_VERSION`](super::SCHEMA_VERSION)
/// `1`. Written first in every persisted form and required when reading.
pub const FAST_SCHEMA: u16 = 0x4601;
