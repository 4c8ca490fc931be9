//! Tests of `sig_serde.rs`: this type's shape and its tag rejection; the
//! rules it shares with `MinHashSig` are tested in `slots_serde_tests.rs`.

use alloc::string::ToString;

use crate::classical::minhash::slots_serde::tests::{binary, record};
use crate::{FastMinHashSig, MinHashSig};

fn sig() -> FastMinHashSig<2> {
    FastMinHashSig {
        hashes: [1, u64::MAX],
        ..FastMinHashSig::empty()
    }
}

#[test]
fn json_round_trip_and_shape() {
    let json = serde_json::to_string(&sig()).unwrap();
    assert_eq!(
        json,
        r#"{"schema":17921,"hashes":[1,18446744073709551615]}"#
    );
    assert_eq!(
        serde_json::from_str::<FastMinHashSig<2>>(&json).unwrap(),
        sig()
    );
}

#[test]
fn json_rejects_the_other_scheme_both_ways() {
    let default = serde_json::to_string(&MinHashSig::<2>::empty()).unwrap();
    let e = serde_json::from_str::<FastMinHashSig<2>>(&default)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("expected 17921 (a FastMinHashSig), got 1"),
        "{e}"
    );
    let fast = serde_json::to_string(&sig()).unwrap();
    let e = serde_json::from_str::<MinHashSig<2>>(&fast)
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected 1, got 17921"), "{e}");
}

#[test]
fn binary_shape_and_wrong_tag() {
    use serde::{Deserialize, Serialize};
    let mut rec = record::Rec::default();
    sig().serialize(&mut rec).unwrap();
    assert_eq!(
        rec.0,
        [
            "tuple 3",
            "u16 17921",
            "u64 1",
            "u64 18446744073709551615",
            "end"
        ]
    );
    let wire = alloc::vec![0x4601, 1, u64::MAX];
    let back = FastMinHashSig::<2>::deserialize(binary::Compact(wire.clone())).unwrap();
    assert_eq!(back, sig());
    let e = FastMinHashSig::<2>::deserialize(binary::Compact(alloc::vec![1, 5, 6]))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("expected 17921 (a FastMinHashSig), got 1"),
        "{e}"
    );
    let e = MinHashSig::<2>::deserialize(binary::Compact(wire))
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected 1, got 17921"), "{e}");
}

/// Inside the unified enum the variant tag and the schema word both guard
/// the scheme: a fast signature under the `MinHash` tag is refused.
#[test]
fn fingerprint_enum_round_trip_and_refusal() {
    let sig = FastMinHashSig::<128> {
        hashes: [7; 128],
        ..FastMinHashSig::empty()
    };
    let f = crate::Fingerprint::FastMinHash(sig);
    let json = serde_json::to_string(&f).unwrap();
    assert!(
        json.starts_with(r#"{"FastMinHash":{"schema":17921,"#),
        "{json}"
    );
    assert_eq!(
        serde_json::from_str::<crate::Fingerprint>(&json).unwrap(),
        f
    );
    let relabelled = json.replacen("FastMinHash", "MinHash", 1);
    let e = serde_json::from_str::<crate::Fingerprint>(&relabelled)
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected 1, got 17921"), "{e}");
}
