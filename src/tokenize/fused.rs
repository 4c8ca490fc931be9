//! Monomorphic token loops for the built-in tokenizers, used by the sketches.
//!
//! [`Tokenizer::for_each_token`] hands every token through a `dyn FnMut`,
//! and [`ShingleTokenizer`](super::ShingleTokenizer) has to assume nothing
//! about its inner tokenizer. For the configurations almost everyone runs —
//! words, and k-shingles of words — this module walks the words directly and
//! keeps the shingle window as byte ranges of the text, so the sketch's
//! per-token work inlines into the segmentation loop. Any other tokenizer
//! goes through `for_each_token` unchanged. Property tests check that both
//! paths give the same token sequence.

// Only the sketches call into this module, each into its own part of it.
#![cfg_attr(not(all(feature = "minhash", feature = "simhash")), allow(dead_code))]

use alloc::string::String;

use super::word::{SpanBatch, for_each_word, for_each_word_batch, for_each_word_span};
use super::{Builtin, StreamPlan, Tokenizer};

mod window;
use window::ByteWindow;

/// Largest shingle size the fused path handles; larger ones take the
/// generic path (which is just as correct, only slower).
const MAX_FUSED_K: usize = 64;

/// Dead prefix of the joined window buffer tolerated before compacting.
const COMPACT_AFTER: usize = 4096;

/// Calls `f` with exactly the tokens `tok.for_each_token(text, ..)` yields.
#[inline]
pub(crate) fn for_each_token<T, F>(tok: &T, text: &str, mut f: F)
where
    T: Tokenizer + ?Sized,
    F: FnMut(&str),
{
    if tok.builtin() == Builtin::Words {
        return for_each_word(text, f);
    }
    if let StreamPlan::Shingle { k, inner } = tok.stream_plan()
        && (1..=MAX_FUSED_K).contains(&k)
        && inner.builtin() == Builtin::Words
    {
        return word_shingles(k, text, f);
    }
    tok.for_each_token(text, &mut f);
}

/// [`for_each_token`] with each token as its UTF-8 bytes, for sketches that
/// only hash them. The word-shingle path keeps its window in a byte buffer
/// it may write past the current shingle ([`window`]), which is what makes
/// it cheaper than building `&str` shingles.
#[inline]
pub(crate) fn for_each_token_bytes<T, F>(tok: &T, text: &str, mut f: F)
where
    T: Tokenizer + ?Sized,
    F: FnMut(&[u8]),
{
    let b = text.as_bytes();
    if tok.builtin() == Builtin::Words {
        return for_each_word_span(text, |s, e| f(&b[s..e]));
    }
    if let StreamPlan::Shingle { k, inner } = tok.stream_plan()
        && (1..=MAX_FUSED_K).contains(&k)
        && inner.builtin() == Builtin::Words
    {
        let mut window = ByteWindow::new(k, b.len());
        for_each_word_span(text, |s, e| window.push(b, s, e, &mut f));
        return window.finish(f);
    }
    tok.for_each_token(text, &mut |t| f(t.as_bytes()));
}

