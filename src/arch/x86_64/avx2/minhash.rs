//! AVX2 versions of the MinHash kernels (see [`crate::classical::minhash`]'s
//! `kernel` module for the dispatch).
//!
//! Slot update: a vector `v` holds `lo + i·hi` for the lanes of one chunk and
//! advances by the broadcast `4·hi` per chunk, so the per-token cost is one
//! add, one compare, one blend, one load and one store per chunk. AVX2 has
//! only a signed 64-bit compare, so it compares with the sign bit flipped
//! (`x ^ 2^63` maps unsigned order onto signed order) and blends.
//!
//! The `#[target_feature]` functions are `unsafe` only because they must run
//! on a CPU with AVX2, which the [`Avx2`] proof taken by the entry points
//! guarantees; the memory accesses are bounds-checked by construction
//! (`chunks_exact`).

use core::arch::x86_64::*;

use crate::arch::x86_64::Avx2;

/// AVX2 lane count for u64.
const L4: usize = 4;

/// `slots[i] = min(slots[i], lo +ₘ i ×ₘ hi)` for every `i`.
#[inline(always)]
pub(crate) fn update_slots(_: Avx2, slots: &mut [u64], lo: u64, hi: u64) {
    // SAFETY: an `Avx2` proof exists only if the CPU has AVX2.
    unsafe { update_slots_avx2(slots, lo, hi) }
}

/// Number of `i` with `a[i] == b[i]`; `a` and `b` have the same length.
#[inline(always)]
pub(crate) fn count_equal(_: Avx2, a: &[u64], b: &[u64]) -> usize {
    // SAFETY: an `Avx2` proof exists only if the CPU has AVX2.
    unsafe { count_equal_avx2(a, b) }
}

/// `slots[i] = min(slots[i], lo +ₘ i ×ₘ hi)`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn update_slots_avx2(slots: &mut [u64], lo: u64, hi: u64) {
    let sign = _mm256_set1_epi64x(i64::MIN);
    // Kept with the sign bit flipped: adding 2^63 is the same as xor-ing it,
    // so the flipped form advances by the same step and saves one xor.
    let mut v_flipped = _mm256_xor_si256(
        _mm256_set_epi64x(
            lo.wrapping_add(hi.wrapping_mul(3)) as i64,
            lo.wrapping_add(hi.wrapping_mul(2)) as i64,
            lo.wrapping_add(hi) as i64,
            lo as i64,
        ),
        sign,
    );
    let step = _mm256_set1_epi64x(hi.wrapping_mul(L4 as u64) as i64);
    // The tail after the whole chunks continues the sequence at index `done`.
    let done = slots.len() - slots.len() % L4;
    let (body, tail) = slots.split_at_mut(done);
    for chunk in body.chunks_exact_mut(L4) {
        let p = chunk.as_mut_ptr().cast::<__m256i>();
        // SAFETY: `chunk` is 4 initialized u64 = 32 bytes; loadu has no
        // alignment requirement.
        let s = unsafe { _mm256_loadu_si256(p) };
        // unsigned v < s  ⇔  signed (v ^ 2^63) < (s ^ 2^63)
        let take_v = _mm256_cmpgt_epi64(_mm256_xor_si256(s, sign), v_flipped);
        let v = _mm256_xor_si256(v_flipped, sign);
        let m = _mm256_blendv_epi8(s, v, take_v);
        // SAFETY: same 32 bytes, exclusively borrowed through `chunk`.
        unsafe { _mm256_storeu_si256(p, m) };
        v_flipped = _mm256_add_epi64(v_flipped, step);
    }
    let mut h = lo.wrapping_add((done as u64).wrapping_mul(hi));
    for slot in tail {
        if h < *slot {
            *slot = h;
        }
        h = h.wrapping_add(hi);
    }
}

/// Number of `i` with `a[i] == b[i]`; `a` and `b` have the same length.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn count_equal_avx2(a: &[u64], b: &[u64]) -> usize {
    debug_assert_eq!(a.len(), b.len());
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    // Equal lanes compare to all-ones (-1); subtracting accumulates +1 per
    // equal lane without leaving the vector unit.
    let mut acc = _mm256_setzero_si256();
    let ca = a.chunks_exact(L4);
    let cb = b.chunks_exact(L4);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        // SAFETY: each chunk is 4 initialized u64 = 32 bytes; unaligned is fine.
        let (x, y) = unsafe {
            (
                _mm256_loadu_si256(x.as_ptr().cast()),
                _mm256_loadu_si256(y.as_ptr().cast()),
            )
        };
        acc = _mm256_sub_epi64(acc, _mm256_cmpeq_epi64(x, y));
    }
    let mut lanes = [0u64; L4];
    // SAFETY: `lanes` is 32 writable bytes; unaligned store is fine.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), acc) };
    let vec_count: u64 = lanes.iter().sum();
    vec_count as usize + ra.iter().zip(rb).filter(|(x, y)| x == y).count()
}
