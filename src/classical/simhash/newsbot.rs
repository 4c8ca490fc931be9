//! The minimal SimHash utility of a news aggregator ("newsbot"): lower-case
//! alphanumeric tokens, MD5 token hashes, 16/32/64/128-bit signatures as
//! zero-padded hex strings, and a documented table of distance thresholds.
//!
//! Exactly:
//!
//! 1. **Tokens**: lower-case the text (full Unicode lower-case mapping, so
//!    `K` U+212A gives `k` and `İ` gives `i` + U+0307), then take the
//!    maximal runs of `a–z 0–9`; everything else separates. This is Python's
//!    `re.findall("[a-z0-9]+", text.lower())`.
//! 2. **Token hash**: MD5 of the token's bytes read as a 128-bit big-endian
//!    integer (Python's `int(md5(t).hexdigest(), 16)`); bit `i` of the
//!    signature is voted on by bit `i` of that integer, i.e. the signature
//!    uses the *last* `bits/8` digest bytes. Any [`HashFamily`] of the crate
//!    can be used instead ([`NewsbotHash::Family`]).
//! 3. **Votes**: `±1` per token occurrence; bit `i` is set iff more than
//!    half of the tokens had it set (ties clear).
//! 4. **Form**: `bits/4` lower-case hex digits, zero-padded; a text without
//!    tokens gives all zeros.
//!
//! This equals the `simhash` package for Python (1e0ng, 2.1.2) fed the
//! token list, `Simhash(tokenize(text), f=bits).value`; the vectors in
//! `tests/data/newsbot-simhash.json` were made with it.
//!
//! ```
//! use txtfp::classical::simhash::newsbot;
//! assert_eq!(newsbot::tokenize("Testing-with_punctuation@marks"),
//!            ["testing", "with", "punctuation", "marks"]);
//! let a = newsbot::simhash("Breaking news about technology", 64)?;
//! let b = newsbot::simhash("Breaking news about tech", 64)?;
//! assert_eq!(a.len(), 16);
//! assert_eq!(newsbot::simhash("", 32)?, "00000000");
//! let d = newsbot::hamming_distance(&a, &b)?;
//! assert!(d < 64);
//! assert!(newsbot::hamming_distance("ff", "zz").is_err()); // not "infinity"
//! assert_eq!(newsbot::Closeness::of(2), newsbot::Closeness::VerySimilar);
//! # Ok::<(), txtfp::Error>(())
//! ```

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use md5::{Digest, Md5};

use super::kernel::BitCounter;
use crate::classical::HashFamily;
use crate::{Error, Result};

/// The widths the utility supports.
pub const WIDTHS: [u32; 4] = [16, 32, 64, 128];
/// The default width.
pub const DEFAULT_BITS: u32 = 64;
/// Distance of identical content.
pub const IDENTICAL: u32 = 0;
/// Largest distance of "very similar" content (potential duplicates): 1–3.
pub const VERY_SIMILAR_MAX: u32 = 3;
/// Largest distance of "similar" content: 4–10.
pub const SIMILAR_MAX: u32 = 10;
/// Largest distance of "somewhat related" content: 11–20; beyond is different.
pub const RELATED_MAX: u32 = 20;
/// The duplicate threshold of the utility's examples (`distance <= 3`).
pub const DEFAULT_THRESHOLD: u32 = VERY_SIMILAR_MAX;

/// The threshold table (for 64-bit signatures) as an enum.
///
/// | distance | closeness |
/// |---|---|
/// | 0 | identical content |
/// | 1–3 | very similar (potential duplicates) |
/// | 4–10 | similar content |
/// | 11–20 | somewhat related |
/// | > 20 | different content |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Closeness {
    /// Distance 0.
    Identical,
    /// Distance 1 to [`VERY_SIMILAR_MAX`].
    VerySimilar,
    /// Up to [`SIMILAR_MAX`].
    Similar,
    /// Up to [`RELATED_MAX`].
    Related,
    /// Farther.
    Different,
}

impl Closeness {
    /// The row of the table for a Hamming distance.
    pub const fn of(distance: u32) -> Self {
        match distance {
            IDENTICAL => Closeness::Identical,
            1..=VERY_SIMILAR_MAX => Closeness::VerySimilar,
            4..=SIMILAR_MAX => Closeness::Similar,
            11..=RELATED_MAX => Closeness::Related,
            _ => Closeness::Different,
        }
    }
}

/// Which hash turns a token into the bits that vote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NewsbotHash {
    /// MD5, the utility's own choice (as a big-endian 128-bit integer).
    #[default]
    Md5,
    /// One of the crate's 128-bit families with a seed, as the integer
    /// `lo + (hi << 64)` of [`HashFamily::hash128`]'s halves.
    Family {
        /// The family.
        family: HashFamily,
        /// The seed.
        seed: u64,
    },
}

impl NewsbotHash {
    /// The 128-bit token hash.
    pub fn hash(self, token: &[u8]) -> u128 {
        match self {
            NewsbotHash::Md5 => u128::from_be_bytes(Md5::digest(token).into()),
            NewsbotHash::Family { family, seed } => {
                let (lo, hi) = family.hash128(token, seed);
                u128::from(lo) | (u128::from(hi) << 64)
            }
        }
    }
}

