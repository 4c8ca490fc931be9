//! Text forms of signatures: hex, base32 and base64 (feature `interop`).
//!
//! Every form encodes a fixed byte string per type:
//!
//! | type | bytes | hex | base32 | base64 |
//! |---|---|---|---|---|
//! | [`SimHash16`] | 2, big-endian | 4 | 4 | 4 |
//! | [`SimHash32`] | 4, big-endian | 8 | 7 | 8 |
//! | [`SimHash64`] | 8, big-endian | 16 | 13 | 12 |
//! | [`SimHash128`] | 16, big-endian | 32 | 26 | 24 |
//! | [`MinHashSig<H>`](crate::MinHashSig) | `8 + 8·H`, its persisted form | | | |
//! | [`TlshFingerprint`](crate::TlshFingerprint) | 35, the digest after `T1` | 70 | 56 | 48 |
//!
//! SimHash bytes are big-endian so that the hex form is the number written
//! out (`format!("{:016x}")`, what other SimHash tools print) and text
//! sorts like the number. MinHash signatures encode exactly the bytes of
//! [`MinHashSig::to_le_bytes`](crate::MinHashSig::to_le_bytes), schema word
//! included, so parsing checks the schema like `from_bytes` does. A TLSH
//! digest's bytes are the 70 hex digits after its `T1` version prefix, as
//! written (checksum, length, quartile ratios, 32 body bytes), so its hex
//! form is its usual text without `T1`, in lower case; the `T1` text stays
//! its `Display` form.
//!
//! - hex: lower-case out; either case in.
//! - base32: RFC 4648 alphabet `A–Z 2–7`, upper-case out, either case in,
//!   no padding (a `=` is an error); unused bits of the last character
//!   must be zero, so every value has exactly one text.
//! - base64: RFC 4648 standard alphabet (`+`, `/`) with `=` padding out;
//!   in, the padding may be left off. Unused bits must be zero.
//!
//! A wrong length is reported before anything is decoded, so hostile input
//! costs nothing.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use data_encoding::{
    BASE32_NOPAD, BASE64, BASE64_NOPAD, DecodeKind, Encoding, HEXLOWER_PERMISSIVE,
};

use crate::{Error, Result};

/// Which text form: see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextEncoding {
    /// Base 16, lower-case.
    Hex,
    /// RFC 4648 base32, upper-case, no padding.
    Base32,
    /// RFC 4648 base64 (standard alphabet), padded.
    Base64,
}

impl TextEncoding {
    /// `"hex"`, `"base32"` or `"base64"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TextEncoding::Hex => "hex",
            TextEncoding::Base32 => "base32",
            TextEncoding::Base64 => "base64",
        }
    }

    /// Characters of the text of `n` bytes.
    pub const fn text_len(self, n: usize) -> usize {
        match self {
            TextEncoding::Hex => 2 * n,
            TextEncoding::Base32 => (8 * n).div_ceil(5),
            TextEncoding::Base64 => 4 * n.div_ceil(3),
        }
    }
}

/// A signature with hex, base32 and base64 text forms that round-trip.
///
/// ```
/// use txtfp::SimHash64;
/// use txtfp::classical::{TextEncoding, TextForm};
/// let s = SimHash64(0x0123_4567_89ab_cdef);
/// assert_eq!(s.to_hex(), "0123456789abcdef");
/// assert_eq!(s.to_base32(), "AERUKZ4JVPG66");
/// assert_eq!(s.to_base64(), "ASNFZ4mrze8=");
/// assert_eq!(SimHash64::from_base32("aeruKZ4jvpg66")?, s);
/// assert_eq!(SimHash64::from_text("ASNFZ4mrze8", TextEncoding::Base64)?, s);
/// let err = SimHash64::from_hex("0123").unwrap_err();
/// assert_eq!(err.to_string(), "invalid input: SimHash64 hex text is 16 characters, got 4");
/// # Ok::<(), txtfp::Error>(())
/// ```
pub trait TextForm: Sized {
    /// Bytes the text forms encode.
    fn text_bytes(&self) -> Vec<u8>;

    /// The value of exactly [`text_byte_len`](Self::text_byte_len) bytes.
    ///
    /// # Errors
    /// As the type's own `from_bytes` (e.g. a MinHash schema mismatch).
    fn from_text_bytes(bytes: &[u8]) -> Result<Self>;

    /// Number of bytes the text forms encode.
    fn text_byte_len() -> usize;

    /// The type's name in error messages (`SimHash64`, `MinHashSig<128>`).
    fn text_type_name() -> String;

