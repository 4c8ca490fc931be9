//! COMPAT.md W20: `FingerprintMetadata.algorithm` is a `&'static str`.

use txtfp::{FingerprintMetadata, UNCOMPUTED_CONFIG_HASH, algo};

fn tlsh_meta() -> FingerprintMetadata {
    // 0.3.2 code: the struct literal with a string literal label.
    FingerprintMetadata {
        algorithm: "tlsh",
        config_hash: UNCOMPUTED_CONFIG_HASH,
        model_id: None,
        schema_version: 1,
        byte_size: 72,
    }
}

#[test]
fn metadata_algorithm_is_a_static_str() {
    let m = tlsh_meta();
    let a: &'static str = m.algorithm;
    assert_eq!(a, algo::TLSH);
    // A `&'static str` outlives the metadata it came from.
    let label = {
        let tmp = m.clone().with_config_hash(7);
        tmp.algorithm
    };
    assert_eq!(label, "tlsh");
    // A function taking the 0.3.2 type.
    fn takes_static(s: &'static str) -> usize {
        s.len()
    }
    assert_eq!(takes_static(m.algorithm), 4);
    #[cfg(feature = "simhash")]
    {
        let m = txtfp::Fingerprint::SimHash(txtfp::SimHash64(1)).metadata();
        let a: &'static str = m.algorithm;
        assert_eq!(a, algo::SIMHASH_64);
    }
}

/// The fix: metadata reads back (0.3.2 had no serde here), onto the same
/// `'static` labels, and an unknown label is refused by name.
#[cfg(feature = "serde")]
#[test]
fn metadata_serde_round_trip_and_unknown_label() {
    let m = tlsh_meta().with_config_hash(42);
    let json = serde_json::to_string(&m).unwrap();
    assert_eq!(
        json,
        r#"{"algorithm":"tlsh","config_hash":42,"model_id":null,"schema_version":1,"byte_size":72}"#
    );
    let back: FingerprintMetadata = serde_json::from_str(&json).unwrap();
    assert_eq!(back, m);
    let a: &'static str = back.algorithm;
    assert!(core::ptr::eq(a, algo::TLSH));
    let err = serde_json::from_str::<FingerprintMetadata>(&json.replace("tlsh", "sha1"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown fingerprint algorithm `sha1`"),
        "{err}"
    );
}
