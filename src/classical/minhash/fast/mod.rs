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
//! **Wire tag.** [`FastMinHashSig`] has [`MinHashSig`]'s
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
//! use txtfp::{Canonicalizer, Fingerprinter, ShingleTokenizer, WordTokenizer};
//! use txtfp::classical::minhash::FastMinHashFingerprinter;
//! let fp = FastMinHashFingerprinter::<_, 128>::new(
//!     Canonicalizer::default(),
//!     ShingleTokenizer { k: 5, inner: WordTokenizer },
//! );
//! let sig = fp.fingerprint("a document of a few words, long enough for some shingles")?;
//! assert_eq!(sig.schema, txtfp::classical::minhash::FAST_SCHEMA);
//! assert_eq!(sig.jaccard(&sig), 1.0);
//! # Ok::<(), txtfp::Error>(())
//! ```

mod fingerprinter;
mod hash;
mod roll;
mod sketch;
mod streaming;
#[cfg(feature = "interop")]
mod text;

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

pub use fingerprinter::FastMinHashFingerprinter;

use super::{Fast, MinHashSig, MinHashStreaming};

/// A fast-scheme MinHash signature with `H` slots: a [`MinHashSig`] of
/// scheme [`Fast`] (see [`FastMinHashFingerprinter`]).
///
/// The layout is [`MinHashSig`]'s (`repr(C)`, `8 + 8·H` bytes: a `u16`
/// schema word, six zero bytes, the slots), but the schema word is
/// [`FAST_SCHEMA`] (`0x4601`), never `1`: bytes, serde and text forms of
/// one scheme are rejected by the other, and the two types cannot be mixed
/// in Rust code.
///
/// ```
/// use txtfp::classical::minhash::FastMinHashSig;
/// let sigs = [FastMinHashSig::<4>::empty(); 2];
/// let bytes: &[u8] = bytemuck::cast_slice(&sigs);
/// assert_eq!(bytes.len(), 2 * (8 + 8 * 4));
/// ```
///
/// The default scheme's [`jaccard`](crate::jaccard) does not take it; its
/// own [`MinHashSig::jaccard`] method does:
///
/// ```compile_fail
/// use txtfp::MinHashSig;
/// use txtfp::classical::minhash::FastMinHashSig;
/// let _ = txtfp::jaccard(&FastMinHashSig::<4>::empty(), &FastMinHashSig::<4>::empty());
/// ```
pub type FastMinHashSig<const H: usize> = MinHashSig<H, Fast>;

/// The fast scheme over a byte stream: a [`MinHashStreaming`] of scheme
/// [`Fast`], computed online. The signature equals
/// [`Fingerprinter::fingerprint`](crate::Fingerprinter::fingerprint) of the
/// concatenated chunks, however the stream is cut, with the same engine,
/// split points, cap and errors as the default scheme's.
///
/// **Memory.** The filling rounds revisit the token hashes, but only while
/// round 0 has left a slot empty, and once every slot has a value no later
/// round can change it. So the stream keeps token hashes (8 bytes each,
/// repeats dropped) only until every slot is reached, and then frees them:
/// with 128 slots, a text of a thousand distinct shingles or more almost
/// always holds none (about `H·ln H` reach every slot). The ones kept are
/// capped at `max_bytes` ([`MinHashStreaming::with_max_bytes`]) as well. A
/// stream that passes that cap and still leaves a slot empty at the end
/// (many distinct tokens that all miss one slot: hostile input, or a cap
/// far below the document) fails at `finalize` with
/// [`Error::InvalidInput`](crate::Error::InvalidInput); `update` is not
/// affected.
///
/// ```
/// use txtfp::{
///     Canonicalizer, Fingerprinter, ShingleTokenizer, StreamingFingerprinter, WordTokenizer,
/// };
/// use txtfp::classical::minhash::{FastMinHashFingerprinter, FastMinHashStreaming};
/// let fp = FastMinHashFingerprinter::<_, 64>::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 3, inner: WordTokenizer },
/// );
/// let text = "Ünïcödé text, streamed in awkward pieces, hashed the fast way.";
/// let mut s = FastMinHashStreaming::new(fp.clone());
/// for piece in text.as_bytes().chunks(5) {
///     s.update(piece)?;
/// }
/// assert_eq!(s.finalize()?, fp.fingerprint(text)?);
///
/// // A cap, and a reader copied straight in.
/// let mut s = FastMinHashStreaming::new(fp.clone()).with_max_bytes(8);
/// assert_eq!(s.max_bytes(), 8);
/// s.update(b"short words only ")?;
/// assert!(s.update(b"averyveryverylongword").is_err());
/// let mut s = FastMinHashStreaming::new(fp.clone());
/// std::io::copy(&mut &b"read from anywhere"[..], &mut s).unwrap();
/// assert_eq!(s.finalize()?, fp.fingerprint("read from anywhere")?);
/// # Ok::<(), txtfp::Error>(())
/// ```
pub type FastMinHashStreaming<T, const H: usize> = MinHashStreaming<T, H, Fast>;

