use super::*;
use alloc::vec;

fn toks(text: &str) -> Vec<String> {
    let c = doc_v1_canonicalizer().canonicalize(text);
    let mut out = Vec::new();
    DocV1Tokenizer::default().each(&c, |t| out.push(String::from(t)));
    out
}

#[test]
fn word_characters_and_letters() {
    assert_eq!(toks("Hello, World!"), ["hello", "world"]);
    assert_eq!(
        toks("room 101, the 3rd floor"),
        ["room", "the", "3rd", "floor"]
    );
    assert_eq!(
        toks("snake_case e-mail U.S.A."),
        ["snake_case", "e", "mail", "usa"]
    );
    // Ligature and full-width letters fold under NFKC.
    assert_eq!(toks("ﬁle ＡＢＣ"), ["file", "abc"]);
    // Soft hyphen (Cf, Word_Break=Format) joins and then vanishes.
    assert_eq!(toks("co\u{ad}operate"), ["cooperate"]);
    // A variation selector (Mn, default ignorable) is dropped.
    assert_eq!(toks("a\u{fe0f}b"), ["ab"]);
    // Emoji and symbols are no tokens.
    assert_eq!(toks("🦀 + ∑ = ok"), ["ok"]);
    // Han ideographs are one segment each.
    assert_eq!(toks("東京に行く"), ["東", "京", "に", "行", "く"]);
    // Combining marks (Mn) stay; a spacing mark (Mc) is dropped.
    assert_eq!(toks("e\u{301}te\u{301}"), ["été"]);
    assert_eq!(toks("हिन्दी"), ["हन\u{94d}द"]);
}

#[test]
fn category_predicates() {
    for c in ['a', 'Z', 'é', 'ß', 'ǅ', 'ʰ', '東', 'ا'] {
        assert!(is_word_char(c) && is_letter(c), "{c:?}");
    }
    for c in ['7', '٣', '_', '\u{301}', '‿'] {
        assert!(is_word_char(c) && !is_letter(c), "{c:?}");
    }
    for c in [
        '-', ' ', '\u{200d}', '\u{ad}', '\u{93f}', '½', 'Ⅻ', '\u{fe0f}', '\u{3164}',
    ] {
        assert!(!is_word_char(c) && !is_letter(c), "{c:?}");
    }
}

#[test]
fn stop_words_are_dropped_and_named() {
    let t = DocV1Tokenizer::with_stop_words(StopWords::builtin("en").unwrap());
    let c = doc_v1_canonicalizer().canonicalize("The fox and THE hound");
    let mut out = vec![];
    t.each(&c, |w| out.push(String::from(w)));
    assert_eq!(out, ["fox", "hound"]);
    assert!(t.name().starts_with("doc-v1-words+stop-"));
    assert_eq!(DocV1Tokenizer::default().name(), "doc-v1-words");
    let a = StopWords::from_words(["b", "a"]);
    let b = StopWords::from_words(["A", "B", "a"]);
    assert_eq!(a.content_hash(), b.content_hash());
    assert_eq!(StopWords::from_words(["42", "!"]).len(), 0);
    for lang in StopWords::LANGUAGES {
        assert!(StopWords::builtin(lang).unwrap().len() > 30, "{lang}");
    }
    assert_eq!(
        StopWords::builtin("xx").unwrap_err().to_string(),
        "invalid input: no built-in stop-word list for language \"xx\"; built in: en, fr, \
             de, es"
    );
}