/// [`for_each_token_bytes`] in batches, for sketches that hash many tokens
/// at once: `f(buf, starts, ends)` gets tokens `buf[starts[i]..ends[i]]`
/// (at least one per call). The batches hold exactly the tokens of
/// [`for_each_token_bytes`], in order. Words are ranges of the text, in the
/// word scanner's batches; word shingles are ranges of the window buffer,
/// handed out before the buffer moves, in batches of at most 64; other
/// tokenizers give one token per batch.
#[inline]
pub(crate) fn for_each_token_batch<T, F>(tok: &T, text: &str, mut f: F)
where
    T: Tokenizer + ?Sized,
    F: FnMut(&[u8], &[usize], &[usize]),
{
    let b = text.as_bytes();
    if tok.builtin() == Builtin::Words {
        return for_each_word_batch(text, |starts, ends| f(b, starts, ends));
    }
    if let StreamPlan::Shingle { k, inner } = tok.stream_plan()
        && (1..=MAX_FUSED_K).contains(&k)
        && inner.builtin() == Builtin::Words
    {
        let mut window = ByteWindow::new(k, b.len());
        let mut spans = SpanBatch::new();
        for_each_word_batch(text, |starts, ends| {
            let mut i = 0;
            while i < starts.len() {
                i = window.push_words(b, starts, ends, i, &mut spans);
                if spans.is_full() {
                    spans.drain(&mut |st, en| f(window.buf(), st, en));
                } else if let (Some(&s), Some(&e)) = (starts.get(i), ends.get(i)) {
                    // Stopped before a word that moves the buffer: hand out
                    // the shingles pointing into it first.
                    spans.drain(&mut |st, en| f(window.buf(), st, en));
                    window.make_room(e - s);
                }
            }
        });
        if let Some((from, to)) = window.finish_span() {
            spans.push(from, to);
        }
        return spans.drain(&mut |st, en| f(window.buf(), st, en));
    }
    tok.for_each_token(text, &mut |t| f(t.as_bytes(), &[0], &[t.len()]));
}

/// k-shingles of UAX #29 words, joined by one space. The current window is
/// kept joined in a buffer: each new word drops the oldest word (and its
/// separator) from the front and appends itself, so every word is copied
/// O(1) times however large `k` is (0.3.2 re-joined k words per shingle).
fn word_shingles<F: FnMut(&str)>(k: usize, text: &str, mut f: F) {
    let mut window = Window::new(k, text.len());
    for_each_word(text, |w| window.push(w, &mut f));
    window.finish(f);
}

/// The shingle window of [`word_shingles`].
struct Window {
    k: usize,
    /// Lengths of the words in the window, as a ring (`k <= MAX_FUSED_K`,
    /// so it lives on the stack: no allocation per document).
    lens: [usize; MAX_FUSED_K],
    filled: usize,
    oldest: usize,
    /// The window's words joined by spaces, from `head` on.
    joined: String,
    head: usize,
}

impl Window {
    fn new(k: usize, text_len: usize) -> Self {
        Window {
            k,
            lens: [0; MAX_FUSED_K],
            filled: 0,
            oldest: 0,
            // Sized for the window history up to the first compaction, so a
            // typical document never reallocates it.
            joined: String::with_capacity(text_len.min(2 * COMPACT_AFTER) + 64),
            head: 0,
        }
    }

    /// Slides the window over `w` and hands out the shingle once the
    /// window is full. Forced inline: it is the body of the word loop.
    #[inline(always)]
    fn push<F: FnMut(&str)>(&mut self, w: &str, f: &mut F) {
        if self.filled == self.k {
            // Drop the oldest word and the space after it (none when k = 1).
            self.head = (self.head + self.lens[self.oldest] + 1).min(self.joined.len());
            self.lens[self.oldest] = w.len();
            // A compare, not `% k`: no division per word.
            self.oldest += 1;
            if self.oldest == self.k {
                self.oldest = 0;
            }
        } else {
            self.lens[self.filled] = w.len();
            self.filled += 1;
        }
        // Compact once the dead prefix outweighs the live part (and a few
        // KiB, so short documents never compact): each byte moves O(1) times.
        if self.head >= COMPACT_AFTER && self.head >= self.joined.len() - self.head {
            self.joined.drain(..self.head);
            self.head = 0;
        }
        if self.joined.len() > self.head || self.filled > 1 {
            self.joined.push(' ');
        }
        self.joined.push_str(w);
        if self.filled == self.k {
            f(&self.joined[self.head..]);
        }
    }

    /// A document with fewer than `k` words is one shingle of all of them.
    fn finish<F: FnMut(&str)>(self, mut f: F) {
        if self.filled > 0 && self.filled < self.k {
            f(&self.joined[self.head..]);
        }
    }
}

#[cfg(test)]
mod tests;
