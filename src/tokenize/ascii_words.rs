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
/// which the caller never passes).
const WORD: u8 = 1; // letter, digit or `_`: joins its neighbours of this kind
const ALNUM: u8 = 2; // letter or digit: a segment needs one to be a word
const LETTER: u8 = 4;
const DIGIT: u8 = 8;
/// `:` `.` `'` join two letters (MidLetter, MidNumLet, Single_Quote).
const MID_LETTERS: u8 = 16;
/// `,` `;` `.` `'` join two digits (MidNum, MidNumLet, Single_Quote).
const MID_DIGITS: u8 = 32;

const CLASS: [u8; 256] = {
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

const HIGH: u64 = 0x8080_8080_8080_8080;

#[inline]
fn load8(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(w)
}

/// Per byte of `x` (all bytes ASCII): the high bit is set where the byte is
/// `>= c` (`1 <= c <= 0x80`). No byte sum carries: `x < 0x80`, `0x80 - c < 0x80`.
#[inline]
fn at_least(x: u64, c: u8) -> u64 {
    x.wrapping_add(u64::from_ne_bytes([0x80 - c; 8]))
}

#[inline]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    at_least(x, lo) & !at_least(x, hi + 1) & HIGH
}

/// (word characters, letters and digits) of eight ASCII bytes, as high-bit masks.
#[inline]
fn word_mask(x: u64) -> (u64, u64) {
    let alnum = in_range(x, b'0', b'9') | in_range(x, b'A', b'Z') | in_range(x, b'a', b'z');
    (alnum | in_range(x, b'_', b'_'), alnum)
}

/// Does the mid character `mid` join `left` and `right`?
#[inline]
fn mid_joins(left: u8, mid: u8, right: u8) -> bool {
    (mid & MID_LETTERS != 0 && left & right & LETTER != 0)
        || (mid & MID_DIGITS != 0 && left & right & DIGIT != 0)
}

/// The UAX #29 words of `s`, which must be ASCII (the caller checks).
pub(crate) struct AsciiWords<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> AsciiWords<'a> {
    pub(crate) fn new(s: &'a str) -> Self {
        debug_assert!(s.is_ascii());
        AsciiWords { s, pos: 0 }
    }
}

impl<'a> Iterator for AsciiWords<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let b = self.s.as_bytes();
        let n = b.len();
        let mut i = self.pos;
        loop {
            // Skip to the next word character, eight bytes at a time.
            while i + 8 <= n {
                let m = word_mask(load8(b, i)).0;
                if m != 0 {
                    i += (m.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            while i < n && CLASS[b[i] as usize] & WORD == 0 {
                i += 1;
            }
            if i >= n {
                self.pos = n;
                return None;
            }
            let start = i;
            let mut seen = 0u8;
            loop {
                // The run of word characters, eight bytes at a time.
                while i + 8 <= n {
                    let (word, alnum) = word_mask(load8(b, i));
                    let stop = !word & HIGH;
                    let len = if stop == 0 {
                        8
                    } else {
                        (stop.trailing_zeros() / 8) as usize
                    };
                    let inside = if len == 8 {
                        u64::MAX
                    } else {
                        (1u64 << (8 * len)) - 1
                    };
                    if alnum & inside != 0 {
                        seen |= ALNUM;
                    }
                    i += len;
                    if len < 8 {
                        break;
                    }
                }
                while i < n {
                    let c = CLASS[b[i] as usize];
                    if c & WORD == 0 {
                        break;
                    }
                    seen |= c;
                    i += 1;
                }
                // A mid character continues the word only between two
                // letters or two digits (`i > start`: a word char precedes).
                if i + 1 < n
                    && mid_joins(
                        CLASS[b[i - 1] as usize],
                        CLASS[b[i] as usize],
                        CLASS[b[i + 1] as usize],
                    )
                {
                    i += 2;
                    seen |= ALNUM;
                    continue;
                }
                break;
            }
            self.pos = i;
            if seen & ALNUM != 0 {
                // All bytes are ASCII, so any index is a char boundary.
                return self.s.get(start..i);
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
