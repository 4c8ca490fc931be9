extern crate std;

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use std::format;

use proptest::prelude::*;

use super::*;
use crate::tokenize::shingle::strategies::{split_pair, text};

fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    WordTokenizer.for_each_token(s, &mut |t| out.push(t.to_string()));
    out
}

proptest! {
    #[test]
    fn hybrid_equals_unicode_words(parts in proptest::collection::vec(
        prop_oneof![
            "[a-c0-2 .,:'_\n\t-]{0,12}",
            "[\u{300}\u{200B}é中ﬁ’ \u{1F600}\u{200D}a.1]{0,6}",
        ], 0..8)) {
        let s: String = parts.concat();
        let want: Vec<&str> = s.unicode_words().collect();
        let mut got = Vec::new();
        for_each_word(&s, |t: &str| got.push(t.to_string()));
        prop_assert_eq!(got, want);
    }
}

fn words_iter(s: &str) -> Vec<String> {
    WordTokenizer.tokens(s).into_string_iter().collect()
}

/// Every row of the `== word ==` section of the 0.3.2 vectors file and
/// the examples txtfp 0.3.2 was observed to give.
#[test]
fn spec_vectors() {
    let cases: &[(&str, &[&str])] = &[
        ("don't go!", &["don't", "go"]),
        (
            "v1.2 RC3 3.14 1,000,000",
            &["v1.2", "RC3", "3.14", "1,000,000"],
        ),
        (
            "hello_world foo-bar e-mail a.b.c U.S.A.",
            &["hello_world", "foo", "bar", "e", "mail", "a.b.c", "U.S.A"],
        ),
        ("\u{1F600} hi \u{1F44D}\u{1F3FD}", &["hi"]),
        (
            "我爱北京天安门",
            &["我", "爱", "北", "京", "天", "安", "门"],
        ),
        (
            "こんにちは世界",
            &["こ", "ん", "に", "ち", "は", "世", "界"],
        ),
        ("안녕하세요 세계", &["안녕하세요", "세계"]),
        (
            "\u{E2A}\u{E27}\u{E31}\u{E2A}\u{E14}\u{E35}\u{E04}\u{E23}\u{E31}\u{E1A}",
            &[
                "\u{E2A}",
                "\u{E27}\u{E31}",
                "\u{E2A}",
                "\u{E14}\u{E35}",
                "\u{E04}",
                "\u{E23}\u{E31}",
                "\u{E1A}",
            ],
        ),
        ("$100 #tag @user x=1", &["100", "tag", "user", "x", "1"]),
        ("can't've o'clock", &["can't've", "o'clock"]),
        ("\u{132} \u{1C8}", &["\u{132}", "\u{1C8}"]),
        ("a\u{200D}b", &["a\u{200D}b"]),
        ("ab\u{301}c", &["ab\u{301}c"]),
        (
            "\u{661}\u{662}\u{663} \u{664}",
            &["\u{661}\u{662}\u{663}", "\u{664}"],
        ),
        (
            "\u{1D518}\u{1D52B}\u{1D526}",
            &["\u{1D518}\u{1D52B}\u{1D526}"],
        ),
        ("foo's bar\u{2019}s", &["foo's", "bar\u{2019}s"]),
        ("a:b a;b a/b", &["a:b", "a", "b", "a", "b"]),
        ("1st 2nd", &["1st", "2nd"]),
        ("a:b", &["a:b"]),
        ("foo\u{2019}s", &["foo\u{2019}s"]),
        ("", &[]),
        ("  \t\n ", &[]),
    ];
    for (input, expected) in cases {
        assert_eq!(words(input), *expected, "for_each_token on {input:?}");
        assert_eq!(words_iter(input), *expected, "tokens() on {input:?}");
    }
}

#[test]
fn name_and_plan() {
    assert_eq!(WordTokenizer.name(), "word-uax29");
    assert!(WordTokenizer.validate().is_ok());
    assert!(matches!(
        WordTokenizer.stream_plan(),
        StreamPlan::Splittable
    ));
    assert!(matches!(
        WordTokenizer.tokens("a b"),
        TokenStream::Borrowed(_)
    ));
}

/// The callback path hands out slices of the input itself (no copies).
#[test]
fn tokens_borrow_the_input() {
    let input = "alpha beta, gamma";
    let range = input.as_bytes().as_ptr_range();
    WordTokenizer.for_each_token(input, &mut |t| {
        assert!(
            range.contains(&t.as_ptr()),
            "{t:?} is not a slice of the input"
        );
    });
}

proptest! {
    #[test]
    fn iterator_equals_callback(s in text()) {
        prop_assert_eq!(words_iter(&s), words(&s));
    }

    /// The [`StreamPlan::Splittable`] promise: `a` ends with ASCII
    /// whitespace, `b` starts with a non-whitespace ASCII character.
    #[test]
    fn splittable((a, b) in split_pair()) {
        let mut joined = words(&a);
        joined.extend(words(&b));
        prop_assert_eq!(words(&format!("{a}{b}")), joined);
    }
}
