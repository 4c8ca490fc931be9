//! A cache prefetch hint for the lookups that batch queries overlap.

/// Asks the CPU to start loading the cache line holding `value`. Only a
/// hint: no effect on results, and nothing on targets without one.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` never faults and never writes; it only hints the
    // cache. SSE, which the intrinsic is gated on, is part of the x86_64
    // baseline every build of this crate targets, so no runtime detection is
    // needed, and the pointer comes from a reference, so it is valid anyway.
    unsafe {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<{ _MM_HINT_T0 }>((value as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
