//! UAX #29 words over UTF-8 text from per-block bit masks, non-ASCII
//! characters included.
//!
//! [`ascii_scan`](super::ascii_scan) finds words in ASCII text with one
//! bit mask per character class and block of 64 bytes. This module runs
//! the same mask rules over any text: in a block with non-ASCII bytes,
//! each non-ASCII character is classified once (the
//! [`mixed_words`](super::mixed_words) tables) and its bytes join the masks
//! of its class, so a word like `Straße` or `город` is one run of joined
//! bytes, found with two bit scans like an ASCII word. Characters that are
//! words on their own (Han, Hiragana: UAX #29 class `Other`, but
//! alphanumeric) get a start and an end bit of their own; Katakana has a
//! mask of its own (it joins `_` but breaks against letters and digits);
//! the 2- and 3-byte mid characters (`’` `·` `،`) join when a letter, or a
//! digit, sits on both sides.
//!
//! Characters the masks do not model (combining marks, format characters,
//! Hebrew, emoji, non-BMP characters...) are *complex*.
//! Scanning stops before the split point ahead of the first one (a split
//! point is a break that no rule looks across; see `mixed_words`), and the
//! stretch from there to the next split point goes to
//! `unicode-segmentation`. Scanning resumes after it with a fresh state.
//!
//! Blocks end at a character boundary (so at most 64 bytes), which keeps
//! every character inside one block. The tests compare the result with
//! `unicode_words` on random text, every block edge and every code point
//! class.

use super::ascii_scan::{Masks, class_masks, pair_spans};
use super::ascii_words::{ALNUM as ASCII_ALNUM, CLASS};
use super::mixed_words::{
    ALNUM, COMPLEX, DIGIT, KATAKANA, LETTER, MID_DIGITS, MID_LETTERS, PLAIN, class_at,
    stretch_start, stretch_words,
};
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{Avx512Vbmi, avx512};

/// The masks of one block, bit `j` for byte `base + j`.
#[derive(Clone, Copy, Debug, Default)]
struct Block {
    /// The ASCII masks, with the bytes of non-ASCII letters and digits
    /// added to `word`, `letter` and `digit`.
    m: Masks,
    /// Katakana: joins Katakana and `_`, but not letters or digits.
    kata: u64,
    /// First bytes of the non-ASCII mid characters, by length and by what
    /// they join (letters, digits).
    mid2_l: u64,
    mid2_d: u64,
    mid3_l: u64,
    mid3_d: u64,
    /// First bytes of the characters that are words on their own.
    single: u64,
    /// The byte after each of them, when inside the block.
    single_end: u64,
    /// One of them ends exactly at the end of the block.
    carry: bool,
    /// Length of the block in bytes (1..=64; 0 for no block).
    len: usize,
    /// Position (in the text) of the first complex character.
    complex: Option<usize>,
}

/// The bits below `len`.
#[inline(always)]
fn low(len: usize) -> u64 {
    if len >= 64 { !0 } else { (1u64 << len) - 1 }
}

impl Block {
    /// Keeps the first `len` bytes of the block.
    #[inline]
    fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let keep = low(len);
        let m = &mut self.m;
        for x in [
            &mut m.word,
            &mut m.letter,
            &mut m.digit,
            &mut m.mid_letters,
            &mut m.mid_digits,
            &mut m.high,
            &mut m.lead,
            &mut self.kata,
            &mut self.mid2_l,
            &mut self.mid2_d,
            &mut self.mid3_l,
            &mut self.mid3_d,
            &mut self.single,
        ] {
            *x &= keep;
        }
        self.carry = len < 64 && self.single_end >> len & 1 != 0;
        self.single_end &= keep;
        self.len = len;
    }
}

