//! AVX2 and AVX-512F versions of the MinHash kernels.
//!
//! Slot update: a vector `v` holds `lo + i·hi` for the lanes of one chunk and
//! advances by the broadcast `lanes·hi` per chunk, so the per-token cost is
//! one add, one unsigned min, one load and one store per chunk. AVX-512F has
//! an unsigned 64-bit min; AVX2 has only a signed 64-bit compare, so it
//! compares with the sign bit flipped (`x ^ 2^63` maps unsigned order onto
//! signed order) and blends.
//!
//! Every function here is `unsafe` only because it must run on a CPU with
//! the named feature; the memory accesses are bounds-checked by
//! construction (`chunks_exact`, masked loads and stores).

use core::arch::x86_64::*;

/// AVX2 lane count for u64.
const L4: usize = 4;
/// AVX-512 lane count for u64.
const L8: usize = 8;

/// `slots[i] = min(slots[i], lo +ₘ i ×ₘ hi)`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn update_slots_avx2(slots: &mut [u64], lo: u64, hi: u64) {
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

/// `slots[i] = min(slots[i], lo +ₘ i ×ₘ hi)`.
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn update_slots_avx512(slots: &mut [u64], lo: u64, hi: u64) {
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
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn count_equal_avx2(a: &[u64], b: &[u64]) -> usize {
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

/// Number of `i` with `a[i] == b[i]`; `a` and `b` have the same length.
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn count_equal_avx512(a: &[u64], b: &[u64]) -> usize {
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
pub(super) unsafe fn update_batch_avx512_128(slots: &mut [u64], pairs: &[[u64; 2]]) {
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
