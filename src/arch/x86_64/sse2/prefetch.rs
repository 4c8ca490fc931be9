//! The cache prefetch hint of the LSH batch queries (`crate::lsh`).

use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};

use crate::arch::x86_64::Sse2;

/// Asks the CPU to start loading the cache line holding `value` into every
/// cache level (`prefetcht0`). Only a hint: no effect on results.
#[inline(always)]
pub(crate) fn prefetch<T>(_: Sse2, value: &T) {
    // SAFETY: `prefetcht0` never faults and never writes; it only hints the
    // cache, and the pointer comes from a reference, so it is valid anyway.
    // The intrinsic needs SSE, which the `Sse2` proof implies.
    unsafe { _mm_prefetch::<{ _MM_HINT_T0 }>((value as *const T).cast::<i8>()) }
}
