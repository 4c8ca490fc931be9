//! Every architecture-specific kernel of the crate, and their portable
//! counterparts.
//!
//! The stages (canonicalization, tokenization, MinHash, SimHash, TLSH)
//! decide *what* to compute; the inner loops that have a SIMD version live
//! here, so that all `core::arch` code, all `#[target_feature]` functions
//! and the `unsafe` blocks they need sit in one tree that can be audited on
//! its own.
//!
//! # Layout
//!
//! * [`scalar`]: the portable versions that a SIMD kernel falls back to,
//!   with the signatures of the kernels they stand in for, less the proof
//!   (the ASCII masks also take a partial block). Plain Rust, no `unsafe`.
//! * `x86_64` (only on that architecture):
//!   * `features`: the zero-sized proofs that the CPU has an extension
//!     (`Sse2`, `Avx2`, `Avx512`, `Avx512Dq`, `Avx512Bw`, `Avx512Vbmi`,
//!     `Avx512Vbmi2`), re-exported from `x86_64`;
//!   * `sse2`, `avx2`, `avx512`: one folder per instruction-set level,
//!     one file per kernel family inside each, named after the stage module
//!     it serves (`avx512/minhash.rs` holds the AVX-512 MinHash kernels,
//!     `avx2/minhash.rs` the AVX2 ones). `sse2/prefetch.rs` is not a kernel
//!     but the LSH queries' cache hint, the only other `core::arch` use.
//!
//! The portable folder is `scalar` rather than `all` (the name of the
//! portable tree in some other crates): what it holds is the scalar level of
//! the same dispatch, the `Scalar` arm the kernel choices fall back to,
//! not generic code that every level builds on.
//!
//! A portable path stays with its stage when it is more than a fallback:
//! when it is the definition the kernels are tested against and handles
//! inputs the kernels leave over (TLSH's `Histogram::scalar`, the
//! canonicalizer's `plain_prefix_scalar`, the word scanner's per-character
//! walk), or when it is a different algorithm on the stage's private state
//! (the hashers' class-sorted `hash_spans_sorted`).
//!
//! # Dispatch
//!
//! A feature proof is obtainable only through `detect()`, which asks the CPU
//! (cached by `std`) or, without `std`, the compile-time target features. A
//! kernel's entry point takes the proof by value and is a *safe* function:
//! the proof is the evidence that calling its `#[target_feature]` body is
//! sound, and the `unsafe` call sits inside the entry point, next to a
//! `// SAFETY:` comment that cites the proof. The `#[target_feature]`
//! functions themselves are private to their kernel file (or, for helpers
//! shared between the kernels of one level, to that level's folder).
//!
//! Detection is hoisted out of the hot loops, as before the kernels moved
//! here: a MinHash sketch detects its `Kernel` once, a SimHash vote queue
//! its `VoteKernel`, the token and shingle hashers and the canonicalizer
//! keep an `Option` of their proof from construction; the word scanners ask
//! once per 64-byte block and TLSH once per chunk it is fed (a cached
//! atomic load each), as they did.
//!
//! Every kernel is held by property tests to its plain reference, on every
//! level the running CPU has.

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

pub(crate) mod scalar;
