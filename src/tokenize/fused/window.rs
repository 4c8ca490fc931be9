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
    filled: usize,
    oldest: usize,
    /// `buf[head..tail]`: the window's words, each followed by one space.
    buf: Vec<u8>,
    head: usize,
    tail: usize,
}

impl ByteWindow {
    /// A window of `k` (`1..=MAX_FUSED_K`) words over a text of `text_len`
    /// bytes.
    pub(super) fn new(k: usize, text_len: usize) -> Self {
        debug_assert!((1..=MAX_FUSED_K).contains(&k));
        ByteWindow {
            k,
            lens: [0; MAX_FUSED_K],
            filled: 0,
            oldest: 0,
            // Everything ever appended fits in `text_len + 1` bytes (words
            // are disjoint slices, each with one separator).
            buf: vec![0; text_len.min(SPAN) + COPY + 1],
            head: 0,
            tail: 0,
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

    /// Whether the next [`ByteWindow::push_span`] of a `len`-byte word
    /// moves the buffer's contents (which ends the spans handed out so far).
    #[inline(always)]
    pub(super) fn moves_for(&self, len: usize) -> bool {
        self.tail + len.max(COPY) + 1 > self.buf.len()
    }

    /// The buffer the spans of [`ByteWindow::push_span`] point into.
    pub(super) fn buf(&self) -> &[u8] {
        &self.buf
    }

    /// [`ByteWindow::push`], handing out the shingle as its range in
    /// [`ByteWindow::buf`]: valid until a push for which
    /// [`ByteWindow::moves_for`] is true.
    #[inline(always)]
    pub(super) fn push_span(&mut self, text: &[u8], s: usize, e: usize) -> Option<(usize, usize)> {
        let len = e - s;
        if self.filled == self.k {
            // Drop the oldest word and its separator.
            self.head += self.lens[self.oldest] + 1;
            self.lens[self.oldest] = len;
            // A compare, not `% k`: no division per word.
            self.oldest += 1;
            if self.oldest == self.k {
                self.oldest = 0;
            }
        } else {
            self.lens[self.filled] = len;
            self.filled += 1;
        }
        if self.moves_for(len) {
            self.make_room(len);
        }
        let at = self.tail;
        if len <= COPY && s + COPY <= text.len() {
            self.buf[at..at + COPY].copy_from_slice(&text[s..s + COPY]);
        } else {
            self.buf[at..at + len].copy_from_slice(&text[s..e]);
        }
        self.buf[at + len] = b' ';
        self.tail = at + len + 1;
        (self.filled == self.k).then(|| (self.head, self.tail - 1))
    }

    /// [`ByteWindow::push_span`] of the words `text[starts[i]..ends[i]]`
    /// from `i = from` on, queueing each shingle in `spans`. Stops after the
    /// word whose shingle fills `spans`, or before a word that would move
    /// the buffer ([`ByteWindow::moves_for`]; the caller drains `spans` and
    /// calls [`ByteWindow::make_room`]). Returns the index of the first word
    /// not pushed.
    ///
    /// The same steps as `push_span`, with the window's state and the
    /// batch count in locals: with no call inside the loop they stay in
    /// registers, where the per-word closure kept them in memory.
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
        let (k, mut filled, mut oldest) = (self.k, self.filled, self.oldest);
        let (mut head, mut tail, mut count) = (self.head, self.tail, *queued);
        let buf = &mut self.buf[..];
        let n = starts.len().min(ends.len());
        let mut i = from;
        while i < n {
            let (s, e) = (starts[i], ends[i]);
            let len = e - s;
            if tail + len.max(COPY) + 1 > buf.len() {
                break;
            }
            if filled == k {
                head += self.lens[oldest % MAX_FUSED_K] + 1;
                self.lens[oldest % MAX_FUSED_K] = len;
                oldest += 1;
                if oldest == k {
                    oldest = 0;
                }
            } else {
                self.lens[filled % MAX_FUSED_K] = len;
                filled += 1;
            }
            if len <= COPY && s + COPY <= text.len() {
                buf[tail..tail + COPY].copy_from_slice(&text[s..s + COPY]);
            } else {
                buf[tail..tail + len].copy_from_slice(&text[s..e]);
            }
            buf[tail + len] = b' ';
            tail += len + 1;
            i += 1;
            if filled == k {
                span_starts[count % WORD_BATCH] = head;
                span_ends[count % WORD_BATCH] = tail - 1;
                count += 1;
                if count == WORD_BATCH {
                    break;
                }
            }
        }
        (self.filled, self.oldest, self.head, self.tail) = (filled, oldest, head, tail);
        *queued = count;
        i
    }

    /// Moves the live window to the front of the buffer, and grows the
    /// buffer if a word of `len` bytes still would not fit.
    #[cold]
    pub(super) fn make_room(&mut self, len: usize) {
        self.buf.copy_within(self.head..self.tail, 0);
        self.tail -= self.head;
        self.head = 0;
        let need = self.tail + len.max(COPY) + 1;
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
        (self.filled > 0 && self.filled < self.k).then(|| (self.head, self.tail - 1))
    }
}