/// A banded LSH index of [`FastMinHashSig`] signatures: an
/// [`LshIndex`](crate::LshIndex) of scheme [`Fast`]. Its buckets, queries
/// and verification are the default scheme's (slot agreement is the
/// Jaccard estimate in both); only fast-scheme signatures go in and come
/// out, and its files start with a 16-byte header (`TXTFPFMH`, the schema
/// word [`FAST_SCHEMA`]) that the default scheme's index refuses, and the
/// other way round.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, LshIndexBuilder, ShingleTokenizer, WordTokenizer};
/// use txtfp::classical::minhash::{FastLshIndex, FastMinHashFingerprinter};
/// let fp = FastMinHashFingerprinter::<_, 128>::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 3, inner: WordTokenizer },
/// );
/// let mut idx = FastLshIndex::<128>::from_builder(LshIndexBuilder::for_threshold(0.5, 128)?)?;
/// idx.insert(1, fp.fingerprint("the quick brown fox jumps over the lazy dog at noon")?);
/// idx.insert(2, fp.fingerprint("astronomers detect faint cosmic background radiation")?);
/// let probe = fp.fingerprint("the quick brown fox jumps over the lazy dog at noon")?;
/// assert_eq!(idx.query_with_threshold(&probe, 0.99), [1]);
/// assert!(!idx.query(&probe).contains(&2));
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// A default-scheme signature does not go in:
///
/// ```compile_fail
/// let mut idx = txtfp::classical::minhash::FastLshIndex::<8>::with_bands_rows(4, 2)?;
/// idx.insert(1, txtfp::MinHashSig::<8>::empty());
/// # Ok::<(), txtfp::Error>(())
/// ```
#[cfg(feature = "lsh")]
pub type FastLshIndex<const H: usize> = crate::LshIndex<H, Fast>;

/// A banded LSH index of [`FastMinHashSig`] signatures that keeps only ids
/// and band keys: an [`LshCandidateIndex`](crate::LshCandidateIndex) of
/// scheme [`Fast`] (about 220 bytes a document at 16 × 8 banding instead of
/// 1.25 KB). Its `query` answers the candidates of [`FastLshIndex`]'s;
/// verifying them is left to the caller. Its files (header `TXTFPFMC`) are
/// refused by every other index type, and the other way round.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, LshIndexBuilder, ShingleTokenizer, WordTokenizer};
/// use txtfp::classical::minhash::{FastLshCandidateIndex, FastMinHashFingerprinter};
/// let fp = FastMinHashFingerprinter::<_, 128>::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 3, inner: WordTokenizer },
/// );
/// let mut idx =
///     FastLshCandidateIndex::<128>::from_builder(LshIndexBuilder::for_threshold(0.5, 128)?)?;
/// idx.insert(1, &fp.fingerprint("the quick brown fox jumps over the lazy dog at noon")?)?;
/// idx.insert(2, &fp.fingerprint("astronomers detect faint cosmic background radiation")?)?;
/// let probe = fp.fingerprint("the quick brown fox jumps over the lazy dog at noon")?;
/// assert_eq!(idx.query(&probe), [1]);
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// A default-scheme signature does not go in:
///
/// ```compile_fail
/// let mut idx = txtfp::classical::minhash::FastLshCandidateIndex::<8>::with_bands_rows(4, 2)?;
/// idx.insert(1, &txtfp::MinHashSig::<8>::empty())?;
/// # Ok::<(), txtfp::Error>(())
/// ```
#[cfg(feature = "lsh")]
pub type FastLshCandidateIndex<const H: usize> = crate::LshCandidateIndex<H, Fast>;

/// The schema word of every [`FastMinHashSig`]: `0x4601` (`'F'`, version
/// 1), never the default scheme's [`SCHEMA_VERSION`](super::SCHEMA_VERSION)
/// `1`. Written first in every persisted form and required when reading.
pub const FAST_SCHEMA: u16 = 0x4601;
