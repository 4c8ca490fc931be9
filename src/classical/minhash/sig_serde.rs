//! serde for [`MinHashSig`] (feature `serde`), written by hand because the
//! wire shape differs per format and `[u64; H]` has no serde impls for
//! arbitrary `H`.
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

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeStruct, SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};

use super::{MinHashSig, SCHEMA_VERSION};

const FIELDS: &[&str] = &["schema", "hashes"];

impl<const H: usize> Serialize for MinHashSig<H> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            let mut st = serializer.serialize_struct("MinHashSig", 2)?;
            st.serialize_field("schema", &self.schema)?;
            st.serialize_field("hashes", &self.hashes[..])?;
            st.end()
        } else {
            let mut tup = serializer.serialize_tuple(1 + H)?;
            tup.serialize_element(&self.schema)?;
            for h in &self.hashes {
                tup.serialize_element(h)?;
            }
            tup.end()
        }
    }
}

impl<'de, const H: usize> Deserialize<'de> for MinHashSig<H> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_struct("MinHashSig", FIELDS, StructVisitor::<H>)
        } else {
            deserializer.deserialize_tuple(1 + H, TupleVisitor::<H>)
        }
    }
}

fn check_schema<E: de::Error>(schema: u16) -> Result<(), E> {
    if schema == SCHEMA_VERSION {
        Ok(())
    } else {
        Err(E::custom(format_args!(
            "schema version mismatch: expected {SCHEMA_VERSION}, got {schema}"
        )))
    }
}

/// Expectation text shared by the length errors.
struct ExactlyH<const H: usize>;

impl<const H: usize> de::Expected for ExactlyH<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exactly {H} u64 hashes")
    }
}

/// Reads the `hashes` sequence into `[u64; H]`, requiring exactly `H` items.
struct HashesSeed<const H: usize>(PhantomData<[u64; H]>);

impl<'de, const H: usize> DeserializeSeed<'de> for HashesSeed<H> {
    type Value = [u64; H];
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<[u64; H], D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, const H: usize> Visitor<'de> for HashesSeed<H> {
    type Value = [u64; H];

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a sequence of exactly {H} u64 hashes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[u64; H], A::Error> {
        let mut out = [0u64; H];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(i, &ExactlyH::<H>))?;
        }
        // Count the surplus so the error names the actual length.
        let mut extra = 0usize;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            extra += 1;
        }
        if extra > 0 {
            return Err(de::Error::invalid_length(H + extra, &ExactlyH::<H>));
        }
        Ok(out)
    }
}

enum Field {
    Schema,
    Hashes,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl Visitor<'_> for FieldVisitor {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`schema` or `hashes`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Field, E> {
                match v {
                    "schema" => Ok(Field::Schema),
                    "hashes" => Ok(Field::Hashes),
                    other => Err(E::unknown_field(other, FIELDS)),
                }
            }
        }
        d.deserialize_identifier(FieldVisitor)
    }
}

struct StructVisitor<const H: usize>;

impl<'de, const H: usize> Visitor<'de> for StructVisitor<H> {
    type Value = MinHashSig<H>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct MinHashSig with `schema` and {H} `hashes`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MinHashSig<H>, A::Error> {
        let mut schema: Option<u16> = None;
        let mut hashes: Option<[u64; H]> = None;
        while let Some(key) = map.next_key::<Field>()? {
            match key {
                Field::Schema => {
                    if schema.is_some() {
                        return Err(de::Error::duplicate_field("schema"));
                    }
                    schema = Some(map.next_value()?);
                }
                Field::Hashes => {
                    if hashes.is_some() {
                        return Err(de::Error::duplicate_field("hashes"));
                    }
                    hashes = Some(map.next_value_seed(HashesSeed::<H>(PhantomData))?);
                }
            }
        }
        let schema = schema.ok_or_else(|| de::Error::missing_field("schema"))?;
        let hashes = hashes.ok_or_else(|| de::Error::missing_field("hashes"))?;
        check_schema(schema)?;
        Ok(MinHashSig {
            schema,
            _pad: [0; 6],
            hashes,
        })
    }
}

