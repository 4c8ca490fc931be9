//! Morphological segmentation through lindera (feature `japanese`).
//!
//! A [`LinderaDictionary`] is a loaded, ready-to-use lindera segmenter plus a
//! label that names the dictionary in tokenizer names (and so in every config
//! hash). [`LinderaTokenizer`] tokenizes with any such dictionary; the
//! `CjkSegmenter::Japanese` segmenter uses the process-wide IPADIC from
//! [`default_japanese`].

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cell::RefCell;
use core::fmt;
use std::path::Path;
use std::sync::OnceLock;

use lindera::dictionary::{Dictionary, Lattice, load_fs_dictionary};
use lindera::mode::Mode;
use lindera::segmenter::Segmenter;
use lindera::token::Token;

use super::script::{for_each_stretch, is_cjk_letter};
use super::{TokenStream, Tokenizer};
use crate::tokenize::word::for_each_word;
use crate::{Error, Result};

/// A lindera dictionary, loaded and ready to segment. Cheap to clone (shared).
///
/// Get one with [`LinderaDictionary::ipadic`] (the default Japanese
/// dictionary), [`LinderaDictionary::ipadic_from_source`] (a MeCab IPADIC
/// source directory, compiled once and cached) or
/// [`LinderaDictionary::load_built`] (a directory lindera already built, e.g.
/// a Korean ko-dic built online with `lindera build`).
#[derive(Clone)]
pub struct LinderaDictionary {
    inner: Arc<Inner>,
}

struct Inner {
    segmenter: Segmenter,
    label: String,
}

impl fmt::Debug for LinderaDictionary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LinderaDictionary")
            .field("label", &self.inner.label)
            .finish_non_exhaustive()
    }
}

thread_local! {
    // One Viterbi lattice per thread, reused across runs and documents.
    static LATTICE: RefCell<Lattice> = RefCell::new(Lattice::default());
}

impl LinderaDictionary {
    pub(super) fn from_dictionary(dict: Dictionary, label: String) -> Self {
        let segmenter = Segmenter::new(Mode::Normal, dict, None);
        LinderaDictionary {
            inner: Arc::new(Inner { segmenter, label }),
        }
    }

    /// Loads a dictionary directory that lindera has already built
    /// (`lindera build`, or [`LinderaDictionary::ipadic_from_source`]'s cache).
    ///
    /// `label` names the dictionary in the tokenizer name
    /// (`cjk-lindera-<label>`): give each distinct dictionary its own label,
    /// since tokens, and therefore signatures, depend on it. It must be 1 to
    /// 64 ASCII letters, digits, `-`, `_` or `.`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] for a bad label, [`Error::Config`] when the
    /// directory is missing or is not a dictionary lindera can read.
    pub fn load_built(dir: &Path, label: &str) -> Result<Self> {
        check_label(label)?;
        if !dir.is_dir() {
            return Err(Error::Config(format!(
                "lindera dictionary directory {} does not exist",
                dir.display()
            )));
        }
        let dict = load_fs_dictionary(dir).map_err(|e| {
            Error::Config(format!(
                "cannot load the lindera dictionary at {}: {e}",
                dir.display()
            ))
        })?;
        Ok(Self::from_dictionary(dict, label.to_string()))
    }

    /// lindera's embedded IPADIC (feature `japanese-embed`, whose build
    /// downloads it). Label `ipadic-2.7.0-20250920`, the source lindera embeds.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when the embedded data is lindera's placeholder
    /// (a `DOCS_RS=1` offline build) or cannot be loaded.
    #[cfg(feature = "japanese-embed")]
    pub fn embedded_ipadic() -> Result<Self> {
        let dict = lindera::dictionary::load_dictionary("embedded://ipadic")
            .map_err(|e| Error::Config(format!("cannot load lindera's embedded IPADIC: {e}")))?;
        let d = Self::from_dictionary(dict, "ipadic-2.7.0-20250920".to_string());
        // A DOCS_RS build embeds a one-word placeholder: refuse it rather
        // than segment every document into unknown words.
        let real = d
            .inner
            .segmenter
            .segment(Cow::Borrowed("日本語"))
            .map(|t| t.len() == 1 && !t[0].word_id.is_unknown())
            .unwrap_or(false);
        if !real {
            return Err(Error::Config(
                "lindera's embedded IPADIC is a placeholder (built with DOCS_RS or offline)".into(),
            ));
        }
        Ok(d)
    }

    /// The label used in tokenizer names (`cjk-lindera-<label>`).
    pub fn label(&self) -> &str {
        &self.inner.label
    }

