//! Packed b-bit signatures against unpacked lowest bits, the bias
//! correction on real MinHash signatures, the byte format and serde.

use alloc::format;
use alloc::string::{String, ToString};

use alloc::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::classical::minhash::FastMinHashSig;
use crate::{Canonicalizer, Fingerprinter, MinHashFingerprinter, WordTokenizer};

/// The plain reference: the lowest `b` bits of each slot, unpacked.
fn low(slots: &[u64], b: u8) -> Vec<u64> {
    slots.iter().map(|s| s & ((1u64 << b) - 1)).collect()
}

fn width() -> impl Strategy<Value = u8> {
    proptest::sample::select(BBIT_WIDTHS.to_vec())
}

proptest! {
    #[test]
    fn packed_matches_reference(
        a in proptest::collection::vec(any::<u64>(), 1..200),
        flips in proptest::collection::vec(any::<(bool, u64)>(), 200),
        b in width(),
    ) {
        // `other` shares some slots with `a`, differs in some high bits
        // only, and is random elsewhere.
        let other: Vec<u64> = a.iter().zip(&flips).map(|(&x, &(keep, r))| match (keep, r % 3) {
            (true, _) => x,
            (false, 0) => x ^ (r << 32) ^ (1 << 63),
            _ => r,
        }).collect();
        let pa = BBitSignature::from_slots(&a, b, 1).unwrap();
        let po = BBitSignature::from_slots(&other, b, 1).unwrap();
        let (la, lo) = (low(&a, b), low(&other, b));
        for (i, &l) in la.iter().enumerate() {
            prop_assert_eq!(pa.get(i), Some(l));
        }
        prop_assert_eq!(pa.get(a.len()), None);
        let expected = la.iter().zip(&lo).filter(|(x, y)| x == y).count();
        prop_assert_eq!(pa.matches(&po).unwrap(), expected);
        prop_assert_eq!(pa.matches(&pa).unwrap(), a.len());
        let p = expected as f64 / a.len() as f64;
        let c = 0.5f64.powi(i32::from(b));
        prop_assert_eq!(pa.jaccard(&po).unwrap(), ((p - c) / (1.0 - c)).clamp(0.0, 1.0));
        prop_assert_eq!(pa.words().len(), (a.len() * usize::from(b)).div_ceil(64));
        prop_assert_eq!(BBitSignature::from_bytes(&pa.to_bytes()).unwrap(), pa);
    }

    #[test]
    fn from_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = BBitSignature::from_bytes(&bytes);
    }
}

fn words(range: core::ops::Range<usize>) -> String {
    range.map(|i| format!("w{i} ")).collect()
}

/// Over many pairs of real MinHash signatures with known Jaccard, the
/// corrected estimate's mean error is near 0 while the raw match fraction
/// is biased by `(1 − J)·2⁻ᵇ`.
#[test]
fn correction_removes_the_bias() {
    let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
    for b in [1u8, 2, 4] {
        let (mut corrected, mut raw, mut full, mut expected_bias) = (0.0, 0.0, 0.0, 0.0);
        let pairs = 60;
        for p in 0..pairs {
            // |A| = |B| = 100, overlap 10..=99 words: J = o / (200 − o).
            let o = 10 + (p * 89) / (pairs - 1);
            let start = 1000 * p;
            let a = fp.fingerprint(&words(start..start + 100)).unwrap();
            let bsig = fp
                .fingerprint(&words(start + 100 - o..start + 200 - o))
                .unwrap();
            let j = o as f64 / (200 - o) as f64;
            let (ba, bb) = (
                BBitSignature::from_sig(&a, b).unwrap(),
                BBitSignature::from_sig(&bsig, b).unwrap(),
            );
            corrected += ba.jaccard(&bb).unwrap() - j;
            raw += ba.match_fraction(&bb).unwrap() - j;
            full += f64::from(a.jaccard(&bsig)) - j;
            expected_bias += (1.0 - j) * 0.5f64.powi(i32::from(b));
        }
        let n = pairs as f64;
        let (corrected, raw, full, expected_bias) =
            (corrected / n, raw / n, full / n, expected_bias / n);
        assert!(
            corrected.abs() < 0.03,
            "b={b}: corrected mean error {corrected}"
        );
        assert!(
            (raw - full - expected_bias).abs() < 0.03,
            "b={b}: raw {raw}, full {full}, bias {expected_bias}"
        );
        assert!(
            raw > expected_bias / 2.0 && raw > corrected.abs() * 3.0,
            "b={b}: raw {raw}"
        );
    }
}

