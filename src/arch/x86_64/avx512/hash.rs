//! AVX-512 arithmetic the eight-lane token hashers share
//! ([`super::token_hash`], [`super::shingle_hash`]). Safe `#[target_feature]`
//! functions: only code compiled with AVX-512F may call them without
//! `unsafe`, i.e. the kernels of this folder.

use core::arch::x86_64::*;

/// The full 128-bit products `x · y` of the lanes, as (low, high) halves,
/// from the four products of their 32-bit halves (AVX-512 has no 64×64→128
/// multiply).
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn mul_64x64_128(x: __m512i, y: __m512i) -> (__m512i, __m512i) {
    let low32 = _mm512_set1_epi64(0xffff_ffff);
    let (x_hi, y_hi) = (_mm512_srli_epi64::<32>(x), _mm512_srli_epi64::<32>(y));
    // `_mm512_mul_epu32` multiplies the low 32 bits of each lane.
    let ll = _mm512_mul_epu32(x, y);
    let lh = _mm512_mul_epu32(x, y_hi);
    let hl = _mm512_mul_epu32(x_hi, y);
    let hh = _mm512_mul_epu32(x_hi, y_hi);
    // The product's bits from 32 up, before the high products are added:
    // below 3·2^32, so the sum loses no carry.
    let mid = _mm512_add_epi64(
        _mm512_add_epi64(_mm512_srli_epi64::<32>(ll), _mm512_and_si512(lh, low32)),
        _mm512_and_si512(hl, low32),
    );
    let lo = _mm512_or_si512(_mm512_and_si512(ll, low32), _mm512_slli_epi64::<32>(mid));
    let hi = _mm512_add_epi64(
        _mm512_add_epi64(hh, _mm512_srli_epi64::<32>(lh)),
        _mm512_add_epi64(_mm512_srli_epi64::<32>(hl), _mm512_srli_epi64::<32>(mid)),
    );
    (lo, hi)
}

/// Spans `g..g + 8` of `starts` and `ends` (as far as both go): the mask
/// of those lanes, and the starts and ends in them (zero in the others).
/// The eight-lane span hashers walk their batches with it.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn load_spans(
    starts: &[usize],
    ends: &[usize],
    g: usize,
) -> (__mmask8, __m512i, __m512i) {
    let n = starts.len().min(ends.len());
    let lanes = n.saturating_sub(g).min(8);
    let valid: __mmask8 = ((1u16 << lanes) - 1) as u8;
    // SAFETY: the lanes in `valid` are `g..g + lanes`, with g + lanes <= n,
    // inside both slices (for `lanes == 0` nothing is read and the offset
    // is not used); masked-off lanes are not read.
    unsafe {
        let at = g.min(n);
        (
            valid,
            _mm512_maskz_loadu_epi64(valid, starts.as_ptr().add(at).cast()),
            _mm512_maskz_loadu_epi64(valid, ends.as_ptr().add(at).cast()),
        )
    }
}

/// XXH3's `mul128_fold64` on each lane: the 128-bit product's halves xored.
#[cfg_attr(not(feature = "minhash"), allow(dead_code))] // the shingle hash kernel
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn fold64(x: __m512i, y: __m512i) -> __m512i {
    let (lo, hi) = mul_64x64_128(x, y);
    _mm512_xor_si512(lo, hi)
}

#[cfg(test)]
mod tests;
