use super::*;
use alloc::string::ToString;

#[test]
fn defaults_and_lookup() {
    let t = IdfTable::default();
    assert!(t.is_empty());
    assert_eq!(t.len(), 0);
    assert_eq!(t.get("anything"), 1.0);
    assert_eq!(t.content_hash(), 0);
    let t = IdfTable::from_pairs([("a".to_string(), 0.5), ("b".to_string(), 0.0)]);
    assert_eq!((t.get("a"), t.get("b"), t.get("c")), (0.5, 0.0, 1.0));
}

#[test]
fn from_pairs_skips_invalid_weights_and_later_wins() {
    let t = IdfTable::from_pairs([
        ("nan", f32::NAN),
        ("inf", f32::INFINITY),
        ("ninf", f32::NEG_INFINITY),
        ("neg", -0.5),
        ("x", 2.0),
        ("x", 3.0),
        // A skipped pair does not erase an earlier valid one.
        ("x", f32::NAN),
    ]);
    assert_eq!(t.len(), 1);
    assert_eq!(t.get("x"), 3.0);
    assert_eq!(t.get("nan"), 1.0);
    assert_eq!(t.get("neg"), 1.0);
}

#[test]
fn try_from_pairs_names_token_and_value() {
    let cases: [(&str, f32, &str); 4] = [
        ("the", f32::NAN, "NaN"),
        ("a", f32::INFINITY, "inf"),
        ("b", f32::NEG_INFINITY, "-inf"),
        ("dog", -3.0, "-3"),
    ];
    for (tok, w, shown) in cases {
        let err = IdfTable::try_from_pairs([("ok", 1.0), (tok, w)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            alloc::format!(
                "invalid input: IDF weight of token \"{tok}\" must be finite and non-negative, got {shown}"
            )
        );
    }
    let t = IdfTable::try_from_pairs([("z", 0.0), ("z", 7.5)]).unwrap();
    assert_eq!(t.get("z"), 7.5);
}

#[test]
fn content_hash_tracks_entries_not_order() {
    let a = IdfTable::from_pairs([("x", 1.5), ("y", 2.0)]);
    let b = IdfTable::from_pairs([("y", 2.0), ("x", 1.5)]);
    assert_eq!(a, b);
    assert_eq!(a.content_hash(), b.content_hash());
    assert_ne!(a.content_hash(), 0);
    let c = IdfTable::from_pairs([("x", 1.5), ("y", 2.5)]);
    assert_ne!(a, c);
    assert_ne!(a.content_hash(), c.content_hash());
    // Token boundaries matter.
    let d = IdfTable::from_pairs([("ab", 1.0), ("c", 1.0)]);
    let e = IdfTable::from_pairs([("a", 1.0), ("bc", 1.0)]);
    assert_ne!(d.content_hash(), e.content_hash());
    // -0.0 and 0.0 are the same weight.
    let z1 = IdfTable::from_pairs([("z", 0.0)]);
    let z2 = IdfTable::from_pairs([("z", -0.0)]);
    assert_eq!(z1, z2);
    assert_eq!(z1.content_hash(), z2.content_hash());
}

#[test]
fn clone_shares_and_debug_is_short() {
    let a = IdfTable::from_pairs([("x", 1.5)]);
    let b = a.clone();
    assert!(Arc::ptr_eq(&a.inner, &b.inner));
    let dbg = alloc::format!("{a:?}");
    assert!(
        dbg.starts_with("IdfTable { len: 1, content_hash: "),
        "{dbg}"
    );
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trip_and_validation() {
    let t = IdfTable::from_pairs([("dog", 0.5), ("cat", 2.0)]);
    let json = serde_json::to_string(&t).unwrap();
    assert_eq!(json, r#"{"cat":2.0,"dog":0.5}"#);
    let back: IdfTable = serde_json::from_str(&json).unwrap();
    assert_eq!(back, t);
    let err = serde_json::from_str::<IdfTable>(r#"{"dog":-1.0}"#).unwrap_err();
    assert!(err.to_string().contains("\"dog\""), "{err}");
}
