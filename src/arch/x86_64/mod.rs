//! The x86_64 kernels, one folder per instruction-set level, and the
//! feature proofs that select them (see [`crate::arch`]).

mod features;

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod sse2;

#[allow(unused_imports)] // which proofs are used depends on the crate features
pub(crate) use features::{Avx2, Avx512, Avx512Bw, Avx512Dq, Avx512Vbmi, Avx512Vbmi2, Sse2};
