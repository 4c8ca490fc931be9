//! Stage 2: turn canonical text into tokens.
//!
//! A [`Tokenizer`] yields `&str` tokens, either as an iterator ([`Tokenizer::tokens`])
//! or through a callback ([`Tokenizer::for_each_token`], the path every sketch uses).
//! Both paths give the same sequence for every built-in tokenizer.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;

use crate::Result;

mod ascii_batch;
pub(crate) mod ascii_scan;
pub(crate) mod ascii_words;
mod block_words;
#[cfg(feature = "cjk")]
pub mod cjk;
pub(crate) mod fused;
mod grapheme;
pub(crate) mod mixed_words;
mod shingle;
pub(crate) mod word;

#[cfg(feature = "cjk")]
pub use cjk::{CjkSegmenter, CjkTokenizer};
pub use grapheme::GraphemeTokenizer;
pub use shingle::{MAX_SHINGLE_K, ShingleTokenizer};
pub use word::WordTokenizer;
#[cfg(feature = "minhash")]
pub(crate) use word::for_each_word_span_spaced;

/// The token iterator returned by [`Tokenizer::tokens`].
pub enum TokenStream<'a> {
    /// Tokens borrowed from the input.
    Borrowed(Box<dyn Iterator<Item = &'a str> + 'a>),
    /// Tokens the tokenizer had to build (e.g. joined shingles).
    Owned(Box<dyn Iterator<Item = String> + 'a>),
}

impl<'a> TokenStream<'a> {
    /// Every token as an owned `String`, whichever variant this is.
    pub fn into_string_iter(self) -> Box<dyn Iterator<Item = String> + 'a> {
        match self {
            TokenStream::Borrowed(it) => Box::new(it.map(String::from)),
            TokenStream::Owned(it) => it,
        }
    }
}

impl core::fmt::Debug for TokenStream<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            TokenStream::Borrowed(_) => "TokenStream::Borrowed(..)",
            TokenStream::Owned(_) => "TokenStream::Owned(..)",
        })
    }
}

/// How a tokenizer can be driven over a stream of text (see
/// [`Tokenizer::stream_plan`]).
#[derive(Clone, Copy)]
#[non_exhaustive]
pub enum StreamPlan<'a> {
    /// Tokenizing `a ++ b` gives `tokens(a) ++ tokens(b)` whenever `a` ends
    /// with an ASCII whitespace character and `b` starts with an ASCII
    /// character that is not whitespace. Word and grapheme tokenizers are.
    Splittable,
    /// Windows of `k` consecutive tokens of `inner`, joined by one space.
    Shingle {
        /// Window size.
        k: usize,
        /// The tokenizer whose tokens are joined.
        inner: &'a dyn Tokenizer,
    },
    /// No incremental plan: a stream is buffered whole, up to the stream's cap.
    Buffered,
}

/// Which built-in tokenizer a [`Tokenizer`] is, for crate-internal fused
/// fast paths. Not part of the stable API: implementors keep the default.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Builtin {
    /// Not a built-in tokenizer (or one without a fused path).
    Other,
    /// Exactly [`WordTokenizer`]'s tokens.
    Words,
}

/// A tokenizer: canonical text in, tokens out.
///
/// ```
/// use txtfp::{Tokenizer, WordTokenizer};
/// let mut words = Vec::new();
/// WordTokenizer.for_each_token("don't go!", &mut |t| words.push(t.to_string()));
/// assert_eq!(words, ["don't", "go"]);
/// ```
pub trait Tokenizer: Send + Sync {
    /// The tokens of `input`, in order.
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a>;

    /// Stable name, part of every config hash (e.g. `"word-uax29"`).
    fn name(&self) -> Cow<'static, str>;

    /// Calls `f` on every token of `input`, in order. The default goes through
    /// [`Tokenizer::tokens`]; built-in tokenizers override it to allocate nothing.
    fn for_each_token(&self, input: &str, f: &mut dyn FnMut(&str)) {
        match self.tokens(input) {
            TokenStream::Borrowed(it) => it.for_each(&mut *f),
            TokenStream::Owned(it) => it.for_each(|t| f(&t)),
        }
    }

    /// Rejects a configuration that cannot be tokenized safely (e.g. a shingle
    /// size beyond [`MAX_SHINGLE_K`]). Every fingerprinter calls it first.
    fn validate(&self) -> Result<()> {
        Ok(())
    }

    /// How streaming fingerprinters may feed this tokenizer without holding
    /// the whole document. The default, [`StreamPlan::Buffered`], is always
    /// correct; override it only when the stated property holds.
    fn stream_plan(&self) -> StreamPlan<'_> {
        StreamPlan::Buffered
    }

    /// Crate-internal: lets sketches take a fused path for built-in
    /// tokenizers. Keep the default in your own tokenizers.
    #[doc(hidden)]
    fn builtin(&self) -> Builtin {
        Builtin::Other
    }
}

/// A reference and a box tokenize as what they point to. One body for both,
/// from a macro: a blanket impl over `Deref` would overlap the tokenizers'
/// own impls.
macro_rules! forward_tokenizer {
    ($($ptr:ty),+) => {$(
        impl<T: Tokenizer + ?Sized> Tokenizer for $ptr {
            fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
                (**self).tokens(input)
            }
            fn name(&self) -> Cow<'static, str> {
                (**self).name()
            }
            fn for_each_token(&self, input: &str, f: &mut dyn FnMut(&str)) {
                (**self).for_each_token(input, f)
            }
            fn validate(&self) -> Result<()> {
                (**self).validate()
            }
            fn stream_plan(&self) -> StreamPlan<'_> {
                (**self).stream_plan()
            }
            fn builtin(&self) -> Builtin {
                (**self).builtin()
            }
        }
    )+};
}

forward_tokenizer!(&T, Box<T>);
