//! serde for [`FastMinHashSig`] (feature `serde`): the wire shapes of
//! [`MinHashSig`](crate::MinHashSig) (both come from
//! [`slots_serde`](super::super::slots_serde)) under their own name and
//! schema.
//!
//! * Human-readable formats: a struct `FastMinHashSig` with fields `schema`
//!   and `hashes`, e.g. `{"schema":17921,"hashes":[1,2]}`; exactly `H`
//!   hashes, no unknown, missing or repeated field.
//! * Binary formats: a tuple of `1 + H` elements, the `u16` schema then the
//!   slots.
//!
//! Both reject a schema other than [`FAST_SCHEMA`], so a serialized
//! default-scheme signature (schema 1) never reads as a fast one, and a
//! fast one (schema `0x4601`) is refused by `MinHashSig`'s reader.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[cfg(doc)]
use super::FAST_SCHEMA;
use super::FastMinHashSig;
use crate::classical::minhash::slots_serde;

impl<const H: usize> Serialize for FastMinHashSig<H> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        slots_serde::serialize(self, serializer)
    }
}

impl<'de, const H: usize> Deserialize<'de> for FastMinHashSig<H> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        slots_serde::deserialize(deserializer)
    }
}

#[cfg(test)]
#[path = "sig_serde_tests.rs"]
mod tests;
