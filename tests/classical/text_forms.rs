//! Hex, base32 and base64 text forms of every signature type (feature
//! `interop`): round trips, case-insensitivity, agreement with the RFC 4648
//! codecs, and clear errors.
#![cfg(all(feature = "interop", feature = "minhash"))]

use proptest::prelude::*;
use txtfp::classical::simhash::{SimHash16, SimHash32};
use txtfp::classical::{TextEncoding, TextForm};
use txtfp::{MinHashSig, SimHash64, SimHash128};

const ENCODINGS: [TextEncoding; 3] = [
    TextEncoding::Hex,
    TextEncoding::Base32,
    TextEncoding::Base64,
];

/// Round trip in every encoding, in either case where the form allows it,
/// and with the base64 padding left off.
fn round_trips<T: TextForm + PartialEq + std::fmt::Debug>(v: &T) -> Result<(), TestCaseError> {
    for enc in ENCODINGS {
        let text = v.to_text(enc);
        prop_assert_eq!(text.len(), enc.text_len(T::text_byte_len()));
        prop_assert_eq!(&T::from_text(&text, enc).unwrap(), v);
        match enc {
            TextEncoding::Hex | TextEncoding::Base32 => {
                prop_assert_eq!(&T::from_text(&text.to_ascii_lowercase(), enc).unwrap(), v);
                prop_assert_eq!(&T::from_text(&text.to_ascii_uppercase(), enc).unwrap(), v);
            }
            TextEncoding::Base64 => {
                prop_assert_eq!(&T::from_text(text.trim_end_matches('='), enc).unwrap(), v);
            }
        }
    }
    Ok(())
}

proptest! {
    #[test]
    fn simhash_widths_round_trip(a in any::<u16>(), b in any::<u32>(), c in any::<u64>(), d in any::<u128>()) {
        round_trips(&SimHash16(a))?;
        round_trips(&SimHash32(b))?;
        round_trips(&SimHash64(c))?;
        round_trips(&SimHash128(d))?;
        // Hex is the number written out.
        prop_assert_eq!(SimHash64(c).to_hex(), format!("{c:016x}"));
        prop_assert_eq!(SimHash128(d).to_hex(), format!("{d:032x}"));
    }

    #[test]
    fn minhash_round_trips(hashes in prop::array::uniform8(any::<u64>())) {
        let sig = MinHashSig::<8> { schema: 1, _pad: [0; 6], hashes };
        round_trips(&sig)?;
    }

    /// Any text a parser accepts is the canonical form of its value, up to
    /// case (hex, base32) or padding (base64): no two texts per value.
    #[test]
    fn accepted_texts_are_canonical(text in "[A-Za-z0-9+/=]{11,13}") {
        for enc in ENCODINGS {
            if let Ok(v) = SimHash64::from_text(&text, enc) {
                let back = v.to_text(enc);
                let norm = |s: &str| match enc {
                    TextEncoding::Base64 => s.trim_end_matches('=').to_string(),
                    _ => s.to_ascii_uppercase(),
                };
                prop_assert_eq!(norm(&back), norm(&text));
            }
        }
    }

    /// Garbage never panics and never decodes to something else silently.
    #[test]
    fn arbitrary_text_is_rejected_or_round_trips(text in "\\PC{0,40}") {
        for enc in ENCODINGS {
            if let Ok(v) = SimHash128::from_text(&text, enc) {
                prop_assert_eq!(SimHash128::from_text(&v.to_text(enc), enc).unwrap(), v);
            }
        }
    }
}

#[test]
fn rfc_4648_vectors() {
    // RFC 4648 §10 vectors of "foobar" prefixes, through SimHash16 ("fo")
    // and SimHash32 ("foob") whose big-endian bytes are those strings.
    let fo = SimHash16(u16::from_be_bytes(*b"fo"));
    assert_eq!(
        (fo.to_base32(), fo.to_base64(), fo.to_hex()),
        ("MZXQ".into(), "Zm8=".into(), "666f".into())
    );
    let foob = SimHash32(u32::from_be_bytes(*b"foob"));
    assert_eq!(
        (foob.to_base32(), foob.to_base64()),
        ("MZXW6YQ".into(), "Zm9vYg==".into())
    );
}

