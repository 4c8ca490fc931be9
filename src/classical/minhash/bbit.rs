//! [`BBitSignature`]: the lowest `b` bits of each slot of a
//! [`MinHashSig`], packed (Li & König, "b-Bit Minwise Hashing", 2010), and
//! the bias-corrected Jaccard estimate.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::{MinHashSig, Scheme};
use crate::{Error, Result};

/// Schema word of [`BBitSignature`]'s byte and serde forms: `0x4201`
/// (`"B"`, version 1).
pub const BBIT_SCHEMA: u16 = 0x4201;

/// Bytes before the packed words.
const HEADER: usize = 16;

/// The slot widths a [`BBitSignature`] takes: they divide 64, so no field
/// straddles two words.
pub const BBIT_WIDTHS: [u8; 6] = [1, 2, 4, 8, 16, 32];

/// A b-bit MinHash signature: the lowest `b` bits of each of the `n` slots
/// of a [`MinHashSig`] (either scheme), packed `64 / b` to a `u64` word,
/// slot `i` in word `i / (64 / b)` at bit `(i mod (64 / b))·b`. It stores
/// the source signature's schema word so that signatures of the two schemes
/// are not compared.
///
/// Persisted form ([`Self::to_bytes`], little-endian): schema
/// [`BBIT_SCHEMA`] (2 bytes), `b` (1 byte), a zero byte, the source schema
/// (2 bytes), two zero bytes, `n` (4 bytes), four zero bytes, then
/// `⌈n·b / 64⌉` words (8 bytes each; the unused high bits of the last word
/// are zero).
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, WordTokenizer};
/// use txtfp::classical::minhash::BBitSignature;
/// let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
/// let a = BBitSignature::from_sig(&fp.fingerprint("a b c d e f g h")?, 4)?;
/// let b = BBitSignature::from_sig(&fp.fingerprint("a b c d e f g x")?, 4)?;
/// assert_eq!(a.to_bytes().len(), 16 + 128 * 4 / 8); // 8x smaller than 8 + 8·128
/// let j = a.jaccard(&b)?; // the sets' Jaccard is 7/9
/// assert!((j - 7.0 / 9.0).abs() < 0.15);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "Raw", into = "Raw"))]
pub struct BBitSignature {
    b: u8,
    source_schema: u16,
    n: u32,
    words: Vec<u64>,
}

/// The serde shape: `{"schema":16897,"b":…,"source_schema":…,"n":…,
/// "words":[…]}` (a 5-tuple in binary formats); checked on reading.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename = "BBitSignature", deny_unknown_fields)]
struct Raw {
    schema: u16,
    b: u8,
    source_schema: u16,
    n: u32,
    words: Vec<u64>,
}

#[cfg(feature = "serde")]
impl From<BBitSignature> for Raw {
    fn from(s: BBitSignature) -> Self {
        Raw {
            schema: BBIT_SCHEMA,
            b: s.b,
            source_schema: s.source_schema,
            n: s.n,
            words: s.words,
        }
    }
}

#[cfg(feature = "serde")]
impl TryFrom<Raw> for BBitSignature {
    type Error = Error;
    fn try_from(r: Raw) -> Result<Self> {
        if r.schema != BBIT_SCHEMA {
            return Err(Error::SchemaMismatch {
                expected: BBIT_SCHEMA,
                actual: r.schema,
            });
        }
        Self::checked(r.b, r.source_schema, r.n, r.words)
    }
}

fn check_width(b: u8) -> Result<()> {
    if BBIT_WIDTHS.contains(&b) {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "b must be one of 1, 2, 4, 8, 16, 32, got {b}"
        )))
    }
}

/// Words that hold `n` fields of `b` bits.
fn word_count(n: usize, b: u8) -> usize {
    n.div_ceil(64 / usize::from(b))
}

/// `1` at the lowest bit of every `b`-bit field.
fn low_bits(b: u8) -> u64 {
    let mut m = 0u64;
    let mut i = 0;
    while i < 64 {
        m |= 1 << i;
        i += u32::from(b);
    }
    m
}

impl BBitSignature {
    /// The lowest `b` bits of every slot of `sig`.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] if `b` is not in [`BBIT_WIDTHS`], or `H` is 0
    /// or above `u32::MAX`.
    pub fn from_sig<const H: usize, S: Scheme>(sig: &MinHashSig<H, S>, b: u8) -> Result<Self> {
        Self::from_slots(&sig.hashes, b, S::SCHEMA)
    }

