//! Code written for txtfp 0.3.2, compiled and run against this crate.
//!
//! Each module uses the 0.3.2 forms of the four types whose fixes first
//! changed their shape (COMPAT.md W3, W9, W18, W20) and of `TlshFingerprint`
//! (W10): struct literals, public fields, `&'static str` and `Vec<f32>`
//! results. If one of them stops compiling, 0.3.2 code stops compiling.
//! Each module also checks that the fix still protects where the value is
//! used.

mod markup;
mod metadata;
mod semantic;
mod tlsh;
