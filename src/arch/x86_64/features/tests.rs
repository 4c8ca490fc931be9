use super::*;

/// Each proof answers what the detection macro answers, and a level never
/// claims less than the levels it includes.
#[test]
#[cfg(feature = "std")]
fn proofs_follow_the_cpu() {
    use std::arch::is_x86_feature_detected as has;
    assert!(Sse2::detect().is_some());
    assert_eq!(Avx2::detect().is_some(), has!("avx2"));
    assert_eq!(Avx512::detect().is_some(), has!("avx512f"));
    assert_eq!(
        Avx512Dq::detect().is_some(),
        has!("avx512f") && has!("avx512dq")
    );
    assert_eq!(
        Avx512Bw::detect().is_some(),
        has!("avx512f") && has!("avx512bw")
    );
    if Avx512Vbmi2::detect().is_some() {
        assert!(Avx512Vbmi::detect().is_some());
    }
    if Avx512Vbmi::detect().is_some() {
        assert!(Avx512Bw::detect().is_some());
    }
    if Avx512Bw::detect().is_some() || Avx512Dq::detect().is_some() {
        assert!(Avx512::detect().is_some());
    }
}

/// Without `std` only the compile-time target features count.
#[test]
#[cfg(not(feature = "std"))]
fn proofs_follow_the_target_features() {
    assert_eq!(Avx2::detect().is_some(), cfg!(target_feature = "avx2"));
    assert_eq!(Avx512::detect().is_some(), cfg!(target_feature = "avx512f"));
}
