//! Online k-shingling: the [`StreamPlan::Shingle`] stages between the leaf
//! tokenizer and the sketch.
//!
//! A stage remembers only its current window (at most `k` tokens) in one
//! string, so memory is O(k · longest token) however long the stream. Stages
//! stack for nested shingle tokenizers: the windows of one are the tokens of
//! the next.
//!
//! [`StreamPlan::Shingle`]: crate::tokenize::StreamPlan::Shingle

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;

/// One shingle stage: windows of `k` consecutive input tokens joined by one
/// space, or, when fewer than `k` (but some) tokens came, one window of all of
/// them; nothing at all when `k == 0`.
#[derive(Debug)]
pub(crate) struct Stage {
    k: usize,
    /// The window's tokens joined by `' '`, starting at `head`.
    joined: String,
    head: usize,
    /// Byte lengths of the tokens in the window, oldest first (tokens can be
    /// empty, so the count cannot be read off `joined`).
    lens: VecDeque<usize>,
    /// Tokens seen, saturating (only compared with `k`).
    seen: usize,
}

impl Stage {
    pub(crate) fn new(k: usize) -> Self {
        Stage {
            k,
            joined: String::new(),
            head: 0,
            lens: VecDeque::new(),
            seen: 0,
        }
    }

    /// Forget the tokens, keep the allocations.
    pub(crate) fn clear(&mut self) {
        self.joined.clear();
        self.head = 0;
        self.lens.clear();
        self.seen = 0;
    }

    /// Bytes held (for the memory high-water mark).
    pub(crate) fn held(&self) -> usize {
        self.joined.len()
    }

    /// Takes the next token; emits the window it completes, if any.
    pub(crate) fn push(&mut self, token: &str, emit: &mut dyn FnMut(&str)) {
        if self.k == 0 {
            return;
        }
        self.seen = self.seen.saturating_add(1);
        if !self.lens.is_empty() {
            self.joined.push(' ');
        }
        self.joined.push_str(token);
        self.lens.push_back(token.len());
        if self.lens.len() < self.k {
            return;
        }
        emit(&self.joined[self.head..]);
        let gone = self.lens.pop_front().unwrap_or(0);
        if self.lens.is_empty() {
            self.joined.clear();
            self.head = 0;
        } else {
            // Skip the oldest token and the space after it.
            self.head += gone + 1;
            // Drop the dead prefix once it outweighs the live part, so each
            // byte is moved O(1) times and `joined` stays under twice the
            // window. `head` sits at a token start: a char boundary.
            if self.head >= self.joined.len() - self.head {
                self.joined.drain(..self.head);
                self.head = 0;
            }
        }
    }

    /// End of input: the short window of a stream with `0 < n < k` tokens.
    pub(crate) fn finish(&mut self, emit: &mut dyn FnMut(&str)) {
        if self.k > 0 && self.seen > 0 && self.seen < self.k {
            emit(&self.joined[self.head..]);
        }
    }
}

/// Feeds `token` through `stages` (innermost first) into `sink`.
pub(crate) fn push_through(stages: &mut [Stage], token: &str, sink: &mut dyn FnMut(&str)) {
    match stages.split_first_mut() {
        None => sink(token),
        Some((first, rest)) => first.push(token, &mut |w| push_through(rest, w, sink)),
    }
}

/// Ends the stream for every stage, innermost first, so that a short window
/// of an inner stage still reaches the outer ones before they finish.
pub(crate) fn finish_all(stages: &mut [Stage], sink: &mut dyn FnMut(&str)) {
    for i in 0..stages.len() {
        if let Some((cur, rest)) = stages[i..].split_first_mut() {
            cur.finish(&mut |w| push_through(rest, w, sink));
        }
    }
}

/// Stages for window sizes listed outermost first (the order a plan is
/// walked in).
pub(crate) fn stages_for(ks_outer_first: &[usize]) -> Vec<Stage> {
    ks_outer_first
        .iter()
        .rev()
        .map(|&k| Stage::new(k))
        .collect()
}

#[cfg(test)]
mod tests;
