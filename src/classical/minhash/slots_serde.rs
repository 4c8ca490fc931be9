//! The serde shapes shared by [`MinHashSig`](super::MinHashSig) and
//! [`FastMinHashSig`](super::fast::FastMinHashSig) (feature `serde`),
//! generic over [`SlotSig`]; each type's `Serialize` / `Deserialize` impl
//! forwards here. Written by hand because the shape differs per format and
//! `[u64; H]` has no serde impls for arbitrary `H`.
//!
//! * Human-readable formats (JSON, ...): a struct named [`SlotSig::NAME`]
//!   with fields `schema` and `hashes`, e.g. `{"schema":1,"hashes":[1,2]}`.
//!   `hashes` must hold exactly `H` numbers; unknown, missing and repeated
//!   fields are errors.
//! * Binary formats (bincode, postcard, ...): a tuple of `1 + H` elements,
//!   the `u16` schema followed by the `H` slots.
//!
//! Both read paths reject a schema other than [`SlotSig::SCHEMA`]. The pad
//! is not on the wire and is always zero.

use core::fmt;
use core::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeStruct, SerializeTuple, Serializer};

use super::slots::SlotSig;

const FIELDS: &[&str] = &["schema", "hashes"];

/// Writes `sig` as a struct (human-readable formats) or a tuple.
pub(crate) fn serialize<T: SlotSig<H>, S: Serializer, const H: usize>(
    sig: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let (schema, _, hashes) = sig.parts();
    if serializer.is_human_readable() {
        let mut st = serializer.serialize_struct(T::NAME, 2)?;
        st.serialize_field("schema", &schema)?;
        st.serialize_field("hashes", &hashes[..])?;
        st.end()
    } else {
        let mut tup = serializer.serialize_tuple(1 + H)?;
        tup.serialize_element(&schema)?;
        for h in hashes {
            tup.serialize_element(h)?;
        }
        tup.end()
    }
}

/// Reads what [`serialize`] writes, in the same format family.
pub(crate) fn deserialize<'de, T: SlotSig<H>, D: Deserializer<'de>, const H: usize>(
    deserializer: D,
) -> Result<T, D::Error> {
    if deserializer.is_human_readable() {
        deserializer.deserialize_struct(T::NAME, FIELDS, StructVisitor::<T, H>(PhantomData))
    } else {
        deserializer.deserialize_tuple(1 + H, TupleVisitor::<T, H>(PhantomData))
    }
}

fn check_schema<T: SlotSig<H>, E: de::Error, const H: usize>(schema: u16) -> Result<(), E> {
    if schema == T::SCHEMA {
        Ok(())
    } else {
        Err(E::custom(format_args!(
            "schema version mismatch: expected {}{}, got {schema}",
            T::SCHEMA,
            T::SERDE_SCHEMA_NOTE
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
struct HashesSeed<const H: usize>;

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

struct StructVisitor<T, const H: usize>(PhantomData<T>);

impl<'de, T: SlotSig<H>, const H: usize> Visitor<'de> for StructVisitor<T, H> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "struct {} with `schema` and {H} `hashes`", T::NAME)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
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
                    hashes = Some(map.next_value_seed(HashesSeed::<H>)?);
                }
            }
        }
        let schema = schema.ok_or_else(|| de::Error::missing_field("schema"))?;
        let hashes = hashes.ok_or_else(|| de::Error::missing_field("hashes"))?;
        check_schema::<T, _, H>(schema)?;
        Ok(T::with_hashes(hashes))
    }
}

struct TupleVisitor<T, const H: usize>(PhantomData<T>);

impl<'de, T: SlotSig<H>, const H: usize> Visitor<'de> for TupleVisitor<T, H> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a tuple of a u16 schema and {H} u64 hashes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let schema: u16 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        check_schema::<T, _, H>(schema)?;
        let mut hashes = [0u64; H];
        for (i, slot) in hashes.iter_mut().enumerate() {
            *slot = seq
                .next_element()?
                .ok_or_else(|| de::Error::invalid_length(1 + i, &self))?;
        }
        Ok(T::with_hashes(hashes))
    }
}

#[cfg(test)]
pub(super) mod tests;
