//! Tests of `sig_serde.rs`: each scheme's exact shapes and messages (the
//! default scheme's as in 0.3.2) and the tag rejection between them; the
//! rules both share are tested in `slots_serde_tests.rs`.

use super::*;
use crate::classical::minhash::FastMinHashSig;
use crate::classical::minhash::slots_serde::tests::{binary, record};
use alloc::string::{String, ToString};
use proptest::prelude::*;

fn sig2() -> MinHashSig<2> {
    MinHashSig {
        schema: 1,
        _pad: [0; 6],
        hashes: [1, u64::MAX],
    }
}

fn err_of<const H: usize>(json: &str) -> String {
    serde_json::from_str::<MinHashSig<H>>(json)
        .unwrap_err()
        .to_string()
}

#[test]
fn json_shape_is_exactly_as_0_3_2() {
    let json = serde_json::to_string(&sig2()).unwrap();
    assert_eq!(json, r#"{"schema":1,"hashes":[1,18446744073709551615]}"#);
    assert_eq!(
        serde_json::from_str::<MinHashSig<2>>(&json).unwrap(),
        sig2()
    );
    let zero = serde_json::to_string(&MinHashSig::<0>::empty()).unwrap();
    assert_eq!(zero, r#"{"schema":1,"hashes":[]}"#);
}

#[test]
fn json_rejects_other_schema() {
    let e = err_of::<2>(r#"{"schema":9,"hashes":[1,2]}"#);
    assert!(
        e.contains("schema version mismatch: expected 1, got 9"),
        "{e}"
    );
    let e = err_of::<2>(r#"{"schema":0,"hashes":[1,2]}"#);
    assert!(e.contains("expected 1, got 0"), "{e}");
}

#[test]
fn binary_shape_and_schema_check() {
    let mut rec = record::Rec::default();
    MinHashSig::<0>::empty().serialize(&mut rec).unwrap();
    assert_eq!(rec.0, ["tuple 1", "u16 1", "end"]);
    let sig = MinHashSig::<2>::deserialize(binary::Compact(alloc::vec![1, 5, 6])).unwrap();
    assert_eq!(sig.hashes, [5, 6]);
    let e = MinHashSig::<2>::deserialize(binary::Compact(alloc::vec![3, 5, 6])).unwrap_err();
    assert!(e.to_string().contains("expected 1, got 3"), "{e}");
}

proptest! {
    #[test]
    fn json_round_trip(hashes in proptest::array::uniform8(any::<u64>())) {
        let sig = MinHashSig::<8> { schema: 1, _pad: [0; 6], hashes };
        let json = serde_json::to_string(&sig).unwrap();
        prop_assert_eq!(serde_json::from_str::<MinHashSig<8>>(&json).unwrap(), sig);
    }
}

// The fast scheme.

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
