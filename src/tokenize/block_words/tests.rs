extern crate std;

use alloc::string::String;
use alloc::vec::Vec;
use std::format;

use proptest::prelude::*;
use unicode_segmentation::UnicodeSegmentation;

use super::*;

fn spans(s: &str) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for_each_word_span(s, |a, b| v.push((a, b)));
    v
}

fn reference(s: &str) -> Vec<(usize, usize)> {
    s.unicode_word_indices()
        .map(|(i, w)| (i, i + w.len()))
        .collect()
}

fn check(s: &str) {
    assert_eq!(spans(s), reference(s), "{s:?}");
}

/// Letters, digits and `_` of several scripts, one-character words (Han,
/// Hiragana, superscripts), every kind of mid character, whitespace, and
/// complex characters (combining marks, ZWJ, Katakana, Hebrew, emoji,
/// non-ASCII mids).
const ALPHABET: &str = concat!(
    "ab1_:.,;' \"-\n",
    "éßжΩ٣中ぁ²«•",
    "\u{0301}\u{200D}アーא\u{1F600}’·\u{060C}\u{2028}",
);

fn text(max: usize) -> impl Strategy<Value = String> {
    let chars: Vec<char> = ALPHABET.chars().collect();
    proptest::collection::vec(proptest::sample::select(chars), 0..max)
        .prop_map(|v| v.into_iter().collect())
}

/// Runs of one kind of character, so that words and stretches cross block
/// edges.
fn runs() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-z]{1,70}",
        "[а-я]{1,40}",
        "[一-龥]{1,30}",
        "[0-9]{1,20}",
        "[ .,_']{1,4}",
        text(6),
    ];
    proptest::collection::vec(piece, 0..16).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn equals_unicode_words(s in text(200)) {
        prop_assert_eq!(spans(&s), reference(&s), "{:?}", s);
    }

    #[test]
    fn equals_unicode_words_across_blocks(s in runs()) {
        prop_assert_eq!(spans(&s), reference(&s), "{:?}", s);
    }
}

/// A character of every kind at every offset around the first block edges,
/// after ASCII, two-byte and three-byte text.
#[test]
fn block_edges() {
    let tails = [
        "a.b",
        "é.b",
        "1,2",
        "٣,٣",
        "a'b c",
        "ab",
        "__",
        "_é",
        "中文",
        "中a",
        "a中",
        "ぁ.ぁ",
        "²",
        "e\u{0301}x",
        "a\u{200D}b",
        "アイ",
        "aア",
        "a’b",
        "a·b",
        "א'",
        "\u{1F600}a",
        " ж",
        "ж.",
    ];
    for fill in ["q", " ", "ж", "中", ".", "_"] {
        for pad in 0..140 {
            let head: String = fill.repeat(pad / fill.len());
            for tail in tails {
                check(&format!("{head}{tail}"));
                check(&format!("{head}{tail}{head}"));
                check(&format!("{tail} {head}x"));
            }
        }
    }
}

/// Every BMP code point next to letters, digits, one-character words,
/// mid characters and itself.
#[test]
fn every_code_point() {
    for c in (0x80u32..0x10000).filter_map(char::from_u32) {
        for s in [
            format!("a{c}b"),
            format!("{c}{c} x"),
            format!("1{c}2"),
            format!("中{c}中"),
            format!(" {c}."),
            format!("a.{c}"),
            format!("{c}'a"),
            format!("ж{c}ж"),
        ] {
            check(&s);
        }
    }
}