/// Calls `f` on every token of `text`, with a reused buffer.
fn for_each_token(text: &str, mut f: impl FnMut(&str)) {
    let mut cur = String::new();
    for c in text.chars() {
        for l in c.to_lowercase() {
            if l.is_ascii_alphanumeric() {
                cur.push(l);
            } else if !cur.is_empty() {
                f(&cur);
                cur.clear();
            }
        }
    }
    if !cur.is_empty() {
        f(&cur);
    }
}

/// The lower-case alphanumeric tokens of `text`, in order.
///
/// ```
/// assert_eq!(txtfp::classical::simhash::newsbot::tokenize("Hello, World! How are you?"),
///            ["hello", "world", "how", "are", "you"]);
/// ```
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |t| out.push(String::from(t)));
    out
}

fn check_bits(bits: u32) -> Result<()> {
    if WIDTHS.contains(&bits) {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "newsbot simhash width must be 16, 32, 64 or 128 bits, got {bits}"
        )))
    }
}

/// The `bits`-bit SimHash of `text` with `hash`, as an integer below
/// `2^bits` (0 when the text has no token).
///
/// # Errors
/// [`Error::InvalidInput`] when `bits` is not one of [`WIDTHS`].
pub fn simhash_value(text: &str, bits: u32, hash: NewsbotHash) -> Result<u128> {
    check_bits(bits)?;
    let (mut lo, mut hi) = (BitCounter::new(), BitCounter::new());
    for_each_token(text, |t| {
        let h = hash.hash(t.as_bytes());
        lo.add(h as u64);
        if bits == 128 {
            hi.add((h >> 64) as u64);
        }
    });
    if lo.votes() == 0 {
        return Ok(0);
    }
    let v = u128::from(lo.signature()) | (u128::from(hi.signature()) << 64);
    Ok(if bits == 128 {
        v
    } else {
        v & ((1u128 << bits) - 1)
    })
}

/// The `bits`-bit SimHash of `text` with MD5 token hashes, as `bits/4`
/// zero-padded lower-case hex digits.
///
/// ```
/// let h = txtfp::classical::simhash::newsbot::simhash("Sample text", 128)?;
/// assert_eq!(h.len(), 32);
/// assert_eq!(txtfp::classical::simhash::newsbot::simhash("", 64)?, "0000000000000000");
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidInput`] when `bits` is not one of [`WIDTHS`].
pub fn simhash(text: &str, bits: u32) -> Result<String> {
    simhash_with(text, bits, NewsbotHash::Md5)
}

/// [`simhash`] with another token hash.
///
/// # Errors
/// [`Error::InvalidInput`] when `bits` is not one of [`WIDTHS`].
pub fn simhash_with(text: &str, bits: u32, hash: NewsbotHash) -> Result<String> {
    let v = simhash_value(text, bits, hash)?;
    Ok(format!("{v:0width$x}", width = (bits / 4) as usize))
}

/// Parses a hex signature of any length up to 128 significant bits:
/// optional surrounding ASCII whitespace, an optional `0x`, then hex digits
/// in either case (leading zeros allowed).
///
/// # Errors
/// [`Error::InvalidInput`] naming the text and the first bad character and
/// its position, an empty text, or a value of more than 128 bits.
pub fn parse_hex(text: &str) -> Result<u128> {
    let shown: String = text.chars().take(40).collect();
    let bad = |m: String| Error::InvalidInput(format!("newsbot hex {shown:?} {m}"));
    let t = text.trim_matches(|c: char| c.is_ascii_whitespace());
    let offset = text.len()
        - text
            .trim_start_matches(|c: char| c.is_ascii_whitespace())
            .len();
    let (t, offset) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(rest) => (rest, offset + 2),
        None => (t, offset),
    };
    if t.is_empty() {
        return Err(bad(String::from("has no hex digits")));
    }
    let mut v: u128 = 0;
    for (i, c) in t.char_indices() {
        let d = c.to_digit(16).ok_or_else(|| {
            bad(format!(
                "is not hex: invalid character {c:?} at position {}",
                offset + i
            ))
        })?;
        if v >> 124 != 0 {
            return Err(bad(String::from("has more than 128 bits")));
        }
        v = (v << 4) | u128::from(d);
    }
    Ok(v)
}

/// Number of differing bits between two hex signatures ([`parse_hex`]);
/// signatures of different widths compare as integers, as in the utility.
///
/// ```
/// use txtfp::classical::simhash::newsbot::hamming_distance;
/// assert_eq!(hamming_distance("ff", "ff")?, 0);
/// assert_eq!(hamming_distance("f", "e")?, 1);
/// assert_eq!(hamming_distance("ff", "00")?, 8);
/// let err = hamming_distance("ff", "xyz").unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "invalid input: newsbot hex \"xyz\" is not hex: invalid character 'x' at position 0"
/// );
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidInput`] when either is not valid hex (the utility
/// returned infinity there).
pub fn hamming_distance(hex1: &str, hex2: &str) -> Result<u32> {
    Ok((parse_hex(hex1)? ^ parse_hex(hex2)?).count_ones())
}

#[cfg(test)]
mod tests;
