use super::*;
use alloc::string::ToString;

fn meta(algorithm: &'static str) -> FingerprintMetadata {
    FingerprintMetadata {
        algorithm,
        config_hash: 0x1ffc_8214_c1e9_e9db,
        model_id: Some("m".into()),
        schema_version: 1,
        byte_size: 1032,
    }
}

/// COMPAT.md W20: the field is 0.3.2's `&'static str`, the JSON is the
/// derived shape, and reading maps every known label back.
#[test]
fn metadata_serde_maps_known_labels() {
    for &label in algo::ALL {
        let m = meta(label);
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(
            json,
            format!(
                r#"{{"algorithm":"{label}","config_hash":{},"model_id":"m","schema_version":1,"byte_size":1032}}"#,
                0x1ffc_8214_c1e9_e9db_u64
            )
        );
        let back: FingerprintMetadata = serde_json::from_str(&json).unwrap();
        assert_eq!(back, m);
        let a: &'static str = back.algorithm;
        assert_eq!(algo::lookup(a), Some(label));
        // An owned string (escaped JSON is not borrowed) maps too.
        let escaped = json.replacen(&label[..1], &format!("\\u{:04x}", label.as_bytes()[0]), 1);
        assert_ne!(escaped, json);
        assert_eq!(
            serde_json::from_str::<FingerprintMetadata>(&escaped).unwrap(),
            m
        );
    }
}

#[test]
fn metadata_serde_rejects_unknown_label() {
    let json = serde_json::to_string(&meta(algo::TLSH))
        .unwrap()
        .replace("\"tlsh\"", "\"tlsh2\"");
    let err = serde_json::from_str::<FingerprintMetadata>(&json)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with(
            "unknown fingerprint algorithm `tlsh2`, expected one of minhash-h128, minhash, \
                 fast-minhash-h128, simhash-b64, tlsh, embedding"
        ),
        "{err}"
    );
    assert!(serde_json::from_str::<FingerprintMetadata>(&json.replace("\"tlsh2\"", "7")).is_err());
    // Unknown fields are still refused.
    let extra = serde_json::to_string(&meta(algo::TLSH))
        .unwrap()
        .replace('}', r#","x":1}"#);
    assert!(serde_json::from_str::<FingerprintMetadata>(&extra).is_err());
}
