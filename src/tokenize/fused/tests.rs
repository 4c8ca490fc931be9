use alloc::string::ToString;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::tokenize::{GraphemeTokenizer, ShingleTokenizer, WordTokenizer};

fn generic<T: Tokenizer>(t: &T, s: &str) -> Vec<String> {
    let mut v = Vec::new();
    t.for_each_token(s, &mut |x| v.push(x.to_string()));
    v
}

fn fused<T: Tokenizer>(t: &T, s: &str) -> Vec<String> {
    let mut v = Vec::new();
    for_each_token(t, s, |x| v.push(x.to_string()));
    let mut b = Vec::new();
    for_each_token_bytes(t, s, |x| b.push(String::from_utf8(x.to_vec()).unwrap()));
    assert_eq!(b, v, "byte tokens differ from str tokens");
    let mut batched = Vec::new();
    for_each_token_batch(t, s, |buf, starts, ends| {
        assert!(!starts.is_empty() && starts.len() == ends.len());
        for (&from, &to) in starts.iter().zip(ends) {
            batched.push(String::from_utf8(buf[from..to].to_vec()).unwrap());
        }
    });
    assert_eq!(batched, v, "batched tokens differ from str tokens");
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn word_shingles_equal_generic(
        k in 0usize..9,
        parts in proptest::collection::vec(prop_oneof![
            "[a-c0-2 .,:'_\\n\\t-]{0,12}",
            "[\\u{300}\\u{200B}é中ﬁ’ \\u{1F600}a.1]{0,6}",
            Just("  ".to_string()),
        ], 0..10)
    ) {
        let s: String = parts.concat();
        let t = ShingleTokenizer { k, inner: WordTokenizer };
        prop_assert_eq!(fused(&t, &s), generic(&t, &s));
        prop_assert_eq!(fused(&WordTokenizer, &s), generic(&WordTokenizer, &s));
        let g = ShingleTokenizer { k, inner: GraphemeTokenizer };
        prop_assert_eq!(fused(&g, &s), generic(&g, &s));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Texts of hundreds of words: shingle batches fill up at every
    /// alignment, and the batched word loop stops and resumes there
    /// (`window_compacts_and_grows` covers the other stop).
    #[test]
    fn long_texts_equal_generic(
        k in 1usize..9,
        s in "(([a-z]{1,12}|[a-z]{30,70}|_)([ ,.\n]{1,3}|[ ,]{5,40})){100,700}",
    ) {
        let t = ShingleTokenizer { k, inner: WordTokenizer };
        prop_assert_eq!(fused(&t, &s), generic(&t, &s));
    }
}

#[test]
fn large_k_and_references() {
    let s = "a b  c d e f g h i j k l m n o p q r s t u v w x y z ".repeat(5);
    for k in [1, 2, 5, 63, 64, 65, 200] {
        let t = ShingleTokenizer {
            k,
            inner: WordTokenizer,
        };
        assert_eq!(fused(&t, &s), generic(&t, &s), "k = {k}");
        assert_eq!(fused(&&t, &s), generic(&t, &s), "k = {k} via &T");
    }
}

/// Long documents (the window buffer compacts) and words longer than
/// the fixed copy and than the whole buffer (it grows), near the end of
/// the text (exact copies) and far from it.
#[test]
fn window_compacts_and_grows() {
    let mut s = String::new();
    for i in 0..3000usize {
        let len = [1, 7, 31, 32, 33, 64, 5000][i % 7] + i % 3;
        s.push_str(&"xyz".repeat(len).as_str()[..len]);
        s.push_str([" ", ", ", "\n", "  "][i % 4]);
    }
    for k in [1, 2, 5, 64] {
        let t = ShingleTokenizer {
            k,
            inner: WordTokenizer,
        };
        assert_eq!(fused(&t, &s), generic(&t, &s), "k = {k}");
        let short = &s[..40];
        assert_eq!(fused(&t, short), generic(&t, short), "k = {k}");
    }
}
