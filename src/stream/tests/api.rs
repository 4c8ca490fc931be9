//! Streaming API behaviour: UTF-8 errors and offsets, the cap, reset,
//! memory bounds, `io::Write`.

extern crate std;

use alloc::string::{String, ToString};
use std::format;

use super::super::engine::FLUSH_BYTES;
use super::super::tests::{Halves, Probe, stream};
use crate::canonical::{Canonicalizer, CanonicalizerBuilder};
use crate::tokenize::MAX_SHINGLE_K;
use crate::{
    Error, Fingerprinter, GraphemeTokenizer, MinHashFingerprinter, MinHashSig, MinHashStreaming,
    ShingleTokenizer, SimHashFingerprinter, SimHashStreaming, StreamingFingerprinter,
    WordTokenizer,
};

type Shingle5 = ShingleTokenizer<WordTokenizer>;

fn fp() -> MinHashFingerprinter<Shingle5, 16> {
    MinHashFingerprinter::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        },
    )
}

fn offline(text: &str) -> MinHashSig<16> {
    fp().fingerprint(text).expect("offline fingerprint")
}

fn utf8_offset(e: &Error) -> Option<u64> {
    match e {
        Error::InvalidUtf8 { offset } => Some(*offset),
        _ => None,
    }
}

/// A bad byte in the middle of the third chunk: the error names its offset
/// in the whole stream, the chunk is rejected, and the stream goes on as if
/// it had never been offered.
#[test]
fn invalid_byte_offset_is_global_and_chunk_is_rejected() {
    let mut s = fp().into_streaming();
    s.update(b"alpha beta ").unwrap();
    s.update(b"gamma delta ").unwrap();
    let before = (s.bytes_seen(), s.buffered_bytes());
    let err = s.update(b"epsi\xFFlon ").unwrap_err();
    assert_eq!(utf8_offset(&err), Some(11 + 12 + 4));
    assert_eq!(
        err.to_string(),
        "invalid input: invalid UTF-8 in stream at byte offset 27"
    );
    assert_eq!((s.bytes_seen(), s.buffered_bytes()), before);
    s.update(b"epsilon zeta eta theta").unwrap();
    assert_eq!(
        s.finalize().unwrap(),
        offline("alpha beta gamma delta epsilon zeta eta theta")
    );
}

/// The bad sequence started in an earlier chunk: the offset points back
/// there, and the carry is kept for a correct continuation.
#[test]
fn invalid_sequence_begun_in_earlier_chunk() {
    let mut s = fp().into_streaming();
    s.update(b"caf\xC3").unwrap();
    assert_eq!(s.buffered_bytes(), 3, "the unfinished byte is not counted");
    assert_eq!(s.bytes_seen(), 4);
    let err = s.update(b"x").unwrap_err();
    assert_eq!(utf8_offset(&err), Some(3));
    s.update(b"\xA9 au lait").unwrap();
    assert_eq!(s.finalize().unwrap(), offline("caf\u{E9} au lait"));
}

#[test]
fn definitely_invalid_sequences() {
    let cases: &[(&[&[u8]], u64)] = &[
        (&[b"ok ", b"\xED\xA0\x80"], 3),      // surrogate
        (&[b"ok ", b"\xED", b"\xA0\x80"], 3), // surrogate, split
        (&[b"\xC0\x80"], 0),                  // overlong NUL
        (&[b"ab", b"\xE0\x80\x80"], 2),       // overlong 3-byte
        (&[b"\xF0\x80\x80\x80"], 0),          // overlong 4-byte
        (&[b"x", b"\xF4\x90\x80\x80"], 1),    // above U+10FFFF
        (&[b"x\xF4", b"\x90"], 1),            // above U+10FFFF, split
        (&[b"\xF8\x88\x80\x80\x80"], 0),      // 5-byte form
        (&[b"a\x80"], 1),                     // stray continuation
    ];
    for (chunks, offset) in cases {
        let mut s = fp().into_streaming();
        let mut got = None;
        for c in chunks.iter() {
            if let Err(e) = s.update(c) {
                got = utf8_offset(&e);
                break;
            }
        }
        assert_eq!(got, Some(*offset), "{chunks:?}");
    }
}

