use alloc::string::String;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::tokenize::ascii_scan::for_each_ascii_word;

fn batched(s: &str) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for_each_ascii_word_batch(s.as_bytes(), |a, b| {
        assert!(!a.is_empty() && a.len() == b.len());
        v.extend(a.iter().copied().zip(b.iter().copied()));
    });
    v
}

fn one_by_one(s: &str) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for_each_ascii_word(s.as_bytes(), |a, b| v.push((a, b)));
    v
}

#[test]
fn dense_blocks_and_bare_underscores() {
    for s in [
        "a ".repeat(200),
        "a".repeat(300),
        "_ a _b __ 1_ ".repeat(40),
        "x".repeat(63) + " " + &"y ".repeat(100),
        "_".repeat(130) + "a",
        String::new(),
    ] {
        assert_eq!(batched(&s), one_by_one(&s), "{s:?}");
    }
}

/// A run of bare `_` open while a batch is handed out, at every
/// alignment: it is still dropped when it closes.
#[test]
fn bare_run_open_across_a_hand_out() {
    // A long first word shifts which block a batch fills up in.
    for first in 1..70 {
        for words in 60..130 {
            let s = "x".repeat(first) + " " + &"a ".repeat(words) + "____ b";
            assert_eq!(batched(&s), one_by_one(&s), "{s:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
    #[test]
    fn equals_the_word_walk(s in "([a-z0-9_]{0,12}[ .,:';_\n-]{0,3}){0,200}") {
        prop_assert_eq!(batched(&s), one_by_one(&s));
    }

    #[test]
    fn equals_the_word_walk_on_any_ascii(b in proptest::collection::vec(0u8..128, 0..600)) {
        let s = core::str::from_utf8(&b).unwrap();
        prop_assert_eq!(batched(s), one_by_one(s));
    }
}
