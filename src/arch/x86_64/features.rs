//! Zero-sized proofs that the running CPU has an instruction-set extension.
//!
//! Each type here can only be built by its `detect`, which returns `Some`
//! only when every feature the type names is present: with `std`,
//! `is_x86_feature_detected!` asks the CPU once and caches the answer in an
//! atomic, so a later `detect` costs a load; without `std` there is no
//! detection API, and only what the binary is compiled for
//! (`-C target-feature`, `-C target-cpu`) is known to be present on every
//! CPU that runs it. The fields are private to this module, so no other
//! code, kernels included, can make a proof up: holding one is what makes
//! calling a `#[target_feature]` function sound.

/// Declares a feature proof: its doc, the features it stands for (as
/// `target_feature` names), and the attributes that silence dead-code
/// warnings in builds whose features use no kernel of that level (given to
/// the type and to its `impl`, so the doc is repeated there).
macro_rules! feature_proof {
    ($(#[$attr:meta])* $name:ident: $($feature:tt),+) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) struct $name(());

        $(#[$attr])*
        impl $name {
            /// `Some` iff the running CPU has every feature of this level
            /// (without `std`: iff the binary is compiled with all of them).
            #[inline]
            pub(crate) fn detect() -> Option<Self> {
                #[cfg(feature = "std")]
                let present = $(std::arch::is_x86_feature_detected!($feature))&&+;
                #[cfg(not(feature = "std"))]
                let present = cfg!(all($(target_feature = $feature),+));
                if present { Some($name(())) } else { None }
            }
        }
    };
}

feature_proof!(
    /// SSE2, part of the x86_64 baseline: `detect` is a compile-time
    /// `Some` on every ordinary x86_64 target.
    Sse2: "sse2"
);

feature_proof!(
    /// AVX2 (256-bit integer vectors).
    #[cfg_attr(not(feature = "minhash"), allow(dead_code))] // the MinHash kernels
    Avx2: "avx2"
);

feature_proof!(
    /// AVX-512F (the 512-bit foundation: 64-bit lanes, masks, gathers).
    #[cfg_attr(not(feature = "minhash"), allow(dead_code))] // the MinHash kernels
    Avx512: "avx512f"
);

feature_proof!(
    /// AVX-512F and AVX-512DQ (64-bit lane multiplies).
    #[cfg_attr(not(any(feature = "minhash", feature = "simhash")), allow(dead_code))]
    Avx512Dq: "avx512f", "avx512dq"
);

feature_proof!(
    /// AVX-512F and AVX-512BW (byte and word instructions, byte masks).
    Avx512Bw: "avx512f", "avx512bw"
);

feature_proof!(
    /// AVX-512F, BW and VBMI (byte permutes across one or two registers).
    Avx512Vbmi: "avx512f", "avx512bw", "avx512vbmi"
);

feature_proof!(
    /// AVX-512F, BW, VBMI and VBMI2 (byte compress).
    #[cfg_attr(not(all(feature = "tlsh", feature = "std")), allow(dead_code))] // the TLSH kernel
    Avx512Vbmi2: "avx512f", "avx512bw", "avx512vbmi", "avx512vbmi2"
);

#[cfg(test)]
mod tests;