/// The 0.3.2 vectors (`== extra ==`), with the documented change of error.
#[test]
fn vectors_of_0_3_2() {
    let mut s = fp().into_streaming();
    assert!(matches!(
        s.update(b"abc\xFFdef"),
        Err(Error::InvalidUtf8 { offset: 3 })
    ));
    assert_eq!(s.buffered_bytes(), 0);
    s.update(b"abc").unwrap();
    assert_eq!(s.buffered_bytes(), 3);

    let mut s = fp().into_streaming().with_max_bytes(0);
    s.update(b"").unwrap();
    let e = s.update(b"a").unwrap_err().to_string();
    assert!(
        e.starts_with("invalid input: streaming buffer exceeded cap"),
        "{e}"
    );

    let mut s = fp().into_streaming();
    s.update(b"\xE2\x82").unwrap();
    assert_eq!(s.buffered_bytes(), 0);
    assert_eq!(
        s.finalize().unwrap_err().to_string(),
        "invalid input: trailing incomplete UTF-8"
    );

    let emoji = "\u{1F600}".as_bytes();
    let mut s = fp().into_streaming();
    s.update(&emoji[..2]).unwrap();
    s.update(&emoji[2..]).unwrap();
    assert_eq!(
        s.finalize().is_err(),
        fp().fingerprint("\u{1F600}").is_err()
    );
}

#[test]
fn empty_streams_and_empty_chunks() {
    let empty = |s: MinHashStreaming<Shingle5, 16>| s.finalize().unwrap_err().to_string();
    assert_eq!(
        empty(fp().into_streaming()),
        "invalid input: empty document"
    );
    let mut s = fp().into_streaming();
    for _ in 0..3 {
        s.update(b"").unwrap();
    }
    assert_eq!(empty(s), "invalid input: empty document");
    let mut s = fp().into_streaming();
    s.update(b" \t\r\n \xE3\x80\x80").unwrap();
    assert_eq!(empty(s), "invalid input: empty document");
}

/// The cap bounds the longest run without a split point: a long document
/// of short words passes a tiny cap, a long word does not, and a rejected
/// chunk leaves the stream unchanged.
#[test]
fn cap_bounds_runs_not_documents() {
    let mut s = fp().into_streaming().with_max_bytes(16);
    assert_eq!(s.max_bytes(), 16);
    let mut text = String::new();
    for i in 0..2000 {
        let w = format!("w{} ", i % 97);
        s.update(w.as_bytes()).unwrap();
        text.push_str(&w);
    }
    let before = (s.bytes_seen(), s.buffered_bytes());
    let e = s
        .update(b"an-extremely-long-word-here ")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("exceeded cap") && e.contains("max_bytes is 16"),
        "{e}"
    );
    assert_eq!((s.bytes_seen(), s.buffered_bytes()), before);
    s.update(b"end").unwrap();
    text.push_str("end");
    assert_eq!(s.finalize().unwrap(), offline(&text));

    // Exactly at the cap is allowed: "abcdefghijklmno " is 16 bytes.
    let mut s = fp().into_streaming().with_max_bytes(16);
    s.update(b"abcdefghijklmno abcdefghijklmno").unwrap();
    s.update(b"p").unwrap();
    assert!(s.update(b"q").is_err());
}

