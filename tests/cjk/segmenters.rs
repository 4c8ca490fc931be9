//! The opt-in `+uax29` jieba mode and Korean eojeol words on real sentences.
#![cfg(feature = "cjk")]

use txtfp::{
    Canonicalizer, CjkSegmenter, CjkTokenizer, Fingerprinter, MinHashFingerprinter,
    ShingleTokenizer, Tokenizer, WordTokenizer, jaccard,
};

fn toks(t: &CjkTokenizer, s: &str) -> Vec<String> {
    let mut v = Vec::new();
    t.for_each_token(s, &mut |x| v.push(x.to_string()));
    let streamed: Vec<String> = t.tokens(s).into_string_iter().collect();
    assert_eq!(
        v, streamed,
        "tokens() and for_each_token() disagree on {s:?}"
    );
    v
}

#[test]
fn chinese_sentences_in_unicode_words_mode() {
    let t = CjkTokenizer::default().with_unicode_words(true);
    let c = txtfp::canonicalize;
    // Full-width punctuation is folded to ASCII by the canonicalizer, then dropped.
    assert_eq!(
        toks(&t, &c("我们在北京大学学习中文，也喝咖啡。")),
        ["我们", "在", "北京大学", "学习", "中文", "也", "喝咖啡"]
    );
    assert_eq!(
        toks(&t, &c("Rust语言的版本是1.85，支持café和naïve这样的词。")),
        [
            "rust", "语言", "的", "版本", "是", "1.85", "支持", "café", "和", "naïve", "这样",
            "的", "词"
        ]
    );
    // The legacy default on the same text: punctuation and shredded accents.
    let legacy = toks(&CjkTokenizer::default(), &c("支持café和naïve"));
    assert_eq!(legacy, ["支持", "caf", "é", "和", "na", "ï", "ve"]);
}

#[test]
fn non_chinese_text_in_unicode_words_mode_equals_word_tokenizer() {
    let t = CjkTokenizer::default().with_unicode_words(true);
    for s in [
        "Le café est déjà prêt, n'est-ce pas?",
        "Привет, мир! Это тест.",
        "こんにちは、カタカナのテスト。",
        "",
    ] {
        let mut w = Vec::new();
        WordTokenizer.for_each_token(s, &mut |x| w.push(x.to_string()));
        assert_eq!(toks(&t, s), w, "{s}");
    }
}

#[test]
fn korean_sentences_as_eojeol() {
    let t = CjkTokenizer::new(CjkSegmenter::KoreanEojeol);
    assert_eq!(
        toks(&t, "저는 서울에서 한국어를 공부하고 있습니다."),
        ["저는", "서울에서", "한국어를", "공부하고", "있습니다"]
    );
    assert_eq!(
        toks(&t, "대한민국(大韓民國)의 수도는 서울이다!"),
        [
            "대한민국",
            "大",
            "韓",
            "民",
            "國",
            "의",
            "수도는",
            "서울이다"
        ]
    );
    // Legacy jieba shreds Hangul one syllable at a time.
    assert_eq!(
        toks(&CjkTokenizer::default(), "한국어를"),
        ["한", "국", "어", "를"]
    );
}

#[test]
fn korean_near_duplicates_score_high() {
    let fp = MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 2,
            inner: CjkTokenizer::new(CjkSegmenter::KoreanEojeol),
        },
    );
    let a = fp
        .fingerprint("서울은 대한민국의 수도이며 가장 큰 도시이다. 한강이 도시를 가로질러 흐른다.")
        .unwrap();
    let b = fp
        .fingerprint("서울은 대한민국의 수도이며 가장 큰 도시이다. 한강이 도시를 가로질러 흐른다!")
        .unwrap();
    let c = fp
        .fingerprint("부산은 한국 남동부에 있는 항구 도시로 해운대 해수욕장이 유명하다.")
        .unwrap();
    assert!(jaccard(&a, &b) > 0.9 && jaccard(&a, &c) < 0.2);
}

/// Every Chinese document of corpus-small through the `+uax29` mode: each
/// token has a letter or digit, no Han character is lost or duplicated, and
/// Han tokens are jieba's words (mean length above one character).
#[test]
fn unicode_words_mode_on_corpus_small_chinese() {
    let Some(path) = crate::common::shared_file("corpus/corpus-small.jsonl") else {
        return;
    };
    let t = CjkTokenizer::default().with_unicode_words(true);
    let han =
        |c: char| ('\u{4E00}'..='\u{9FFF}').contains(&c) || ('\u{3400}'..='\u{4DBF}').contains(&c);
    let (mut docs, mut han_tokens, mut han_chars) = (0, 0usize, 0usize);
    for v in crate::common::read_jsonl(&path) {
        if !v["lang"].as_str().unwrap_or("").starts_with("zh") {
            continue;
        }
        docs += 1;
        let text = txtfp::canonicalize(v["text"].as_str().unwrap());
        let got = toks(&t, &text);
        let letters = |s: &str| s.chars().filter(|&c| han(c)).collect::<String>();
        assert_eq!(
            got.iter().map(|t| letters(t)).collect::<String>(),
            letters(&text),
            "{}",
            v["id"]
        );
        for tok in &got {
            assert!(
                tok.chars().any(char::is_alphanumeric),
                "{}: {tok:?}",
                v["id"]
            );
            if tok.chars().any(han) {
                han_tokens += 1;
                han_chars += tok.chars().count();
            }
        }
    }
    assert!(docs >= 30, "only {docs} Chinese documents");
    let mean = han_chars as f64 / han_tokens as f64;
    assert!(mean > 1.3, "mean Han token length {mean:.2}");
}
