//! proptest strategies shared by the tokenizer tests.

use alloc::string::String;
use alloc::vec::Vec;

use proptest::prelude::*;

/// Characters that stress UAX #29: joiners, combining marks, CR/LF and other
/// breaks, regional indicators, emoji, scripts without spaces, apostrophes
/// and number separators.
const TRICKY: &[char] = &[
    '\r',
    '\n',
    '\t',
    '\u{B}',
    '\u{C}',
    '\u{85}',
    '\u{A0}',
    '\u{2028}',
    '\u{3000}',
    '\u{200D}',
    '\u{200B}',
    '\u{301}',
    '\u{FE0F}',
    '\u{1F3FD}',
    '\u{1F1FA}',
    '\u{1F1F8}',
    '\u{1F468}',
    '\u{1F600}',
    '\u{2764}',
    '\'',
    '\u{2019}',
    '.',
    ',',
    ':',
    ';',
    '_',
    '-',
    '"',
    '我',
    '京',
    'こ',
    'カ',
    '\u{AC00}',
    '\u{1100}',
    '\u{1161}',
    '\u{11A8}',
    '\u{E2A}',
    '\u{E31}',
    '\u{915}',
    '\u{94D}',
    '\u{661}',
    'é',
    'ß',
    '\u{5D0}',
    '\u{627}',
    '0',
    '9',
    'a',
    'Z',
];

/// One piece of a random text.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z]{1,6}",
        2 => "[0-9]{1,3}([.,][0-9]{1,3})?",
        3 => " ",
        1 => " {2,3}",
        1 => "[.,;:!?'\"()/@#$-]",
        1 => "\r\n|\n|\t",
        2 => proptest::sample::select(TRICKY).prop_map(String::from),
        1 => any::<char>().prop_map(String::from),
    ]
}

/// Random text: ASCII words, numbers, single and repeated spaces,
/// punctuation, line breaks and tricky Unicode.
pub(crate) fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(piece(), 0..40).prop_map(|pieces| pieces.concat())
}

/// Mostly single-spaced words (the zero-copy shingle path), with an
/// occasional double space or punctuation gap (the buffered path).
pub(crate) fn spaced_words() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        6 => "[a-z]{1,4}",
        1 => "[0-9]{1,2}",
        1 => proptest::sample::select(TRICKY).prop_map(String::from),
    ];
    let gap = prop_oneof![8 => Just(" "), 1 => Just("  "), 1 => Just(", "), 1 => Just("")];
    proptest::collection::vec((word, gap), 0..30).prop_map(|parts| {
        let mut out = String::new();
        for (word, gap) in parts {
            out.push_str(&word);
            out.push_str(gap);
        }
        out
    })
}

/// `(a, b)` meeting the splittable precondition: `a` ends with an ASCII
/// whitespace character, `b` starts with a non-whitespace ASCII character.
pub(crate) fn split_pair() -> impl Strategy<Value = (String, String)> {
    let ws = proptest::sample::select(&[' ', '\t', '\n', '\r', '\u{C}'][..]);
    let lead = (0x21u8..0x7f).prop_map(char::from);
    (text(), ws, lead, text()).prop_map(|(mut a, ws, lead, rest)| {
        a.push(ws);
        let mut b = String::new();
        b.push(lead);
        b.push_str(&rest);
        (a, b)
    })
}

/// Whole-string helper for tests: tokens of `s` as owned strings.
pub(crate) fn collect(tok: &dyn crate::Tokenizer, s: &str) -> Vec<String> {
    let mut out = Vec::new();
    tok.for_each_token(s, &mut |t| out.push(String::from(t)));
    out
}
