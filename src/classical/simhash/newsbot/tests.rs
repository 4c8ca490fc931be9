use super::*;
use alloc::string::ToString;

/// The plain formulation: `bits` signed counters over the MD5 integer.
fn reference(text: &str, bits: u32) -> u128 {
    let mut acc = alloc::vec![0i64; bits as usize];
    for t in tokenize(text) {
        let h = u128::from_be_bytes(Md5::digest(t.as_bytes()).into());
        for (i, a) in acc.iter_mut().enumerate() {
            *a += if (h >> i) & 1 == 1 { 1 } else { -1 };
        }
    }
    acc.iter()
        .enumerate()
        .fold(0, |o, (i, &a)| o | (u128::from(a > 0) << i))
}

#[test]
fn md5_reference_vector() {
    // RFC 1321 test suite.
    assert_eq!(
        NewsbotHash::Md5.hash(b"abc"),
        0x900150983cd24fb0d6963f7d28e17f72
    );
    // One token: the signature is its hash's low bits.
    assert_eq!(simhash("abc", 16).unwrap(), "7f72");
    assert_eq!(
        simhash("ABC!", 128).unwrap(),
        "900150983cd24fb0d6963f7d28e17f72"
    );
}

#[test]
fn tokens() {
    assert_eq!(
        tokenize("Testing-with_punctuation@marks"),
        ["testing", "with", "punctuation", "marks"]
    );
    // Lower-casing to ASCII happens before the runs are taken.
    assert_eq!(
        tokenize("\u{212a}ELVIN İstanbul Straße"),
        ["kelvin", "i", "stanbul", "stra", "e"]
    );
    assert!(tokenize("¡¿ — …").is_empty());
}

#[test]
fn widths_match_reference() {
    let text = "Breaking news about technology, breaking NEWS again 2024";
    for bits in WIDTHS {
        let v = simhash_value(text, bits, NewsbotHash::Md5).unwrap();
        assert_eq!(v, reference(text, bits), "{bits}");
        let s = simhash(text, bits).unwrap();
        assert_eq!(s.len(), (bits / 4) as usize);
        assert_eq!(parse_hex(&s).unwrap(), v);
    }
    let e = simhash(text, 48).unwrap_err().to_string();
    assert_eq!(
        e,
        "invalid input: newsbot simhash width must be 16, 32, 64 or 128 bits, got 48"
    );
}

#[test]
fn hex_parsing() {
    assert_eq!(parse_hex(" 0xFF\n").unwrap(), 255);
    assert_eq!(parse_hex(&"0".repeat(100)).unwrap(), 0);
    assert_eq!(parse_hex(&"f".repeat(32)).unwrap(), u128::MAX);
    let e = |s: &str| parse_hex(s).unwrap_err().to_string();
    assert!(e(&"1".repeat(33)).ends_with("has more than 128 bits"));
    assert!(e("").ends_with("has no hex digits"));
    assert!(e("0x").ends_with("has no hex digits"));
    assert!(e(" 0x12g").ends_with("invalid character 'g' at position 5"));
    assert!(e("-1").ends_with("invalid character '-' at position 0"));
}

#[test]
fn closeness_table() {
    let rows = [
        (0, Closeness::Identical),
        (1, Closeness::VerySimilar),
        (3, Closeness::VerySimilar),
        (4, Closeness::Similar),
        (10, Closeness::Similar),
        (11, Closeness::Related),
        (20, Closeness::Related),
        (21, Closeness::Different),
        (128, Closeness::Different),
    ];
    for (d, c) in rows {
        assert_eq!(Closeness::of(d), c, "{d}");
    }
}
