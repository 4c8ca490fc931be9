//! AVX-512F versions of the MinHash kernels (see [`crate::classical::minhash`]'s
//! `kernel` module for the dispatch).
//!
//! Slot update: a vector `v` holds `lo + i·hi` for the lanes of one chunk and
//! advances by the broadcast `8·hi` per chunk, so the per-token cost is one
//! add, one unsigned min, one load and one store per chunk (AVX-512F has an
//! unsigned 64-bit min).
//!
//! The `#[target_feature]` functions are `unsafe` only because they must run
//! on a CPU with AVX-512F, which the [`Avx512`] proof taken by the entry
//! points guarantees; the memory accesses are bounds-checked by construction
//! (`chunks_exact`, masked loads and stores).

use core::arch::x86_64::*;

use crate::arch::x86_64::Avx512;

/// AVX-512 lane count for u64.
const L8: usize = 8;

/// `slots[i] = min(slots[i], lo +ₘ i ×ₘ hi)` for every `i`.
#[inline(always)]
pub(crate) fn update_slots(_: Avx512, slots: &mut [u64], lo: u64, hi: u64) {
    // SAFETY: an `Avx512` proof exists only if the CPU has AVX-512F.
    unsafe { update_slots_avx512(slots, lo, hi) }
}

/// Number of `i` with `a[i] == b[i]`; `a` and `b` have the same length.
#[inline(always)]
pub(crate) fn count_equal(_: Avx512, a: &[u64], b: &[u64]) -> usize {
    // SAFETY: an `Avx512` proof exists only if the CPU has AVX-512F.
    unsafe { count_equal_avx512(a, b) }
}

/// [`update_slots`] for every `[lo, hi]` of `pairs`, in order, over exactly
/// 128 slots (other lengths are left alone: the caller checks).
#[inline(always)]
pub(crate) fn update_batch_128(_: Avx512, slots: &mut [u64], pairs: &[[u64; 2]]) {
    // SAFETY: an `Avx512` proof exists only if the CPU has AVX-512F; the
    // kernel checks the length itself and touches nothing unless it is 128.
    unsafe { update_batch_avx512_128(slots, pairs) }
}

/// `slots[i] = min(slots[i], lo +ₘ i ×ₘ hi)`.
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn update_slots_avx512(slots: &mut [u64], lo: u64, hi: u64) {
    let mut first = [0u64; L8];
    let mut h = lo;
    for x in &mut first {
        *x = h;
        h = h.wrapping_add(hi);
    }
    // SAFETY: `first` is 8 u64 = 64 bytes; loadu has no alignment requirement.
    let mut v = unsafe { _mm512_loadu_si512(first.as_ptr().cast()) };
    let step = _mm512_set1_epi64(hi.wrapping_mul(L8 as u64) as i64);
    let mut chunks = slots.chunks_exact_mut(L8);
    for chunk in &mut chunks {
        let p = chunk.as_mut_ptr().cast::<__m512i>();
        // SAFETY: `chunk` is 8 initialized u64 = 64 bytes; unaligned is fine.
        let s = unsafe { _mm512_loadu_si512(p) };
        // SAFETY: same 64 bytes, exclusively borrowed through `chunk`.
        unsafe { _mm512_storeu_si512(p, _mm512_min_epu64(s, v)) };
        v = _mm512_add_epi64(v, step);
    }
    let tail = chunks.into_remainder();
    if !tail.is_empty() {
        // Lanes at and beyond `tail.len()` are masked off: masked loads and
        // stores neither read nor write them.
        let mask: __mmask8 = (1u8 << tail.len()) - 1;
        let p = tail.as_mut_ptr();
        // SAFETY: only the first `tail.len()` (< 8) u64 are accessed, all
        // inside `tail`; masked-off lanes are not accessed and cannot fault.
        let s = unsafe { _mm512_maskz_loadu_epi64(mask, p.cast_const().cast()) };
        // SAFETY: as for the load; the store writes only the masked lanes.
        unsafe { _mm512_mask_storeu_epi64(p.cast(), mask, _mm512_min_epu64(s, v)) };
    }
}

/// Number of `i` with `a[i] == b[i]`; `a` and `b` have the same length.
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn count_equal_avx512(a: &[u64], b: &[u64]) -> usize {
    debug_assert_eq!(a.len(), b.len());
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut count = 0u32;
    let ca = a.chunks_exact(L8);
    let cb = b.chunks_exact(L8);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        // SAFETY: each chunk is 8 initialized u64 = 64 bytes; unaligned is fine.
        let (x, y) = unsafe {
            (
                _mm512_loadu_si512(x.as_ptr().cast()),
                _mm512_loadu_si512(y.as_ptr().cast()),
            )
        };
        count += _mm512_cmpeq_epi64_mask(x, y).count_ones();
    }
    if !ra.is_empty() {
        let mask: __mmask8 = (1u8 << ra.len()) - 1;
        // SAFETY: only the first `ra.len()` (< 8) u64 of each remainder are
        // read, all in bounds; masked-off lanes are not accessed.
        let (x, y) = unsafe {
            (
                _mm512_maskz_loadu_epi64(mask, ra.as_ptr().cast()),
                _mm512_maskz_loadu_epi64(mask, rb.as_ptr().cast()),
            )
        };
        // The masked compare ignores the zero-filled lanes, which would
        // otherwise count as equal.
        count += _mm512_mask_cmpeq_epi64_mask(mask, x, y).count_ones();
    }
    count as usize
}

/// [`update_slots_avx512`] for a batch of `[lo, hi]` pairs over exactly 128
/// slots, with the 128 running minima held in 16 registers for the whole
/// batch: memory is touched once per batch instead of once per token.
///
/// # Safety
/// The CPU must support AVX-512F. `slots.len()` must be 128.
#[target_feature(enable = "avx512f")]
unsafe fn update_batch_avx512_128(slots: &mut [u64], pairs: &[[u64; 2]]) {
    debug_assert_eq!(slots.len(), 128);
    if slots.len() != 128 {
        return;
    }
    let p = slots.as_mut_ptr().cast::<__m512i>();
    // SAFETY: `slots` holds 128 u64 = 16 × 64 bytes; unaligned loads are fine.
    let mut acc: [__m512i; 16] = core::array::from_fn(|c| unsafe { _mm512_loadu_si512(p.add(c)) });
    for &[lo, hi] in pairs {
        // lane l = lo + l·hi for l in 0..8, from l's three bits with masked adds.
        let h = _mm512_set1_epi64(hi as i64);
        let mut v = _mm512_set1_epi64(lo as i64);
        v = _mm512_mask_add_epi64(v, 0b1010_1010, v, h);
        v = _mm512_mask_add_epi64(v, 0b1100_1100, v, _mm512_slli_epi64::<1>(h));
        v = _mm512_mask_add_epi64(v, 0b1111_0000, v, _mm512_slli_epi64::<2>(h));
        let step = _mm512_slli_epi64::<3>(h);
        for a in &mut acc {
            *a = _mm512_min_epu64(*a, v);
            v = _mm512_add_epi64(v, step);
        }
    }
    for (c, a) in acc.iter().enumerate() {
        // SAFETY: as for the loads; `slots` is exclusively borrowed.
        unsafe { _mm512_storeu_si512(p.add(c), *a) };
    }
}