    /// The lowest `b` bits of every value of `slots`, tagged with the
    /// schema word of the signature they come from (e.g.
    /// [`WEIGHTED_SCHEMA`](crate::classical::weighted::WEIGHTED_SCHEMA) for
    /// a weighted signature's slots).
    ///
    /// # Errors
    /// As [`Self::from_sig`].
    pub fn from_slots(slots: &[u64], b: u8, source_schema: u16) -> Result<Self> {
        check_width(b)?;
        let n = u32::try_from(slots.len())
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                Error::InvalidInput(format!(
                    "a BBitSignature has 1 to {} slots, got {}",
                    u32::MAX,
                    slots.len()
                ))
            })?;
        let per = 64 / usize::from(b);
        let mask = (1u64 << b) - 1;
        let words = slots
            .chunks(per)
            .map(|chunk| {
                chunk
                    .iter()
                    .enumerate()
                    .fold(0u64, |w, (i, &s)| w | ((s & mask) << (i * usize::from(b))))
            })
            .collect();
        Ok(Self {
            b,
            source_schema,
            n,
            words,
        })
    }

    fn checked(b: u8, source_schema: u16, n: u32, words: Vec<u64>) -> Result<Self> {
        check_width(b).map_err(|e| Error::Corrupt(format!("BBitSignature: {e}")))?;
        if n == 0 {
            return Err(Error::Corrupt(String::from("BBitSignature has 0 slots")));
        }
        let need = word_count(n as usize, b);
        if words.len() != need {
            return Err(Error::Corrupt(format!(
                "BBitSignature of {n} {b}-bit slots needs {need} words, got {}",
                words.len()
            )));
        }
        let used = (n as usize * usize::from(b)) % 64;
        if used != 0 && words[need - 1] >> used != 0 {
            return Err(Error::Corrupt(String::from(
                "BBitSignature: unused bits of the last word must be zero",
            )));
        }
        Ok(Self {
            b,
            source_schema,
            n,
            words,
        })
    }

    /// Bits kept per slot.
    pub fn bits(&self) -> u8 {
        self.b
    }

    /// Number of slots.
    pub fn num_slots(&self) -> usize {
        self.n as usize
    }

    /// Schema word of the signature the bits were taken from.
    pub fn source_schema(&self) -> u16 {
        self.source_schema
    }

    /// The packed words (see the type's documentation for the layout).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The `b`-bit value of slot `i`, or `None` past the last slot.
    ///
    /// ```
    /// use txtfp::classical::minhash::BBitSignature;
    /// let s = BBitSignature::from_slots(&[0x1f, 0x2e, 0x3d], 4, 1)?;
    /// assert_eq!((s.get(0), s.get(1), s.get(2), s.get(3)), (Some(0xf), Some(0xe), Some(0xd), None));
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn get(&self, i: usize) -> Option<u64> {
        if i >= self.n as usize {
            return None;
        }
        let per = 64 / usize::from(self.b);
        let mask = (1u64 << self.b) - 1;
        Some((self.words[i / per] >> ((i % per) * usize::from(self.b))) & mask)
    }

    /// Number of slots on which `self` and `other` hold the same `b` bits.
    ///
    /// # Errors
    /// As [`Self::jaccard`].
    pub fn matches(&self, other: &Self) -> Result<usize> {
        self.check_comparable(other)?;
        let m = low_bits(self.b);
        let mut differ = 0usize;
        for (x, y) in self.words.iter().zip(&other.words) {
            // Fold each field's bits onto its lowest bit: one bit per
            // differing field. Unused high bits are zero on both sides.
            let mut d = x ^ y;
            let mut s = 1;
            while s < u32::from(self.b) {
                d |= d >> s;
                s <<= 1;
            }
            differ += (d & m).count_ones() as usize;
        }
        Ok(self.n as usize - differ)
    }

    /// The fraction of matching slots, `P̂ = matches / n`, uncorrected: it
    /// overestimates the Jaccard similarity `J` by `(1 − J)·2⁻ᵇ` on average.
    ///
    /// # Errors
    /// As [`Self::jaccard`].
    pub fn match_fraction(&self, other: &Self) -> Result<f64> {
        Ok(self.matches(other)? as f64 / f64::from(self.n))
    }

    /// Bias-corrected Jaccard estimate `(P̂ − 2⁻ᵇ) / (1 − 2⁻ᵇ)`, clamped to
    /// `[0, 1]`.
    ///
    /// Li & König's general correction depends on the two sets' sizes
    /// relative to the hash domain (`r = |S| / D`); with 64-bit slot values
    /// `D = 2⁶⁴`, `r → 0`, and the correction reduces to this form: two
    /// slots from different elements agree on their lowest `b` bits with
    /// probability `2⁻ᵇ`.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] if the two differ in `b` or in their source
    /// schema; [`Error::DimensionMismatch`] if their slot counts differ.
    ///
    /// ```
    /// use txtfp::classical::minhash::BBitSignature;
    /// let a = BBitSignature::from_slots(&[0, 1, 2, 3], 1, 1)?;
    /// let b = BBitSignature::from_slots(&[0, 1, 3, 2], 1, 1)?;
    /// assert_eq!(a.match_fraction(&b)?, 0.5);
    /// assert_eq!(a.jaccard(&b)?, 0.0); // (0.5 − 0.5) / (1 − 0.5)
    /// assert_eq!(a.jaccard(&a)?, 1.0);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn jaccard(&self, other: &Self) -> Result<f64> {
        let p = self.match_fraction(other)?;
        // 2^-b, exact: b is at most 32 (and `powi` needs std).
        let c = 1.0 / (1u64 << self.b) as f64;
        Ok(((p - c) / (1.0 - c)).clamp(0.0, 1.0))
    }

    fn check_comparable(&self, other: &Self) -> Result<()> {
        if self.b != other.b || self.source_schema != other.source_schema {
            return Err(Error::InvalidInput(format!(
                "b-bit signatures differ in width or scheme: b = {} (schema {:#x}) vs b = {} (schema {:#x})",
                self.b, self.source_schema, other.b, other.source_schema
            )));
        }
        if self.n != other.n {
            return Err(Error::DimensionMismatch {
                a: self.n as usize,
                b: other.n as usize,
            });
        }
        Ok(())
    }

    /// The persisted form (see the type's documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + 8 * self.words.len());
        out.extend_from_slice(&BBIT_SCHEMA.to_le_bytes());
        out.extend_from_slice(&[self.b, 0]);
        out.extend_from_slice(&self.source_schema.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&self.n.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        for w in &self.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Parses [`Self::to_bytes`]'s output; any alignment. The length is
    /// checked against `n` and `b` before anything is allocated.
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] if the schema word is not [`BBIT_SCHEMA`];
    /// [`Error::Corrupt`] for a short header, nonzero reserved bytes, a
    /// width not in [`BBIT_WIDTHS`], `n = 0`, a length that is not
    /// `16 + 8·⌈n·b / 64⌉`, or nonzero unused bits.
    ///
    /// ```
    /// use txtfp::classical::minhash::BBitSignature;
    /// let s = BBitSignature::from_slots(&[5, 6, 7], 8, 1)?;
    /// let bytes = s.to_bytes();
    /// assert_eq!(bytes, [1, 0x42, 8, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 5, 6, 7, 0, 0, 0, 0, 0]);
    /// assert_eq!(BBitSignature::from_bytes(&bytes)?, s);
    /// let err = BBitSignature::from_bytes(&bytes[..20]).unwrap_err();
    /// assert_eq!(err.to_string(), "corrupt data: BBitSignature of 3 8-bit slots needs 8 word bytes, got 4");
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let Some((h, body)) = bytes.split_at_checked(HEADER) else {
            return Err(Error::Corrupt(format!(
                "BBitSignature needs {HEADER} header bytes, got {}",
                bytes.len()
            )));
        };
        let schema = u16::from_le_bytes([h[0], h[1]]);
        if schema != BBIT_SCHEMA {
            return Err(Error::SchemaMismatch {
                expected: BBIT_SCHEMA,
                actual: schema,
            });
        }
        if h[3] != 0 || h[6] != 0 || h[7] != 0 || h[12..16].iter().any(|&x| x != 0) {
            return Err(Error::Corrupt(String::from(
                "BBitSignature reserved header bytes must be zero",
            )));
        }
        let b = h[2];
        check_width(b).map_err(|e| Error::Corrupt(format!("BBitSignature: {e}")))?;
        let source_schema = u16::from_le_bytes([h[4], h[5]]);
        let n = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
        let need = 8 * word_count(n as usize, b);
        if n == 0 || body.len() != need {
            return Err(Error::Corrupt(format!(
                "BBitSignature of {n} {b}-bit slots needs {need} word bytes, got {}",
                body.len()
            )));
        }
        let words = body
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])))
            .collect();
        Self::checked(b, source_schema, n, words)
    }
}

impl fmt::Debug for BBitSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BBitSignature")
            .field("b", &self.b)
            .field("source_schema", &self.source_schema)
            .field("n", &self.n)
            .field("words", &self.words)
            .finish()
    }
}

#[cfg(test)]
mod tests;