    /// The text form in `encoding`.
    fn to_text(&self, encoding: TextEncoding) -> String {
        encode(encoding, &self.text_bytes())
    }

    /// Parses the text form in `encoding`.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] naming the type, the encoding and what is
    /// wrong: the length (expected and actual), or the first bad character
    /// and its position; and the type's own byte-level errors.
    fn from_text(text: &str, encoding: TextEncoding) -> Result<Self> {
        let bytes = decode(
            encoding,
            text,
            Self::text_byte_len(),
            &Self::text_type_name(),
        )?;
        Self::from_text_bytes(&bytes)
    }

    /// [`to_text`](Self::to_text) in hex.
    fn to_hex(&self) -> String {
        self.to_text(TextEncoding::Hex)
    }
    /// [`from_text`](Self::from_text) in hex.
    ///
    /// # Errors
    /// As [`from_text`](Self::from_text).
    fn from_hex(text: &str) -> Result<Self> {
        Self::from_text(text, TextEncoding::Hex)
    }
    /// [`to_text`](Self::to_text) in base32.
    fn to_base32(&self) -> String {
        self.to_text(TextEncoding::Base32)
    }
    /// [`from_text`](Self::from_text) in base32.
    ///
    /// # Errors
    /// As [`from_text`](Self::from_text).
    fn from_base32(text: &str) -> Result<Self> {
        Self::from_text(text, TextEncoding::Base32)
    }
    /// [`to_text`](Self::to_text) in base64.
    fn to_base64(&self) -> String {
        self.to_text(TextEncoding::Base64)
    }
    /// [`from_text`](Self::from_text) in base64.
    ///
    /// # Errors
    /// As [`from_text`](Self::from_text).
    fn from_base64(text: &str) -> Result<Self> {
        Self::from_text(text, TextEncoding::Base64)
    }
}

/// `bytes` in `encoding`.
pub(crate) fn encode(encoding: TextEncoding, bytes: &[u8]) -> String {
    match encoding {
        TextEncoding::Hex => HEXLOWER_PERMISSIVE.encode(bytes),
        TextEncoding::Base32 => BASE32_NOPAD.encode(bytes),
        TextEncoding::Base64 => BASE64.encode(bytes),
    }
}

/// Decodes exactly `n` bytes of `what` from `text` in `encoding`.
pub(crate) fn decode(encoding: TextEncoding, text: &str, n: usize, what: &str) -> Result<Vec<u8>> {
    let enc = encoding.as_str();
    let bad = |m: String| Error::InvalidInput(format!("{what} {enc} text {m}"));
    let want = encoding.text_len(n);
    let bare = match encoding {
        TextEncoding::Base64 => want - (3 - n % 3) % 3,
        _ => want,
    };
    // A non-ASCII character in a text of an acceptable length (in
    // characters) is named as such rather than as a length error. Longer
    // texts are not scanned.
    if !text.is_ascii() && text.len() <= 4 * want {
        let chars = text.chars().count();
        if chars == want || chars == bare {
            let (pos, ch) = text
                .char_indices()
                .find(|(_, c)| !c.is_ascii())
                .unwrap_or((0, '?'));
            return Err(bad(format!(
                "has an invalid character {ch:?} at position {pos}"
            )));
        }
    }
    let (codec, input): (&Encoding, Vec<u8>) = match encoding {
        TextEncoding::Hex => (&HEXLOWER_PERMISSIVE, check_len(text, want, &bad)?),
        TextEncoding::Base32 => {
            let mut b = check_len(text, want, &bad)?;
            // The alphabet is upper-case; the form is case-insensitive.
            b.make_ascii_uppercase();
            (&BASE32_NOPAD, b)
        }
        TextEncoding::Base64 => {
            if text.len() == want && text.len() != bare {
                // The codec accepts concatenated padded blocks (`AA==AA==`);
                // the form allows padding only at the end.
                if let Some(pos) = text.trim_end_matches('=').find('=') {
                    return Err(bad(format!("has misplaced padding at position {pos}")));
                }
                (&BASE64, text.as_bytes().to_vec())
            } else if text.len() == bare || want == bare {
                (&BASE64_NOPAD, check_len(text, bare, &bad)?)
            } else {
                return Err(bad(format!(
                    "is {want} characters ({bare} without padding), got {}",
                    text.chars().count()
                )));
            }
        }
    };
    codec.decode(&input).map_err(|e| {
        let pos = e.position;
        let ch = text
            .get(pos..)
            .and_then(|s| s.chars().next())
            .unwrap_or('?');
        bad(match e.kind {
            DecodeKind::Symbol => format!("has an invalid character {ch:?} at position {pos}"),
            DecodeKind::Trailing => {
                format!("is not canonical: unused bits of {ch:?} at position {pos} are not zero")
            }
            DecodeKind::Padding => format!("has misplaced padding at position {pos}"),
            DecodeKind::Length => format!("has an invalid length {}", text.len()),
        })
    })
}