#[test]
fn errors_say_what_is_wrong() {
    let e = |r: txtfp::Result<SimHash64>| r.unwrap_err().to_string();
    assert_eq!(
        e(SimHash64::from_hex("xyz")),
        "invalid input: SimHash64 hex text is 16 characters, got 3"
    );
    assert_eq!(
        e(SimHash64::from_hex("0123456789abcdeg")),
        "invalid input: SimHash64 hex text has an invalid character 'g' at position 15"
    );
    assert_eq!(
        e(SimHash64::from_base32("AAAAAAAAAAAA8")),
        "invalid input: SimHash64 base32 text has an invalid character '8' at position 12"
    );
    assert_eq!(
        e(SimHash64::from_base32("AAAAAAAAAAAAB")),
        "invalid input: SimHash64 base32 text is not canonical: unused bits of 'B' at position 12 \
         are not zero"
    );
    assert_eq!(
        e(SimHash64::from_base64("AAAAAAAAAAB=")),
        "invalid input: SimHash64 base64 text is not canonical: unused bits of 'B' at position 10 \
         are not zero"
    );
    assert_eq!(
        e(SimHash64::from_base64("AAAAAAAAAA")),
        "invalid input: SimHash64 base64 text is 12 characters (11 without padding), got 10"
    );
    assert_eq!(
        e(SimHash64::from_base64("AAAAAAAAAA-A")),
        "invalid input: SimHash64 base64 text has an invalid character '-' at position 10"
    );
    assert_eq!(
        e(SimHash64::from_hex("0123456789abcdéf")),
        "invalid input: SimHash64 hex text has an invalid character 'é' at position 14"
    );
    assert_eq!(
        e(SimHash64::from_base64("AaU=A0+A+A+0")),
        "invalid input: SimHash64 base64 text has misplaced padding at position 3"
    );
    assert_eq!(
        e(SimHash64::from_base64("AAAAAAAAAAé")),
        "invalid input: SimHash64 base64 text has an invalid character 'é' at position 10"
    );
    // A huge input is rejected by its length, before any decoding.
    let big = "A".repeat(10_000_000);
    assert_eq!(
        e(SimHash64::from_base32(&big)),
        "invalid input: SimHash64 base32 text is 13 characters, got 10000000"
    );
    // MinHash: the schema word is checked as by from_bytes.
    let mut bytes = MinHashSig::<2>::empty().to_le_bytes();
    bytes[0] = 9;
    let text = txtfp::classical::simhash::SimHash16(0).to_hex(); // any short text
    assert!(
        MinHashSig::<2>::from_hex(&text)
            .unwrap_err()
            .to_string()
            .contains("MinHashSig<2> hex text is 48 characters")
    );
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        MinHashSig::<2>::from_hex(&hex).unwrap_err().to_string(),
        "schema version mismatch: expected 1, got 9"
    );
}

#[cfg(feature = "tlsh")]
mod tlsh {
    use super::*;
    use txtfp::{TlshFingerprint, TlshFingerprinter};

    proptest! {
        /// Any 35 bytes make a digest; its text forms round-trip and the hex
        /// form is the `T1` text without its prefix.
        #[test]
        fn digests_round_trip(bytes in prop::collection::vec(any::<u8>(), 35)) {
            let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
            let fp = TlshFingerprint::new(format!("T1{hex}")).unwrap();
            round_trips(&fp)?;
            prop_assert_eq!(fp.to_hex(), hex.to_ascii_lowercase());
            prop_assert_eq!(fp.text_bytes(), bytes);
        }
    }

    #[test]
    fn a_real_digest_in_every_form() {
        let text = "The quick brown fox jumps over the lazy dog, then naps in the warm \
                    afternoon sun while the farmer mends the old wooden fence nearby.";
        let fp = TlshFingerprinter::default()
            .sketch_bytes(text.as_bytes())
            .unwrap();
        assert_eq!(
            format!("T1{}", fp.to_hex().to_ascii_uppercase()),
            fp.to_string()
        );
        for enc in ENCODINGS {
            let t = fp.to_text(enc);
            assert_eq!(t.len(), [70, 56, 48][enc as usize]);
            assert_eq!(TlshFingerprint::from_text(&t, enc).unwrap(), fp);
        }
        // The `T1` text is not the hex form: the prefix is not hex.
        let err = TlshFingerprint::from_hex(fp.as_str()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid input: TlshFingerprint hex text is 70 characters, got 72"
        );
        let err = TlshFingerprint::from_base32("A").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid input: TlshFingerprint base32 text is 56 characters, got 1"
        );
    }
}
