//! TLSH: spec vectors, validation, errors, and the distance against a plain
//! reimplementation of the reference formula.

mod kernel;
mod streaming;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::{Canonicalizer, Fingerprinter};

const TEXT: &str = "the quick brown fox jumps over the lazy dog at noon today\n\
                    the slow grey wolf creeps under the loud ravens at dusk\n";
const TEXT_HEX: &str = "T1EFB02B0A1005D3D01CC116AD474F55F550CC8110110210000828E00304000320E6D0D5";

fn msg(r: Result<TlshFingerprint>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn spec_vector_and_distance() {
    let fp = TlshFingerprinter::default();
    let a = fp.fingerprint(TEXT).unwrap();
    assert_eq!(a.hex(), TEXT_HEX);
    assert_eq!(a.as_str(), TEXT_HEX);
    assert_eq!(a.to_string(), TEXT_HEX);
    // Already canonical: the raw bytes give the same digest.
    assert_eq!(fp.sketch_bytes(TEXT.as_bytes()).unwrap(), a);
    let b = fp.fingerprint(&TEXT.replace("noon", "dusk")).unwrap();
    assert_eq!(tlsh_distance(&a, &b).unwrap(), 116);
    assert_eq!(a.distance(&b), 116);
    assert_eq!(tlsh_distance(&a, &a).unwrap(), 0);
    assert_eq!(fp.config_hash(), 0xbf86_01d7_76c0_43cd);
    assert_eq!(
        TlshFingerprinter::new(Canonicalizer::default()).config_hash(),
        fp.config_hash()
    );
}

#[test]
fn canonicalizes_before_hashing() {
    let fp = TlshFingerprinter::default();
    let upper = TEXT.to_uppercase();
    assert_eq!(fp.fingerprint(&upper).unwrap().hex(), TEXT_HEX);
    // sketch_bytes does not canonicalize.
    assert_ne!(fp.sketch_bytes(upper.as_bytes()).unwrap().hex(), TEXT_HEX);
    let other = crate::CanonicalizerBuilder {
        case_fold: crate::CaseFold::None,
        ..Default::default()
    }
    .build();
    assert_ne!(
        TlshFingerprinter::new(other).config_hash(),
        fp.config_hash()
    );
}

#[test]
fn input_errors_match_0_3_2() {
    let fp = TlshFingerprinter::default();
    assert_eq!(msg(fp.fingerprint("")), "invalid input: empty document");
    assert_eq!(
        msg(fp.fingerprint(" ")),
        "invalid input: tlsh requires at least 50 bytes, got 1"
    );
    let s49 = &TEXT[..49];
    assert_eq!(
        msg(fp.sketch_bytes(s49.as_bytes())),
        "invalid input: tlsh requires at least 50 bytes, got 49"
    );
    assert!(
        fp.sketch_bytes(&TEXT.as_bytes()[..TLSH_MIN_INPUT_BYTES])
            .is_ok()
    );
    assert_eq!(
        msg(fp.sketch_bytes(&[b'a'; 200])),
        "invalid input: tlsh build failed (insufficient entropy)"
    );
    assert_eq!(
        format!("{:?}", fp.fingerprint(&"a".repeat(200)).unwrap_err()),
        "InvalidInput(\"tlsh build failed (insufficient entropy)\")"
    );
    // Two alternating bytes: still too few distinct triplets.
    assert!(fp.sketch_bytes(&b"ab".repeat(100)).is_err());
}

#[test]
fn length_limit() {
    assert!(check_max_len(u64::from(u32::MAX)).is_ok());
    assert_eq!(
        check_max_len(u64::from(u32::MAX) + 1)
            .unwrap_err()
            .to_string(),
        "invalid input: tlsh input exceeds 4294967295 bytes, got 4294967296"
    );
}

#[test]
fn hex_validation_messages() {
    let e = |s: &str| TlshFingerprint::new(s).unwrap_err().to_string();
    assert_eq!(
        e(""),
        "invalid input: TLSH hex must be 72 chars (T1 + 70 hex), got 0"
    );
    // 0.2.x's 70-char form (no T1) is rejected on length.
    assert_eq!(
        e(&TEXT_HEX[2..]),
        "invalid input: TLSH hex must be 72 chars (T1 + 70 hex), got 70"
    );
    assert_eq!(
        e(&format!("{TEXT_HEX}0")),
        "invalid input: TLSH hex must be 72 chars (T1 + 70 hex), got 73"
    );
    assert_eq!(
        e(&format!("T2{}", &TEXT_HEX[2..])),
        "invalid input: TLSH hex must start with 'T1'"
    );
    assert_eq!(
        e(&format!("t1{}", &TEXT_HEX[2..])),
        "invalid input: TLSH hex must start with 'T1'"
    );
    assert_eq!(
        e(&format!("{}G", &TEXT_HEX[..71])),
        "invalid input: TLSH hex contains non-hex characters"
    );
    assert_eq!(
        e(&format!("{} ", &TEXT_HEX[..71])),
        "invalid input: TLSH hex contains non-hex characters"
    );
    // 72 bytes but a multi-byte character: still an error, never a panic.
    assert_eq!(
        e(&format!("{}é", &TEXT_HEX[..70])),
        "invalid input: TLSH hex contains non-hex characters"
    );
    assert_eq!(
        e(&format!("é{}", &TEXT_HEX[2..])),
        "invalid input: TLSH hex must start with 'T1'"
    );
    assert!("nope".parse::<TlshFingerprint>().is_err());
    assert!(TlshFingerprint::try_from(String::from("T1")).is_err());
}

#[test]
fn case_is_normalised() {
    let lower = format!("T1{}", TEXT_HEX[2..].to_ascii_lowercase());
    let mixed: String = TEXT_HEX
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if i % 3 == 0 {
                c
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect::<String>()
        .replacen("t1", "T1", 1);
    let up = TlshFingerprint::new(TEXT_HEX).unwrap();
    for s in [lower.as_str(), mixed.as_str()] {
        let f = TlshFingerprint::new(s).unwrap();
        assert_eq!(f, up, "{s}");
        assert_eq!(f.hex(), TEXT_HEX);
        assert_eq!(tlsh_distance(&f, &up).unwrap(), 0);
    }
    use core::hash::BuildHasher;
    let hb = hashbrown::DefaultHashBuilder::default();
    assert_eq!(
        hb.hash_one(TlshFingerprint::new(lower).unwrap()),
        hb.hash_one(&up)
    );
    assert_eq!(String::from(up.clone()), TEXT_HEX);
    assert_eq!(up.clone().into_string(), TEXT_HEX);
    assert_eq!(AsRef::<str>::as_ref(&up), TEXT_HEX);
}

#[test]
fn fingerprint_enum_metadata() {
    let f = crate::Fingerprint::Tlsh(TlshFingerprint::new(TEXT_HEX).unwrap());
    assert_eq!(f.name(), "tlsh-v1");
    let m = f.metadata();
    assert_eq!(
        format!("{m:?}"),
        "FingerprintMetadata { algorithm: \"tlsh\", config_hash: 0, model_id: None, \
         schema_version: 1, byte_size: 72 }"
    );
    let fp = TlshFingerprinter::default();
    assert_eq!(
        f.metadata_with(fp.canonicalizer(), "tlsh", "tlsh-128-1")
            .config_hash,
        fp.config_hash()
    );
}

#[cfg(feature = "serde")]
#[test]
fn serde_validates() {
    let f = TlshFingerprint::new(TEXT_HEX).unwrap();
    let json = serde_json::to_string(&f).unwrap();
    assert_eq!(json, format!("\"{TEXT_HEX}\""));
    assert_eq!(serde_json::from_str::<TlshFingerprint>(&json).unwrap(), f);
    let lower = format!("\"T1{}\"", TEXT_HEX[2..].to_ascii_lowercase());
    assert_eq!(serde_json::from_str::<TlshFingerprint>(&lower).unwrap(), f);
    let err = serde_json::from_str::<TlshFingerprint>("\"T1AB\"").unwrap_err();
    assert!(
        err.to_string()
            .contains("TLSH hex must be 72 chars (T1 + 70 hex), got 4"),
        "{err}"
    );
    assert!(serde_json::from_str::<TlshFingerprint>("{\"hex\":\"x\"}").is_err());
    let e = crate::Fingerprint::Tlsh(f);
    let back: crate::Fingerprint =
        serde_json::from_str(&serde_json::to_string(&e).unwrap()).unwrap();
    assert_eq!(back, e);
}

/// 0.3.2's public field: a value written there directly compiles, compares
/// and hashes by its normalised spelling, and is checked where it is used.
#[test]
fn public_field_is_validated_where_used() {
    let up = TlshFingerprint::new(TEXT_HEX).unwrap();
    let lower = TlshFingerprint {
        hex: format!("T1{}", TEXT_HEX[2..].to_ascii_lowercase()),
    };
    assert!(lower.validate().is_ok());
    assert_eq!(lower, up);
    assert_eq!(lower.cmp(&up), core::cmp::Ordering::Equal);
    use core::hash::BuildHasher;
    let hb = hashbrown::DefaultHashBuilder::default();
    assert_eq!(hb.hash_one(&lower), hb.hash_one(&up));
    assert_eq!(tlsh_distance(&lower, &up).unwrap(), 0);
    assert_eq!(lower.distance(&up), 0);
    // Display shows what is stored, as 0.3.2 did.
    assert_eq!(lower.to_string(), lower.hex);

    let mut bad = up.clone();
    bad.hex.truncate(10);
    assert_eq!(
        bad.validate().unwrap_err().to_string(),
        "invalid input: TLSH hex must be 72 chars (T1 + 70 hex), got 10"
    );
    assert_eq!(
        tlsh_distance(&up, &bad).unwrap_err().to_string(),
        "invalid input: invalid TLSH hex string of length 10"
    );
    assert_eq!(bad.distance(&up), i32::MAX);
    assert_ne!(bad, up);
    for hex in [
        String::new(),
        "T1".into(),
        "é".repeat(36),
        format!("t1{}", &TEXT_HEX[2..]),
        format!("T1{}", "G".repeat(70)),
    ] {
        let f = TlshFingerprint { hex };
        assert!(f.validate().is_err(), "{:?}", f.hex);
        assert!(tlsh_distance(&f, &up).is_err(), "{:?}", f.hex);
        assert!(tlsh_distance(&up, &f).is_err(), "{:?}", f.hex);
    }
}

#[cfg(feature = "serde")]
#[test]
fn serde_rejects_an_invalid_public_field() {
    let bad = TlshFingerprint { hex: "T1AB".into() };
    let err = serde_json::to_string(&bad).unwrap_err();
    assert!(
        err.to_string()
            .contains("TLSH hex must be 72 chars (T1 + 70 hex), got 4"),
        "{err}"
    );
    // A valid lower-case spelling serializes as the upper-case digest.
    let lower = TlshFingerprint {
        hex: format!("T1{}", TEXT_HEX[2..].to_ascii_lowercase()),
    };
    assert_eq!(
        serde_json::to_string(&lower).unwrap(),
        format!("\"{TEXT_HEX}\"")
    );
}

#[cfg(feature = "interop")]
#[test]
fn text_form_of_an_invalid_public_field_never_panics() {
    use crate::classical::TextForm;
    let up = TlshFingerprint::new(TEXT_HEX).unwrap();
    assert_eq!(TlshFingerprint::from_hex(&up.to_hex()).unwrap(), up);
    for hex in [String::new(), "T".into(), "T1ZZ".into()] {
        let f = TlshFingerprint { hex };
        assert_eq!(f.to_hex(), "");
        assert!(TlshFingerprint::from_hex(&f.to_hex()).is_err());
    }
}

/// The reference TLSH difference written out from the algorithm's
/// description, on the hex string, independent of tlsh2.
fn reference_distance(a: &str, b: &str) -> i32 {
    fn bytes(s: &str) -> Vec<u8> {
        (2..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }
    fn swap(x: u8) -> u8 {
        x.rotate_left(4)
    }
    fn circ(x: u8, y: u8, range: i32) -> i32 {
        let d = (i32::from(x) - i32::from(y)).abs();
        d.min(range - d)
    }
    let (a, b) = (bytes(a), bytes(b));
    let mut d = match circ(swap(a[1]), swap(b[1]), 256) {
        0 => 0,
        1 => 1,
        l => l * 12,
    };
    for (qa, qb) in [(a[2] >> 4, b[2] >> 4), (a[2] & 15, b[2] & 15)] {
        let q = circ(qa, qb, 16);
        d += if q <= 1 { q } else { (q - 1) * 12 };
    }
    d += i32::from(a[0] != b[0]);
    for (x, y) in a[3..].iter().zip(&b[3..]) {
        for shift in [0, 2, 4, 6] {
            let e = (i32::from((x >> shift) & 3) - i32::from((y >> shift) & 3)).abs();
            d += if e == 3 { 6 } else { e };
        }
    }
    d
}

#[test]
fn reference_distance_matches_the_spec_vector() {
    let fp = TlshFingerprinter::default();
    let a = fp.fingerprint(TEXT).unwrap();
    let b = fp.fingerprint(&TEXT.replace("noon", "dusk")).unwrap();
    assert_eq!(reference_distance(a.hex(), b.hex()), 116);
}

fn hex_digest() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<u8>(), 35).prop_map(|b| {
        let mut s = String::from("T1");
        for x in b {
            s.push_str(&format!("{x:02X}"));
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn distance_matches_reference(a in hex_digest(), b in hex_digest()) {
        let (fa, fb) = (TlshFingerprint::new(&*a).unwrap(), TlshFingerprint::new(&*b).unwrap());
        let d = tlsh_distance(&fa, &fb).unwrap();
        prop_assert_eq!(d, reference_distance(&a, &b));
        prop_assert_eq!(d, tlsh_distance(&fb, &fa).unwrap());
        prop_assert_eq!(tlsh_distance(&fa, &fa).unwrap(), 0);
    }

    #[test]
    fn parse_never_panics(s in "\\PC{0,80}") {
        if let Ok(f) = TlshFingerprint::new(s.as_str()) {
            prop_assert_eq!(f.hex(), s.to_ascii_uppercase());
        }
        // Written into the public field: checked where used, never a panic,
        // and equality agrees with hashing.
        let raw = TlshFingerprint { hex: s.clone() };
        prop_assert_eq!(raw.validate().is_ok(), TlshFingerprint::new(s.as_str()).is_ok());
        let fixed = TlshFingerprint::new(TEXT_HEX).unwrap();
        prop_assert_eq!(tlsh_distance(&raw, &fixed).is_ok(), raw.validate().is_ok());
        let upper = TlshFingerprint { hex: s.to_ascii_uppercase() };
        prop_assert_eq!(&raw, &upper);
        use core::hash::BuildHasher;
        let hb = hashbrown::DefaultHashBuilder::default();
        prop_assert_eq!(hb.hash_one(&raw), hb.hash_one(&upper));
    }

    #[test]
    fn sketch_is_deterministic_and_valid(data in proptest::collection::vec(any::<u8>(), 0..400)) {
        let fp = TlshFingerprinter::default();
        match fp.sketch_bytes(&data) {
            Ok(f) => {
                prop_assert_eq!(f.hex().len(), 72);
                prop_assert_eq!(TlshFingerprint::new(f.hex()).unwrap(), f.clone());
                prop_assert_eq!(fp.sketch_bytes(&data).unwrap(), f);
            }
            Err(e) => prop_assert!(matches!(e, crate::Error::InvalidInput(_))),
        }
    }
}
