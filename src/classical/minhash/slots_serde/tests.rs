//! Tests of `slots_serde.rs`: the rules both signature types share, run
//! once per type, and the two miniature formats their own tests use. The
//! exact wire shapes and schema messages are pinned next to each type.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use core::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::SlotSig;
use crate::{MinHashSig, classical::minhash::FastMinHashSig};

/// A minimal non-human-readable serializer target: serde_json's `Value`
/// is human readable, so the tuple path is driven through a tiny
/// `Deserializer` over a list of numbers instead.
pub(crate) mod binary {
    use serde::de::value::{Error, SeqDeserializer};
    use serde::de::{Deserializer, IntoDeserializer, Visitor};

    pub struct Compact(pub alloc::vec::Vec<u64>);

    impl<'de> Deserializer<'de> for Compact {
        type Error = Error;
        fn is_human_readable(&self) -> bool {
            false
        }
        fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            let seq = SeqDeserializer::new(self.0.into_iter().map(|x| x.into_deserializer()));
            v.visit_seq(seq)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map struct enum identifier ignored_any
        }
    }
}

/// A non-human-readable serializer that records what it is given, to
/// check the binary shape without a binary-format dependency.
pub(crate) mod record {
    use alloc::string::String;
    use alloc::vec::Vec;
    use serde::ser::{self, Impossible, Serialize, SerializeTuple};

    #[derive(Default)]
    pub struct Rec(pub Vec<String>);

