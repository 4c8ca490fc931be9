//! AVX-512 kernels: each entry point takes the proof of the AVX-512
//! subsets it needs ([`Avx512`](super::Avx512) for F alone,
//! [`Avx512Dq`](super::Avx512Dq), [`Avx512Bw`](super::Avx512Bw),
//! [`Avx512Vbmi`](super::Avx512Vbmi), [`Avx512Vbmi2`](super::Avx512Vbmi2)).
//! `hash` and `utf8` hold the `#[target_feature]` helpers that several
//! kernels of this level share.

pub(crate) mod ascii_scan;
pub(crate) mod block_words;
#[cfg(any(feature = "minhash", feature = "simhash"))]
mod hash;
#[cfg(feature = "minhash")]
pub(crate) mod minhash;
pub(crate) mod plain_run;
#[cfg(feature = "minhash")]
pub(crate) mod shingle_hash;
#[cfg(all(feature = "tlsh", feature = "std"))]
pub(crate) mod tlsh;
#[cfg(feature = "simhash")]
pub(crate) mod token_hash;
mod utf8;
#[cfg(feature = "simhash")]
pub(crate) mod votes;
