//! serde for [`MinHashSig`] (feature `serde`): the shapes of
//! [`slots_serde`](super::slots_serde) under the struct name `MinHashSig`,
//! exactly as 0.3.2 wrote them.
//!
//! * Human-readable formats (JSON, ...): a struct `MinHashSig` with fields
//!   `schema` and `hashes`, e.g. `{"schema":1,"hashes":[1,2]}`. `hashes`
//!   must hold exactly `H` numbers; unknown, missing and repeated fields are
//!   errors.
//! * Binary formats (bincode, postcard, ...): a tuple of `1 + H` elements,
//!   the `u16` schema followed by the `H` slots.
//!
//! Both read paths reject a schema other than [`SCHEMA_VERSION`] (0.3.2
//! accepted any value). The pad is not on the wire and is always zero.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::MinHashSig;
#[cfg(doc)]
use super::SCHEMA_VERSION;
use super::slots_serde;

impl<const H: usize> Serialize for MinHashSig<H> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        slots_serde::serialize(self, serializer)
    }
}

impl<'de, const H: usize> Deserialize<'de> for MinHashSig<H> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        slots_serde::deserialize(deserializer)
    }
}

/// The 0.3.2 shapes and messages of this type; the rules it shares with
/// `FastMinHashSig` are tested in `slots_serde_tests.rs`.
#[cfg(test)]
mod tests {
    use super::*;
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
}