/// Without split points (no ASCII) the whole text is one run.
#[test]
fn cap_applies_to_text_without_split_points() {
    let text = "\u{43F}\u{440}\u{438}\u{432}\u{435}\u{442} ".repeat(100);
    let mut s = fp().into_streaming().with_max_bytes(1000);
    let r: Result<(), Error> = text.as_bytes().chunks(100).try_for_each(|c| s.update(c));
    assert!(r.unwrap_err().to_string().contains("exceeded cap"));
    let s = fp().into_streaming().with_max_bytes(text.len());
    assert_eq!(
        stream(s, &[text.as_bytes()], FLUSH_BYTES).unwrap(),
        offline(&text)
    );
}

/// A user tokenizer has no plan: the document is held whole (the cap
/// bounds the document) and the result is still the offline one.
#[test]
fn user_tokenizer_is_buffered_and_matches() {
    let text = "one two  three\tfour five six seven";
    let fp = MinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), Halves);
    let want = fp.fingerprint(text).unwrap();
    let mut s = MinHashStreaming::new(fp.clone());
    for c in text.as_bytes().chunks(3) {
        s.update(c).unwrap();
    }
    assert_eq!(s.buffered_bytes(), text.len());
    assert_eq!(s.finalize().unwrap(), want);
    let mut s = MinHashStreaming::new(fp).with_max_bytes(10);
    s.update(b"one two ").unwrap();
    assert!(
        s.update(b"three")
            .unwrap_err()
            .to_string()
            .contains("whole document")
    );
}

#[test]
fn reset_starts_over_and_keeps_the_cap() {
    let mut s = fp().into_streaming().with_max_bytes(64);
    s.update(b"some earlier text \xF0\x9F").unwrap();
    s.reset();
    assert_eq!(
        (s.bytes_seen(), s.buffered_bytes(), s.max_bytes()),
        (0, 0, 64)
    );
    assert_eq!(s.engine_ref().high_water().pending, 0);
    s.update(b"the quick brown fox jumps over the lazy dog")
        .unwrap();
    assert_eq!(
        s.finalize().unwrap(),
        offline("the quick brown fox jumps over the lazy dog")
    );
    // Reset also clears the shingle windows and the sketch.
    let mut s = fp().into_streaming();
    s.engine().set_flush_bytes(1);
    s.update(b"a b c d e f g h i j ").unwrap();
    s.reset();
    s.update(b"x y").unwrap();
    assert_eq!(s.finalize().unwrap(), offline("x y"));
}

#[test]
fn configuration_errors_come_from_update_and_finalize() {
    let bad_k = MinHashFingerprinter::<_, 8>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: MAX_SHINGLE_K + 1,
            inner: WordTokenizer,
        },
    );
    let want = bad_k.fingerprint("a b").unwrap_err().to_string();
    let mut s = MinHashStreaming::new(bad_k.clone());
    assert_eq!(s.update(b"a b").unwrap_err().to_string(), want);
    assert_eq!(
        MinHashStreaming::new(bad_k)
            .finalize()
            .unwrap_err()
            .to_string(),
        want
    );

    let conf = Canonicalizer::new(CanonicalizerBuilder {
        apply_confusable: true,
        ..CanonicalizerBuilder::default()
    });
    let fp = SimHashFingerprinter::new(conf, WordTokenizer);
    let offline = fp.fingerprint("paypal");
    let online = stream(SimHashStreaming::new(fp), &[b"pay", b"pal"], FLUSH_BYTES);
    match (offline, online) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        (a, b) => panic!("offline {a:?}, streaming {b:?}"),
    }
}

