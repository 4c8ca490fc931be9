//! The portable fallbacks of the SIMD kernels: the `Scalar` level of each
//! dispatch, the kernels' signatures less the proof, no `unsafe` (see
//! [`crate::arch`]).

pub(crate) mod ascii_scan;
pub(crate) mod ascii_words;
#[cfg(feature = "minhash")]
pub(crate) mod minhash;
#[cfg(feature = "simhash")]
pub(crate) mod votes;
