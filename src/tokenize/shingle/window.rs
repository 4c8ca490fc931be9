//! The sliding window of the last `k` inner tokens behind
//! [`ShingleTokenizer`](super::ShingleTokenizer).
//!
//! The callback of `for_each_token` cannot keep the `&str` it is given, so
//! each token is remembered either as a byte range of the input (when it is a
//! slice of it, which every built-in tokenizer's tokens are) or as a copy.
//! A window whose tokens are input slices separated by exactly one `' '` is
//! itself a slice of the input and is handed out without copying anything;
//! any other window is served from one reused buffer that slides along the
//! token stream, so each token is copied O(1) times (amortized) instead of
//! `k` times. Memory is O(k) tokens, never O(document), and nothing is ever
//! reserved in proportion to `k`: the ring grows one slot per token seen.

use alloc::string::String;
use alloc::vec::Vec;

/// One remembered token.
struct Slot {
    /// Byte range of the token in the input, when the token is a slice of it.
    span: Option<(usize, usize)>,
    /// The token's bytes otherwise. Kept when the slot is overwritten, so a
    /// long run of copied tokens stops allocating once the ring is warm.
    copy: String,
}

impl Slot {
    fn new(span: Option<(usize, usize)>, token: &str) -> Self {
        let mut slot = Slot {
            span: None,
            copy: String::new(),
        };
        slot.set(span, token);
        slot
    }

    fn set(&mut self, span: Option<(usize, usize)>, token: &str) {
        self.span = span;
        self.copy.clear();
        if span.is_none() {
            self.copy.push_str(token);
        }
    }

    fn len(&self) -> usize {
        match self.span {
            Some((start, end)) => end - start,
            None => self.copy.len(),
        }
    }

    /// The token's text. `input` must be the input the span was taken from
    /// (the window is private to one tokenizing call, which guarantees it).
    fn text<'s>(&'s self, input: &'s str) -> &'s str {
        match self.span {
            Some((start, end)) => input.get(start..end).unwrap_or_default(),
            None => &self.copy,
        }
    }
}

/// Byte range of `token` inside `input`, if `token` is a slice of `input`.
///
/// Two live borrows can only share addresses when they are the same memory,
/// so a token lying inside the input's address range has exactly the bytes
/// of that range. The char-boundary check keeps later slicing panic-free even
/// for odd zero-length tokens.
fn span_in(input: &str, token: &str) -> Option<(usize, usize)> {
    let start = token.as_ptr().addr().checked_sub(input.as_ptr().addr())?;
    let end = start.checked_add(token.len())?;
    (end <= input.len() && input.is_char_boundary(start) && input.is_char_boundary(end))
        .then_some((start, end))
}

/// Shingle state for one pass over one input. Feed every inner token to
/// [`Window::push`], then call [`Window::finish`] once.
pub(super) struct Window {
    /// Window size, at least 1.
    k: usize,
    /// The last `min(k, tokens seen)` tokens; a ring once it holds `k`.
    slots: Vec<Slot>,
    /// Index of the oldest slot. Stays 0 until the ring is full, which is
    /// exactly where the oldest token is while `slots` is still growing.
    oldest: usize,
    /// How many of the latest tokens (capped at `k`) are input slices that
    /// follow each other with exactly one `' '` in between.
    run: usize,
    /// End offset of the previous token in the input, if it was a slice.
    prev_end: Option<usize>,
    /// `joined[head..]` is the current window joined by `' '`, while `live`.
    joined: String,
    head: usize,
    /// Whether `joined` is kept up to date. Switched off while windows are
    /// served straight from the input, rebuilt on the next window that needs
    /// it; a rebuild follows a separator that is not a single space, which
    /// stays in the window for `k - 1` more windows, so rebuilds cost O(1)
    /// amortized per window.
    live: bool,
}

impl Window {
    /// A window of `k >= 1` tokens. Allocates nothing.
    pub(super) fn new(k: usize) -> Self {
        debug_assert!(k >= 1, "a zero-size window emits nothing; callers skip it");
        Window {
            k: k.max(1),
            slots: Vec::new(),
            oldest: 0,
            run: 0,
            prev_end: None,
            joined: String::new(),
            head: 0,
            live: false,
        }
    }

    /// Takes the next inner token of `input`; returns the shingle it
    /// completes, if any (one per token once `k` tokens have been seen).
    pub(super) fn push<'s>(&'s mut self, input: &'s str, token: &str) -> Option<&'s str> {
        let span = span_in(input, token);
        self.run = match (span, self.prev_end) {
            (Some((start, _)), Some(prev))
                if start.checked_sub(prev) == Some(1)
                    && input.as_bytes().get(prev) == Some(&b' ') =>
            {
                self.run.saturating_add(1).min(self.k)
            }
            (Some(_), _) => 1,
            (None, _) => 0,
        };
        self.prev_end = span.map(|(_, end)| end);

        if self.slots.len() == self.k {
            let gone = self.slots[self.oldest].len();
            if self.live {
                // Skip the oldest token and the separator after it; with
                // k == 1 there is no separator and the clamp empties the view.
                self.head = (self.head + gone + 1).min(self.joined.len());
            }
            self.slots[self.oldest].set(span, token);
            self.oldest = (self.oldest + 1) % self.k;
        } else {
            self.slots.push(Slot::new(span, token));
        }
        if self.live {
            self.append(token);
        }
        (self.slots.len() == self.k).then(|| self.current(input))
    }

    /// The single shingle of a document with fewer than `k` (but some)
    /// tokens: all of them joined. `None` when there were no tokens or when
    /// full windows were already emitted.
    pub(super) fn finish<'s>(&'s mut self, input: &'s str) -> Option<&'s str> {
        (!self.slots.is_empty() && self.slots.len() < self.k).then(|| self.current(input))
    }

    /// Adds the newest token (already in the ring) to `joined`.
    fn append(&mut self, token: &str) {
        // Drop the dead prefix once it outweighs the live part: each byte is
        // then moved O(1) times in total. `head` always sits at a token start
        // or at the end, so it is a char boundary.
        if self.head > 0 && self.head >= self.joined.len() - self.head {
            self.joined.drain(..self.head);
            self.head = 0;
        }
        // Tokens may be empty, so count them rather than test `joined`.
        if self.slots.len() > 1 {
            self.joined.push(' ');
        }
        self.joined.push_str(token);
    }

    /// The ring's tokens, oldest first, joined by one `' '`.
    fn current<'s>(&'s mut self, input: &'s str) -> &'s str {
        let len = self.slots.len();
        if self.run >= len {
            // Every token is an input slice and each gap is one space: the
            // joined text is the input itself.
            let start = self.slots[self.oldest].span.map(|(start, _)| start);
            if let Some(slice) = start.zip(self.prev_end).and_then(|(s, e)| input.get(s..e)) {
                self.live = false;
                return slice;
            }
        }
        if !self.live {
            self.joined.clear();
            self.head = 0;
            for i in 0..len {
                if i > 0 {
                    self.joined.push(' ');
                }
                self.joined
                    .push_str(self.slots[(self.oldest + i) % len].text(input));
            }
            self.live = true;
        }
        &self.joined[self.head..]
    }
}
