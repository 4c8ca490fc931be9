extern crate std;

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use std::{eprintln, format};

use proptest::prelude::*;

use super::strategies::{collect, spaced_words, text};
use super::*;
use crate::{GraphemeTokenizer, WordTokenizer};

/// txtfp 0.3.2's shingle semantics, written as plainly as possible.
fn naive(k: usize, tokens: &[String]) -> Vec<String> {
    if k == 0 || tokens.is_empty() {
        Vec::new()
    } else if tokens.len() < k {
        vec![tokens.join(" ")]
    } else {
        tokens.windows(k).map(|w| w.join(" ")).collect()
    }
}

fn via_iter(tok: &dyn Tokenizer, s: &str) -> Vec<String> {
    tok.tokens(s).into_string_iter().collect()
}

/// Both paths of `tok` on `s`, checked equal.
fn both(tok: &dyn Tokenizer, s: &str) -> Vec<String> {
    let out = collect(tok, s);
    assert_eq!(via_iter(tok, s), out, "tokens() vs for_each_token on {s:?}");
    out
}

/// Words rebuilt as owned strings: forces the copying path of the window.
struct OwnedWords;

impl Tokenizer for OwnedWords {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        TokenStream::Owned(WordTokenizer.tokens(input).into_string_iter())
    }
    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed("owned-words")
    }
}

/// Splits on every single space, so runs of spaces give empty tokens.
struct SpaceSplit;

impl Tokenizer for SpaceSplit {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        TokenStream::Borrowed(Box::new(input.split(' ')))
    }
    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed("space-split")
    }
}

/// The `== shingle ==` section of the observed 0.3.2 vectors (`canonical/vectors.rs`).
#[test]
fn spec_vectors() {
    let cases: &[(usize, &str, &[&str])] = &[
        (0, "shingle-k=0/word-uax29", &[]),
        (1, "shingle-k=1/word-uax29", &["a", "b", "c", "d"]),
        (2, "shingle-k=2/word-uax29", &["a b", "b c", "c d"]),
        (3, "shingle-k=3/word-uax29", &["a b c", "b c d"]),
        (5, "shingle-k=5/word-uax29", &["a b c d"]),
    ];
    for &(k, name, expected) in cases {
        let tok = ShingleTokenizer {
            k,
            inner: WordTokenizer,
        };
        assert_eq!(tok.name(), name);
        assert_eq!(both(&tok, "a b c d"), expected, "k = {k}");
    }

    let nested = ShingleTokenizer {
        k: 2,
        inner: ShingleTokenizer {
            k: 2,
            inner: WordTokenizer,
        },
    };
    assert_eq!(nested.name(), "shingle-k=2/shingle-k=2/word-uax29");
    assert_eq!(both(&nested, "a b c d"), ["a b b c", "b c c d"]);

    let graph3 = ShingleTokenizer {
        k: 3,
        inner: GraphemeTokenizer,
    };
    assert_eq!(graph3.name(), "shingle-k=3/grapheme-uax29");
    assert_eq!(both(&graph3, "ab cd"), ["a b  ", "b   c", "  c d"]);

    let k3 = ShingleTokenizer {
        k: 3,
        inner: WordTokenizer,
    };
    assert_eq!(via_iter(&k3, "a b"), ["a b"]);
}

#[test]
fn empty_and_repeated() {
    let k2 = ShingleTokenizer {
        k: 2,
        inner: WordTokenizer,
    };
    assert!(both(&k2, "").is_empty());
    assert!(both(&k2, " ,;! ").is_empty());
    assert_eq!(both(&k2, "hello"), ["hello"]);
    assert_eq!(both(&k2, "x x x"), ["x x", "x x"]);
    // Separators other than one space are normalized to one space.
    assert_eq!(both(&k2, "a,  b\n\tc"), ["a b", "b c"]);
}

