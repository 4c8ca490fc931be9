//! serde for [`TlshFingerprint`]: the digest string, validated on the way in.

use alloc::string::String;
use core::fmt;

use serde::de::{self, Visitor};
use serde::ser;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::TlshFingerprint;

/// Serialized as its 72-character upper-case digest string (0.3.2 had no
/// serde for TLSH). A digest written into the public field that does not
/// validate is a serialization error carrying the validation message.
impl Serialize for TlshFingerprint {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.validate().map_err(ser::Error::custom)?;
        if self.hex.bytes().any(|b| b.is_ascii_lowercase()) {
            s.serialize_str(&self.hex.to_ascii_uppercase())
        } else {
            s.serialize_str(&self.hex)
        }
    }
}

/// Deserialized from a string through [`TlshFingerprint::new`]: an invalid
/// digest is a deserialization error carrying the validation message.
impl<'de> Deserialize<'de> for TlshFingerprint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(HexVisitor)
    }
}

struct HexVisitor;

impl Visitor<'_> for HexVisitor {
    type Value = TlshFingerprint;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a TLSH digest string (T1 + 70 hex digits)")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        TlshFingerprint::new(v).map_err(E::custom)
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        TlshFingerprint::new(v).map_err(E::custom)
    }
}
