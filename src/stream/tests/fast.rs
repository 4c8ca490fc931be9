//! The fast scheme's stream equals its offline path: random texts ×
//! tokenizers × canonicalizers × chunkings (the harness of `tests.rs`).

use alloc::string::String;

use proptest::prelude::*;

use super::super::engine::Engine;
use super::super::tests::{
    Probe, TOKENIZERS, canonicalizer, chunking, cut, flush_size, same, stream, text, tokenizer,
};
use crate::tokenize::Tokenizer;
use crate::{
    Canonicalizer, Fingerprinter, ShingleTokenizer, StreamingFingerprinter, WordTokenizer,
    classical::minhash::FastMinHashFingerprinter, classical::minhash::FastMinHashStreaming,
};

impl<T: Tokenizer, const H: usize> Probe for FastMinHashStreaming<T, H> {
    fn engine(&mut self) -> &mut Engine {
        &mut self.online.engine
    }
    fn engine_ref(&self) -> &Engine {
        &self.online.engine
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn fast_streaming_equals_offline(
        text in text(),
        how in chunking(),
        flush in flush_size(),
        t in 0..TOKENIZERS,
        c in 0usize..5,
        seed in any::<u64>(),
    ) {
        let fp = FastMinHashFingerprinter::<_, 16>::new(canonicalizer(c), tokenizer(t))
            .with_seed(seed);
        let offline = fp.fingerprint(&text);
        let online = stream(FastMinHashStreaming::new(fp), &cut(text.as_bytes(), &how), flush);
        same(offline, online, "fast, 16 slots")?;
    }

    /// 128 slots: short texts leave slots empty, so the filling rounds run
    /// on the hashes the stream kept.
    #[test]
    fn fast_streaming_equals_offline_128(
        text in text(),
        how in chunking(),
        flush in flush_size(),
        t in 0..TOKENIZERS,
    ) {
        let fp = FastMinHashFingerprinter::<_, 128>::new(canonicalizer(0), tokenizer(t));
        let offline = fp.fingerprint(&text);
        let online = stream(FastMinHashStreaming::new(fp), &cut(text.as_bytes(), &how), flush);
        same(offline, online, "fast, 128 slots")?;
    }
}

/// A long document in 4 KiB chunks: equal to offline, with no token hash
/// left held once every slot was reached; `reset` starts a new document.
#[test]
fn long_document_frees_its_hashes_and_resets() {
    let fp = FastMinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        },
    );
    let text: String = (0..20_000)
        .map(|i| alloc::format!("Wörd{} and more, ", i % 3_001))
        .collect();
    let mut s = FastMinHashStreaming::new(fp.clone());
    for c in text.as_bytes().chunks(4096) {
        s.update(c).unwrap();
    }
    assert_eq!(s.kept_hashes(), 0);
    assert!(alloc::format!("{s:?}").contains("kept_hashes: 0"));
    let mut again = FastMinHashStreaming::new(fp.clone()).with_max_bytes(1 << 16);
    again.update(b"something else entirely").unwrap();
    again.reset();
    assert_eq!(again.max_bytes(), 1 << 16);
    again.update(text.as_bytes()).unwrap();
    assert_eq!(s.finalize().unwrap(), fp.fingerprint(&text).unwrap());
    assert_eq!(again.finalize().unwrap(), fp.fingerprint(&text).unwrap());
}

/// The input that found the fused loops taking a word with a space in it
/// as one piece: one byte per chunk, 128 slots.
#[test]
fn a_word_with_a_space_streams_like_offline() {
    for text in [
        " \u{a880}",
        "a \u{93E} b c d e f g",
        "\u{3000}  \u{200D}\u{93E}\u{93E} x",
    ] {
        let fp = FastMinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
        let mut s = FastMinHashStreaming::new(fp.clone());
        for c in text.as_bytes().chunks(1) {
            s.update(c).unwrap();
        }
        assert_eq!(
            s.finalize().unwrap(),
            fp.fingerprint(text).unwrap(),
            "{text:?}"
        );
    }
}
