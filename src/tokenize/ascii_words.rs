//! UAX #29 words over pure-ASCII text, without the general state machine.
//!
//! On ASCII the word-boundary rules reduce to a handful of character classes:
//! letters and digits join each other (WB5, WB8–WB10), `_` joins anything
//! alphanumeric or `_` (WB13a/b), and a single "mid" character joins two
//! letters (`:` `.` `'`, WB6/WB7) or two digits (`,` `;` `.` `'`, WB11/WB12).
//! Every other position is a boundary, and segments without a letter or
//! digit are dropped, exactly as `unicode_words` does. A property test
//! compares this with `unicode-segmentation` on random ASCII text.

/// Character classes that matter for ASCII word boundaries.
const OTHER: u8 = 0;
const LETTER: u8 = 1;
const DIGIT: u8 = 2;
const UNDERSCORE: u8 = 3;
/// `:` — MidLetter: joins letters only.
const MID_LETTER: u8 = 4;
/// `.` and `'` — MidNumLet / Single_Quote: join letters or digits.
const MID_BOTH: u8 = 5;
/// `,` and `;` — MidNum: joins digits only.
const MID_NUM: u8 = 6;

const CLASS: [u8; 128] = {
    let mut t = [OTHER; 128];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = if b.is_ascii_alphabetic() {
            LETTER
        } else if b.is_ascii_digit() {
            DIGIT
        } else {
            match b {
                b'_' => UNDERSCORE,
                b':' => MID_LETTER,
                b'.' | b'\'' => MID_BOTH,
                b',' | b';' => MID_NUM,
                _ => OTHER,
            }
        };
        c += 1;
    }
    t
};

#[inline]
fn class(bytes: &[u8], i: usize) -> u8 {
    match bytes.get(i) {
        Some(&b) if b < 128 => CLASS[b as usize],
        _ => OTHER,
    }
}

#[inline]
fn is_word_char(c: u8) -> bool {
    matches!(c, LETTER | DIGIT | UNDERSCORE)
}

/// Does a mid character of class `mid` join `left` and `right`?
#[inline]
fn mid_joins(left: u8, mid: u8, right: u8) -> bool {
    match mid {
        MID_LETTER => left == LETTER && right == LETTER,
        MID_BOTH => (left == LETTER && right == LETTER) || (left == DIGIT && right == DIGIT),
        MID_NUM => left == DIGIT && right == DIGIT,
        _ => false,
    }
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

    fn next(&mut self) -> Option<&'a str> {
        let b = self.s.as_bytes();
        loop {
            // Skip to the next word character.
            let mut i = self.pos;
            while i < b.len() && !is_word_char(class(b, i)) {
                i += 1;
            }
            if i >= b.len() {
                self.pos = b.len();
                return None;
            }
            let start = i;
            let mut alnum = false;
            loop {
                let c = class(b, i);
                if is_word_char(c) {
                    alnum |= c != UNDERSCORE;
                    i += 1;
                    continue;
                }
                // A mid character continues the word only between two
                // letters or two digits.
                if i > start && mid_joins(class(b, i - 1), c, class(b, i + 1)) {
                    i += 2;
                    alnum = true;
                    continue;
                }
                break;
            }
            self.pos = i;
            if alnum {
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
        fn equals_unicode_words_on_any_ascii(s in proptest::collection::vec(0u8..128, 0..60)) {
            let s = alloc::string::String::from_utf8(s).unwrap();
            prop_assert_eq!(fast(&s), reference(&s));
        }
    }
}
