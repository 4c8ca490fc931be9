extern crate std;

use super::*;
use crate::arch::x86_64::Avx512;
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
    // SAFETY: `out` is 64 writable bytes; unaligned store. Only called on
    // vectors the tests computed after detecting AVX-512F.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) };
    out
}

/// The lanes of `g..g + 8` that both slices have, at every offset.
#[test]
fn load_spans_takes_the_lanes_both_slices_have() {
    if Avx512::detect().is_none() {
        std::println!("load_spans test skipped: the CPU lacks AVX-512F");
        return;
    }
    let starts: Vec<usize> = (0..21).map(|i| 100 + i).collect();
    let ends: Vec<usize> = (0..19).map(|i| 200 + i).collect();
    for g in 0..25 {
        // SAFETY: AVX-512F was just detected (an `Avx512` proof exists).
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
        if Avx512::detect().is_none() {
            return Ok(());
        }
        // SAFETY: AVX-512F was just detected (an `Avx512` proof exists);
        // the loads read 64 bytes of each array.
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
