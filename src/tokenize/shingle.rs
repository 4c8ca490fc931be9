//! k-shingles: windows of `k` consecutive tokens of an inner tokenizer.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;

use super::{StreamPlan, TokenStream, Tokenizer};
use crate::{Error, Result};

mod window;

#[cfg(test)]
pub(super) mod strategies;
#[cfg(test)]
mod tests;

use window::Window;

/// The largest shingle size [`ShingleTokenizer::validate`] accepts.
///
/// txtfp 0.3.2 had no limit and aborted the process on a huge `k` (it
/// reserved `k` bytes up front, COMPAT.md W2). Real shingle sizes are single
/// digits; 1024 leaves ample room while keeping every window bounded.
pub const MAX_SHINGLE_K: usize = 1024;

/// Windows of `k` consecutive tokens of `inner`, each joined by one space
/// (U+0020). Name: `shingle-k=<k>/<inner name>`.
///
/// With `n` inner tokens: nothing when `k == 0` or `n == 0`; one shingle of
/// all tokens when `n < k`; otherwise the `n - k + 1` windows in order,
/// repeats included. `k = 1` gives the inner tokens unchanged. The inner
/// tokenizer can be anything, including another shingle tokenizer or the
/// grapheme tokenizer (whose space tokens then appear inside shingles).
///
/// ```
/// use txtfp::{ShingleTokenizer, Tokenizer, WordTokenizer};
/// let tok = ShingleTokenizer::new(3, WordTokenizer)?;
/// assert_eq!(tok.name(), "shingle-k=3/word-uax29");
/// let mut shingles = Vec::new();
/// tok.for_each_token("The cat, the hat.", &mut |s| shingles.push(s.to_string()));
/// assert_eq!(shingles, ["The cat the", "cat the hat"]);
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// The fields are public as in 0.3.2, so any `k` can be written directly;
/// [`Tokenizer::validate`] (called by every fingerprinter) rejects
/// `k > MAX_SHINGLE_K`, and tokenizing never reserves memory in proportion to
/// `k`, so even an unchecked huge `k` cannot abort the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShingleTokenizer<T> {
    /// Window size in inner tokens.
    pub k: usize,
    /// The tokenizer whose tokens are joined.
    pub inner: T,
}

impl<T: Tokenizer> ShingleTokenizer<T> {
    /// A checked constructor: `k` must be in `1..=MAX_SHINGLE_K` and `inner`
    /// must pass its own [`Tokenizer::validate`].
    ///
    /// Unlike [`Tokenizer::validate`], this also rejects `k == 0`, which is
    /// accepted there for 0.3.2 compatibility but yields no token at all.
    ///
    /// ```
    /// use txtfp::{ShingleTokenizer, WordTokenizer};
    /// assert!(ShingleTokenizer::new(5, WordTokenizer).is_ok());
    /// let err = ShingleTokenizer::new(0, WordTokenizer).unwrap_err();
    /// assert!(err.to_string().contains("k = 0"));
    /// ```
    pub fn new(k: usize, inner: T) -> Result<Self> {
        if k == 0 {
            return Err(Error::InvalidInput(String::from(
                "shingle size k = 0 yields no tokens; use k >= 1",
            )));
        }
        let tokenizer = ShingleTokenizer { k, inner };
        tokenizer.validate()?;
        Ok(tokenizer)
    }
}

impl<T: Tokenizer> Tokenizer for ShingleTokenizer<T> {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        if self.k == 0 {
            return TokenStream::Owned(Box::new(core::iter::empty()));
        }
        TokenStream::Owned(Box::new(Shingles {
            input,
            inner: Some(self.inner.tokens(input)),
            window: Window::new(self.k),
        }))
    }

    fn name(&self) -> Cow<'static, str> {
        Cow::Owned(format!("shingle-k={}/{}", self.k, self.inner.name()))
    }

    fn for_each_token(&self, input: &str, f: &mut dyn FnMut(&str)) {
        if self.k == 0 {
            return;
        }
        let mut window = Window::new(self.k);
        self.inner.for_each_token(input, &mut |token| {
            if let Some(shingle) = window.push(input, token) {
                f(shingle);
            }
        });
        if let Some(shingle) = window.finish(input) {
            f(shingle);
        }
    }

    /// Rejects `k > MAX_SHINGLE_K`, then validates `inner`. `k == 0` passes
    /// (0.3.2 accepted it; it yields no tokens).
    fn validate(&self) -> Result<()> {
        if self.k > MAX_SHINGLE_K {
            return Err(Error::InvalidInput(format!(
                "shingle size k = {} exceeds the maximum {MAX_SHINGLE_K}",
                self.k
            )));
        }
        self.inner.validate()
    }

    fn stream_plan(&self) -> StreamPlan<'_> {
        StreamPlan::Shingle {
            k: self.k,
            inner: &self.inner,
        }
    }
}

/// The iterator behind [`ShingleTokenizer::tokens`]: the same window as the
/// callback path, fed one inner token per step.
struct Shingles<'a> {
    input: &'a str,
    /// `None` once the inner stream is exhausted (it is never polled again).
    inner: Option<TokenStream<'a>>,
    window: Window,
}

impl Iterator for Shingles<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        loop {
            let token = match self.inner.as_mut()? {
                TokenStream::Borrowed(it) => it.next().map(Cow::Borrowed),
                TokenStream::Owned(it) => it.next().map(Cow::Owned),
            };
            let Some(token) = token else {
                self.inner = None;
                return self.window.finish(self.input).map(String::from);
            };
            if let Some(shingle) = self.window.push(self.input, &token) {
                return Some(String::from(shingle));
            }
        }
    }
}
