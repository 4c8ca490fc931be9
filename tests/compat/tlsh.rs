//! COMPAT.md W10: `TlshFingerprint`'s public `hex` field.
#![cfg(feature = "tlsh")]

use txtfp::{Canonicalizer, Fingerprinter, TlshFingerprint, TlshFingerprinter, tlsh_distance};

const HEX: &str = "T1EFB02B0A1005D3D01CC116AD474F55F550CC8110110210000828E00304000320E6D0D5";

#[test]
fn tlsh_hex_field_compiles() {
    let fp = TlshFingerprinter::new(Canonicalizer::default());
    let t = fp
        .fingerprint("the quick brown fox jumps over the lazy dog, again and again and again")
        .unwrap();
    let hex: &String = &t.hex;
    assert_eq!(hex.len(), 72);
    let built = TlshFingerprint { hex: t.hex.clone() };
    assert_eq!(built, t);
    assert_eq!(tlsh_distance(&built, &t).unwrap(), 0);
}

/// The fix: what is written into the field is checked where it is used.
#[test]
fn tlsh_written_field_is_checked_where_used() {
    let good = TlshFingerprint {
        hex: HEX.to_string(),
    };
    let lower = TlshFingerprint {
        hex: format!("T1{}", HEX[2..].to_ascii_lowercase()),
    };
    assert_eq!(good, lower);
    let bad = TlshFingerprint {
        hex: "T1ABC".into(),
    };
    assert!(tlsh_distance(&good, &bad).is_err());
    #[cfg(feature = "serde")]
    assert!(serde_json::to_string(&bad).is_err());
}
