//! The tokens of `simhash-doc-v1`: Unicode word segments (UAX #29) reduced
//! to their word characters, kept when they hold a letter.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

use hashbrown::HashSet;
use unicode_general_category::{GeneralCategory as Gc, get_general_category};
use unicode_segmentation::UnicodeSegmentation;

use super::doc_v1_stop;
use crate::canonical::Canonicalizer;
use crate::tokenize::{TokenStream, Tokenizer};
use crate::{CanonicalizerBuilder, CaseFold, Error, Normalization, Result};

/// The canonicalization of `simhash-doc-v1`: NFKC, full case folding,
/// NFKC again; nothing stripped (`nfkc-cf-simple`).
pub(crate) fn doc_v1_canonicalizer() -> Canonicalizer {
    CanonicalizerBuilder {
        normalization: Normalization::Nfkc,
        case_fold: CaseFold::Simple,
        strip_bidi: false,
        strip_format: false,
        apply_confusable: false,
    }
    .build()
}

/// Default-ignorable code points (Unicode `Default_Ignorable_Code_Point`)
/// whose General_Category is one the tokens keep: combining grapheme
/// joiner, Hangul fillers, Khmer inherent vowels, Mongolian free variation
/// selectors and the variation selectors. They print nothing, so they are
/// dropped. The list is fixed by the scheme (see `docs/simhash-doc-v1.md`).
const IGNORABLE: [(u32, u32); 9] = [
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180D),
    (0x180F, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
];

/// Whether `c` is a word character of the scheme: General_Category Ll, Lu,
/// Lt, Lo, Lm, Mn, Nd or Pc, and not in [`IGNORABLE`].
#[inline]
pub(crate) fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    matches!(
        get_general_category(c),
        Gc::LowercaseLetter
            | Gc::UppercaseLetter
            | Gc::TitlecaseLetter
            | Gc::OtherLetter
            | Gc::ModifierLetter
            | Gc::NonspacingMark
            | Gc::DecimalNumber
            | Gc::ConnectorPunctuation
    ) && !IGNORABLE
        .iter()
        .any(|&(lo, hi)| (lo..=hi).contains(&u32::from(c)))
}

/// Whether `c` is a letter (General_Category L*): a token needs one.
#[inline]
pub(crate) fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    matches!(
        get_general_category(c),
        Gc::LowercaseLetter
            | Gc::UppercaseLetter
            | Gc::TitlecaseLetter
            | Gc::OtherLetter
            | Gc::ModifierLetter
    ) && !IGNORABLE
        .iter()
        .any(|&(lo, hi)| (lo..=hi).contains(&u32::from(c)))
}

/// The token of one word segment: its word characters, if one is a letter.
/// Borrows the segment when it is all word characters.
fn token_of(segment: &str) -> Option<Cow<'_, str>> {
    let mut letter = false;
    let mut all_kept = true;
    for c in segment.chars() {
        if is_word_char(c) {
            letter |= is_letter(c);
        } else {
            all_kept = false;
        }
    }
    if !letter {
        return None;
    }
    Some(if all_kept {
        Cow::Borrowed(segment)
    } else {
        Cow::Owned(segment.chars().filter(|&c| is_word_char(c)).collect())
    })
}

/// A stop-word list for `simhash-doc-v1`: tokens in it are dropped before
/// hashing. Words are put through the scheme's canonicalization and token
/// rule, so `"The"` and `"the"` are the same entry.
///
/// The scheme allows a list, but two fingerprints are comparable only when
/// they were made with the same one: the list is part of
/// [`SimHashDocV1::config_hash`](super::SimHashDocV1::config_hash).
///
/// ```
/// use txtfp::classical::simhash::StopWords;
/// let en = StopWords::builtin("en")?;
/// assert!(en.contains("the") && en.contains("The") && !en.contains("fox"));
/// let mine = StopWords::from_words(["Lorem", "ipsum"]);
/// assert_eq!(mine.len(), 2);
/// assert!(StopWords::builtin("xx").is_err());
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StopWords {
    words: HashSet<String>,
    /// `XXH3_64` of the sorted entries: independent of insertion order.
    hash: u64,
}

