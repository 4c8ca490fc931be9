//! TlshStreaming: the same digest as the one-shot path for every chunking.

use alloc::string::ToString;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::super::*;
use crate::{Fingerprinter, StreamingFingerprinter};

const DATA: &[u8] = b"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do \
    eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam.";

fn streamed(data: &[u8], cuts: &[usize]) -> Result<TlshFingerprint> {
    let mut s = TlshStreaming::new();
    let mut at = 0;
    for &c in cuts {
        let c = c.clamp(at, data.len());
        s.update(&data[at..c])?;
        at = c;
    }
    s.update(&data[at..])?;
    assert_eq!(s.bytes_seen(), data.len() as u64);
    s.finalize()
}

#[test]
fn byte_by_byte_equals_offline() {
    let fp = TlshFingerprinter::default();
    let cuts: Vec<usize> = (0..DATA.len()).collect();
    assert_eq!(
        streamed(DATA, &cuts).unwrap(),
        fp.sketch_bytes(DATA).unwrap()
    );
}

#[test]
fn errors_and_reset() {
    let mut s = TlshFingerprinter::default().streaming_bytes();
    assert_eq!(
        s.clone().finalize().unwrap_err().to_string(),
        "invalid input: tlsh requires at least 50 bytes, got 0"
    );
    s.update(&[b'z'; 300]).unwrap();
    assert_eq!(
        s.digest().unwrap_err().to_string(),
        "invalid input: tlsh build failed (insufficient entropy)"
    );
    s.reset();
    assert_eq!(s.bytes_seen(), 0);
    s.update(DATA).unwrap();
    let mid = s.digest().unwrap();
    assert_eq!(
        mid,
        TlshFingerprinter::default().sketch_bytes(DATA).unwrap()
    );
    // digest() does not consume: more input changes the result.
    s.update(b" and then some more words").unwrap();
    assert_ne!(s.finalize().unwrap(), mid);
    assert!(alloc::format!("{:?}", TlshStreaming::new()).contains("bytes_seen: 0"));
}

#[cfg(feature = "std")]
#[test]
fn io_write_equals_offline() {
    use std::io::Write;
    let mut s = TlshStreaming::new();
    for piece in DATA.chunks(13) {
        s.write_all(piece).unwrap();
    }
    s.flush().unwrap();
    assert_eq!(
        s.finalize().unwrap(),
        TlshFingerprinter::default().sketch_bytes(DATA).unwrap()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn any_chunking_equals_offline(
        data in proptest::collection::vec(any::<u8>(), 0..600),
        mut cuts in proptest::collection::vec(0usize..600, 0..12),
    ) {
        cuts.sort_unstable();
        let off = TlshFingerprinter::default().sketch_bytes(&data);
        let on = streamed(&data, &cuts);
        match (off, on) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b),
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "offline {:?} vs streamed {:?}", a, b),
        }
    }

    #[test]
    fn text_chunking_equals_offline(
        words in proptest::collection::vec("[a-zé ]{1,9}", 5..60),
        mut cuts in proptest::collection::vec(0usize..400, 0..8),
    ) {
        let text = words.concat();
        cuts.sort_unstable();
        let off = TlshFingerprinter::default().sketch_bytes(text.as_bytes());
        let on = streamed(text.as_bytes(), &cuts);
        prop_assert_eq!(off.ok(), on.ok());
    }
}

/// Text that canonicalization changes (case, NFKC, format characters,
/// combining marks), long enough to cross the engine's 8 KiB batches.
fn canon_text(lines: usize) -> alloc::string::String {
    let mut t = alloc::string::String::new();
    for i in 0..lines {
        t += &alloc::format!(
            "Line {i}: ÜNÏCÖDÉ ﬁle ①② A\u{30A} café\u{200B} — Ελληνικά 中文 \u{FB01}nal\n"
        );
    }
    t
}

fn text_streamed(text: &[u8], cuts: &[usize]) -> Result<TlshFingerprint> {
    let mut s = TlshFingerprinter::default().streaming();
    let mut at = 0;
    for &c in cuts {
        let c = c.clamp(at, text.len());
        s.update(&text[at..c])?;
        at = c;
    }
    s.update(&text[at..])?;
    assert_eq!(s.bytes_seen(), text.len() as u64);
    s.finalize()
}

#[test]
fn text_stream_equals_fingerprint_across_batches() {
    let fp = TlshFingerprinter::default();
    let text = canon_text(400);
    assert!(text.len() > 3 * 8192);
    let want = fp.fingerprint(&text).unwrap();
    // Every 7 bytes: cuts inside UTF-8 sequences and across split points.
    let cuts: Vec<usize> = (0..text.len()).step_by(7).collect();
    assert_eq!(text_streamed(text.as_bytes(), &cuts).unwrap(), want);
    assert_eq!(text_streamed(text.as_bytes(), &[]).unwrap(), want);
    // Raw bytes would give another digest: the stream canonicalizes.
    assert_ne!(fp.sketch_bytes(text.as_bytes()).unwrap(), want);
}

#[test]
fn text_stream_errors_match_offline() {
    let fp = TlshFingerprinter::default();
    let err = |r: Result<TlshFingerprint>| r.unwrap_err().to_string();
    assert_eq!(err(fp.streaming().finalize()), err(fp.fingerprint("")));
    for short in [
        "\u{200B}\u{200B}",
        "short text",
        "aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa aaaa",
    ] {
        assert_eq!(
            err(text_streamed(short.as_bytes(), &[1])),
            err(fp.fingerprint(short)),
            "{short:?}"
        );
    }
    let mut s = fp.streaming();
    assert!(matches!(
        s.update(b"ok \xFF"),
        Err(crate::Error::InvalidUtf8 { offset: 3 })
    ));
    s.update(b"caf\xC3").unwrap();
    assert_eq!(
        err(s.finalize()),
        "invalid input: trailing incomplete UTF-8"
    );
    // The cap bounds text without a split point.
    let mut s = fp.streaming().with_max_bytes(64);
    assert_eq!(s.max_bytes(), 64);
    assert!(s.update(&[0u8; 65]).is_err());
    assert_eq!(s.bytes_seen(), 0);
    let text = canon_text(3);
    s.update(text.as_bytes()).unwrap();
    assert!(s.buffered_bytes() <= text.len());
    s.reset();
    s.update(text.as_bytes()).unwrap();
    assert_eq!(s.finalize().unwrap(), fp.fingerprint(&text).unwrap());
    assert!(alloc::format!("{:?}", fp.streaming()).contains("TlshTextStreaming"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn text_stream_any_chunking(cuts in proptest::collection::vec(0usize..2000, 0..12)) {
        let text = canon_text(20);
        let mut cuts = cuts;
        cuts.sort_unstable();
        prop_assert_eq!(
            text_streamed(text.as_bytes(), &cuts).unwrap(),
            TlshFingerprinter::default().fingerprint(&text).unwrap()
        );
    }
}