    #[derive(Debug)]
    pub struct Unexpected;
    impl core::fmt::Display for Unexpected {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("unexpected call")
        }
    }
    impl core::error::Error for Unexpected {}
    impl ser::Error for Unexpected {
        fn custom<T: core::fmt::Display>(_: T) -> Self {
            Unexpected
        }
    }

    macro_rules! reject {
        ($($name:ident($($t:ty),*)),* $(,)?) => {$(
            fn $name(self, $(_: $t),*) -> Result<(), Unexpected> { Err(Unexpected) }
        )*};
    }

    impl ser::Serializer for &mut Rec {
        type Ok = ();
        type Error = Unexpected;
        type SerializeSeq = Impossible<(), Unexpected>;
        type SerializeTuple = Self;
        type SerializeTupleStruct = Impossible<(), Unexpected>;
        type SerializeTupleVariant = Impossible<(), Unexpected>;
        type SerializeMap = Impossible<(), Unexpected>;
        type SerializeStruct = Impossible<(), Unexpected>;
        type SerializeStructVariant = Impossible<(), Unexpected>;

        fn is_human_readable(&self) -> bool {
            false
        }
        fn serialize_u16(self, v: u16) -> Result<(), Unexpected> {
            self.0.push(alloc::format!("u16 {v}"));
            Ok(())
        }
        fn serialize_u64(self, v: u64) -> Result<(), Unexpected> {
            self.0.push(alloc::format!("u64 {v}"));
            Ok(())
        }
        fn serialize_tuple(self, len: usize) -> Result<Self, Unexpected> {
            self.0.push(alloc::format!("tuple {len}"));
            Ok(self)
        }
        reject!(
            serialize_bool(bool),
            serialize_i8(i8),
            serialize_i16(i16),
            serialize_i32(i32),
            serialize_i64(i64),
            serialize_u8(u8),
            serialize_u32(u32),
            serialize_f32(f32),
            serialize_f64(f64),
            serialize_char(char),
            serialize_str(&str),
            serialize_bytes(&[u8]),
            serialize_none(),
            serialize_unit(),
            serialize_unit_struct(&'static str),
            serialize_unit_variant(&'static str, u32, &'static str),
        );
        fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), Unexpected> {
            Err(Unexpected)
        }
        fn serialize_newtype_struct<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<(), Unexpected> {
            Err(Unexpected)
        }
        fn serialize_newtype_variant<T: ?Sized + Serialize>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<(), Unexpected> {
            Err(Unexpected)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Unexpected> {
            Err(Unexpected)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, Unexpected> {
            Err(Unexpected)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Unexpected> {
            Err(Unexpected)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unexpected> {
            Err(Unexpected)
        }
        fn serialize_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStruct, Unexpected> {
            Err(Unexpected)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, Unexpected> {
            Err(Unexpected)
        }
    }

    impl SerializeTuple for &mut Rec {
        type Ok = ();
        type Error = Unexpected;
        fn serialize_element<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Unexpected> {
            v.serialize(&mut **self)
        }
        fn end(self) -> Result<(), Unexpected> {
            self.0.push("end".into());
            Ok(())
        }
    }
}

/// Every rule of the human-readable path that does not depend on the type.
fn json_rules<T>()
where
    T: SlotSig<2> + Serialize + DeserializeOwned + Debug + PartialEq,
{
    let s = T::SCHEMA;
    let sig = T::with_hashes([1, u64::MAX]);
    let json = serde_json::to_string(&sig).unwrap();
    assert_eq!(
        json,
        format!(r#"{{"schema":{s},"hashes":[1,18446744073709551615]}}"#)
    );
    assert_eq!(serde_json::from_str::<T>(&json).unwrap(), sig);
    let spaced = format!(r#" {{ "hashes" : [1, 18446744073709551615], "schema" : {s} }} "#);
    assert_eq!(serde_json::from_str::<T>(&spaced).unwrap(), sig);
    let bad = [
        (
            format!(r#"{{"schema":{s},"hashes":[1]}}"#),
            "invalid length 1, expected exactly 2 u64 hashes",
        ),
        (
            format!(r#"{{"schema":{s},"hashes":[1,2,3,4]}}"#),
            "invalid length 4, expected exactly 2 u64 hashes",
        ),
        (
            format!(r#"{{"schema":{s},"hashes":[1,2],"extra":0}}"#),
            "unknown field `extra`",
        ),
        (r#"{"hashes":[1,2]}"#.into(), "missing field `schema`"),
        (format!(r#"{{"schema":{s}}}"#), "missing field `hashes`"),
        (
            format!(r#"{{"schema":{s},"schema":{s},"hashes":[1,2]}}"#),
            "duplicate field `schema`",
        ),
        (
            format!(r#"{{"schema":{s},"hashes":[1,2],"hashes":[1,2]}}"#),
            "duplicate field `hashes`",
        ),
        (
            format!(r#"{{"schema":{s},"hashes":[1,-2]}}"#),
            "invalid value",
        ),
        (r#"{"schema":70000,"hashes":[1,2]}"#.into(), "invalid value"),
        (
            format!(r#"{{"schema":{},"hashes":[1,2]}}"#, s ^ 1),
            "schema version mismatch: expected",
        ),
    ];
    for (json, want) in bad {
        let e: String = serde_json::from_str::<T>(&json).unwrap_err().to_string();
        assert!(e.contains(want), "{}: {json}: {e}", T::NAME);
    }
}

#[test]
fn json_rules_hold_for_both_types() {
    json_rules::<MinHashSig<2>>();
    json_rules::<FastMinHashSig<2>>();
}

/// The binary path: a `1 + H` tuple written and read back, a short tuple
/// refused with its length.
fn binary_rules<T>()
where
    T: SlotSig<2> + Serialize + DeserializeOwned + Debug + PartialEq,
{
    let s = T::SCHEMA;
    let sig = T::with_hashes([1, u64::MAX]);
    let mut rec = record::Rec::default();
    sig.serialize(&mut rec).unwrap();
    assert_eq!(
        rec.0,
        [
            "tuple 3".into(),
            format!("u16 {s}"),
            "u64 1".into(),
            "u64 18446744073709551615".into(),
            "end".into()
        ]
    );
    let back = T::deserialize(binary::Compact(vec![s.into(), 1, u64::MAX])).unwrap();
    assert_eq!(back, sig);
    let e = T::deserialize(binary::Compact(vec![s.into(), 5])).unwrap_err();
    assert!(
        e.to_string().contains("invalid length 2"),
        "{}: {e}",
        T::NAME
    );
    let e = T::deserialize(binary::Compact(vec![])).unwrap_err();
    assert!(
        e.to_string().contains("invalid length 0"),
        "{}: {e}",
        T::NAME
    );
}

#[test]
fn binary_rules_hold_for_both_types() {
    binary_rules::<MinHashSig<2>>();
    binary_rules::<FastMinHashSig<2>>();
}
