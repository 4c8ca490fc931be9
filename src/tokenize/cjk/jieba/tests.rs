use super::*;
use alloc::string::{String, ToString};

fn words(s: &str, hmm: bool) -> Vec<String> {
    let mut v = Vec::new();
    words_mode(s, hmm, &mut |a, b| v.push(s[a..b].to_string()));
    v
}

fn legacy(s: &str) -> Vec<String> {
    legacy_tokens(s, false)
        .into_iter()
        .map(String::from)
        .collect()
}

#[test]
fn legacy_keeps_punctuation_and_shreds_accents() {
    // The spec's observed behaviour (W22), kept for byte parity.
    assert_eq!(legacy("café"), ["caf", "é"]);
    assert_eq!(legacy("3.14"), ["3", ".", "14"]);
    assert_eq!(
        legacy("我爱北京天安门!"),
        ["我", "爱", "北京", "天安门", "!"]
    );
    assert!(legacy(" \t\n ").is_empty());
}

#[test]
fn words_mode_fixes_w22() {
    assert_eq!(words("café", false), ["café"]);
    assert_eq!(
        words("3.14 北京, 天安门!", false),
        ["3.14", "北京", "天安门"]
    );
    assert_eq!(
        words("我爱北京天安门，在café喝咖啡。", false),
        ["我", "爱", "北京", "天安门", "在", "café", "喝咖啡"]
    );
    assert_eq!(words("", true), Vec::<String>::new());
    assert_eq!(words("!!! ...", true), Vec::<String>::new());
}

fn pieces_alphabet() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let atoms = prop::sample::select(vec![
        "北京",
        "大学生",
        "中",
        "国",
        "人民",
        "a",
        "Z9",
        "C++",
        "3.14",
        "_",
        "%",
        "-",
        "&",
        "#",
        " ",
        "\r",
        "\n",
        "\r\n",
        "\t",
        "\u{3000}",
        ",",
        "。",
        "é",
        "ア",
        "한",
        "😀",
        "!",
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Cutting piece by piece (pieces as small as one byte) gives exactly
    /// jieba's output on the whole text.
    #[test]
    fn pieces_equal_whole_cut(s in pieces_alphabet(), target in 1usize..12, hmm in proptest::prelude::any::<bool>()) {
        let whole = jieba().cut(&s, hmm);
        let mut got = Vec::new();
        cut_pieces(&s, hmm, target, &mut |p| got.push(p));
        proptest::prop_assert_eq!(got, whole);
    }
}

#[test]
fn callback_and_vec_agree() {
    let s = "他来到了网易杭研大厦 C++ and Rust, 3.14 …";
    for hmm in [false, true] {
        let mut a = Vec::new();
        legacy_for_each(s, hmm, &mut |t| a.push(t.to_string()));
        let b: Vec<String> = legacy_tokens(s, hmm)
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(a, b);
    }
}
