//! AVX-512 arithmetic the eight-lane token hashers share.

use core::arch::x86_64::*;

/// The full 128-bit products `x · y` of the lanes, as (low, high) halves,
/// from the four products of their 32-bit halves (AVX-512 has no 64×64→128
/// multiply).
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn mul_64x64_128(x: __m512i, y: __m512i) -> (__m512i, __m512i) {
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
pub(crate) fn load_spans(
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
pub(crate) fn fold64(x: __m512i, y: __m512i) -> __m512i {
    let (lo, hi) = mul_64x64_128(x, y);
    _mm512_xor_si512(lo, hi)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use alloc::vec::Vec;
    use proptest::prelude::*;

    /// Lanes that reach the carry edges: 0, all ones, halves all ones.
    fn lanes_strategy() -> impl Strategy<Value = [u64; 8]> {
        proptest::array::uniform8(prop_oneof![
            any::<u64>(),
            Just(u64::MAX),
            Just(0),
            Just(0xffff_ffff),
            Just(0xffff_ffff_0000_0000),
            (0u64..4).prop_map(|d| u64::MAX - d),
        ])
    }

    fn lanes(v: __m512i) -> [u64; 8] {
        let mut out = [0u64; 8];
        // SAFETY: `out` is 64 writable bytes; unaligned store.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) };
        out
    }

    /// The lanes of `g..g + 8` that both slices have, at every offset.
    #[test]
    fn load_spans_takes_the_lanes_both_slices_have() {
        if !crate::cpu::has_avx512f() {
            std::println!("load_spans test skipped: the CPU lacks AVX-512F");
            return;
        }
        let starts: Vec<usize> = (0..21).map(|i| 100 + i).collect();
        let ends: Vec<usize> = (0..19).map(|i| 200 + i).collect();
        for g in 0..25 {
            // SAFETY: AVX-512F was just detected.
            let (m, s, e) = unsafe { load_spans(&starts, &ends, g) };
            let want = (g..(g + 8).min(19)).count();
            assert_eq!(m.count_ones() as usize, want, "g = {g}");
            assert_eq!(m, ((1u16 << want) - 1) as u8);
            let (s, e) = (lanes(s), lanes(e));
            for l in 0..8 {
                let (ws, we) = if l < want {
                    (100 + g + l, 200 + g + l)
                } else {
                    (0, 0)
                };
                assert_eq!((s[l], e[l]), (ws as u64, we as u64), "g = {g}, lane {l}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Every lane's product equals the u128 product.
        #[test]
        fn products_equal_u128(x in lanes_strategy(), y in lanes_strategy()) {
            if !crate::cpu::has_avx512f() {
                return Ok(());
            }
            // SAFETY: AVX-512F was just detected; the loads read 64 bytes
            // of each array.
            let (lo, hi, f) = unsafe {
                let (a, b) = (_mm512_loadu_si512(x.as_ptr().cast()), _mm512_loadu_si512(y.as_ptr().cast()));
                let (lo, hi) = mul_64x64_128(a, b);
                (lanes(lo), lanes(hi), lanes(fold64(a, b)))
            };
            for i in 0..8 {
                let p = u128::from(x[i]) * u128::from(y[i]);
                prop_assert_eq!(lo[i], p as u64);
                prop_assert_eq!(hi[i], (p >> 64) as u64);
                prop_assert_eq!(f[i], crate::classical::hash::fold64(x[i], y[i]));
            }
        }
    }
}
