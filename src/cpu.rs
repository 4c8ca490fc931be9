//! Run-time CPU feature checks for the SIMD kernels, in one place.
//!
//! With `std`, `is_x86_feature_detected!` asks the CPU once and caches the
//! answer in an atomic, so a check costs a load per call. Without `std`
//! there is no detection: only what the binary is compiled for is known to
//! be present on every CPU that runs it.

#[cfg(all(target_arch = "x86_64", feature = "std"))]
#[cfg_attr(not(feature = "minhash"), allow(dead_code))] // the MinHash kernels
#[inline]
pub(crate) fn has_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
#[cfg_attr(not(feature = "minhash"), allow(dead_code))]
#[inline]
pub(crate) fn has_avx512f() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
}

/// AVX-512F and AVX-512BW (byte and word instructions, byte masks).
#[cfg(all(target_arch = "x86_64", feature = "std"))]
#[inline]
pub(crate) fn has_avx512bw() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
}

/// AVX-512F, BW and VBMI (byte permutes across one or two registers).
#[cfg(all(target_arch = "x86_64", feature = "std"))]
#[inline]
pub(crate) fn has_avx512vbmi() -> bool {
    has_avx512bw() && std::arch::is_x86_feature_detected!("avx512vbmi")
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
#[inline]
pub(crate) fn has_avx512vbmi() -> bool {
    cfg!(all(
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vbmi"
    ))
}

/// AVX-512F, BW, VBMI and VBMI2 (byte permutes across a whole register).
#[cfg(all(target_arch = "x86_64", feature = "std"))]
#[cfg_attr(not(feature = "tlsh"), allow(dead_code))] // the TLSH triplet kernel
#[inline]
pub(crate) fn has_avx512vbmi2() -> bool {
    has_avx512bw()
        && std::arch::is_x86_feature_detected!("avx512vbmi")
        && std::arch::is_x86_feature_detected!("avx512vbmi2")
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
#[cfg_attr(not(feature = "minhash"), allow(dead_code))] // the MinHash kernels
#[inline]
pub(crate) fn has_avx2() -> bool {
    cfg!(target_feature = "avx2")
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
#[cfg_attr(not(feature = "minhash"), allow(dead_code))]
#[inline]
pub(crate) fn has_avx512f() -> bool {
    cfg!(target_feature = "avx512f")
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
#[inline]
pub(crate) fn has_avx512bw() -> bool {
    cfg!(all(target_feature = "avx512f", target_feature = "avx512bw"))
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
#[allow(dead_code)] // the TLSH kernel is built with `std` only
#[inline]
pub(crate) fn has_avx512vbmi2() -> bool {
    cfg!(all(
        target_feature = "avx512f",
        target_feature = "avx512bw",
        target_feature = "avx512vbmi",
        target_feature = "avx512vbmi2"
    ))
}

/// AVX-512F and AVX-512DQ (64-bit lane multiplies).
#[cfg(all(target_arch = "x86_64", feature = "std"))]
#[cfg_attr(not(any(feature = "minhash", feature = "simhash")), allow(dead_code))]
#[inline]
pub(crate) fn has_avx512dq() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
}

#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
#[cfg_attr(not(any(feature = "minhash", feature = "simhash")), allow(dead_code))]
#[inline]
pub(crate) fn has_avx512dq() -> bool {
    cfg!(all(target_feature = "avx512f", target_feature = "avx512dq"))
}