/// The bytes of `text`, if it is `want` bytes long (non-ASCII texts of the
/// right character count were rejected before).
fn check_len(text: &str, want: usize, bad: &dyn Fn(String) -> Error) -> Result<Vec<u8>> {
    if text.len() != want {
        return Err(bad(format!(
            "is {want} characters, got {}",
            text.chars().count()
        )));
    }
    Ok(text.as_bytes().to_vec())
}

#[cfg(feature = "simhash")]
macro_rules! simhash_text_form {
    ($($ty:ident: $int:ty),*) => {$(
        impl TextForm for $ty {
            fn text_bytes(&self) -> Vec<u8> {
                self.0.to_be_bytes().to_vec()
            }
            fn from_text_bytes(bytes: &[u8]) -> Result<Self> {
                let arr = bytes.try_into().map_err(|_| {
                    Error::InvalidInput(format!(
                        concat!(stringify!($ty), " is {} bytes, got {}"),
                        Self::text_byte_len(),
                        bytes.len()
                    ))
                })?;
                Ok(Self(<$int>::from_be_bytes(arr)))
            }
            fn text_byte_len() -> usize {
                core::mem::size_of::<Self>()
            }
            fn text_type_name() -> String {
                String::from(stringify!($ty))
            }
        }
    )*};
}

#[cfg(feature = "simhash")]
use crate::classical::simhash::{SimHash16, SimHash32, SimHash64, SimHash128};
#[cfg(feature = "simhash")]
simhash_text_form!(SimHash16: u16, SimHash32: u32, SimHash64: u64, SimHash128: u128);

/// `TextForm` of a MinHash signature of either scheme (`MinHashSig`,
/// `FastMinHashSig`): exactly its `to_le_bytes`, `8 + 8·H` bytes. The
/// schema word comes first, so a fast signature's text starts with its own
/// prefix (hex `0146…`, where a default-scheme signature starts `0100…`)
/// and parsing checks it: neither scheme's text parses as the other's.
///
/// ```
/// use txtfp::MinHashSig;
/// use txtfp::classical::minhash::FastMinHashSig;
/// use txtfp::classical::TextForm;
/// let s = FastMinHashSig::<1> { hashes: [0xab], ..FastMinHashSig::empty() };
/// assert_eq!(s.to_hex(), "0146000000000000ab00000000000000");
/// assert_eq!(FastMinHashSig::<1>::from_hex(&s.to_hex())?, s);
/// assert!(MinHashSig::<1>::from_hex(&s.to_hex()).is_err());
/// assert!(FastMinHashSig::<1>::from_hex(&MinHashSig::<1>::empty().to_hex()).is_err());
/// # Ok::<(), txtfp::Error>(())
/// ```
#[cfg(feature = "minhash")]
impl<const H: usize, S: crate::classical::minhash::Scheme> TextForm for crate::MinHashSig<H, S> {
    fn text_bytes(&self) -> Vec<u8> {
        self.to_le_bytes()
    }
    fn from_text_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_bytes(bytes)
    }
    fn text_byte_len() -> usize {
        8 + 8 * H
    }
    fn text_type_name() -> String {
        format!("{}<{H}>", S::SIG_NAME)
    }
}

#[cfg(feature = "tlsh")]
impl TextForm for crate::TlshFingerprint {
    /// The 35 bytes after `T1`; empty for a digest written into the public
    /// field that does not validate (its text form then parses as an error,
    /// never as another digest).
    fn text_bytes(&self) -> Vec<u8> {
        if self.validate().is_err() {
            return Vec::new();
        }
        HEXLOWER_PERMISSIVE
            .decode(&self.hex.as_bytes()[2..])
            .unwrap_or_default()
    }
    fn from_text_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != Self::text_byte_len() {
            return Err(Error::InvalidInput(format!(
                "TlshFingerprint is {} bytes, got {}",
                Self::text_byte_len(),
                bytes.len()
            )));
        }
        let mut hex = String::from("T1");
        hex.push_str(&data_encoding::HEXUPPER.encode(bytes));
        Self::new(hex)
    }
    fn text_byte_len() -> usize {
        35
    }
    fn text_type_name() -> String {
        String::from("TlshFingerprint")
    }
}
