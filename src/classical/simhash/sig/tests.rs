use super::*;
use alloc::string::ToString;

#[test]
fn display_and_conversions() {
    let s = SimHash64::new(0xdead);
    assert_eq!(s.to_string(), "SimHash64(000000000000dead)");
    assert_eq!(
        SimHash64(u64::MAX).to_string(),
        "SimHash64(ffffffffffffffff)"
    );
    assert_eq!(u64::from(s), 0xdead);
    assert_eq!(SimHash64::from(7u64), SimHash64(7));
    assert_eq!(SimHash64::default(), SimHash64(0));
    assert_eq!(alloc::format!("{s:?}"), "SimHash64(57005)");
}

#[test]
fn bytes_round_trip_and_layout() {
    let s = SimHash64(0x9c16_5db7_b53c_9009);
    assert_eq!(
        s.to_le_bytes(),
        [0x09, 0x90, 0x3c, 0xb5, 0xb7, 0x5d, 0x16, 0x9c]
    );
    #[cfg(target_endian = "little")]
    assert_eq!(s.as_bytes(), &s.to_le_bytes());
    assert_eq!(s.as_bytes().len(), 8);
    assert_eq!(SimHash64::from_bytes(&s.to_le_bytes()).unwrap(), s);
    let pair = [s, SimHash64(1)];
    let view: &[u64] = bytemuck::cast_slice(&pair);
    assert_eq!(view, &[s.0, 1]);
}

#[test]
fn from_bytes_rejects_wrong_lengths_and_accepts_unaligned() {
    for n in [0usize, 1, 7, 9, 16] {
        let err = SimHash64::from_bytes(&alloc::vec![0u8; n]).unwrap_err();
        assert_eq!(
            err.to_string(),
            alloc::format!("invalid input: SimHash64 is 8 bytes, got {n}")
        );
    }
    // Every misalignment of an 8-byte window inside a larger buffer.
    let buf: [u8; 16] = core::array::from_fn(|i| i as u8 + 1);
    for off in 0..8 {
        let got = SimHash64::from_bytes(&buf[off..off + 8]).unwrap();
        let want = u64::from_le_bytes(buf[off..off + 8].try_into().unwrap());
        assert_eq!(got.0, want);
    }
}

#[test]
fn hamming_vectors() {
    assert_eq!(hamming(SimHash64(0), SimHash64(0)), 0);
    assert_eq!(hamming(SimHash64(0), SimHash64(u64::MAX)), 64);
    assert_eq!(hamming(SimHash64(0xff), SimHash64(0x0f)), 4);
    let a = SimHash64(0x9c16_5db7_b53c_9009);
    assert_eq!(hamming(a, a), 0);
    assert_eq!(hamming(a, SimHash64(!a.0)), 64);
}

#[test]
fn cosine_vectors_from_spec() {
    let d = |n: u32| SimHash64(if n == 64 { u64::MAX } else { (1u64 << n) - 1 });
    assert_eq!(cosine_estimate(SimHash64(0), d(0)), 1.0);
    assert_eq!(cosine_estimate(SimHash64(0), d(16)), 0.70710677);
    assert_eq!(cosine_estimate(SimHash64(0), d(32)), -4.371139e-8);
    assert_eq!(cosine_estimate(SimHash64(0), d(64)), -1.0);
}

/// The table must hold exactly what the 0.3.2 formula computes with
/// libstd's `f32::cos`, for all 65 distances.
#[cfg(feature = "std")]
#[test]
fn cosine_table_equals_std_formula() {
    for d in 0..=64u32 {
        let want = ((d as f32 / 64.0) * core::f32::consts::PI).cos();
        let b = if d == 64 { u64::MAX } else { (1u64 << d) - 1 };
        let got = cosine_estimate(SimHash64(0), SimHash64(b));
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "distance {d}: {got} vs {want}"
        );
    }
}

#[cfg(feature = "serde")]
#[test]
fn serde_is_a_bare_integer() {
    assert_eq!(serde_json::to_string(&SimHash64(5)).unwrap(), "5");
    let back: SimHash64 = serde_json::from_str("18446744073709551615").unwrap();
    assert_eq!(back, SimHash64(u64::MAX));
    assert!(serde_json::from_str::<SimHash64>("\"5\"").is_err());
}
