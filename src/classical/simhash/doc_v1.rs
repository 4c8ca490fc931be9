//! The `simhash-doc-v1` scheme: an interoperable 64-bit SimHash of
//! documents, specified in full in `docs/simhash-doc-v1.md`.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::doc_v1_tokens::{DocV1Tokenizer, StopWords, doc_v1_canonicalizer};
use super::jenkins::jenkins64;
use super::kernel::BitCounter;
use super::{SimHash64, hamming};
use crate::canonical::Canonicalizer;
use crate::classical::Fingerprinter;
use crate::classical::text_form::{TextEncoding, decode, encode};
use crate::tokenize::Tokenizer;
use crate::{Error, Result};

/// How close two `simhash-doc-v1` fingerprints are, by the scheme's
/// similarity `1 − d/64` ([`SimHashDocV1::similarity`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DocV1Match {
    /// Similarity ≥ [`SimHashDocV1::CLOSE_MATCH`] (0.98): at most 1
    /// differing bit.
    Close,
    /// Similarity ≥ [`SimHashDocV1::LOOSE_MATCH`] (0.90) but not close: 2 to
    /// 6 differing bits.
    Loose,
    /// Anything farther.
    Distinct,
}

/// The `simhash-doc-v1` preset: a 64-bit SimHash whose every step is fixed
/// so that other implementations produce the same bits from the same text.
///
/// 1. Canonicalize: NFKC, full Unicode case folding, NFKC.
/// 2. Tokenize with [`DocV1Tokenizer`]: UAX #29 word segments reduced to
///    their word characters (Ll Lu Lt Lo Lm Mn Nd Pc, default-ignorables
///    removed), kept if they contain a letter; optionally minus a
///    [`StopWords`] list.
/// 3. Hash each token's UTF-8 bytes with [`jenkins64`](super::jenkins64)
///    (lookup3 `hashlittle2`, seeds 0, `c + (b << 32)`).
/// 4. 64 signed buckets, `±1` per token occurrence on each bit; bit `j` of
///    the result is set iff bucket `j` is positive.
/// 5. Text form: `simhash-doc-v1:` + base32 (RFC 4648, no padding) of the
///    8 big-endian bytes; parsing is case-insensitive.
///
/// Lookup defaults: radius [`Self::MAX_DISTANCE`] = 3 with the 16-table
/// layout of Manku et al. ([`SimHashIndex::new`](crate::SimHashIndex::new)),
/// similarity `1 − d/64`, 0.90 a loose and 0.98 a close match.
///
/// ```
/// use txtfp::Fingerprinter;
/// use txtfp::classical::simhash::{DocV1Match, SimHashDocV1};
/// let scheme = SimHashDocV1::new();
/// let a = scheme.fingerprint("The quick brown fox jumps over the lazy dog.")?;
/// let text = SimHashDocV1::to_text(a);
/// assert!(text.starts_with("simhash-doc-v1:") && text.len() == 15 + 13);
/// assert_eq!(SimHashDocV1::parse(&text.to_lowercase())?, a);
/// let b = scheme.fingerprint("The quick brown fox jumps over the lazy dog!")?;
/// assert_eq!(SimHashDocV1::match_level(a, b), DocV1Match::Close); // same tokens
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SimHashDocV1 {
    tokenizer: DocV1Tokenizer,
}

impl SimHashDocV1 {
    /// The scheme's name.
    pub const SCHEME: &'static str = "simhash-doc-v1";
    /// The prefix of the text form.
    pub const PREFIX: &'static str = "simhash-doc-v1:";
    /// Default lookup radius `k` (differing bits).
    pub const MAX_DISTANCE: u32 = 3;
    /// Similarity from which two documents loosely match.
    pub const LOOSE_MATCH: f64 = 0.90;
    /// Similarity from which two documents closely match.
    pub const CLOSE_MATCH: f64 = 0.98;

    /// The scheme without stop words.
    pub fn new() -> Self {
        Self::default()
    }

    /// The scheme with a stop-word list (fingerprints are then comparable
    /// only with those made with the same list).
    #[must_use]
    pub fn with_stop_words(mut self, stop_words: StopWords) -> Self {
        self.tokenizer = DocV1Tokenizer::with_stop_words(stop_words);
        self
    }

    /// The scheme's canonicalizer (`nfkc-cf-simple`, nothing stripped).
    pub fn canonicalizer() -> Canonicalizer {
        doc_v1_canonicalizer()
    }

    /// The tokenizer (with the stop-word list, if any).
    pub fn tokenizer(&self) -> &DocV1Tokenizer {
        &self.tokenizer
    }

    /// The tokens of `input`, after canonicalization: what gets hashed.
    ///
    /// ```
    /// use txtfp::classical::simhash::SimHashDocV1;
    /// let t = SimHashDocV1::new().tokens("Ｆull-width ﬁsh & Straße, 2024!");
    /// assert_eq!(t, ["full", "width", "fish", "strasse"]);
    /// ```
    pub fn tokens(&self, input: &str) -> Vec<String> {
        let text = doc_v1_canonicalizer().canonicalize(input);
        let mut out = Vec::new();
        self.tokenizer.each(&text, |t| out.push(String::from(t)));
        out
    }

