//! serde for [`MinHashSig`] of either scheme (feature `serde`): the shapes
//! of [`slots_serde`](super::slots_serde) under the signature type's name,
//! for the default scheme exactly as 0.3.2 wrote them.
//!
//! * Human-readable formats (JSON, ...): a struct `MinHashSig` (or
//!   `FastMinHashSig`) with fields `schema` and `hashes`, e.g.
//!   `{"schema":1,"hashes":[1,2]}` (`{"schema":17921,...}` for the fast
//!   scheme). `hashes` must hold exactly `H` numbers; unknown, missing and
//!   repeated fields are errors.
//! * Binary formats (bincode, postcard, ...): a tuple of `1 + H` elements,
//!   the `u16` schema followed by the `H` slots.
//!
//! Both read paths reject a schema other than the scheme's
//! ([`SCHEMA_VERSION`] by default; 0.3.2 accepted any value), so neither
//! scheme's signature reads as the other's. The pad is not on the wire and
//! is always zero.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[cfg(doc)]
use super::SCHEMA_VERSION;
use super::slots_serde;
use super::{MinHashSig, Scheme};

impl<const H: usize, S: Scheme> Serialize for MinHashSig<H, S> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        slots_serde::serialize(self, serializer)
    }
}

impl<'de, const H: usize, S: Scheme> Deserialize<'de> for MinHashSig<H, S> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        slots_serde::deserialize(deserializer)
    }
}

#[cfg(test)]
mod tests;
