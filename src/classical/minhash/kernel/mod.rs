//! The two MinHash inner loops, with SIMD versions picked at run time.
//!
//! * [`Kernel::update_slots`]: fold one token's `(lo, hi)` into the slots,
//!   `slot[i] = min(slot[i], lo + i·hi)` (wrapping arithmetic, unsigned min).
//!   It runs once per token over all `H` slots, so it dominates sketching.
//! * [`count_equal`]: how many positions two slot arrays agree on, the
//!   numerator of [`super::jaccard`].
//!
//! Each has a plain reference (`*_reference`, the definition, used by the
//! tests), a portable scalar version, and on x86_64 AVX2 and AVX-512F
//! versions in [`x86_64`]. All of them produce identical results; the
//! property tests below hold every path to the reference.
//!
//! Which path runs is decided by a [`Kernel`] value. Under `std` it comes
//! from run-time CPU detection; without `std` there is no detection API, so
//! only the features the binary was compiled for (`-C target-feature`) count.

#[cfg(target_arch = "x86_64")]
use crate::cpu::{has_avx2, has_avx512f};

#[cfg(target_arch = "x86_64")]
mod x86_64;

/// The instruction-set level a kernel call runs at. Private so that a level
/// can only be obtained through detection: the SIMD variants are sound to
/// run only on CPUs that have the feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
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
            if has_avx512f() {
                return Kernel(Level::Avx512);
            }
            if has_avx2() {
                return Kernel(Level::Avx2);
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
            if has_avx2() {
                v.push(Kernel(Level::Avx2));
            }
            if has_avx512f() {
                v.push(Kernel(Level::Avx512));
            }
        }
        v
    }

    /// `slots[i] = min(slots[i], lo +ₘ i ×ₘ hi)` for every `i`.
    #[inline]
    pub(crate) fn update_slots(self, slots: &mut [u64], lo: u64, hi: u64) {
        match self.0 {
            Level::Scalar => update_slots_scalar(slots, lo, hi),
            // SAFETY: a Kernel with this level is only built by `detect` /
            // `all_available` after the CPU reported AVX2 (or, without std,
            // when the binary was compiled with AVX2 enabled).
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => unsafe { x86_64::update_slots_avx2(slots, lo, hi) },
            // SAFETY: as above, for AVX-512F.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { x86_64::update_slots_avx512(slots, lo, hi) },
        }
    }

    /// Number of positions `i < min(a.len(), b.len())` with `a[i] == b[i]`.
    /// [`Kernel::update_slots`] for every `[lo, hi]` of `pairs`, in order. The
    /// AVX-512 kernel keeps 128 slots in registers across the batch.
    #[inline]
    pub(crate) fn update_batch(self, slots: &mut [u64], pairs: &[[u64; 2]]) {
        #[cfg(target_arch = "x86_64")]
        if self.0 == Level::Avx512 && slots.len() == 128 {
            // SAFETY: `Level::Avx512` is only chosen when AVX-512F was
            // detected; the length precondition was just checked.
            unsafe { x86_64::update_batch_avx512_128(slots, pairs) };
            return;
        }
        for &[lo, hi] in pairs {
            self.update_slots(slots, lo, hi);
        }
    }

    #[inline]
    pub(crate) fn count_equal(self, a: &[u64], b: &[u64]) -> usize {
        let n = a.len().min(b.len());
        let (a, b) = (&a[..n], &b[..n]);
        match self.0 {
            Level::Scalar => count_equal_scalar(a, b),
            // SAFETY: see `update_slots`; the level was detected.
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => unsafe { x86_64::count_equal_avx2(a, b) },
            // SAFETY: see `update_slots`; the level was detected.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { x86_64::count_equal_avx512(a, b) },
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

/// Portable version: `lo + i·hi` is built by repeated addition (equal mod
/// 2^64), which drops the multiply from the loop.
#[inline]
fn update_slots_scalar(slots: &mut [u64], lo: u64, hi: u64) {
    let mut h = lo;
    for slot in slots.iter_mut() {
        if h < *slot {
            *slot = h;
        }
        h = h.wrapping_add(hi);
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

#[inline]
fn count_equal_scalar(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn batch_equals_reference(
            len in prop_oneof![Just(128usize), 0usize..200],
            start in proptest::collection::vec(any::<u64>(), 200),
            pairs in proptest::collection::vec(any::<[u64; 2]>(), 0..70),
        ) {
            let mut want = start[..len].to_vec();
            for &[lo, hi] in &pairs {
                update_slots_reference(&mut want, lo, hi);
            }
            for k in Kernel::all_available() {
                let mut got = start[..len].to_vec();
                k.update_batch(&mut got, &pairs);
                prop_assert_eq!(&got, &want, "{:?}", k);
            }
        }
    }

    /// Slot arrays that exercise the unsigned comparison: values near 0,
    /// near 2^63 (where a signed compare would flip) and near u64::MAX.
    fn slot_value() -> impl Strategy<Value = u64> {
        prop_oneof![
            any::<u64>(),
            Just(u64::MAX),
            Just(0u64),
            (0u64..16).prop_map(|d| (1u64 << 63).wrapping_add(d).wrapping_sub(8)),
            (0u64..16).prop_map(|d| u64::MAX - d),
        ]
    }

    fn slots(max_len: usize) -> impl Strategy<Value = Vec<u64>> {
        proptest::collection::vec(slot_value(), 0..max_len)
    }

    #[test]
    fn detection_finds_a_simd_path_on_x86_64_with_std() {
        let all = Kernel::all_available();
        assert_eq!(all[0], Kernel::scalar());
        assert_eq!(*all.last().unwrap(), Kernel::detect());
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        if has_avx2() {
            assert!(all.len() >= 2, "AVX2 detected but not offered: {all:?}");
        }
    }

    #[test]
    fn update_slots_known_values() {
        // lo + i·hi wraps: hi = 2^63 alternates between lo and lo + 2^63.
        let mut s = [u64::MAX; 5];
        for k in Kernel::all_available() {
            let mut t = s;
            k.update_slots(&mut t, 3, 1 << 63);
            assert_eq!(t, [3, 3 + (1 << 63), 3, 3 + (1 << 63), 3], "{k:?}");
        }
        update_slots(&mut s, 10, u64::MAX); // hi = -1: 10, 9, 8, ...
        assert_eq!(s, [10, 9, 8, 7, 6]);
        update_slots(&mut s, 8, 0);
        assert_eq!(s, [8, 8, 8, 7, 6]);
    }

    #[test]
    fn count_equal_known_values() {
        let a = [1u64, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
        let mut b = a;
        b[0] = 0;
        b[9] = 0;
        for k in Kernel::all_available() {
            assert_eq!(k.count_equal(&a, &b), 9, "{k:?}");
            assert_eq!(k.count_equal(&a, &a[..4]), 4, "{k:?}");
            assert_eq!(k.count_equal(&[], &[]), 0, "{k:?}");
        }
        assert_eq!(count_equal(&a, &b), 9);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn every_update_path_matches_reference(
            start in slots(300),
            lo in slot_value(),
            hi in slot_value(),
        ) {
            let mut want = start.clone();
            update_slots_reference(&mut want, lo, hi);
            for k in Kernel::all_available() {
                let mut got = start.clone();
                k.update_slots(&mut got, lo, hi);
                prop_assert_eq!(&got, &want, "kernel {:?}", k);
            }
            let mut got = start.clone();
            Kernel::scalar().update_slots(&mut got, lo, hi);
            prop_assert_eq!(&got, &want);
            let mut got = start;
            update_slots(&mut got, lo, hi);
            prop_assert_eq!(got, want);
        }

        #[test]
        fn repeated_updates_match_reference(
            start in slots(300),
            tokens in proptest::collection::vec((any::<u64>(), any::<u64>()), 0..8),
        ) {
            let mut want = start.clone();
            for &(lo, hi) in &tokens {
                update_slots_reference(&mut want, lo, hi);
            }
            for k in Kernel::all_available() {
                let mut got = start.clone();
                for &(lo, hi) in &tokens {
                    k.update_slots(&mut got, lo, hi);
                }
                prop_assert_eq!(&got, &want, "kernel {:?}", k);
            }
        }

        #[test]
        fn every_count_path_matches_reference(
            a in slots(300),
            flips in proptest::collection::vec(any::<bool>(), 0..300),
            extra in 0usize..3,
        ) {
            // Start from equal arrays and perturb some positions, so that
            // counts are spread over the whole range rather than ~0.
            let mut b: Vec<u64> = a.clone();
            for (x, f) in b.iter_mut().zip(&flips) {
                if *f {
                    *x ^= 1 << (*x % 64);
                }
            }
            b.extend(core::iter::repeat_n(7, extra));
            let want = count_equal_reference(&a, &b);
            for k in Kernel::all_available() {
                prop_assert_eq!(k.count_equal(&a, &b), want, "kernel {:?}", k);
                prop_assert_eq!(k.count_equal(&b, &a), want, "kernel {:?}", k);
            }
            prop_assert_eq!(Kernel::scalar().count_equal(&a, &b), want);
            prop_assert_eq!(count_equal(&a, &b), want);
        }
    }
}