/// A window of single-spaced input tokens is handed out as a slice of the
/// input itself; any other window is rebuilt with one space.
#[test]
fn zero_copy_when_single_spaced() {
    let input = "one two three, four five six";
    let range = input.as_bytes().as_ptr_range();
    let tok = ShingleTokenizer {
        k: 2,
        inner: WordTokenizer,
    };
    let mut seen = Vec::new();
    tok.for_each_token(input, &mut |s| {
        seen.push((s.to_string(), range.contains(&s.as_ptr())));
    });
    let expected = [
        ("one two", true),
        ("two three", true),
        ("three four", false),
        ("four five", true),
        ("five six", true),
    ];
    let expected: Vec<(String, bool)> = expected.iter().map(|&(s, b)| (s.to_string(), b)).collect();
    assert_eq!(seen, expected);
}

#[test]
fn copied_and_empty_inner_tokens() {
    let k2 = ShingleTokenizer {
        k: 2,
        inner: OwnedWords,
    };
    assert_eq!(both(&k2, "a b, c"), ["a b", "b c"]);
    let k3 = ShingleTokenizer {
        k: 3,
        inner: SpaceSplit,
    };
    // "a", "", "b", "c": the empty token still takes a slot and a separator.
    assert_eq!(both(&k3, "a  b c"), ["a  b", " b c"]);
    assert_eq!(both(&k3, " "), [" "]);
}

#[test]
fn validate_and_new() {
    let ok = ShingleTokenizer {
        k: MAX_SHINGLE_K,
        inner: WordTokenizer,
    };
    assert!(ok.validate().is_ok());
    let zero = ShingleTokenizer {
        k: 0,
        inner: WordTokenizer,
    };
    assert!(zero.validate().is_ok(), "k = 0 is valid in 0.3.2");

    let too_big = ShingleTokenizer {
        k: MAX_SHINGLE_K + 1,
        inner: WordTokenizer,
    };
    let err = too_big.validate().unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)));
    assert_eq!(
        err.to_string(),
        "invalid input: shingle size k = 1025 exceeds the maximum 1024"
    );

    // The inner tokenizer is validated too.
    let nested = ShingleTokenizer {
        k: 2,
        inner: too_big,
    };
    assert!(
        nested
            .validate()
            .unwrap_err()
            .to_string()
            .contains("k = 1025")
    );

    assert_eq!(ShingleTokenizer::new(3, WordTokenizer).unwrap().k, 3);
    assert!(ShingleTokenizer::new(MAX_SHINGLE_K, WordTokenizer).is_ok());
    let err = ShingleTokenizer::new(0, WordTokenizer).unwrap_err();
    assert!(matches!(err, Error::InvalidInput(ref m) if m.contains("k = 0")));
    let err = ShingleTokenizer::new(usize::MAX, WordTokenizer).unwrap_err();
    assert!(err.to_string().contains(&format!("k = {}", usize::MAX)));
}

/// Spec W2: 0.3.2 aborted the process on `k = 2^45`. Now `validate` reports
/// it, and even a direct call allocates nothing in proportion to `k`.
#[test]
fn huge_k_does_not_abort() {
    for k in [1usize << 45, usize::MAX] {
        let tok = ShingleTokenizer {
            k,
            inner: WordTokenizer,
        };
        assert_eq!(collect(&tok, "a b c"), ["a b c"]);
        assert_eq!(via_iter(&tok, "a b, c"), ["a b c"]);
        let err = tok.validate().unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("invalid input: shingle size k = {k} exceeds the maximum 1024")
        );
    }
}

#[test]
fn stream_plan_exposes_k_and_inner() {
    let tok = ShingleTokenizer {
        k: 4,
        inner: GraphemeTokenizer,
    };
    match tok.stream_plan() {
        StreamPlan::Shingle { k, inner } => {
            assert_eq!(k, 4);
            assert_eq!(inner.name(), "grapheme-uax29");
        }
        _ => panic!("expected StreamPlan::Shingle"),
    }
}

#[test]
fn derives() {
    let a = ShingleTokenizer {
        k: 3,
        inner: WordTokenizer,
    };
    let b = a;
    assert_eq!(a, b);
    assert_ne!(a, ShingleTokenizer::new(4, WordTokenizer).unwrap());
    assert_eq!(
        format!("{a:?}"),
        "ShingleTokenizer { k: 3, inner: WordTokenizer }"
    );
}

