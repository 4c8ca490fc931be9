//! AVX2 kernels: each entry point takes an [`Avx2`](super::Avx2) proof.

#[cfg(feature = "minhash")]
pub(crate) mod minhash;
