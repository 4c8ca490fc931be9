use alloc::string::{String, ToString};
use alloc::vec::Vec;

use proptest::prelude::*;
use unicode_segmentation::UnicodeSegmentation;

use super::jieba::jieba;
use super::script::is_han;
use super::*;

fn each(t: &CjkTokenizer, s: &str) -> Vec<String> {
    let mut v = Vec::new();
    t.for_each_token(s, &mut |x| v.push(x.to_string()));
    v
}

fn stream(t: &CjkTokenizer, s: &str) -> Vec<String> {
    t.tokens(s).into_string_iter().collect()
}

/// Plain reference for the `+uax29` mode: glue the non-Han jieba pieces
/// back into strings and split those with `unicode_words` directly.
fn words_reference(s: &str, hmm: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut gap = String::new();
    for p in jieba().cut(s, hmm) {
        if p.chars().any(is_han) {
            out.extend(gap.unicode_words().map(String::from));
            gap.clear();
            out.push(p.to_string());
        } else {
            gap.push_str(p);
        }
    }
    out.extend(gap.unicode_words().map(String::from));
    out
}

#[test]
fn names_are_stable() {
    let j = CjkTokenizer::new(CjkSegmenter::Jieba);
    assert_eq!(j.name(), "cjk-jieba");
    assert_eq!(j.with_hmm(true).name(), "cjk-jieba-hmm");
    assert_eq!(j.with_unicode_words(true).name(), "cjk-jieba+uax29");
    assert_eq!(
        j.with_hmm(true).with_unicode_words(true).name(),
        "cjk-jieba-hmm+uax29"
    );
    assert_eq!(
        CjkTokenizer::new(CjkSegmenter::KoreanEojeol).name(),
        "cjk-ko-eojeol"
    );
    assert_eq!(CjkTokenizer::default(), j);
    assert!(!j.uses_hmm() && !j.uses_unicode_words());
    assert!(CjkTokenizer::new(CjkSegmenter::KoreanEojeol).uses_unicode_words());
    assert_eq!(j.with_hmm(true).segmenter(), CjkSegmenter::Jieba);
}

#[test]
fn jieba_segments_chinese() {
    let t = CjkTokenizer::default();
    assert_eq!(each(&t, "我爱北京天安门"), ["我", "爱", "北京", "天安门"]);
    // Punctuation kept, whitespace dropped (legacy rule).
    assert_eq!(each(&t, "中文 测试。"), ["中文", "测试", "。"]);
    assert!(each(&t, "").is_empty());
}

#[test]
fn hmm_changes_out_of_vocabulary_words_only() {
    // "杭研" is not in jieba's dictionary: HMM joins it, the DAG does not.
    let s = "他来到了网易杭研大厦";
    let plain = each(&CjkTokenizer::default(), s);
    let hmm = each(&CjkTokenizer::default().with_hmm(true), s);
    assert_eq!(plain, ["他", "来到", "了", "网易", "杭", "研", "大厦"]);
    assert_eq!(hmm, ["他", "来到", "了", "网易", "杭研", "大厦"]);
}

#[test]
fn korean_eojeol_are_uax29_words() {
    let t = CjkTokenizer::new(CjkSegmenter::KoreanEojeol);
    let s = "저는 한국어를 배우고 있습니다. 서울(首爾)에 살아요!";
    let want: Vec<String> = s.unicode_words().map(String::from).collect();
    assert_eq!(each(&t, s), want);
    assert_eq!(&want[..4], ["저는", "한국어를", "배우고", "있습니다"]);
}

#[test]
fn both_paths_agree_on_every_mode() {
    let s = "Rust 语言，café 3.14% C++ 東京タワー 한국어 🎉 「引用」\u{3000}end";
    for t in [
        CjkTokenizer::default(),
        CjkTokenizer::default().with_hmm(true),
        CjkTokenizer::default().with_unicode_words(true),
        CjkTokenizer::default()
            .with_hmm(true)
            .with_unicode_words(true),
        CjkTokenizer::new(CjkSegmenter::KoreanEojeol),
    ] {
        assert_eq!(each(&t, s), stream(&t, s), "{}", t.name());
    }
}

#[test]
fn reentrant_callback_is_fine() {
    let t = CjkTokenizer::default().with_unicode_words(true);
    let mut n = 0;
    t.for_each_token("北京 café", &mut |_| {
        t.for_each_token("天安门", &mut |_| n += 1);
    });
    assert_eq!(n, 2);
}

fn mixed_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "北京",
        "天安门",
        "我",
        "爱",
        "的",
        "中文",
        "测试",
        "咖啡",
        "café",
        "naïve",
        "Rust",
        "3.14",
        "1,000",
        "C++",
        "a-b",
        "don't",
        " ",
        "  ",
        "\n",
        "\t",
        ",",
        "。",
        "，",
        "!",
        "?",
        "「",
        "」",
        "東京",
        "タワー",
        "ひらがな",
        "한국어",
        "를",
        "🎉",
        "\u{0301}",
        "e",
        "x_y",
        "%",
        "#",
        "&",
    ]);
    prop::collection::vec(pieces, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn words_mode_matches_reference(s in mixed_text(), hmm in any::<bool>()) {
        let t = CjkTokenizer::default().with_hmm(hmm).with_unicode_words(true);
        let want = words_reference(&s, hmm);
        prop_assert_eq!(each(&t, &s), want.clone());
        prop_assert_eq!(stream(&t, &s), want);
    }

    #[test]
    fn legacy_is_jieba_minus_whitespace(s in mixed_text(), hmm in any::<bool>()) {
        let t = CjkTokenizer::default().with_hmm(hmm);
        let want: Vec<String> = jieba()
            .cut(&s, hmm)
            .into_iter()
            .filter(|p| !p.trim().is_empty())
            .map(String::from)
            .collect();
        prop_assert_eq!(each(&t, &s), want.clone());
        prop_assert_eq!(stream(&t, &s), want);
    }

    #[test]
    fn words_mode_has_no_punctuation_tokens(s in mixed_text()) {
        let t = CjkTokenizer::default().with_unicode_words(true);
        for tok in each(&t, &s) {
            prop_assert!(tok.chars().any(|c| c.is_alphanumeric()), "token {:?}", tok);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(s in any::<String>()) {
        for t in [CjkTokenizer::default(), CjkTokenizer::default().with_unicode_words(true)] {
            let _ = each(&t, &s);
        }
    }
}

#[test]
fn long_text_is_cut_like_one_call() {
    // Longer than a jieba piece: the piecewise path must match one `cut`.
    let s = "我来到北京清华大学，café 3.14%\r\n한국어 C++ 他来到了网易杭研大厦。".repeat(300);
    for hmm in [false, true] {
        let whole: Vec<String> = jieba()
            .cut(&s, hmm)
            .into_iter()
            .filter(|p| !p.trim().is_empty())
            .map(String::from)
            .collect();
        let t = CjkTokenizer::default().with_hmm(hmm);
        assert_eq!(each(&t, &s), whole);
        assert_eq!(stream(&t, &s), whole);
        assert_eq!(
            each(&t.with_unicode_words(true), &s),
            words_reference(&s, hmm)
        );
    }
}
