//! CJK tokenizers (feature `cjk`; Japanese needs feature `japanese`).
//!
//! [`CjkTokenizer`] picks a segmenter with [`CjkSegmenter`]:
//!
//! | segmenter | what | name |
//! |---|---|---|
//! | [`CjkSegmenter::Jieba`] | Chinese words by jieba's dictionary (txtfp 0.3.2's tokens, byte for byte) | `cjk-jieba`, `cjk-jieba-hmm` |
//! | `Jieba` + [`CjkTokenizer::with_unicode_words`] | Han words by jieba, the rest UAX #29 words (no punctuation, `café` whole) | `cjk-jieba+uax29`, `cjk-jieba-hmm+uax29` |
//! | [`CjkSegmenter::KoreanEojeol`] | Korean eojeol (space-delimited words) by UAX #29 | `cjk-ko-eojeol` |
//! | `CjkSegmenter::Japanese` (feature `japanese`) | lindera + IPADIC on CJK runs, UAX #29 words elsewhere | `cjk-lindera-<dictionary label>` |
//!
//! `LinderaTokenizer` (feature `japanese`) runs any lindera dictionary, for
//! example a Korean ko-dic built online: no registry this project can reach
//! ships a ko-dic *source* that lindera can compile, so Korean morphological
//! analysis needs a dictionary from elsewhere.
//!
//! Mixed-script text, in every mode but the legacy jieba one: maximal runs of
//! CJK letters (Han, kana, Hangul) go to the segmenter, everything else is
//! tokenized as UAX #29 words, like [`crate::WordTokenizer`].

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::vec::Vec;

use super::{TokenStream, Tokenizer};
use crate::tokenize::word::for_each_word;

#[cfg(feature = "japanese")]
mod ipadic;
mod jieba;
#[cfg(feature = "japanese")]
mod lindera;
mod script;
#[cfg(test)]
mod tests;

#[cfg(feature = "japanese")]
pub use ipadic::{CACHE_DIR_ENV, DEFAULT_IPADIC_SOURCE, IPADIC_SOURCE_ENV, default_cache_root};
#[cfg(feature = "japanese")]
pub use lindera::{LinderaDictionary, LinderaTokenizer, default_japanese, set_default_japanese};

/// Which segmenter a [`CjkTokenizer`] uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CjkSegmenter {
    /// Chinese: jieba-rs 0.9.0 with its embedded dictionary, accurate mode.
    Jieba,
    /// Korean: eojeol, the space-delimited words of Korean text, as UAX #29
    /// words (particles stay attached: `한국어를`). No dictionary needed.
    KoreanEojeol,
    /// Japanese: lindera with the process-wide IPADIC from
    /// [`default_japanese`] (built from Debian's `mecab-ipadic` at run time
    /// and cached, or embedded with feature `japanese-embed`).
    #[cfg(feature = "japanese")]
    Japanese,
}

/// CJK word tokenizer. Cheap to construct and `Copy`: dictionaries are
/// process-wide and loaded on first use.
///
/// The default, `CjkTokenizer::new(CjkSegmenter::Jieba)`, reproduces txtfp
/// 0.3.2's `cjk-jieba` tokens byte for byte: jieba's pieces minus
/// whitespace, punctuation kept, non-Han text one token per code point
/// (`café` → `caf`, `é`). [`CjkTokenizer::with_unicode_words`] opts into the
/// fixed behaviour under a different name.
///
/// ```
/// use txtfp::{CjkSegmenter, CjkTokenizer, Tokenizer};
/// let toks = |t: &CjkTokenizer, s: &str| {
///     let mut v = Vec::new();
///     t.for_each_token(s, &mut |x| v.push(x.to_string()));
///     v
/// };
/// let legacy = CjkTokenizer::new(CjkSegmenter::Jieba);
/// assert_eq!(toks(&legacy, "我爱北京天安门, café!"), ["我", "爱", "北京", "天安门", ",", "caf", "é", "!"]);
/// let words = legacy.with_unicode_words(true);
/// assert_eq!(toks(&words, "我爱北京天安门, café!"), ["我", "爱", "北京", "天安门", "café"]);
/// assert_eq!(words.name(), "cjk-jieba+uax29");
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CjkTokenizer {
    segmenter: CjkSegmenter,
    hmm: bool,
    unicode_words: bool,
}

impl Default for CjkTokenizer {
    /// Jieba, HMM off, legacy tokens (`cjk-jieba`).
    fn default() -> Self {
        Self::new(CjkSegmenter::Jieba)
    }
}