struct TupleVisitor<const H: usize>;

impl<'de, const H: usize> Visitor<'de> for TupleVisitor<H> {
    type Value = MinHashSig<H>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a tuple of a u16 schema and {H} u64 hashes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MinHashSig<H>, A::Error> {
        let schema: u16 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        check_schema(schema)?;
        let mut hashes = [0u64; H];
        for (i, slot) in hashes.iter_mut().enumerate() {
            *slot = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(1 + i, &self))?;
        }
        Ok(MinHashSig {
            schema,
            _pad: [0; 6],
            hashes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn json_field_order_and_whitespace_do_not_matter() {
        let s = r#" { "hashes" : [1, 18446744073709551615], "schema" : 1 } "#;
        assert_eq!(serde_json::from_str::<MinHashSig<2>>(s).unwrap(), sig2());
    }

    #[test]
    fn json_rejects_wrong_hash_count() {
        let e = err_of::<2>(r#"{"schema":1,"hashes":[1]}"#);
        assert!(
            e.contains("invalid length 1, expected exactly 2 u64 hashes"),
            "{e}"
        );
        let e = err_of::<2>(r#"{"schema":1,"hashes":[1,2,3,4]}"#);
        assert!(
            e.contains("invalid length 4, expected exactly 2 u64 hashes"),
            "{e}"
        );
    }

    #[test]
    fn json_rejects_bad_fields() {
        let e = err_of::<2>(r#"{"schema":1,"hashes":[1,2],"extra":0}"#);
        assert!(e.contains("unknown field `extra`"), "{e}");
        let e = err_of::<2>(r#"{"hashes":[1,2]}"#);
        assert!(e.contains("missing field `schema`"), "{e}");
        let e = err_of::<2>(r#"{"schema":1}"#);
        assert!(e.contains("missing field `hashes`"), "{e}");
        let e = err_of::<2>(r#"{"schema":1,"schema":1,"hashes":[1,2]}"#);
        assert!(e.contains("duplicate field `schema`"), "{e}");
        let e = err_of::<2>(r#"{"schema":1,"hashes":[1,-2]}"#);
        assert!(e.contains("invalid value"), "{e}");
        let e = err_of::<2>(r#"{"schema":70000,"hashes":[1,2]}"#);
        assert!(e.contains("invalid value"), "{e}");
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

    /// A minimal non-human-readable serializer target: serde_json's `Value`
    /// is human readable, so the tuple path is driven through a tiny
    /// `Deserializer` over a list of numbers instead.
    mod binary {
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
    mod record {
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
            fn serialize_element<T: ?Sized + Serialize>(
                &mut self,
                v: &T,
            ) -> Result<(), Unexpected> {
                v.serialize(&mut **self)
            }
            fn end(self) -> Result<(), Unexpected> {
                self.0.push("end".into());
                Ok(())
            }
        }
    }

    #[test]
    fn binary_serialization_is_a_tuple_of_1_plus_h() {
        let mut rec = record::Rec::default();
        sig2().serialize(&mut rec).unwrap();
        assert_eq!(
            rec.0,
            [
                "tuple 3",
                "u16 1",
                "u64 1",
                "u64 18446744073709551615",
                "end"
            ]
        );
        let mut rec = record::Rec::default();
        MinHashSig::<0>::empty().serialize(&mut rec).unwrap();
        assert_eq!(rec.0, ["tuple 1", "u16 1", "end"]);
    }

    #[test]
    fn binary_path_is_a_tuple() {
        use binary::Compact;
        let sig = MinHashSig::<2>::deserialize(Compact(alloc::vec![1, 5, 6])).unwrap();
        assert_eq!(sig.hashes, [5, 6]);
        let e = MinHashSig::<2>::deserialize(Compact(alloc::vec![1, 5])).unwrap_err();
        assert!(e.to_string().contains("invalid length 2"), "{e}");
        let e = MinHashSig::<2>::deserialize(Compact(alloc::vec![3, 5, 6])).unwrap_err();
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
