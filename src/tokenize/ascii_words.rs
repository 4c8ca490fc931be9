//! UAX #29 words over pure-ASCII text, without the general state machine.
//!
//! On ASCII the word-boundary rules reduce to a handful of character classes:
//! letters and digits join each other (WB5, WB8–WB10), `_` joins anything
//! alphanumeric or `_` (WB13a/b), and a single "mid" character joins two
//! letters (`:` `.` `'`, WB6/WB7) or two digits (`,` `;` `.` `'`, WB11/WB12).
//! Every other position is a boundary, and segments without a letter or
//! digit are dropped, exactly as `unicode_words` does. A property test
//! compares this with `unicode-segmentation` on random ASCII text.

/// Character-class bits for ASCII word boundaries (0 for non-ASCII bytes,
/// which the caller never passes). [`super::mixed_words`] gives the same
/// bits to the non-ASCII characters it knows.
pub(super) const WORD: u8 = 1; // letter, digit or `_`: joins its neighbours of this kind
pub(super) const ALNUM: u8 = 2; // letter or digit: a segment needs one to be a word
pub(super) const LETTER: u8 = 4;
pub(super) const DIGIT: u8 = 8;
/// `:` `.` `'` join two letters (MidLetter, MidNumLet, Single_Quote).
pub(super) const MID_LETTERS: u8 = 16;
/// `,` `;` `.` `'` join two digits (MidNum, MidNumLet, Single_Quote).
pub(super) const MID_DIGITS: u8 = 32;

pub(super) const CLASS: [u8; 256] = {
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

/// Bit `j` set iff `b[j]` is a word character; `b` holds at most 64 bytes.
/// The definition, and the path for the tail of a block.
#[inline]
fn word_mask_scalar(b: &[u8]) -> u64 {
    debug_assert!(b.len() <= 64);
    let mut m = 0u64;
    for (j, &x) in b.iter().enumerate() {
        m |= ((CLASS[x as usize] & WORD) as u64) << j;
    }
    m
}

/// [`word_mask_scalar`], 16 bytes per step with SSE2: four compares and a
/// `movemask` replace sixteen table lookups.
#[cfg(target_arch = "x86_64")]
#[inline]
fn word_mask(b: &[u8]) -> u64 {
    // SAFETY: SSE2 is part of the x86_64 baseline: every x86_64 CPU has it.
    unsafe { word_mask_sse2(b) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn word_mask_sse2(b: &[u8]) -> u64 {
    use core::arch::x86_64::*;
    debug_assert!(b.len() <= 64);
    // Unsigned `v - base < n`, as a signed compare after moving `base` to
    // -128 (SSE2 has no unsigned byte compare).
    let in_range = |v: __m128i, base: u8, n: u8| {
        let shifted = _mm_add_epi8(v, _mm_set1_epi8(0x80u8.wrapping_sub(base) as i8));
        _mm_cmplt_epi8(shifted, _mm_set1_epi8(0x80u8.wrapping_add(n) as i8))
    };
    let mut chunks = b.chunks_exact(16);
    let mut m = 0u64;
    let mut shift = 0;
    for c in &mut chunks {
        // SAFETY: `c` is exactly 16 readable bytes; loadu has no alignment
        // requirement.
        let x = unsafe { _mm_loadu_si128(c.as_ptr().cast()) };
        // `| 0x20` lower-cases ASCII letters and moves no other byte into a..z.
        let letter = in_range(_mm_or_si128(x, _mm_set1_epi8(0x20)), b'a', 26);
        let digit = in_range(x, b'0', 10);
        let under = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'_' as i8));
        let word = _mm_or_si128(_mm_or_si128(letter, digit), under);
        m |= u64::from(_mm_movemask_epi8(word) as u16) << shift;
        shift += 16;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        m |= word_mask_scalar(rest) << shift;
    }
    m
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn word_mask(b: &[u8]) -> u64 {
    word_mask_scalar(b)
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
mod tests {
    extern crate std;
    use alloc::vec::Vec;

    use proptest::prelude::*;
    use unicode_segmentation::UnicodeSegmentation;

    use super::*;

    fn fast(s: &str) -> Vec<&str> {
        AsciiWords::new(s).collect()
    }

    fn reference(s: &str) -> Vec<&str> {
        s.unicode_words().collect()
    }

    #[test]
    fn examples() {
        for s in [
            "don't go!",
            "v1.2 RC3 3.14 1,000,000",
            "hello_world foo-bar e-mail a.b.c U.S.A.",
            "$100 #tag @user x=1",
            "a:b a::b 1:2 1;2 a;b 1.a a.1 'x' x' _ __a_ a_1 1_a ___",
            "",
            "   ",
            "a..b 1..2 1,,2 .5 5. a' 'a",
            "tab\tnl\ncr\r\nff\x0cvt\x0bend",
        ] {
            assert_eq!(fast(s), reference(s), "{s:?}");
        }
    }

    proptest! {
        #[test]
        fn word_mask_equals_scalar(b in proptest::collection::vec(0u8..128, 0..=64)) {
            prop_assert_eq!(word_mask(&b), word_mask_scalar(&b));
        }
    }

    #[test]
    fn word_mask_every_byte() {
        // Each ASCII byte in each lane of a full block, and in the tail.
        for x in 0u8..128 {
            for len in [64, 50, 17, 16, 3] {
                let mut b = [b' '; 64];
                for j in 0..len {
                    b[j] = x;
                    assert_eq!(
                        word_mask(&b[..len]),
                        word_mask_scalar(&b[..len]),
                        "{x} at {j}/{len}"
                    );
                    b[j] = b' ';
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn equals_unicode_words_on_ascii(s in "[a-cA-C0-2_:.',;\" \t\r\n\x0b\x0c!@#$%&*()=+/?<>\\-]{0,40}") {
            prop_assert_eq!(fast(&s), reference(&s));
        }

        #[test]
        fn equals_unicode_words_on_long_ascii(s in "([a-z0-9_]{0,12}[ .,:';_\n-]{0,3}){0,30}") {
            prop_assert_eq!(fast(&s), reference(&s));
        }

        #[test]
        fn equals_unicode_words_on_any_ascii(s in proptest::collection::vec(0u8..128, 0..200)) {
            let s = alloc::string::String::from_utf8(s).unwrap();
            prop_assert_eq!(fast(&s), reference(&s));
        }
    }
}