    /// `config_hash(canonicalizer, tokenizer name, "simhash-doc-v1")`:
    /// equal hashes, comparable fingerprints (the stop-word list, if any, is
    /// in the tokenizer name).
    pub fn config_hash(&self) -> u64 {
        crate::config_hash(
            &doc_v1_canonicalizer(),
            &self.tokenizer.name(),
            Self::SCHEME,
        )
    }

    /// [`Fingerprinter::fingerprint`] with a caller-owned buffer for the
    /// canonical text.
    ///
    /// # Errors
    /// As [`Fingerprinter::fingerprint`].
    pub fn fingerprint_with_buffer(&self, input: &str, buf: &mut String) -> Result<SimHash64> {
        doc_v1_canonicalizer().canonicalize_into(input, buf);
        let mut counter = BitCounter::new();
        self.tokenizer
            .each(buf, |t| counter.add(jenkins64(t.as_bytes())));
        if counter.votes() == 0 {
            return Err(Error::InvalidInput("empty document".into()));
        }
        Ok(SimHash64(counter.signature()))
    }

    /// The text form: [`Self::PREFIX`] + 13 upper-case base32 characters.
    ///
    /// ```
    /// use txtfp::SimHash64;
    /// use txtfp::classical::simhash::SimHashDocV1;
    /// assert_eq!(SimHashDocV1::to_text(SimHash64(0)), "simhash-doc-v1:AAAAAAAAAAAAA");
    /// assert_eq!(SimHashDocV1::to_text(SimHash64(u64::MAX)), "simhash-doc-v1:7777777777776");
    /// ```
    pub fn to_text(h: SimHash64) -> String {
        let mut s = String::from(Self::PREFIX);
        s.push_str(&encode(TextEncoding::Base32, &h.0.to_be_bytes()));
        s
    }

    /// Parses a text form. The prefix and the base32 digits may be in
    /// either case; there is no padding.
    ///
    /// ```
    /// use txtfp::SimHash64;
    /// use txtfp::classical::simhash::SimHashDocV1;
    /// assert_eq!(SimHashDocV1::parse("SIMHASH-DOC-V1:7777777777776")?, SimHash64(u64::MAX));
    /// assert_eq!(SimHashDocV1::parse("simhash-doc-v1:4l24lemdc4rhm")?, SimHash64(0xe2f5c59183172276));
    /// let err = SimHashDocV1::parse("7777777777776").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid input: simhash-doc-v1 text must start with \"simhash-doc-v1:\", got \"7777777777776\""
    /// );
    /// // The last character carries 4 bits and a zero bit: '7' (11111) is not canonical.
    /// assert!(SimHashDocV1::parse("simhash-doc-v1:7777777777777").is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidInput`] when the prefix is missing, the length is not
    /// 13 characters, or a character is not base32 (naming it and its
    /// position) or the last one has non-zero unused bits.
    pub fn parse(text: &str) -> Result<SimHash64> {
        let p = Self::PREFIX.len();
        let has_prefix = text
            .get(..p)
            .is_some_and(|head| head.eq_ignore_ascii_case(Self::PREFIX));
        if !has_prefix {
            let shown: String = text.chars().take(40).collect();
            return Err(Error::InvalidInput(format!(
                "{} text must start with {:?}, got {shown:?}",
                Self::SCHEME,
                Self::PREFIX
            )));
        }
        let bytes = decode(TextEncoding::Base32, &text[p..], 8, Self::SCHEME)?;
        let arr: [u8; 8] = bytes.as_slice().try_into().unwrap_or([0; 8]);
        Ok(SimHash64(u64::from_be_bytes(arr)))
    }

    /// The scheme's similarity `1 − d/64` for Hamming distance `d`.
    ///
    /// ```
    /// use txtfp::SimHash64;
    /// use txtfp::classical::simhash::SimHashDocV1;
    /// assert_eq!(SimHashDocV1::similarity(SimHash64(0), SimHash64(0b1111)), 0.9375);
    /// ```
    pub fn similarity(a: SimHash64, b: SimHash64) -> f64 {
        1.0 - f64::from(hamming(a, b)) / 64.0
    }

    /// [`DocV1Match`] of two fingerprints by [`Self::similarity`].
    pub fn match_level(a: SimHash64, b: SimHash64) -> DocV1Match {
        let s = Self::similarity(a, b);
        if s >= Self::CLOSE_MATCH {
            DocV1Match::Close
        } else if s >= Self::LOOSE_MATCH {
            DocV1Match::Loose
        } else {
            DocV1Match::Distinct
        }
    }

    /// An empty index with the scheme's lookup defaults: radius 3, the 16
    /// tables of 28-bit keys of Manku et al. §3.1.1
    /// ([`SimHashLayout::manku_k3`](crate::lsh::SimHashLayout::manku_k3)).
    #[cfg(feature = "lsh")]
    pub fn index() -> crate::SimHashIndex {
        crate::SimHashIndex::new()
    }
}

impl Fingerprinter for SimHashDocV1 {
    type Output = SimHash64;

    /// The `simhash-doc-v1` fingerprint of `input`.
    ///
    /// # Errors
    /// [`Error::InvalidInput`]`("empty document")` when `input` has no
    /// token (empty, only numbers, punctuation or stop words): the scheme
    /// defines no fingerprint for it.
    fn fingerprint(&self, input: &str) -> Result<SimHash64> {
        let mut buf = String::with_capacity(input.len());
        self.fingerprint_with_buffer(input, &mut buf)
    }
}

#[cfg(test)]
mod tests;
