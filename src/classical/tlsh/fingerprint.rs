//! [`TlshFingerprint`]: a digest string that has passed validation.

use alloc::format;
use alloc::string::String;
use core::fmt;
use core::str::FromStr;

use crate::{Error, Result};

/// Length of a TLSH 128/1 digest string: `T1` + 70 hex digits.
pub const TLSH_HEX_LEN: usize = 72;

/// A TLSH 128/1 digest: `T1` followed by 70 hex digits (1 checksum byte,
/// 1 length byte, 1 quartile byte, 32 code bytes).
///
/// The digest string is the public field [`hex`](Self::hex), as in txtfp
/// 0.3.2, so code that reads it, or builds a value with
/// `TlshFingerprint { hex }`, compiles unchanged. Because anything can be
/// written there, the value is validated where it is used rather than only
/// where it is made: [`tlsh_distance`](super::tlsh_distance) and
/// serialization (feature `serde`) reject an invalid digest with
/// `InvalidInput`, and equality, hashing and ordering compare the digest with
/// its hex digits in upper case, so the two spellings of one digest are one
/// value (0.3.2 compared the strings as written; see COMPAT.md W10).
/// [`TlshFingerprint::new`], [`str::parse`], `TryFrom`, the fingerprinters
/// and deserialization validate and store the upper-case spelling; the `T1`
/// prefix must be upper case, as in the reference implementation.
///
/// ```
/// use txtfp::TlshFingerprint;
/// let hex = "T1EFB02B0A1005D3D01CC116AD474F55F550CC8110110210000828E00304000320E6D0D5";
/// let a = TlshFingerprint::new(hex)?;
/// assert_eq!(a.hex, hex);
/// assert_eq!(TlshFingerprint::new(hex.to_ascii_lowercase().replacen("t1", "T1", 1))?, a);
/// // Written directly, as 0.3.2 allowed: equal to the validated value ...
/// let b = TlshFingerprint { hex: format!("T1{}", hex[2..].to_ascii_lowercase()) };
/// assert_eq!(a, b);
/// // ... and checked where it is used.
/// let bad = TlshFingerprint { hex: "T1ABC".into() };
/// assert!(bad.validate().is_err());
/// assert!(txtfp::tlsh_distance(&a, &bad).is_err());
/// let err = TlshFingerprint::new("T1ABC").unwrap_err();
/// assert_eq!(err.to_string(), "invalid input: TLSH hex must be 72 chars (T1 + 70 hex), got 5");
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct TlshFingerprint {
    /// The digest string: `T1` and 70 hex digits when valid. Values made by
    /// this crate hold it in upper case; see [`validate`](Self::validate)
    /// for a value written here directly.
    pub hex: String,
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

    /// The digest string as stored (upper case, 72 characters for every
    /// value this crate made); the same as the field [`hex`](Self::hex).
    pub fn hex(&self) -> &str {
        &self.hex
    }

    /// The digest string as stored (same as [`Self::hex`]).
    pub fn as_str(&self) -> &str {
        &self.hex
    }

    /// Checks the stored digest as [`new`](Self::new) does: 72 bytes, `T1`,
    /// then hex digits of either case.
    ///
    /// # Errors
    /// `InvalidInput` with the messages of [`new`](Self::new).
    pub fn validate(&self) -> Result<()> {
        validate(self.hex.as_bytes())
    }

    /// The digest as an owned string.
    pub fn into_string(self) -> String {
        self.hex
    }

    /// [`tlsh_distance`](super::tlsh_distance) without the `Result`: every
    /// value this crate makes is valid, so it fails only for a digest
    /// written into the public field that does not validate, and then
    /// returns `i32::MAX` (farther than any real distance).
    ///
    /// ```
    /// use txtfp::TlshFingerprint;
    /// let a: TlshFingerprint =
    ///     "T1EFB02B0A1005D3D01CC116AD474F55F550CC8110110210000828E00304000320E6D0D5".parse()?;
    /// assert_eq!(a.distance(&a), 0);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn distance(&self, other: &Self) -> i32 {
        super::tlsh_distance(self, other).unwrap_or(i32::MAX)
    }

    /// The digest's bytes with hex letters in upper case: what equality,
    /// hashing and ordering compare.
    fn normalised(&self) -> impl Iterator<Item = u8> + '_ {
        self.hex.bytes().map(|b| b.to_ascii_uppercase())
    }
}

impl PartialEq for TlshFingerprint {
    fn eq(&self, other: &Self) -> bool {
        self.hex.eq_ignore_ascii_case(&other.hex)
    }
}

impl Eq for TlshFingerprint {}

impl core::hash::Hash for TlshFingerprint {
    fn hash<S: core::hash::Hasher>(&self, state: &mut S) {
        // As `str`'s hash: the bytes, then a terminator, so that equal
        // values (equal up to ASCII case) hash alike.
        for b in self.normalised() {
            state.write_u8(b);
        }
        state.write_u8(0xff);
    }
}

impl PartialOrd for TlshFingerprint {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for TlshFingerprint {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.normalised().cmp(other.normalised())
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