/// Per-record check against the real 0.3.2 outputs on the edge-case corpus.
/// Uses the golden `canonical` text so it does not depend on the
/// canonicalizer.
#[test]
fn golden_edge_cases() {
    let candidates = [
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/golden/golden-edge.jsonl"
        ),
        "/work/shared/golden/golden-edge.jsonl",
    ];
    let Some(text) = candidates
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
    else {
        eprintln!("SKIPPED golden_edge_cases: golden-edge.jsonl not found in {candidates:?}");
        return;
    };
    let shingles = ShingleTokenizer {
        k: 3,
        inner: WordTokenizer,
    };
    let mut records = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let rec: serde_json::Value = serde_json::from_str(line).expect("golden line is JSON");
        let id = rec["id"].as_str().unwrap_or("?");
        let canonical = rec["canonical"].as_str().expect("canonical");
        let strings = |field: &str| -> Vec<String> {
            rec[field]
                .as_array()
                .unwrap_or_else(|| panic!("{id}: {field} is not an array"))
                .iter()
                .map(|v| v.as_str().expect("string").to_string())
                .collect()
        };
        assert_eq!(
            collect(&WordTokenizer, canonical),
            strings("words"),
            "{id}: words"
        );
        assert_eq!(
            collect(&shingles, canonical),
            strings("shingles_k3"),
            "{id}: shingles_k3"
        );
        assert_eq!(
            via_iter(&shingles, canonical),
            strings("shingles_k3"),
            "{id}: shingles_k3 via tokens()"
        );
        let mut graphemes = 0u64;
        GraphemeTokenizer.for_each_token(canonical, &mut |_| graphemes += 1);
        assert_eq!(
            Some(graphemes),
            rec["grapheme_count"].as_u64(),
            "{id}: grapheme_count"
        );
        records += 1;
    }
    assert!(records > 0, "golden-edge.jsonl has no records");
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![text(), spaced_words()]
}

proptest! {
    #[test]
    fn word_shingles_match_reference(k in 0usize..8, s in any_text()) {
        let tok = ShingleTokenizer { k, inner: WordTokenizer };
        let expected = naive(k, &collect(&WordTokenizer, &s));
        prop_assert_eq!(collect(&tok, &s), expected.clone());
        prop_assert_eq!(via_iter(&tok, &s), expected);
    }

    #[test]
    fn grapheme_shingles_match_reference(k in 0usize..8, s in any_text()) {
        let tok = ShingleTokenizer { k, inner: GraphemeTokenizer };
        let expected = naive(k, &collect(&GraphemeTokenizer, &s));
        prop_assert_eq!(collect(&tok, &s), expected.clone());
        prop_assert_eq!(via_iter(&tok, &s), expected);
    }

    #[test]
    fn nested_shingles_match_reference(k1 in 0usize..5, k2 in 0usize..5, s in any_text()) {
        let tok = ShingleTokenizer { k: k2, inner: ShingleTokenizer { k: k1, inner: WordTokenizer } };
        let expected = naive(k2, &naive(k1, &collect(&WordTokenizer, &s)));
        prop_assert_eq!(collect(&tok, &s), expected.clone());
        prop_assert_eq!(via_iter(&tok, &s), expected);
    }

    #[test]
    fn copied_and_empty_tokens_match_reference(k in 0usize..8, s in any_text()) {
        let owned = ShingleTokenizer { k, inner: OwnedWords };
        let expected = naive(k, &collect(&WordTokenizer, &s));
        prop_assert_eq!(collect(&owned, &s), expected.clone());
        prop_assert_eq!(via_iter(&owned, &s), expected);

        let split = ShingleTokenizer { k, inner: SpaceSplit };
        let expected = naive(k, &collect(&SpaceSplit, &s));
        prop_assert_eq!(collect(&split, &s), expected.clone());
        prop_assert_eq!(via_iter(&split, &s), expected);
    }

    #[test]
    fn k1_equals_inner(s in any_text()) {
        let words = ShingleTokenizer { k: 1, inner: WordTokenizer };
        prop_assert_eq!(collect(&words, &s), collect(&WordTokenizer, &s));
        let graphemes = ShingleTokenizer { k: 1, inner: GraphemeTokenizer };
        prop_assert_eq!(collect(&graphemes, &s), collect(&GraphemeTokenizer, &s));
    }
}
