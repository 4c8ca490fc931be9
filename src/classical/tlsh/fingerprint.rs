//! [`TlshFingerprint`]: a digest string that has passed validation.

use alloc::format;
use alloc::string::String;
use core::fmt;
use core::str::FromStr;

use crate::{Error, Result};

/// Length of a TLSH 128/1 digest string: `T1` + 70 hex digits.
pub const TLSH_HEX_LEN: usize = 72;

/// A TLSH 128/1 digest: `T1` followed by 70 hex digits (1 checksum byte,
/// 1 length byte, 1 quartile byte, 32 code bytes), kept in upper case.
///
/// Every value has been validated (spec W10: 0.3.2's public `hex` field let
/// anything in): build one with [`TlshFingerprint::new`], [`str::parse`],
/// `TryFrom`, a fingerprinter, or (feature `serde`) deserialization, which
/// validates too. Lower-case hex digits are accepted and normalised, so
/// equality, hashing and ordering see one spelling per digest; the `T1`
/// prefix must be upper case, as in the reference implementation.
///
/// ```
/// use txtfp::TlshFingerprint;
/// let hex = "T1EFB02B0A1005D3D01CC116AD474F55F550CC8110110210000828E00304000320E6D0D5";
/// let a = TlshFingerprint::new(hex)?;
/// assert_eq!(a.to_string(), hex);
/// assert_eq!(TlshFingerprint::new(hex.to_ascii_lowercase().replacen("t1", "T1", 1))?, a);
/// let err = TlshFingerprint::new("T1ABC").unwrap_err();
/// assert_eq!(err.to_string(), "invalid input: TLSH hex must be 72 chars (T1 + 70 hex), got 5");
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TlshFingerprint {
    hex: String,
}

impl TlshFingerprint {
    /// Validate a digest string: 72 bytes, `T1`, then hex digits of either
    /// case (stored upper case).
    ///
    /// # Errors
    /// `InvalidInput` with 0.3.2's messages, checked in this order:
    /// `"TLSH hex must be 72 chars (T1 + 70 hex), got {n}"` (`n` in bytes),
    /// `"TLSH hex must start with 'T1'"`, `"TLSH hex contains non-hex characters"`.
    pub fn new(hex: impl Into<String>) -> Result<Self> {
        let mut hex = hex.into();
        validate(hex.as_bytes())?;
        hex.make_ascii_uppercase();
        Ok(Self { hex })
    }

    /// From the ASCII bytes tlsh2 produces (already upper case), validated
    /// all the same so no path skips the checks.
    pub(crate) fn from_ascii(bytes: &[u8]) -> Result<Self> {
        let s = core::str::from_utf8(bytes)
            .map_err(|_| Error::InvalidInput("TLSH hex contains non-hex characters".into()))?;
        Self::new(s)
    }

    /// The digest, upper case, 72 characters.
    pub fn hex(&self) -> &str {
        &self.hex
    }

    /// The digest, upper case, 72 characters (same as [`Self::hex`]).
    pub fn as_str(&self) -> &str {
        &self.hex
    }

    /// The digest as an owned string.
    pub fn into_string(self) -> String {
        self.hex
    }

    /// [`tlsh_distance`](super::tlsh_distance) without the `Result`: both
    /// sides are valid digests, so it cannot fail.
    ///
    /// ```
    /// use txtfp::TlshFingerprint;
    /// let a: TlshFingerprint =
    ///     "T1EFB02B0A1005D3D01CC116AD474F55F550CC8110110210000828E00304000320E6D0D5".parse()?;
    /// assert_eq!(a.distance(&a), 0);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn distance(&self, other: &Self) -> i32 {
        // Both digests passed `validate`, which accepts exactly what tlsh2
        // parses; the fallback only guards against that ever diverging.
        super::tlsh_distance(self, other).unwrap_or(i32::MAX)
    }
}

fn validate(b: &[u8]) -> Result<()> {
    if b.len() != TLSH_HEX_LEN {
        return Err(Error::InvalidInput(format!(
            "TLSH hex must be 72 chars (T1 + 70 hex), got {}",
            b.len()
        )));
    }
    if &b[..2] != b"T1" {
        return Err(Error::InvalidInput("TLSH hex must start with 'T1'".into()));
    }
    if !b[2..].iter().all(u8::is_ascii_hexdigit) {
        return Err(Error::InvalidInput(
            "TLSH hex contains non-hex characters".into(),
        ));
    }
    Ok(())
}

impl fmt::Display for TlshFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex)
    }
}

impl FromStr for TlshFingerprint {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::new(s)
    }
}

impl TryFrom<&str> for TlshFingerprint {
    type Error = Error;
    fn try_from(s: &str) -> Result<Self> {
        Self::new(s)
    }
}

impl TryFrom<String> for TlshFingerprint {
    type Error = Error;
    fn try_from(s: String) -> Result<Self> {
        Self::new(s)
    }
}

impl AsRef<str> for TlshFingerprint {
    fn as_ref(&self) -> &str {
        &self.hex
    }
}

impl From<TlshFingerprint> for String {
    fn from(f: TlshFingerprint) -> String {
        f.hex
    }
}
