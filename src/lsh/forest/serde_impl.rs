//! serde for [`LshForest`] (feature `serde`): the bytes of
//! [`LshForest::to_bytes`] as one byte string (a sequence of numbers in
//! formats without one, such as JSON), checked by
//! [`LshForest::from_bytes`] on reading.

use alloc::vec::Vec;
use core::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::LshForest;
use crate::classical::minhash::Scheme;

impl<const H: usize, S: Scheme> Serialize for LshForest<H, S> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.serialize_bytes(&self.to_bytes())
    }
}

impl<'de, const H: usize, S: Scheme> Deserialize<'de> for LshForest<H, S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let bytes = deserializer.deserialize_byte_buf(BytesVisitor)?;
        LshForest::from_bytes(&bytes).map_err(de::Error::custom)
    }
}

/// Collects a byte string, or a sequence of `u8`s.
struct BytesVisitor;

impl<'de> Visitor<'de> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the bytes of an LshForest")
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        Ok(v.to_vec())
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
        Ok(v)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // The size hint comes from the input: trust it only up to 1 MiB.
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        while let Some(b) = seq.next_element::<u8>()? {
            out.push(b);
        }
        Ok(out)
    }
}
