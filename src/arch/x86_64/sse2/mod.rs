//! SSE2 kernels (the x86_64 baseline): each entry point takes an
//! [`Sse2`](super::Sse2) proof.

pub(crate) mod ascii_scan;
pub(crate) mod ascii_words;
#[cfg(feature = "lsh")]
pub(crate) mod prefetch;