impl StopWords {
    /// The languages of [`StopWords::builtin`]: English, French, German,
    /// Spanish (ISO 639-1 codes).
    pub const LANGUAGES: [&'static str; 4] = ["en", "fr", "de", "es"];

    /// A list of the given words (each canonicalized and reduced to its
    /// token; words that are no token, e.g. `"42"`, are skipped).
    pub fn from_words<I, S>(words: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let canon = doc_v1_canonicalizer();
        let mut set = HashSet::new();
        for w in words {
            let c = canon.canonicalize(w.as_ref());
            for seg in c.split_word_bounds() {
                if let Some(t) = token_of(seg) {
                    set.insert(t.into_owned());
                }
            }
        }
        let mut sorted: Vec<&str> = set.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        let joined = sorted.join("\n");
        let hash = crate::classical::xxh3_64(joined.as_bytes());
        Self { words: set, hash }
    }

    /// The built-in list for `lang` (one of [`Self::LANGUAGES`]); the words
    /// are printed in `docs/simhash-doc-v1.md`.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for any other language code.
    pub fn builtin(lang: &str) -> Result<Self> {
        let words = doc_v1_stop::list(lang).ok_or_else(|| {
            Error::InvalidInput(alloc::format!(
                "no built-in stop-word list for language {lang:?}; built in: en, fr, de, es"
            ))
        })?;
        Ok(Self::from_words(words.iter()))
    }

    /// Whether `word` (canonicalized like the text) is on the list.
    pub fn contains(&self, word: &str) -> bool {
        if self.words.contains(word) {
            return true;
        }
        let c = doc_v1_canonicalizer().canonicalize(word);
        token_of(&c).is_some_and(|t| self.words.contains(t.as_ref()))
    }

    /// Number of distinct entries.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// `XXH3_64` of the sorted entries joined by `\n`: equal lists, equal hash.
    pub fn content_hash(&self) -> u64 {
        self.hash
    }
}

/// The tokenizer of `simhash-doc-v1`, over text already canonicalized by
/// the scheme (NFKC + full case folding): every UAX #29 word segment
/// (unicode-segmentation's `split_word_bounds`) is reduced to its word
/// characters (General_Category Ll Lu Lt Lo Lm Mn Nd Pc, minus nine
/// default-ignorable ranges) and kept if one of them is a letter (L*).
/// Pure numbers, punctuation, symbols and emoji are dropped; `don't` gives
/// `dont`, `snake_case` stays whole, `3rd` stays, `2024` goes.
///
/// Name: `doc-v1-words`, or `doc-v1-words+stop-<16 hex digits>` with a
/// stop-word list.
///
/// ```
/// use txtfp::Tokenizer;
/// use txtfp::classical::simhash::DocV1Tokenizer;
/// let mut out = Vec::new();
/// DocV1Tokenizer::default().for_each_token("don't panic: v1.2 costs $1,000 in 2024!", &mut |t| {
///     out.push(t.to_string())
/// });
/// assert_eq!(out, ["dont", "panic", "v12", "costs", "in"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocV1Tokenizer {
    stop_words: Option<StopWords>,
}

impl DocV1Tokenizer {
    /// The tokenizer with `stop_words` dropped.
    pub fn with_stop_words(stop_words: StopWords) -> Self {
        Self {
            stop_words: Some(stop_words),
        }
    }

    /// The stop-word list, if any.
    pub fn stop_words(&self) -> Option<&StopWords> {
        self.stop_words.as_ref()
    }

    /// Calls `f` on each token of `text` (canonical text), in order.
    pub(crate) fn each<F: FnMut(&str)>(&self, text: &str, mut f: F) {
        for seg in text.split_word_bounds() {
            if let Some(t) = token_of(seg)
                && !self
                    .stop_words
                    .as_ref()
                    .is_some_and(|s| s.words.contains(t.as_ref()))
            {
                f(&t);
            }
        }
    }
}

impl Tokenizer for DocV1Tokenizer {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        let mut out = Vec::new();
        self.each(input, |t| out.push(String::from(t)));
        TokenStream::Owned(Box::new(out.into_iter()))
    }

    fn name(&self) -> Cow<'static, str> {
        match &self.stop_words {
            None => Cow::Borrowed("doc-v1-words"),
            Some(s) => Cow::Owned(alloc::format!(
                "doc-v1-words+stop-{}",
                crate::classical::hex16(s.content_hash())
            )),
        }
    }

    fn for_each_token(&self, input: &str, f: &mut dyn FnMut(&str)) {
        self.each(input, f);
    }
}

#[cfg(test)]
mod tests;