/// Masks of the block starting at `base` (a character boundary), which ends
/// at `limit` (a character boundary) or at the last character boundary at
/// most 64 bytes after `base`.
#[inline]
fn classify(b: &[u8], base: usize, limit: usize) -> Block {
    let mut end = limit.min(base + 64);
    while end < b.len() && b[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    let len = end - base;
    let keep = low(len);
    let mut m = class_masks(&b[base..b.len().min(base + 64)]);
    m.word &= keep;
    m.letter &= keep;
    m.digit &= keep;
    m.mid_letters &= keep;
    m.mid_digits &= keep;
    m.high &= keep;
    m.lead &= keep;
    let mut block = Block {
        m,
        len,
        ..Block::default()
    };
    if m.high != 0 {
        add_non_ascii(b, base, &mut block);
    }
    block
}

/// Adds the non-ASCII characters of `block` to its masks.
#[inline]
fn add_non_ascii(b: &[u8], base: usize, block: &mut Block) {
    // Walked by first bytes, so that finding the next character does not
    // wait for the current one's length to be decoded.
    let mut lead = block.m.lead;
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = Avx512Vbmi::detect() {
        let common = avx512::block_words::common(t, b, base, lead);
        add_common(block, common);
        lead &= !(common.letters2 | common.letters3 | common.singles3);
    }
    while lead != 0 {
        let j = lead.trailing_zeros() as usize;
        lead &= lead - 1;
        let (class, l) = class_at(b, base + j);
        // The character's bytes; it lies inside the block.
        let bits = low(l) << j;
        if class & (COMPLEX | PLAIN | KATAKANA | MID_LETTERS | MID_DIGITS) == 0 {
            // Letters and digits, the common case.
            block.m.word |= bits;
            if class & LETTER != 0 {
                block.m.letter |= bits;
            } else if class & DIGIT != 0 {
                block.m.digit |= bits;
            } else {
                // `ExtendNumLet` beyond `_`: none in the tables, but left
                // to the general rules should one be added.
                block.complex = Some(base + j);
                return;
            }
        } else if class & COMPLEX != 0 {
            block.complex = Some(base + j);
            return;
        } else if class & PLAIN != 0 {
            if class & ALNUM != 0 {
                block.single |= 1 << j;
                let e = j + l;
                if e < block.len {
                    block.single_end |= 1 << e;
                } else {
                    block.carry = true;
                }
            }
        } else if class & KATAKANA != 0 {
            block.kata |= bits;
        } else {
            let lead = 1 << j;
            let (ml, md) = if l == 2 {
                (&mut block.mid2_l, &mut block.mid2_d)
            } else {
                (&mut block.mid3_l, &mut block.mid3_d)
            };
            if class & MID_LETTERS != 0 {
                *ml |= lead;
            }
            if class & MID_DIGITS != 0 {
                *md |= lead;
            }
        }
    }
}

/// Adds the characters the block kernel classed: letters join `word` and
/// `letter` with all their bytes, a 3-byte word on its own gets a start and
/// an end bit (or `carry` when it ends the block), as in the loop of
/// [`add_non_ascii`].
#[cfg(target_arch = "x86_64")]
#[inline]
fn add_common(block: &mut Block, c: avx512::block_words::Common) {
    let letters = c.letters2 | c.letters2 << 1 | c.letters3 | c.letters3 << 1 | c.letters3 << 2;
    block.m.word |= letters;
    block.m.letter |= letters;
    block.single |= c.singles3;
    block.single_end |= (c.singles3 << 3) & low(block.len);
    // A 3-byte character inside the block ends at `len` at the latest.
    if block.len >= 3 && c.singles3 >> (block.len - 3) & 1 != 0 {
        block.carry = true;
    }
}

/// Calls `f(start, end)` for the byte range of every word of
/// `s.unicode_words()`, in order, and returns whether one of them contains
/// U+0020.
///
/// Only `unicode-segmentation` can make such a word (spaces right before a
/// combining mark, `" \u{93E}"`, are one word): the masks never join a
/// space. So the check runs on the words of the complex stretches alone,
/// outside the block loop.
pub(super) fn for_each_word_span<F: FnMut(usize, usize)>(s: &str, mut f: F) -> bool {
    let b = s.as_bytes();
    let mut pos = 0;
    let mut spaced = false;
    while pos < b.len() {
        let Some(stop) = scan(b, pos, &mut f) else {
            break;
        };
        let origin = s.as_ptr() as usize;
        pos = stretch_words(s, stop.cut, stop.at, stop.emitted, &mut |w: &str| {
            spaced |= w.as_bytes().contains(&b' ');
            let start = (w.as_ptr() as usize).wrapping_sub(origin);
            f(start, start + w.len());
        });
    }
    spaced
}

/// Where [`scan`] stopped: the complex character at `at`, the split point
/// `cut` before it, and the end of the last word handed out.
struct Stop {
    cut: usize,
    at: usize,
    emitted: usize,
}

/// Hands out the words from `from` (a split point or 0) up to the end of the
/// text, or up to the split point before the first complex character.
///
/// Every word handed out was decided by characters before that complex
/// character: a block is processed only after the next block has been
/// classified, and no decision looks further than one byte ahead.
fn scan<F: FnMut(usize, usize)>(b: &[u8], from: usize, f: &mut F) -> Option<Stop> {
    let n = b.len();
    let mut limit = n;
    let mut stop = None;
    let mut emitted = from;
    let mut base = from;
    let mut cur = classify(b, base, limit);
    if let Some(at) = cur.complex {
        limit = stretch_start(b, at);
        stop = Some(at);
        cur.truncate(limit - base);
    }
    // Bit `len - 1` of the previous block's letter / digit / joined masks,
    // and whether a one-character word ends where this block starts.
    let (mut prev_l, mut prev_d, mut prev_j, mut carry) = (0u64, 0u64, 0u64, 0u64);
    // ... and of its letters-or-digits and Katakana masks.
    let (mut prev_a, mut prev_k) = (0u64, 0u64);
    // Start of a word that runs past the end of the previous block.
    let mut open: Option<usize> = None;
    while base < limit {
        let next_base = base + cur.len;
        let mut next = if next_base < limit {
            classify(b, next_base, limit)
        } else {
            Block::default()
        };
        if let Some(at) = next.complex {
            limit = stretch_start(b, at);
            stop = Some(at);
            if limit <= base {
                break;
            }
            cur.truncate(limit - base);
            next.truncate(limit.saturating_sub(next_base));
        }
        let next_base = base + cur.len;
        let top = cur.len - 1;
        let m = &cur.m;
        let l_before = (m.letter << 1) | prev_l;
        let l_after = (m.letter >> 1) | (next.m.letter << top);
        let d_before = (m.digit << 1) | prev_d;
        let d_after = (m.digit >> 1) | (next.m.digit << top);
        let mut joined = m.word
            | cur.kata
            | (m.mid_letters & l_before & l_after)
            | (m.mid_digits & d_before & d_after);
        if cur.mid2_l | cur.mid2_d | cur.mid3_l | cur.mid3_d != 0 {
            joined |= wide_mids(&cur, &next, l_before, d_before);
        }
        let before = (joined << 1) | prev_j;
        // Katakana next to a letter or digit: a break inside a joined run.
        let alnum = m.letter | m.digit;
        let breaks = (cur.kata & ((alnum << 1) | prev_a)) | (alnum & ((cur.kata << 1) | prev_k));
        let starts = (joined & !before) | breaks | cur.single;
        let ends = (!joined & before & low(cur.len)) | breaks | cur.single_end | carry;
        pair_spans(base, starts, ends, &mut open, |ws, e| {
            emit(b, ws, e, f, &mut emitted)
        });
        prev_l = m.letter >> top & 1;
        prev_d = m.digit >> top & 1;
        prev_j = joined >> top & 1;
        prev_a = alnum >> top & 1;
        prev_k = cur.kata >> top & 1;
        carry = u64::from(cur.carry);
        base = next_base;
        cur = next;
    }
    match (stop, open) {
        (None, Some(ws)) => emit(b, ws, n, f, &mut emitted),
        // A one-character word that ends at the split point itself; any
        // other open word starts after the split point and is the
        // stretch's to hand out.
        (Some(_), Some(ws)) if carry != 0 && base == limit => emit(b, ws, limit, f, &mut emitted),
        _ => {}
    }
    stop.map(|at| Stop {
        cut: limit,
        at,
        emitted,
    })
}

/// The bytes of the non-ASCII mid characters of `cur` that join their
/// neighbours: a letter before (`l_before` at the first byte) and after
/// (the byte after the character), or a digit on both sides.
#[cold]
fn wide_mids(cur: &Block, next: &Block, l_before: u64, d_before: u64) -> u64 {
    let len = cur.len;
    // Bit j: the byte k places after byte j is a letter (digit). A block
    // holding a k-byte character is at least k bytes long.
    let after = |mask: u64, next: u64, k: usize| {
        (mask >> k) | next.checked_shl((len - k) as u32).unwrap_or(0)
    };
    let mut joined = 0;
    if cur.mid2_l | cur.mid2_d != 0 {
        let lead = (cur.mid2_l & l_before & after(cur.m.letter, next.m.letter, 2))
            | (cur.mid2_d & d_before & after(cur.m.digit, next.m.digit, 2));
        joined |= lead | lead << 1;
    }
    if cur.mid3_l | cur.mid3_d != 0 {
        let lead = (cur.mid3_l & l_before & after(cur.m.letter, next.m.letter, 3))
            | (cur.mid3_d & d_before & after(cur.m.digit, next.m.digit, 3));
        joined |= lead | lead << 1 | lead << 2;
    }
    joined
}

/// Hands out the joined run `b[start..end]` if it is a word: a run starts
/// with a letter, digit or `_`, so only one starting with `_` can lack an
/// alphanumeric (non-ASCII bytes in a run belong to letters and digits).
#[inline(always)]
fn emit<F: FnMut(usize, usize)>(
    b: &[u8],
    start: usize,
    end: usize,
    f: &mut F,
    emitted: &mut usize,
) {
    if b[start] == b'_'
        && !b[start..end]
            .iter()
            .any(|&x| x >= 0x80 || CLASS[x as usize] & ASCII_ALNUM != 0)
    {
        return;
    }
    f(start, end);
    *emitted = end;
}

#[cfg(test)]
mod tests;