#[test]
fn golden_bytes_and_partial_word() {
    // 70 one-bit slots: words of 64 and 6 fields.
    let slots: Vec<u64> = (0..70u64).map(|i| i * 3).collect();
    let s = BBitSignature::from_slots(&slots, 1, 0x4601).unwrap();
    let hex: String = s.to_bytes().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        hex,
        "01420100014600004600000000000000aaaaaaaaaaaaaaaa2a00000000000000"
    );
    assert_eq!(BBitSignature::from_bytes(&s.to_bytes()).unwrap(), s);
    let mut bad = s.to_bytes();
    bad[16 + 8] |= 0x40; // bit 6 of the last word: past slot 69
    assert!(matches!(
        BBitSignature::from_bytes(&bad),
        Err(Error::Corrupt(_))
    ));
}

#[test]
fn damaged_bytes_are_rejected() {
    let sig = BBitSignature::from_slots(&[1, 2, 3, 4, 5], 16, 1).unwrap();
    let bytes = sig.to_bytes();
    for len in 0..bytes.len() {
        let err = BBitSignature::from_bytes(&bytes[..len]).unwrap_err();
        assert!(
            matches!(err, Error::Corrupt(_) | Error::SchemaMismatch { .. }),
            "{len}: {err}"
        );
    }
    let mut long = bytes.clone();
    long.extend([0; 8]);
    assert!(matches!(
        BBitSignature::from_bytes(&long),
        Err(Error::Corrupt(_))
    ));
    // Every header byte is checked except the source schema (4, 5), which
    // reads as another, valid signature that the estimator then refuses.
    for i in (0..16).filter(|i| !(4..6).contains(i)) {
        let mut bad = bytes.clone();
        bad[i] ^= 0x10;
        let err = BBitSignature::from_bytes(&bad).unwrap_err();
        assert!(
            matches!(err, Error::Corrupt(_) | Error::SchemaMismatch { .. }),
            "{i}: {err}"
        );
    }
    let mut other = bytes.clone();
    other[4] ^= 0x10;
    let other = BBitSignature::from_bytes(&other).unwrap();
    assert!(matches!(sig.jaccard(&other), Err(Error::InvalidInput(_))));
    assert!(matches!(
        BBitSignature::from_bytes(&crate::MinHashSig::<4>::empty().to_le_bytes()),
        Err(Error::SchemaMismatch {
            expected: 0x4201,
            actual: 1
        })
    ));
    let mut huge = bytes[..16].to_vec();
    huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        BBitSignature::from_bytes(&huge),
        Err(Error::Corrupt(_))
    ));
}

#[test]
fn bad_parameters_are_typed() {
    let sig = crate::MinHashSig::<8>::empty();
    for b in [0u8, 3, 5, 7, 12, 33, 64, 255] {
        let err = BBitSignature::from_sig(&sig, b).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("invalid input: b must be one of 1, 2, 4, 8, 16, 32, got {b}")
        );
    }
    assert!(matches!(
        BBitSignature::from_sig(&crate::MinHashSig::<0>::empty(), 1),
        Err(Error::InvalidInput(_))
    ));
    let a = BBitSignature::from_sig(&sig, 2).unwrap();
    let fast = BBitSignature::from_sig(&FastMinHashSig::<8>::empty(), 2).unwrap();
    assert_eq!(fast.source_schema(), 0x4601);
    assert!(matches!(a.jaccard(&fast), Err(Error::InvalidInput(_))));
    assert!(matches!(
        a.jaccard(&BBitSignature::from_sig(&sig, 4).unwrap()),
        Err(Error::InvalidInput(_))
    ));
    let short = BBitSignature::from_sig(&crate::MinHashSig::<4>::empty(), 2).unwrap();
    assert!(matches!(
        a.jaccard(&short),
        Err(Error::DimensionMismatch { a: 8, b: 4 })
    ));
    assert_eq!((a.bits(), a.num_slots()), (2, 8));
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trip_and_checks() {
    let s = BBitSignature::from_slots(&[1, 2, 3], 2, 1).unwrap();
    let json = serde_json::to_string(&s).unwrap();
    assert_eq!(
        json,
        r#"{"schema":16897,"b":2,"source_schema":1,"n":3,"words":[57]}"#
    );
    assert_eq!(serde_json::from_str::<BBitSignature>(&json).unwrap(), s);
    for bad in [
        r#"{"schema":1,"b":2,"source_schema":1,"n":3,"words":[57]}"#,
        r#"{"schema":16897,"b":3,"source_schema":1,"n":3,"words":[57]}"#,
        r#"{"schema":16897,"b":2,"source_schema":1,"n":3,"words":[57,0]}"#,
        r#"{"schema":16897,"b":2,"source_schema":1,"n":3,"words":[4153]}"#,
        r#"{"schema":16897,"b":2,"source_schema":1,"n":0,"words":[]}"#,
    ] {
        assert!(serde_json::from_str::<BBitSignature>(bad).is_err(), "{bad}");
    }
}

#[test]
fn debug_names_the_fields() {
    let s = BBitSignature::from_slots(&[1, 2, 3], 2, 1).unwrap();
    assert_eq!(
        format!("{s:?}"),
        "BBitSignature { b: 2, source_schema: 1, n: 3, words: [57] }"
    );
}
