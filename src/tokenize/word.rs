//! UAX #29 word tokens.

use alloc::borrow::Cow;
use alloc::boxed::Box;

use unicode_segmentation::UnicodeSegmentation;

use super::ascii_batch::{WORD_BATCH, for_each_ascii_word_batch};
use super::ascii_scan::for_each_ascii_word;
use super::ascii_words::AsciiWords;
use super::{StreamPlan, TokenStream, Tokenizer};

/// Words by the Unicode word-boundary rules (UAX #29), keeping only the
/// segments that contain at least one alphabetic or numeric character.
///
/// Whitespace, punctuation and symbol-only segments (emoji included) are
/// dropped; apostrophes, decimal points and thousands separators inside a
/// word stay in it. Each Han ideograph and each kana is a token of its own.
/// Name: `word-uax29`.
///
/// ```
/// use txtfp::{Tokenizer, WordTokenizer};
/// let mut words = Vec::new();
/// WordTokenizer.for_each_token("Don't panic: v1.2 costs $1,000!", &mut |t| {
///     words.push(t.to_string())
/// });
/// assert_eq!(words, ["Don't", "panic", "v1.2", "costs", "1,000"]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WordTokenizer;

impl Tokenizer for WordTokenizer {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        if input.is_ascii() {
            TokenStream::Borrowed(Box::new(AsciiWords::new(input)))
        } else {
            TokenStream::Borrowed(Box::new(input.unicode_words()))
        }
    }

    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed("word-uax29")
    }

    fn for_each_token(&self, input: &str, f: &mut dyn FnMut(&str)) {
        // Pure-ASCII text (most of any English corpus) takes a table-driven
        // path that is token-identical to UAX #29 on ASCII (property-tested).
        for_each_word(input, f);
    }

    /// [`StreamPlan::Splittable`]: an ASCII whitespace character followed by
    /// a non-whitespace ASCII character is always a word boundary, and no
    /// boundary rule looks across a whitespace character, so splitting there
    /// changes no token.
    fn stream_plan(&self) -> StreamPlan<'_> {
        StreamPlan::Splittable
    }

    fn builtin(&self) -> super::Builtin {
        super::Builtin::Words
    }
}

/// Words of `input`: pure-ASCII text through [`for_each_ascii_word`], any
/// other through [`block_words`](super::block_words) (which hands what it
/// does not model to `unicode-segmentation`). Both equal `unicode_words`.
#[inline]
pub(crate) fn for_each_word<F: FnMut(&str)>(input: &str, mut f: F) {
    for_each_word_span(input, |s, e| {
        if let Some(w) = input.get(s..e) {
            f(w);
        }
    });
}

/// [`for_each_word`] as byte ranges `start..end` of `input`.
///
/// Text with non-ASCII characters takes the general scanner from its first
/// byte: handing long ASCII stretches to the ASCII scanner measured faster
/// on text with a few non-ASCII characters per kilobyte, but slower on
/// Latin-script text with a few per line, and slower over the whole corpus.
#[inline(always)]
pub(crate) fn for_each_word_span<F: FnMut(usize, usize)>(input: &str, f: F) {
    if input.is_ascii() {
        // `str::is_ascii` checks a word at a time: the common case costs
        // one fast scan.
        return for_each_ascii_word(input.as_bytes(), f);
    }
    super::block_words::for_each_word_span(input, f);
}

/// [`for_each_word_span`], returning whether some word contains U+0020.
///
/// UAX #29 keeps spaces that come right before a character attaching to
/// them (Extend, Format or ZWJ) in one word with it: `" \u{93E}"` is a
/// word. A sketch that hashes a word as one piece, where its definition
/// splits tokens on spaces, must then redo the text by the definition. The
/// flag costs nothing on ASCII text (no such word) and is set outside the
/// scanner's hot loop otherwise (see `block_words`).
#[cfg(feature = "minhash")]
#[inline(always)]
pub(crate) fn for_each_word_span_spaced<F: FnMut(usize, usize)>(input: &str, f: F) -> bool {
    if input.is_ascii() {
        for_each_ascii_word(input.as_bytes(), f);
        return false;
    }
    super::block_words::for_each_word_span(input, f)
}

/// [`for_each_word_span`] in batches: `f(starts, ends)` gets the ranges
/// `starts[i]..ends[i]` of the next words (at least one), in order. ASCII
/// text is scanned straight into the arrays
/// ([`for_each_ascii_word_batch`]); other text is collected word by word.
#[inline(always)]
pub(crate) fn for_each_word_batch<F: FnMut(&[usize], &[usize])>(input: &str, mut f: F) {
    if input.is_ascii() {
        return for_each_ascii_word_batch(input.as_bytes(), f);
    }
    let mut batch = SpanBatch::new();
    super::block_words::for_each_word_span(input, |s, e| {
        if batch.push(s, e) {
            batch.drain(&mut f);
        }
    });
    batch.drain(&mut f);
}

/// Byte ranges queued to be handed out in batches of [`WORD_BATCH`].
pub(super) struct SpanBatch {
    starts: [usize; WORD_BATCH],
    ends: [usize; WORD_BATCH],
    len: usize,
}

impl SpanBatch {
    pub(super) fn new() -> Self {
        SpanBatch {
            starts: [0; WORD_BATCH],
            ends: [0; WORD_BATCH],
            len: 0,
        }
    }

    /// Queues `start..end`; true when the batch is full.
    #[inline(always)]
    pub(super) fn push(&mut self, start: usize, end: usize) -> bool {
        // `len < WORD_BATCH` always holds here; the `if let` only spares
        // the compiler a panic path.
        if let (Some(s), Some(e)) = (self.starts.get_mut(self.len), self.ends.get_mut(self.len)) {
            *s = start;
            *e = end;
            self.len += 1;
        }
        self.len == WORD_BATCH
    }

    /// Whether the batch holds [`WORD_BATCH`] ranges.
    #[inline(always)]
    pub(super) fn is_full(&self) -> bool {
        self.len >= WORD_BATCH
    }

    /// The two arrays and the count, for loops that keep the count in a
    /// register (see `ByteWindow::push_words`).
    #[inline(always)]
    pub(super) fn parts(
        &mut self,
    ) -> (
        &mut [usize; WORD_BATCH],
        &mut [usize; WORD_BATCH],
        &mut usize,
    ) {
        (&mut self.starts, &mut self.ends, &mut self.len)
    }

    /// Hands the queued ranges to `f` (if any) and empties the batch.
    #[inline]
    pub(super) fn drain<F: FnMut(&[usize], &[usize])>(&mut self, f: &mut F) {
        let n = self.len.min(WORD_BATCH);
        if n > 0 {
            f(&self.starts[..n], &self.ends[..n]);
        }
        self.len = 0;
    }
}

#[cfg(test)]
mod tests;
