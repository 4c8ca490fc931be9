extern crate std;

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use std::format;

use proptest::prelude::*;

use super::*;
use crate::tokenize::shingle::strategies::{split_pair, text};

fn clusters(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    GraphemeTokenizer.for_each_token(s, &mut |t| out.push(t.to_string()));
    out
}

fn clusters_iter(s: &str) -> Vec<String> {
    GraphemeTokenizer.tokens(s).into_string_iter().collect()
}

/// Every row of the `== grapheme ==` section of the 0.3.2 vectors file
/// and the examples txtfp 0.3.2 was observed to give.
#[test]
fn spec_vectors() {
    let cases: &[(&str, &[&str])] = &[
        ("ab c", &["a", "b", " ", "c"]),
        (
            "e\u{301}\u{1F1FA}\u{1F1F8}\u{1F468}\u{200D}\u{1F469}",
            &[
                "e\u{301}",
                "\u{1F1FA}\u{1F1F8}",
                "\u{1F468}\u{200D}\u{1F469}",
            ],
        ),
        ("\r\n", &["\r\n"]),
        ("\u{AC00}\u{AC01}", &["\u{AC00}", "\u{AC01}"]),
        ("a, b!", &["a", ",", " ", "b", "!"]),
        ("\n\r", &["\n", "\r"]),
        ("", &[]),
    ];
    for (input, expected) in cases {
        assert_eq!(clusters(input), *expected, "for_each_token on {input:?}");
        assert_eq!(clusters_iter(input), *expected, "tokens() on {input:?}");
    }
}

#[test]
fn name_and_plan() {
    assert_eq!(GraphemeTokenizer.name(), "grapheme-uax29");
    assert!(GraphemeTokenizer.validate().is_ok());
    assert!(matches!(
        GraphemeTokenizer.stream_plan(),
        StreamPlan::Splittable
    ));
    assert!(matches!(
        GraphemeTokenizer.tokens("ab"),
        TokenStream::Borrowed(_)
    ));
}

/// A `"\r\n"` pair split across two chunks is two clusters, so the
/// splittable promise needs the second chunk to start with a
/// non-whitespace character; this pins down why.
#[test]
fn crlf_is_why_b_must_not_start_with_whitespace() {
    assert_eq!(clusters("x\r\ny"), ["x", "\r\n", "y"]);
    let mut split = clusters("x\r");
    split.extend(clusters("\ny"));
    assert_ne!(split, clusters("x\r\ny"));
}

proptest! {
    #[test]
    fn iterator_equals_callback(s in text()) {
        prop_assert_eq!(clusters_iter(&s), clusters(&s));
    }

    /// Clusters tile the input: concatenated they give it back.
    #[test]
    fn clusters_cover_the_input(s in text()) {
        prop_assert_eq!(clusters(&s).concat(), s);
    }

    /// The [`StreamPlan::Splittable`] promise: `a` ends with ASCII
    /// whitespace, `b` starts with a non-whitespace ASCII character.
    #[test]
    fn splittable((a, b) in split_pair()) {
        let mut joined = clusters(&a);
        joined.extend(clusters(&b));
        prop_assert_eq!(clusters(&format!("{a}{b}")), joined);
    }
}
