//! serde for [`Hll`] (feature `serde`): the sketch's [byte
//! format](super::bytes) as a byte string (an array of numbers in JSON),
//! read back through [`Hll::from_bytes`], so every check of the byte format
//! (magic, version, variant, checksum, register ranges) applies to
//! deserialized sketches too.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Hll, MAX_PRECISION, Variant};

/// The longest valid encoding: header, `2^18` dense registers, checksum.
const MAX_LEN: usize = 9 + (1 << MAX_PRECISION) + 8;

impl<V: Variant> Serialize for Hll<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.to_bytes())
    }
}

impl<'de, V: Variant> Deserialize<'de> for Hll<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_bytes(BytesVisitor(PhantomData))
    }
}

struct BytesVisitor<V>(PhantomData<V>);

impl<V: Variant> BytesVisitor<V> {
    fn parse<E: de::Error>(bytes: &[u8]) -> Result<Hll<V>, E> {
        Hll::from_bytes(bytes).map_err(E::custom)
    }
}

impl<'de, V: Variant> Visitor<'de> for BytesVisitor<V> {
    type Value = Hll<V>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the bytes of a {} sketch", V::NAME)
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        Self::parse(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // The size hint comes from the input: trust it only up to the
        // longest valid sketch.
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(MAX_LEN));
        while let Some(b) = seq.next_element::<u8>()? {
            if bytes.len() == MAX_LEN {
                return Err(de::Error::invalid_length(MAX_LEN + 1, &self));
            }
            bytes.push(b);
        }
        Self::parse(&bytes)
    }
}
