//! The two MinHash inner loops, with SIMD versions picked at run time.
//!
//! * [`Kernel::update_slots`]: fold one token's `(lo, hi)` into the slots,
//!   `slot[i] = min(slot[i], lo + i·hi)` (wrapping arithmetic, unsigned min).
//!   It runs once per token over all `H` slots, so it dominates sketching.
//! * [`count_equal`]: how many positions two slot arrays agree on, the
//!   numerator of [`super::jaccard`].
//!
//! Each has a plain reference (`*_reference`, the definition, used by the
//! tests), a portable scalar version ([`crate::arch::scalar::minhash`]), and
//! on x86_64 AVX2 and AVX-512F versions (`crate::arch::x86_64::{avx2,
//! avx512}::minhash`). All of them produce identical results; the property
//! tests hold every path to the reference.
//!
//! Which path runs is decided by a [`Kernel`] value, which holds the CPU
//! feature proof of its level (see [`crate::arch`]). Under `std` it comes
//! from run-time CPU detection; without `std` there is no detection API, so
//! only the features the binary was compiled for (`-C target-feature`) count.

use crate::arch::scalar::minhash as scalar;
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{Avx2, Avx512, avx2, avx512};

/// The instruction-set level a kernel call runs at, with the proof that the
/// CPU has it: a SIMD level can only be obtained through detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    #[cfg(target_arch = "x86_64")]
    Avx512(Avx512),
}

/// A proof-carrying choice of code path: a `Kernel` holding a SIMD level
/// exists only if the running CPU supports that level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kernel(Level);

impl Kernel {
    /// The fastest path the running CPU supports.
    pub(crate) fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(t) = Avx512::detect() {
                return Kernel(Level::Avx512(t));
            }
            if let Some(t) = Avx2::detect() {
                return Kernel(Level::Avx2(t));
            }
        }
        Kernel(Level::Scalar)
    }

    /// The portable path, available everywhere.
    #[cfg(test)]
    pub(crate) const fn scalar() -> Self {
        Kernel(Level::Scalar)
    }

    /// Every path the running CPU supports, slowest first (for tests and
    /// benchmarks that compare the paths with each other).
    #[cfg(test)]
    pub(crate) fn all_available() -> alloc::vec::Vec<Self> {
        #[allow(unused_mut)] // only pushed to on x86_64
        let mut v = alloc::vec![Kernel(Level::Scalar)];
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(t) = Avx2::detect() {
                v.push(Kernel(Level::Avx2(t)));
            }
            if let Some(t) = Avx512::detect() {
                v.push(Kernel(Level::Avx512(t)));
            }
        }
        v
    }

    /// `slots[i] = min(slots[i], lo +ₘ i ×ₘ hi)` for every `i`.
    #[inline]
    pub(crate) fn update_slots(self, slots: &mut [u64], lo: u64, hi: u64) {
        match self.0 {
            Level::Scalar => scalar::update_slots(slots, lo, hi),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2(t) => avx2::minhash::update_slots(t, slots, lo, hi),
            #[cfg(target_arch = "x86_64")]
            Level::Avx512(t) => avx512::minhash::update_slots(t, slots, lo, hi),
        }
    }

    /// [`Kernel::update_slots`] for every `[lo, hi]` of `pairs`, in order. The
    /// AVX-512 kernel keeps 128 slots in registers across the batch.
    #[inline]
    pub(crate) fn update_batch(self, slots: &mut [u64], pairs: &[[u64; 2]]) {
        #[cfg(target_arch = "x86_64")]
        if let Level::Avx512(t) = self.0
            && slots.len() == 128
        {
            avx512::minhash::update_batch_128(t, slots, pairs);
            return;
        }
        for &[lo, hi] in pairs {
            self.update_slots(slots, lo, hi);
        }
    }

    /// Number of positions `i < min(a.len(), b.len())` with `a[i] == b[i]`.
    #[inline]
    pub(crate) fn count_equal(self, a: &[u64], b: &[u64]) -> usize {
        let n = a.len().min(b.len());
        let (a, b) = (&a[..n], &b[..n]);
        match self.0 {
            Level::Scalar => scalar::count_equal(a, b),
            #[cfg(target_arch = "x86_64")]
            Level::Avx2(t) => avx2::minhash::count_equal(t, a, b),
            #[cfg(target_arch = "x86_64")]
            Level::Avx512(t) => avx512::minhash::count_equal(t, a, b),
        }
    }
}

/// Safe entry point: [`Kernel::update_slots`] on the detected kernel.
/// Sketches detect once and keep their [`Kernel`] instead, so only the tests
/// call this.
#[cfg(test)]
pub(crate) fn update_slots(slots: &mut [u64], lo: u64, hi: u64) {
    Kernel::detect().update_slots(slots, lo, hi);
}

/// Safe entry point: [`Kernel::count_equal`] on the detected kernel.
#[inline]
pub(crate) fn count_equal(a: &[u64], b: &[u64]) -> usize {
    Kernel::detect().count_equal(a, b)
}

/// The definition of the slot update, written as plainly as possible.
#[cfg(test)]
pub(crate) fn update_slots_reference(slots: &mut [u64], lo: u64, hi: u64) {
    for (i, slot) in slots.iter_mut().enumerate() {
        let h = lo.wrapping_add((i as u64).wrapping_mul(hi));
        *slot = (*slot).min(h);
    }
}

/// The definition of the equal-slot count.
#[cfg(test)]
pub(crate) fn count_equal_reference(a: &[u64], b: &[u64]) -> usize {
    let mut n = 0;
    for i in 0..a.len().min(b.len()) {
        if a[i] == b[i] {
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests;
