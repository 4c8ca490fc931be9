extern crate std;

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use std::format;

use proptest::prelude::*;
use unicode_segmentation::UnicodeSegmentation;

use super::*;

/// The word tokenizer, which runs on these classes.
fn fast(s: &str) -> Vec<String> {
    let mut v = Vec::new();
    super::super::word::for_each_word(s, |w: &str| v.push(w.to_string()));
    v
}

fn reference(s: &str) -> Vec<String> {
    s.unicode_words().map(ToString::to_string).collect()
}

fn class_of(c: char) -> Class {
    let mut buf = [0; 4];
    class_at(c.encode_utf8(&mut buf).as_bytes(), 0).0
}

/// Neighbours that tell the word-break classes apart: letters, digits and
/// `_` of several scripts, Katakana, each kind of mid character,
/// whitespace, `"`, symbols, and complex characters (an alphabetic
/// combining mark, ZWJ, Hebrew, an emoji, a soft hyphen).
const PROBES: &str = concat!(
    "a1_:.,' \"-\n\réж٣中’·、",
    "\u{0301}\u{093E}\u{200D}アー\u{309B}א\u{1F600}\u{AD}",
);

/// Every code point the fast path classifies (all of the BMP but the
/// complex ones) behaves as its class says: alphanumeric exactly when
/// `char::is_alphanumeric`, and segmented like `unicode-segmentation` next
/// to every probe.
#[test]
fn every_simple_code_point_matches_unicode_segmentation() {
    let mut checked = 0;
    for c in (0x80u32..0x10000).filter_map(char::from_u32) {
        let class = class_of(c);
        if class & COMPLEX != 0 {
            continue;
        }
        checked += 1;
        assert_eq!(
            class & ALNUM != 0,
            c.is_alphanumeric(),
            "alphanumeric flag of U+{:04X}",
            c as u32
        );
        let mut cases = Vec::new();
        cases.push(format!("{c}"));
        cases.push(format!("{c}{c}"));
        for x in PROBES.chars() {
            cases.push(format!("{x}{c}"));
            cases.push(format!("{c}{x}"));
            cases.push(format!("{x}{c}{x}"));
            cases.push(format!("{c} {x}"));
            cases.push(format!("{c}{x}\u{093E}"));
        }
        for s in &cases {
            assert_eq!(fast(s), reference(s), "U+{:04X} in {s:?}", c as u32);
        }
    }
    // Latin, Greek, Cyrillic, Arabic, CJK punctuation, Han, Hangul...
    assert!(checked > 40_000, "{checked}");
}

#[test]
fn ascii_classes() {
    for b in 0u8..128 {
        let class = ASCII[b as usize];
        assert_eq!(class & 0xFF, Class::from(CLASS[b as usize]));
        assert_eq!(class & SPACE != 0, b.is_ascii_whitespace() || b == 0x0b);
        // `Other` in UAX #29 terms: no class bit, not whitespace, not `"`.
        let other = CLASS[b as usize] == 0 && class & SPACE == 0 && b != b'"';
        assert_eq!(class & PLAIN != 0, other, "{b:#x}");
        assert_eq!(class & COMPLEX, 0);
    }
}

#[test]
fn examples() {
    for s in [
        "Привет, мир! Это тест 1,5 и 2.0.",
        "café naïve Ærøskøbing straße ǅemal",
        "Ελληνικά· κείμενο’s",
        "مرحبا بالعالم ١٢٣٬٤٥٦ ۱۲۳ مدیرسیستم همچنین",
        "我爱北京天安门。こんにちは世界、한국어 텍스트",
        "mixed 中文 and English, 한국어abc 123中",
        "e\u{301}t\u{E9} a\u{200D}b \u{1F600}\u{200D}\u{1F600} \u{1F1E6}\u{1F1E8}",
        "カタカナ_テスト ひらがな アイウ123 שלום \"x\"",
        "a  \u{093E} 中\u{0301} ‘quoted’ a’b 1’2",
        "\r\n\u{301} \u{301}a \t\u{AD}x",
    ] {
        assert_eq!(fast(s), reference(s), "{s:?}");
    }
}

/// A pool with every class of the fast path and the complex characters
/// that interact with them.
fn pool() -> Vec<char> {
    let mut v: Vec<char> = "aZ1_:.,;'\" \t\n\r-!éßжЖω·٣۴ب،٬’‘․‧中文。、「」〇ぁん한글々"
        .chars()
        .collect();
    v.extend(
        concat!(
            "\u{0301}\u{093E}\u{0651}\u{200D}\u{200C}\u{AD}\u{2060}",
            "アーｱ\u{30A0}\u{309B}・→─אב\u{1F600}\u{1F1E6}\u{1F1E8}",
            "\u{2000}\u{3000}\u{85}\u{2028}\u{203C}©\u{FF10}\u{10400}",
            "\u{0E01}\u{0E31}¸\u{02C2}\u{0378}",
        )
        .chars(),
    );
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn equals_unicode_words(idx in proptest::collection::vec(0usize..1000, 0..40)) {
        let p = pool();
        let s: String = idx.iter().map(|&i| p[i % p.len()]).collect();
        prop_assert_eq!(fast(&s), reference(&s));
    }

    /// Mostly simple text with an occasional complex character, the shape
    /// of real documents.
    #[test]
    fn equals_unicode_words_sparse_complex(
        words in proptest::collection::vec("[a-zé中жب1]{1,6}", 1..20),
        seps in proptest::collection::vec(prop_oneof![
            8 => Just(" ".to_string()),
            2 => Just(", ".to_string()),
            1 => Just("\u{0301}".to_string()),
            1 => Just("\u{093E} ".to_string()),
            1 => Just(".".to_string()),
            1 => Just("ア".to_string()),
            1 => Just("\u{200D}".to_string()),
        ], 20),
    ) {
        let mut s = String::new();
        for (w, sep) in words.iter().zip(&seps) {
            s.push_str(w);
            s.push_str(sep);
        }
        prop_assert_eq!(fast(&s), reference(&s));
    }
}
