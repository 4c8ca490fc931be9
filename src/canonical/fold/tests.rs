use super::*;
use alloc::string::ToString;

#[test]
fn no_fold_outside_may_fold() {
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        if !may_fold(c as u32) {
            let folded = caseless::default_case_fold_str(c.encode_utf8(&mut [0; 4]));
            assert_eq!(
                folded,
                c.to_string(),
                "U+{:04X} folds but is skipped",
                c as u32
            );
        }
    }
}

#[test]
fn bitmaps_equal_caseless() {
    for u in (0..0x600).chain(0x1000..0x2000) {
        let Some(c) = char::from_u32(u) else { continue };
        let folds = caseless::default_case_fold_str(c.encode_utf8(&mut [0; 4])) != c.to_string();
        assert_eq!(has_folding(c), folds, "U+{u:04X}");
    }
}

#[test]
fn table_version_is_caseless_version() {
    let v = caseless::UNICODE_VERSION;
    assert_eq!(
        UNICODE_VERSION,
        (v.0 as u8, v.1 as u8, v.2 as u8),
        "regenerate fold/data.rs"
    );
}

#[test]
fn push_folded_matches_caseless_for_every_code_point() {
    let mut out = String::new();
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        out.clear();
        let changed = push_folded(&mut out, c);
        let want = caseless::default_case_fold_str(c.encode_utf8(&mut [0; 4]));
        assert_eq!(out, want, "U+{:04X}", c as u32);
        assert_eq!(
            changed,
            want != c.to_string(),
            "U+{:04X} change flag",
            c as u32
        );
    }
}

#[test]
fn full_folding_examples() {
    let fold = |s: &str| {
        let mut out = String::new();
        s.chars().for_each(|c| {
            push_folded(&mut out, c);
        });
        out
    };
    assert_eq!(fold("Straße ẞ"), "strasse ss");
    assert_eq!(fold("İ"), "i\u{307}");
    assert_eq!(fold("\u{FB01}\u{FB05}"), "fist");
    assert_eq!(fold("\u{1F88}"), "\u{1F00}\u{3B9}");
    assert_eq!(fold("\u{AB70}"), "\u{13A0}"); // Cherokee small folds to capital
    assert_eq!(fold("ς\u{B5}\0"), "σ\u{3BC}\0");
}
