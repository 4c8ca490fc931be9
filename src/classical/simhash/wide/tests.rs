use super::*;
use crate::classical::simhash::cosine_estimate;
use alloc::string::ToString;

#[test]
fn display_bytes_and_errors() {
    assert_eq!(SimHash16(0xff).to_string(), "SimHash16(00ff)");
    assert_eq!(SimHash32(0xff).to_string(), "SimHash32(000000ff)");
    assert_eq!(
        SimHash128(0xff).to_string(),
        "SimHash128(000000000000000000000000000000ff)"
    );
    let s = SimHash128(0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10);
    assert_eq!(s.to_le_bytes()[0], 0x10);
    assert_eq!(SimHash128::from_bytes(&s.to_le_bytes()).unwrap(), s);
    let err = SimHash32::from_bytes(&[0; 3]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: SimHash32 is 4 bytes, got 3"
    );
    let err = SimHash128::from_bytes(&[0; 8]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: SimHash128 is 16 bytes, got 8"
    );
}

#[test]
fn halves_and_truncation() {
    let (lo, hi) = (0x0123_4567_89ab_cdef_u64, 0xfedc_ba98_7654_3210_u64);
    assert_eq!(SimHash16::from_halves(lo, hi), SimHash16(0xcdef));
    assert_eq!(SimHash32::from_halves(lo, hi), SimHash32(0x89ab_cdef));
    assert_eq!(SimHash64::from_halves(lo, hi), SimHash64(lo));
    let w = SimHash128::from_halves(lo, hi);
    assert_eq!((w.low64(), w.high64()), (SimHash64(lo), SimHash64(hi)));
}

#[test]
fn cosine_matches_the_64_bit_table_at_equal_fractions() {
    for d in 0..=64u32 {
        let a = if d == 64 { u64::MAX } else { (1u64 << d) - 1 };
        let want = cosine_estimate(SimHash64(0), SimHash64(a));
        assert_eq!(SimHash64(0).cosine_estimate(SimHash64(a)), want);
        let w = SimHash128(u128::from(a) | (u128::from(a) << 64));
        assert_eq!(SimHash128(0).cosine_estimate(w), want, "d = {d}");
        if d % 2 == 0 {
            let n = (1u64 << (d / 2)) - 1;
            assert_eq!(SimHash32(0).cosine_estimate(SimHash32(n as u32)), want);
        }
        if d % 4 == 0 {
            let n = (1u64 << (d / 4)) - 1;
            assert_eq!(SimHash16(0).cosine_estimate(SimHash16(n as u16)), want);
        }
    }
}

#[cfg(feature = "std")]
#[test]
fn cosine_128_table_equals_std_formula() {
    for d in 0..=128u32 {
        let want = ((d as f32 / 128.0) * core::f32::consts::PI).cos();
        assert_eq!(COSINE_128[d as usize].to_bits(), want.to_bits(), "d = {d}");
    }
}

#[cfg(feature = "serde")]
#[test]
fn serde_is_a_bare_integer() {
    let s = SimHash128(u128::MAX - 1);
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(json, "340282366920938463463374607431768211454");
    assert_eq!(serde_json::from_str::<SimHash128>(&json).unwrap(), s);
    assert_eq!(serde_json::to_string(&SimHash16(7)).unwrap(), "7");
    assert!(serde_json::from_str::<SimHash16>("65536").is_err());
}

#[test]
fn hamming_and_similarity_bounds() {
    assert_eq!(SimHash16(0).hamming(SimHash16(u16::MAX)), 16);
    assert_eq!(SimHash32(0).hamming(SimHash32(u32::MAX)), 32);
    assert_eq!(SimHash128(0).hamming(SimHash128(u128::MAX)), 128);
    assert_eq!(SimHash128(5).similarity(SimHash128(5)), 1.0);
    assert_eq!(SimHash16(0).similarity(SimHash16(u16::MAX)), 0.0);
}
