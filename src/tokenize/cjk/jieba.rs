//! Chinese through jieba-rs: the legacy token rule and the `+uax29` mode.

use alloc::vec::Vec;
use std::sync::OnceLock;

use jieba_rs::Jieba;

use super::script::is_han;
use crate::tokenize::word::for_each_word;

/// The process-wide jieba instance (embedded dictionary), built on first use.
/// Building it parses the dictionary (~100 ms), so every tokenizer shares one.
pub(super) fn jieba() -> &'static Jieba {
    static JIEBA: OnceLock<Jieba> = OnceLock::new();
    JIEBA.get_or_init(Jieba::new)
}

/// txtfp 0.3.2's rule: jieba's accurate-mode pieces, minus the pieces that
/// are only whitespace. Punctuation and per-code-point pieces stay.
#[inline]
fn keep_legacy(piece: &str) -> bool {
    !piece.trim().is_empty()
}

/// Bytes per `cut` call. jieba-rs 0.9 clears a buffer sized to its whole
/// input once per Han block, so one call on a long document costs
/// O(blocks × length) (a 1 MB text took minutes); pieces of about this size
/// keep it linear.
const PIECE: usize = 2048;

/// What jieba's block regex groups: Han plus `[a-zA-Z0-9+#&._%-]`.
#[inline]
fn in_jieba_block(c: char) -> bool {
    is_han(c) || c.is_ascii_alphanumeric() || matches!(c, '+' | '#' | '&' | '.' | '_' | '%' | '-')
}

/// jieba's pieces of `text`, computed `target` bytes at a time. `cut` first
/// splits its input into maximal runs of [`in_jieba_block`] characters
/// (segmented by the dictionary) and the text between them (split into
/// whitespace pieces — `\r\n` counting as one — and single characters). A
/// cut anywhere but inside a run or inside `\r\n` leaves every run whole
/// and every in-between piece the same, so the output is exactly
/// `cut(text)` (property-tested below with pieces down to one byte).
pub(super) fn cut_pieces<'a>(text: &'a str, hmm: bool, target: usize, f: &mut dyn FnMut(&'a str)) {
    let jieba = jieba();
    let mut start = 0;
    while text.len() - start > target {
        let mut q = start + target;
        while !text.is_char_boundary(q) {
            q += 1;
        }
        let mut prev = text[..q].chars().next_back();
        let mut cut_at = None;
        for (i, c) in text[q..].char_indices() {
            let p = prev.unwrap_or('a');
            let inside_run = in_jieba_block(p) && in_jieba_block(c);
            if !(inside_run || (p == '\r' && c == '\n')) {
                cut_at = Some(q + i);
                break;
            }
            prev = Some(c);
        }
        let Some(end) = cut_at else { break };
        jieba
            .cut(&text[start..end], hmm)
            .into_iter()
            .for_each(&mut *f);
        start = end;
    }
    if start < text.len() {
        jieba.cut(&text[start..], hmm).into_iter().for_each(f);
    }
}

/// Legacy tokens, borrowed from `text`.
pub(super) fn legacy_tokens(text: &str, hmm: bool) -> Vec<&str> {
    let mut out = Vec::new();
    cut_pieces(text, hmm, PIECE, &mut |p| {
        if keep_legacy(p) {
            out.push(p)
        }
    });
    out
}

/// Legacy tokens through a callback.
pub(super) fn legacy_for_each(text: &str, hmm: bool, f: &mut dyn FnMut(&str)) {
    cut_pieces(text, hmm, PIECE, &mut |p| {
        if keep_legacy(p) {
            f(p)
        }
    });
}

/// The `+uax29` rule: jieba's pieces that contain a Han ideograph are kept as
/// jieba cut them; the text between two such pieces (Latin words, digits,
/// kana, Hangul, punctuation) is tokenized as UAX #29 words instead, which
/// drops punctuation and keeps `café` or `3.14` whole.
///
/// `emit` receives byte ranges of `text` so both the callback path and the
/// iterator path can borrow from the caller's string.
pub(super) fn words_mode(text: &str, hmm: bool, emit: &mut dyn FnMut(usize, usize)) {
    let base = text.as_ptr() as usize;
    let words_between = |from: usize, to: usize, emit: &mut dyn FnMut(usize, usize)| {
        if from < to {
            let gap = &text[from..to];
            let gap_base = gap.as_ptr() as usize;
            for_each_word(gap, |w| {
                let s = w.as_ptr() as usize - gap_base + from;
                emit(s, s + w.len());
            });
        }
    };
    // Text without any ideograph (most non-Chinese documents) never reaches
    // jieba: the result would be the UAX #29 words anyway.
    if !text.chars().any(is_han) {
        return words_between(0, text.len(), emit);
    }
    let mut done = 0;
    cut_pieces(text, hmm, PIECE, &mut |piece| {
        if !piece.chars().any(is_han) {
            return;
        }
        // jieba returns sub-slices of its input, in order; anything else is
        // skipped rather than trusted.
        let Some(start) = (piece.as_ptr() as usize).checked_sub(base) else {
            return;
        };
        let end = start + piece.len();
        if start < done || end > text.len() {
            return;
        }
        words_between(done, start, emit);
        emit(start, end);
        done = end;
    });
    words_between(done, text.len(), emit);
}

#[cfg(test)]
mod tests;
