use super::*;
use alloc::string::String;
use alloc::vec::Vec;

fn stretches(s: &str) -> Vec<(String, bool)> {
    let mut v = Vec::new();
    for_each_stretch(s, is_cjk_letter, |t, k| v.push((t.into(), k)));
    v
}

#[test]
fn classes() {
    for c in [
        '中', '㐀', '𠀀', '々', 'あ', 'ア', 'ー', 'ㇰ', 'ｱ', '한', 'ᄀ',
    ] {
        assert!(is_cjk_letter(c), "{c:?}");
    }
    for c in ['a', 'é', '、', '。', '・', '･', '「', '！', ' ', '1'] {
        assert!(!is_cjk_letter(c), "{c:?}");
    }
    assert!(is_han('中') && !is_han('あ') && !is_han('한'));
}

#[test]
fn stretches_cover_the_text() {
    let s = "東京で café を買った。Rust 언어!";
    let v = stretches(s);
    let joined: String = v.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(joined, s);
    for w in v.windows(2) {
        assert_ne!(w[0].1, w[1].1, "stretches must alternate: {v:?}");
    }
    assert_eq!(v[0], ("東京で".into(), true));
    assert_eq!(v[1], (" café ".into(), false));
    assert!(stretches("").is_empty());
}
