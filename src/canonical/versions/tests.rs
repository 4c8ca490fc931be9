use super::*;
use alloc::format;

/// W19: a dependency bump that moves a Unicode table must fail here
/// (and then be released as a format change), not silently change
/// signatures. Values from golden-edge.jsonl.meta.json.
#[test]
fn versions_equal_those_of_the_goldens() {
    let v = unicode_versions();
    assert_eq!(
        v.normalization,
        (18, 0, 0),
        "unicode-normalization tables moved"
    );
    assert_eq!(
        v.segmentation,
        (17, 0, 0),
        "unicode-segmentation tables moved"
    );
    assert_eq!(v.case_folding, (16, 0, 0), "caseless tables moved");
    #[cfg(feature = "security")]
    assert_eq!(
        v.security,
        Some((18, 0, 0)),
        "unicode-security tables moved"
    );
    #[cfg(not(feature = "security"))]
    assert_eq!(v.security, None);
}

#[cfg(feature = "std")]
#[test]
fn versions_equal_the_golden_meta_file_when_present() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/golden/golden-edge.jsonl.meta.json"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        std::eprintln!("SKIPPED: {path} not found");
        return;
    };
    let meta: serde_json::Value = serde_json::from_str(&text).expect("meta.json parses");
    let want = &meta["unicode_versions"];
    let s = |t: (u8, u8, u8)| format!("{}.{}.{}", t.0, t.1, t.2);
    let v = unicode_versions();
    assert_eq!(want["unicode-normalization"], s(v.normalization).as_str());
    assert_eq!(want["unicode-segmentation"], s(v.segmentation).as_str());
    assert_eq!(want["caseless"], s(v.case_folding).as_str());
    if let Some(sec) = v.security {
        assert_eq!(want["unicode-security"], s(sec).as_str());
    }
}

#[test]
fn display_lists_every_table() {
    let v = UnicodeVersions {
        normalization: (18, 0, 0),
        segmentation: (17, 0, 0),
        case_folding: (16, 0, 0),
        security: None,
    };
    assert_eq!(
        format!("{v}"),
        "normalization 18.0.0, segmentation 17.0.0, case folding 16.0.0, security off"
    );
    let v = UnicodeVersions {
        security: Some((18, 0, 0)),
        ..v
    };
    assert!(format!("{v}").ends_with("security 18.0.0"));
}