    /// Byte ranges of the tokens of `text`: CJK letter runs through lindera,
    /// everything else as UAX #29 words.
    pub(super) fn for_each_span(&self, text: &str, emit: &mut dyn FnMut(usize, usize)) {
        let base = text.as_ptr() as usize;
        for_each_stretch(text, is_cjk_letter, |s, cjk| {
            let off = s.as_ptr() as usize - base;
            let tokens = if cjk { self.segment_run(s) } else { None };
            match tokens {
                Some(tokens) => {
                    for t in &tokens {
                        // lindera's offsets are relative to the run; guard
                        // rather than trust them with a slice index.
                        if t.byte_start < t.byte_end
                            && s.is_char_boundary(t.byte_start)
                            && s.is_char_boundary(t.byte_end)
                            && t.byte_end <= s.len()
                        {
                            emit(off + t.byte_start, off + t.byte_end);
                        }
                    }
                }
                // Non-CJK text, or a lattice error (never seen): UAX #29 words.
                None => for_each_word(s, |w| {
                    let a = w.as_ptr() as usize - base;
                    emit(a, a + w.len());
                }),
            }
        });
    }

    /// The lattice borrow ends before any token is emitted, so a callback
    /// that tokenizes again on the same thread cannot hit a busy lattice
    /// (and if it somehow did, a fresh lattice is used).
    fn segment_run<'a>(&'a self, run: &'a str) -> Option<Vec<Token<'a>>> {
        let seg = &self.inner.segmenter;
        LATTICE
            .with(|l| match l.try_borrow_mut() {
                Ok(mut lattice) => seg.segment_with_lattice(Cow::Borrowed(run), &mut lattice),
                Err(_) => seg.segment(Cow::Borrowed(run)),
            })
            .ok()
    }
}

fn check_label(label: &str) -> Result<()> {
    let ok = !label.is_empty()
        && label.len() <= 64
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "dictionary label {label:?} must be 1 to 64 ASCII letters, digits, '-', '_' or '.'"
        )))
    }
}

/// The process-wide Japanese dictionary: the one installed with
/// [`set_default_japanese`], else [`LinderaDictionary::ipadic`], loaded on
/// first use. The outcome, error included, is kept for the process lifetime
/// so a missing dictionary costs one failed lookup, not one per document.
pub fn default_japanese() -> Result<LinderaDictionary> {
    match default_slot().get_or_init(|| LinderaDictionary::ipadic().map_err(|e| e.to_string())) {
        Ok(d) => Ok(d.clone()),
        Err(m) => Err(Error::Config(m.clone())),
    }
}

/// Makes `dict` the dictionary `CjkSegmenter::Japanese` uses in this process.
///
/// # Errors
///
/// [`Error::Config`] if the default was already fixed (by an earlier call
/// or by a `CjkSegmenter::Japanese` tokenizer having been used).
pub fn set_default_japanese(dict: LinderaDictionary) -> Result<()> {
    default_slot().set(Ok(dict)).map_err(|_| {
        Error::Config("the default Japanese dictionary is already fixed for this process".into())
    })
}

fn default_slot() -> &'static OnceLock<core::result::Result<LinderaDictionary, String>> {
    static SLOT: OnceLock<core::result::Result<LinderaDictionary, String>> = OnceLock::new();
    &SLOT
}

/// A tokenizer over any [`LinderaDictionary`]: runs of Han, kana and Hangul
/// go to lindera's Viterbi segmenter; the rest of the text is tokenized as
/// UAX #29 words (punctuation dropped, Latin words whole).
/// Name: `cjk-lindera-<label>`.
///
/// ```no_run
/// use txtfp::Tokenizer;
/// use txtfp::tokenize::cjk::{LinderaDictionary, LinderaTokenizer};
/// # fn main() -> txtfp::Result<()> {
/// let tok = LinderaTokenizer::new(LinderaDictionary::ipadic()?);
/// let mut toks = Vec::new();
/// tok.for_each_token("東京で買いました。", &mut |t| toks.push(t.to_string()));
/// assert_eq!(toks, ["東京", "で", "買い", "まし", "た"]);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct LinderaTokenizer {
    dict: LinderaDictionary,
}

impl LinderaTokenizer {
    /// A tokenizer over `dict`.
    pub fn new(dict: LinderaDictionary) -> Self {
        LinderaTokenizer { dict }
    }

    /// The dictionary in use.
    pub fn dictionary(&self) -> &LinderaDictionary {
        &self.dict
    }
}

impl Tokenizer for LinderaTokenizer {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        let mut v = Vec::new();
        self.dict
            .for_each_span(input, &mut |a, b| v.push(&input[a..b]));
        TokenStream::Borrowed(Box::new(v.into_iter()))
    }

    fn name(&self) -> Cow<'static, str> {
        Cow::Owned(format!("cjk-lindera-{}", self.dict.label()))
    }

    fn for_each_token(&self, input: &str, f: &mut dyn FnMut(&str)) {
        self.dict.for_each_span(input, &mut |a, b| f(&input[a..b]));
    }
}