/// 10 MB of prose in 64 KiB chunks: the signature is the offline one and
/// the engine never holds more than a batch plus a word, whatever the
/// document size.
#[test]
fn ten_megabytes_in_bounded_memory() {
    let words = [
        "lorem",
        "ipsum",
        "dolor",
        "sit",
        "amet,",
        "consectetur",
        "adipiscing",
        "elit.",
        "Sed\u{301}",
        "do",
        "\u{E9}iusmod",
        "tempor\n",
        "incididunt",
        "ut",
        "labore",
        "et",
    ];
    let mut text = String::with_capacity(10_500_000);
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    while text.len() < 10_000_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        text.push_str(words[(x % words.len() as u64) as usize]);
        text.push_str(if x & 0x700 == 0 { "  " } else { " " });
    }
    let fp = MinHashFingerprinter::<_, 64>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        },
    );
    let want = fp.fingerprint(&text).unwrap();
    let mut s = MinHashStreaming::new(fp);
    for c in text.as_bytes().chunks(64 * 1024) {
        s.update(c).unwrap();
        assert!(
            s.buffered_bytes() <= FLUSH_BYTES + 256,
            "{}",
            s.buffered_bytes()
        );
    }
    let high = s.engine_ref().high_water();
    assert_eq!(s.bytes_seen(), text.len() as u64);
    assert_eq!(s.finalize().unwrap(), want);
    assert!(high.pending <= FLUSH_BYTES + 256, "{high:?}");
    assert!(high.canonical <= FLUSH_BYTES + 256, "{high:?}");
    assert!(high.windows <= 2 * 5 * 16, "{high:?}");
}

#[cfg(feature = "std")]
#[test]
fn io_write_and_copy() {
    use std::io::{self, Write};

    let text =
        "Stre\u{E4}ming through std::io::copy, \u{1F468}\u{200D}\u{1F469} and all. ".repeat(500);
    let mut s = fp().into_streaming();
    let n = io::copy(&mut io::Cursor::new(text.as_bytes()), &mut s).unwrap();
    assert_eq!(n, text.len() as u64);
    s.flush().unwrap();
    assert_eq!(s.finalize().unwrap(), offline(&text));

    let fp = SimHashFingerprinter::new(Canonicalizer::default(), GraphemeTokenizer);
    let want = fp.fingerprint(&text).unwrap();
    let mut s = SimHashStreaming::new(fp);
    for c in text.as_bytes().chunks(7) {
        s.write_all(c).unwrap();
    }
    assert_eq!(s.finalize().unwrap(), want);

    let mut s = self::fp().into_streaming();
    s.write_all(b"fine so far ").unwrap();
    let e = s.write(b"then \xC3\x28").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    let inner = e.get_ref().and_then(|i| i.downcast_ref::<Error>());
    assert!(
        matches!(inner, Some(Error::InvalidUtf8 { offset: 17 })),
        "{inner:?}"
    );

    let mut s = self::fp().into_streaming().with_max_bytes(4);
    let e = s.write(b"toolong").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
}

/// The documented recipe for keeping the valid start of a rejected chunk.
#[test]
fn valid_prefix_of_a_rejected_chunk_can_be_refed() {
    let mut s = fp().into_streaming();
    s.update(b"one two thr\xC3").unwrap();
    let chunk = b"\xA9e four \xFF five";
    let Err(Error::InvalidUtf8 { offset }) = s.update(chunk) else {
        panic!("expected invalid UTF-8");
    };
    assert!(offset >= s.bytes_seen());
    s.update(&chunk[..(offset - s.bytes_seen()) as usize])
        .unwrap();
    s.update(b" five").unwrap();
    assert_eq!(
        s.finalize().unwrap(),
        offline("one two thr\u{E9}e four  five")
    );
}

#[test]
fn streams_are_send_sync_and_debug() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    let s = fp().into_streaming();
    send_sync(&s);
    let h = SimHashStreaming::new(SimHashFingerprinter::new(
        Canonicalizer::default(),
        WordTokenizer,
    ));
    send_sync(&h);
    assert_eq!(
        h.max_bytes(),
        crate::classical::minhash::DEFAULT_MAX_BUFFER_BYTES
    );
    assert_eq!(s.max_bytes(), super::super::DEFAULT_MAX_BYTES);
    let d = format!("{s:?} {h:?}");
    assert!(
        d.contains("MinHashStreaming") && d.contains("max_bytes: 16777216"),
        "{d}"
    );
    assert!(d.contains("weighting: \"tf\""), "{d}");
}
