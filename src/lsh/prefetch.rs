//! A cache prefetch hint for the lookups that batch queries overlap.

#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{Sse2, sse2};

/// Asks the CPU to start loading the cache line holding `value`. Only a
/// hint: no effect on results, and nothing on targets without one (the
/// x86_64 instruction is in [`crate::arch`]).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    // SSE2 is part of the x86_64 baseline: this detection is a constant.
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = Sse2::detect() {
        sse2::prefetch::prefetch(t, value);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