impl CjkTokenizer {
    /// A tokenizer with `segmenter`, HMM off, legacy jieba tokens.
    #[must_use]
    pub fn new(segmenter: CjkSegmenter) -> Self {
        CjkTokenizer {
            segmenter,
            hmm: false,
            unicode_words: false,
        }
    }

    /// Turns jieba's HMM guessing of out-of-dictionary words on or off
    /// (default off). Only [`CjkSegmenter::Jieba`] uses it.
    #[must_use]
    pub fn with_hmm(mut self, hmm: bool) -> Self {
        self.hmm = hmm;
        self
    }

    /// Opt-in fix of W22 for [`CjkSegmenter::Jieba`]: jieba's Han words are
    /// kept, everything else becomes UAX #29 words, so punctuation tokens
    /// disappear and accented Latin words (`café`), numbers (`3.14`) and
    /// kana/Hangul words stay whole. The name gains `+uax29`. The other
    /// segmenters always work this way and ignore the flag.
    #[must_use]
    pub fn with_unicode_words(mut self, on: bool) -> Self {
        self.unicode_words = on;
        self
    }

    /// The segmenter.
    #[must_use]
    pub fn segmenter(&self) -> CjkSegmenter {
        self.segmenter
    }

    /// Whether jieba's HMM is on.
    #[must_use]
    pub fn uses_hmm(&self) -> bool {
        self.hmm
    }

    /// Whether non-CJK text becomes UAX #29 words (always true except for
    /// legacy jieba).
    #[must_use]
    pub fn uses_unicode_words(&self) -> bool {
        self.unicode_words || self.segmenter != CjkSegmenter::Jieba
    }

    /// Calls `emit` with the tokens as borrowed slices of `input`.
    fn run<'a>(&self, input: &'a str, emit: &mut dyn FnMut(&'a str)) {
        match self.segmenter {
            CjkSegmenter::Jieba if self.unicode_words => {
                jieba::words_mode(input, self.hmm, &mut |a, b| emit(&input[a..b]))
            }
            CjkSegmenter::Jieba => {
                for t in jieba::legacy_tokens(input, self.hmm) {
                    emit(t)
                }
            }
            CjkSegmenter::KoreanEojeol => {
                let base = input.as_ptr() as usize;
                for_each_word(input, |w| {
                    let a = w.as_ptr() as usize - base;
                    emit(&input[a..a + w.len()]);
                })
            }
            #[cfg(feature = "japanese")]
            CjkSegmenter::Japanese => {
                // Without a dictionary there are no tokens; `validate` (which
                // every fingerprinter calls first) reports why.
                if let Ok(d) = default_japanese() {
                    d.for_each_span(input, &mut |a, b| emit(&input[a..b]));
                }
            }
        }
    }
}

impl Tokenizer for CjkTokenizer {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        if self.segmenter == CjkSegmenter::Jieba && !self.unicode_words {
            // jieba's own Vec, filtered in place: no second collection.
            return TokenStream::Borrowed(Box::new(
                jieba::legacy_tokens(input, self.hmm).into_iter(),
            ));
        }
        let mut v = Vec::new();
        self.run(input, &mut |t| v.push(t));
        TokenStream::Borrowed(Box::new(v.into_iter()))
    }

    fn name(&self) -> Cow<'static, str> {
        match (self.segmenter, self.hmm, self.unicode_words) {
            (CjkSegmenter::Jieba, false, false) => Cow::Borrowed("cjk-jieba"),
            (CjkSegmenter::Jieba, true, false) => Cow::Borrowed("cjk-jieba-hmm"),
            (CjkSegmenter::Jieba, false, true) => Cow::Borrowed("cjk-jieba+uax29"),
            (CjkSegmenter::Jieba, true, true) => Cow::Borrowed("cjk-jieba-hmm+uax29"),
            (CjkSegmenter::KoreanEojeol, ..) => Cow::Borrowed("cjk-ko-eojeol"),
            #[cfg(feature = "japanese")]
            (CjkSegmenter::Japanese, ..) => match default_japanese() {
                Ok(d) => Cow::Owned(alloc::format!("cjk-lindera-{}", d.label())),
                Err(_) => Cow::Borrowed("cjk-lindera-unavailable"),
            },
        }
    }

    fn for_each_token(&self, input: &str, f: &mut dyn FnMut(&str)) {
        if self.segmenter == CjkSegmenter::Jieba && !self.unicode_words {
            return jieba::legacy_for_each(input, self.hmm, f);
        }
        self.run(input, &mut |t| f(t));
    }

    /// Japanese: loads the dictionary now and reports a missing one.
    fn validate(&self) -> crate::Result<()> {
        #[cfg(feature = "japanese")]
        if self.segmenter == CjkSegmenter::Japanese {
            default_japanese()?;
        }
        Ok(())
    }
}
