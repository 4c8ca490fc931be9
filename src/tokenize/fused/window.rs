//! The shingle window of the byte-token path: the last `k` words joined by
//! single spaces, kept in one buffer from which the oldest word is dropped
//! at the front as each new word is appended at the back.
//!
//! Each word is copied once, with a fixed-width copy of [`COPY`] bytes
//! whenever the text has that many bytes from the word's start on (bytes
//! past the word are overwritten by the separator and the next word): no
//! `memcpy` call and no length-dependent branch for the common short word.

use alloc::vec;
use alloc::vec::Vec;

use super::MAX_FUSED_K;
use crate::tokenize::ascii_batch::WORD_BATCH;
use crate::tokenize::word::SpanBatch;

/// Width of the fixed copy; longer words are copied exactly.
const COPY: usize = 32;

/// Buffer size up to which nothing is moved: compaction is rare.
const SPAN: usize = 4096;

pub(super) struct ByteWindow {
    k: usize,
    /// Lengths of the words in the window, as a ring (on the stack).
    lens: [usize; MAX_FUSED_K],
    /// `buf[at.head..at.tail]`: the window's words, each followed by one space.
    buf: Vec<u8>,
    at: Cursor,
}

/// Where the window stands: the ring's fill and oldest entry, and the live
/// part of the buffer. Small and `Copy`, so that a loop over many words can
/// hold it in registers ([`ByteWindow::push_words`]).
#[derive(Clone, Copy)]
struct Cursor {
    filled: usize,
    oldest: usize,
    head: usize,
    tail: usize,
}

impl Cursor {
    /// Whether a `len`-byte word fits after `tail` in a buffer of
    /// `buf_len` bytes, fixed-width copy and the separator after it
    /// (one more byte, hence `<`) included.
    #[inline(always)]
    fn fits(&self, len: usize, buf_len: usize) -> bool {
        self.tail + len.max(COPY) < buf_len
    }

    /// Slides a window of `k` words over the word `text[s..e]`, which must
    /// fit ([`Cursor::fits`]): drops the oldest word once the window is
    /// full, appends this one and a space, and returns the shingle's range
    /// in `buf` once the window is full.
    #[inline(always)]
    fn step(
        &mut self,
        k: usize,
        lens: &mut [usize; MAX_FUSED_K],
        buf: &mut [u8],
        text: &[u8],
        (s, e): (usize, usize),
    ) -> Option<(usize, usize)> {
        let len = e - s;
        if self.filled == k {
            // Drop the oldest word and its separator.
            self.head += lens[self.oldest % MAX_FUSED_K] + 1;
            lens[self.oldest % MAX_FUSED_K] = len;
            // A compare, not `% k`: no division per word.
            self.oldest += 1;
            if self.oldest == k {
                self.oldest = 0;
            }
        } else {
            lens[self.filled % MAX_FUSED_K] = len;
            self.filled += 1;
        }
        let at = self.tail;
        if len <= COPY && s + COPY <= text.len() {
            buf[at..at + COPY].copy_from_slice(&text[s..s + COPY]);
        } else {
            buf[at..at + len].copy_from_slice(&text[s..e]);
        }
        buf[at + len] = b' ';
        self.tail = at + len + 1;
        (self.filled == k).then(|| (self.head, self.tail - 1))
    }
}

impl ByteWindow {
    /// A window of `k` (`1..=MAX_FUSED_K`) words over a text of `text_len`
    /// bytes.
    pub(super) fn new(k: usize, text_len: usize) -> Self {
        debug_assert!((1..=MAX_FUSED_K).contains(&k));
        ByteWindow {
            k,
            lens: [0; MAX_FUSED_K],
            // Everything ever appended fits in `text_len + 1` bytes (words
            // are disjoint slices, each with one separator).
            buf: vec![0; text_len.min(SPAN) + COPY + 1],
            at: Cursor {
                filled: 0,
                oldest: 0,
                head: 0,
                tail: 0,
            },
        }
    }

    /// Slides the window over the word `text[s..e]` and hands out the
    /// shingle once the window is full.
    #[inline(always)]
    pub(super) fn push<F: FnMut(&[u8])>(&mut self, text: &[u8], s: usize, e: usize, f: &mut F) {
        if let Some((from, to)) = self.push_span(text, s, e) {
            f(&self.buf[from..to]);
        }
    }

    /// The buffer the spans of [`ByteWindow::push_span`] point into.
    pub(super) fn buf(&self) -> &[u8] {
        &self.buf
    }

    /// [`ByteWindow::push`], handing out the shingle as its range in
    /// [`ByteWindow::buf`]: valid until the buffer next moves (when a word
    /// does not fit; see [`ByteWindow::push_words`]).
    #[inline(always)]
    pub(super) fn push_span(&mut self, text: &[u8], s: usize, e: usize) -> Option<(usize, usize)> {
        if !self.at.fits(e - s, self.buf.len()) {
            self.make_room(e - s);
        }
        self.at
            .step(self.k, &mut self.lens, &mut self.buf, text, (s, e))
    }

    /// [`ByteWindow::push_span`] of the words `text[starts[i]..ends[i]]`
    /// from `i = from` on, queueing each shingle in `spans`. Stops after the
    /// word whose shingle fills `spans`, or before a word that does not fit
    /// (the caller drains `spans`, whose ranges the move would break, and
    /// calls [`ByteWindow::make_room`]). Returns the index of the first word
    /// not pushed.
    ///
    /// The cursor and the batch count are locals here: with no call inside
    /// the loop they stay in registers, where a per-word call kept them in
    /// memory and each word waited on the last one's stores.
    #[inline]
    pub(super) fn push_words(
        &mut self,
        text: &[u8],
        starts: &[usize],
        ends: &[usize],
        from: usize,
        spans: &mut SpanBatch,
    ) -> usize {
        let (span_starts, span_ends, queued) = spans.parts();
        let (k, mut at, mut count) = (self.k, self.at, *queued);
        let buf = &mut self.buf[..];
        let n = starts.len().min(ends.len());
        let mut i = from;
        while i < n {
            let (s, e) = (starts[i], ends[i]);
            if !at.fits(e - s, buf.len()) {
                break;
            }
            let shingle = at.step(k, &mut self.lens, buf, text, (s, e));
            i += 1;
            if let Some((from, to)) = shingle {
                span_starts[count % WORD_BATCH] = from;
                span_ends[count % WORD_BATCH] = to;
                count += 1;
                if count == WORD_BATCH {
                    break;
                }
            }
        }
        self.at = at;
        *queued = count;
        i
    }

    /// Moves the live window to the front of the buffer, and grows the
    /// buffer if a word of `len` bytes still would not fit.
    #[cold]
    pub(super) fn make_room(&mut self, len: usize) {
        let at = &mut self.at;
        self.buf.copy_within(at.head..at.tail, 0);
        at.tail -= at.head;
        at.head = 0;
        let need = at.tail + len.max(COPY) + 1;
        if need > self.buf.len() {
            self.buf.resize(need.max(2 * self.buf.len()), 0);
        }
    }

    /// A text with fewer than `k` words is one shingle of all of them.
    pub(super) fn finish<F: FnMut(&[u8])>(self, mut f: F) {
        if let Some((from, to)) = self.finish_span() {
            f(&self.buf[from..to]);
        }
    }

    /// [`ByteWindow::finish`] as a range of [`ByteWindow::buf`].
    pub(super) fn finish_span(&self) -> Option<(usize, usize)> {
        let at = &self.at;
        (at.filled > 0 && at.filled < self.k).then(|| (at.head, at.tail - 1))
    }
}
