//! UAX #29 words over pure-ASCII text, without the general state machine.
//!
//! On ASCII the word-boundary rules reduce to a handful of character classes:
//! letters and digits join each other (WB5, WB8–WB10), `_` joins anything
//! alphanumeric or `_` (WB13a/b), and a single "mid" character joins two
//! letters (`:` `.` `'`, WB6/WB7) or two digits (`,` `;` `.` `'`, WB11/WB12).
//! Every other position is a boundary, and segments without a letter or
//! digit are dropped, exactly as `unicode_words` does. A property test
//! compares this with `unicode-segmentation` on random ASCII text.

use crate::arch::scalar::ascii_words as scalar;
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{Sse2, sse2};

/// Character-class bits for ASCII word boundaries (0 for non-ASCII bytes,
/// which the caller never passes). [`super::mixed_words`] gives the same
/// bits to the non-ASCII characters it knows.
pub(crate) const WORD: u8 = 1; // letter, digit or `_`: joins its neighbours of this kind
pub(crate) const ALNUM: u8 = 2; // letter or digit: a segment needs one to be a word
pub(crate) const LETTER: u8 = 4;
pub(crate) const DIGIT: u8 = 8;
/// `:` `.` `'` join two letters (MidLetter, MidNumLet, Single_Quote).
pub(crate) const MID_LETTERS: u8 = 16;
/// `,` `;` `.` `'` join two digits (MidNum, MidNumLet, Single_Quote).
pub(crate) const MID_DIGITS: u8 = 32;

pub(crate) const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = if b.is_ascii_alphabetic() {
            WORD | ALNUM | LETTER
        } else if b.is_ascii_digit() {
            WORD | ALNUM | DIGIT
        } else {
            match b {
                b'_' => WORD,
                b':' => MID_LETTERS,
                b'.' | b'\'' => MID_LETTERS | MID_DIGITS,
                b',' | b';' => MID_DIGITS,
                _ => 0,
            }
        };
        c += 1;
    }
    t
};

/// Does the mid character `mid` join `left` and `right`?
#[inline]
pub(super) fn mid_joins(left: u8, mid: u8, right: u8) -> bool {
    (mid & MID_LETTERS != 0 && left & right & LETTER != 0)
        || (mid & MID_DIGITS != 0 && left & right & DIGIT != 0)
}

/// Bit `j` set iff `b[j]` is a word character; `b` holds at most 64 bytes
/// (see [`scalar::word_mask`], the definition). On x86_64, 16 bytes per
/// step with SSE2: four compares and a `movemask` replace sixteen table
/// lookups.
#[inline]
fn word_mask(b: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = Sse2::detect() {
        return sse2::ascii_words::word_mask(t, b);
    }
    scalar::word_mask(b)
}

/// The UAX #29 words of `s`, which must be ASCII (the caller checks).
///
/// Word characters are found through a bit mask per 64-byte block (one table
/// lookup per byte, no branch), so finding where a word starts and ends
/// costs a `trailing_zeros` rather than a branch per byte.
pub(crate) struct AsciiWords<'a> {
    s: &'a str,
    pos: usize,
    /// Index of the block whose word-character mask is in `mask`.
    block: usize,
    mask: u64,
}

impl<'a> AsciiWords<'a> {
    pub(crate) fn new(s: &'a str) -> Self {
        debug_assert!(s.is_ascii());
        AsciiWords {
            s,
            pos: 0,
            block: usize::MAX,
            mask: 0,
        }
    }

    /// Bit `j` set iff byte `64·blk + j` is a word character (bits past the
    /// end of the text are clear).
    #[inline]
    fn mask_of(&mut self, blk: usize) -> u64 {
        if self.block != blk {
            let b = self.s.as_bytes();
            let lo = blk * 64;
            let hi = (lo + 64).min(b.len());
            self.block = blk;
            self.mask = word_mask(&b[lo..hi]);
        }
        self.mask
    }

    /// The first word character at or after `i`.
    #[inline]
    fn next_word_char(&mut self, mut i: usize) -> Option<usize> {
        let n = self.s.len();
        while i < n {
            let blk = i / 64;
            let m = self.mask_of(blk) >> (i % 64);
            if m != 0 {
                return Some(i + m.trailing_zeros() as usize);
            }
            i = (blk + 1) * 64;
        }
        None
    }

    /// The first non-word character at or after `i` (or the end).
    #[inline]
    fn next_other_char(&mut self, mut i: usize) -> usize {
        let n = self.s.len();
        while i < n {
            let blk = i / 64;
            // Zeros shifted in at the top are past this block: not answers.
            let m = !self.mask_of(blk) >> (i % 64);
            if m != 0 {
                return (i + m.trailing_zeros() as usize).min(n);
            }
            i = (blk + 1) * 64;
        }
        n
    }
}

impl<'a> Iterator for AsciiWords<'a> {
    type Item = &'a str;

    // Inlined into the caller's loop: a call per word costs more than the
    // scan of a typical word.
    #[inline(always)]
    fn next(&mut self) -> Option<&'a str> {
        let b = self.s.as_bytes();
        let n = b.len();
        loop {
            let Some(start) = self.next_word_char(self.pos) else {
                self.pos = n;
                return None;
            };
            let mut end = self.next_other_char(start + 1);
            let mut alnum = CLASS[b[start] as usize] & ALNUM != 0;
            // A mid character continues the word only between two letters
            // or two digits.
            while end + 1 < n
                && mid_joins(
                    CLASS[b[end - 1] as usize],
                    CLASS[b[end] as usize],
                    CLASS[b[end + 1] as usize],
                )
            {
                alnum = true;
                end = self.next_other_char(end + 2);
            }
            if !alnum {
                alnum = b[start..end]
                    .iter()
                    .any(|&x| CLASS[x as usize] & ALNUM != 0);
            }
            self.pos = end;
            if alnum {
                // All bytes are ASCII, so any index is a char boundary.
                return self.s.get(start..end);
            }
        }
    }
}

#[cfg(test)]
mod tests;
