//! Weighted MinHash by consistent weighted sampling (Ioffe's ICWS, 2010):
//! signatures whose slot agreement estimates the weighted (Ruzicka)
//! Jaccard similarity `Σ min / Σ max` of two weighted sets.
//!
//! * [`WeightedMinHasher`] sketches a sparse weighted set of `u64` keys into
//!   a [`WeightedMinHashSig`]; [`WeightedMinHasher::sketch_reference`] is
//!   the paper's formulas as written, which the fast path is tested against.
//! * [`WeightedMinHashFingerprinter`] turns text into such a set (tokens or
//!   k-word shingles, weighted by [`TermWeighting`]: TF, sublinear TF, and
//!   with feature `simhash` TF-IDF over an [`IdfTable`](crate::IdfTable)).
//! * [`weighted_jaccard`] estimates, [`weighted_jaccard_exact`] computes.
//!
//! Signatures carry their own schema word [`WEIGHTED_SCHEMA`] (`0x5701`),
//! so MinHash bytes are never read as weighted ones and the other way round.
//!
//! Bad input gives typed errors: a negative, NaN or infinite weight and a
//! set with no positive weight are [`Error::InvalidInput`](crate::Error),
//! `num_perm = 0` is [`Error::Config`](crate::Error); zero weights are
//! skipped.

mod fingerprinter;
mod sampler;
mod sig;

pub use fingerprinter::{TermWeighting, WeightedMinHashFingerprinter};
pub use sampler::{MAX_NUM_PERM, WeightedMinHasher};
pub use sig::{WeightedMinHashSig, weighted_jaccard, weighted_jaccard_exact};

/// Schema word of [`WeightedMinHashSig`]'s byte and serde forms: `0x5701`
/// (`"W"`, version 1), distinct from MinHash's `1` and `0x4601`.
pub const WEIGHTED_SCHEMA: u16 = 0x5701;

#[cfg(test)]
mod tests;
