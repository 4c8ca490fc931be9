//! Streaming equals offline: random texts × configurations × chunkings.

#[cfg(all(feature = "minhash", feature = "simhash"))]
mod api;
#[cfg(all(feature = "minhash", feature = "simhash"))]
mod fast;
#[cfg(all(feature = "std", feature = "minhash", feature = "simhash"))]
mod golden;

extern crate std;

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Debug;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::engine::{Engine, FLUSH_BYTES};
use crate::canonical::{Canonicalizer, CanonicalizerBuilder, CaseFold, Normalization};
use crate::tokenize::{TokenStream, Tokenizer};
use crate::{
    Fingerprinter, GraphemeTokenizer, IdfTable, MinHashFingerprinter, MinHashStreaming, Result,
    ShingleTokenizer, SimHashFingerprinter, SimHashStreaming, StreamingFingerprinter, Weighting,
    WordTokenizer,
};

/// Pieces that stress canonicalization and segmentation right where the
/// engine cuts: marks and joiners after whitespace, compositions with ASCII
/// bases, CR/LF, stripped format characters, ligatures and folds that
/// expand, scripts without ASCII, emoji sequences.
const PIECES: &[&str] = &[
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\u{B}",
    "\u{C}",
    " \u{301}",
    "\u{301}",
    "\u{30A}",
    "A\u{30A}",
    "a\u{338}",
    "<\u{338}",
    " \u{200D}",
    "\u{200D}",
    "我爱北京",
    "こんにちは",
    "한국어",
    "\u{E44}\u{E17}\u{E22}",
    "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
    "\u{1F1FA}\u{1F1F8}",
    "\u{1F44D}\u{1F3FD}",
    "\u{200B}",
    "\u{FEFF}",
    "\u{202E}",
    "\u{2066}",
    "\u{FE0F}",
    "\u{E0041}",
    "\u{AD}",
    "\u{180E}",
    "\u{FB01}",
    "\u{FB00}",
    "\u{DF}",
    "\u{130}",
    "\u{1E9E}",
    "\u{216B}",
    "\u{FF21}",
    "\u{FF11}",
    "\u{FF48}\u{FF45}\u{FF4C}\u{FF4C}\u{FF4F}",
    "\u{390}",
    "\u{1F0}",
    "\u{2126}",
    "\u{212A}",
    "\u{B5}",
    "\u{FB05}",
    "don't",
    "e-mail",
    "U.S.A.",
    "3.14",
    "1,000",
    "'",
    ".",
    ",",
    "!",
    "_",
    "\u{3000}",
    "\u{A0}",
    "\u{2028}",
    "\u{85}",
    "\u{1100}\u{1161}\u{11A8}",
    "\u{915}\u{94D}\u{937}",
    "\u{627}\u{644}\u{639}",
];

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-zA-Z]{1,7}",
        5 => Just(String::from(" ")),
        2 => "[0-9]{1,4}",
        2 => "[ \t\n\r]{1,3}",
        4 => proptest::sample::select(PIECES).prop_map(String::from),
        1 => any::<char>().prop_map(String::from),
    ]
}

/// Random text mixing ASCII prose and the pieces above.
pub(super) fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(piece(), 0..50).prop_map(|p| p.concat())
}

/// How a byte string is cut into chunks.
#[derive(Clone, Debug)]
pub(super) enum Chunking {
    /// One byte per chunk: every multi-byte sequence is split.
    Singles,
    /// Chunks of this fixed size.
    Fixed(usize),
    /// Cuts at these positions (taken modulo the length), plus empty chunks.
    Cuts(Vec<usize>),
}

pub(super) fn chunking() -> impl Strategy<Value = Chunking> {
    prop_oneof![
        1 => Just(Chunking::Singles),
        1 => (1usize..9).prop_map(Chunking::Fixed),
        3 => proptest::collection::vec(any::<usize>(), 0..10).prop_map(Chunking::Cuts),
    ]
}

pub(super) fn cut<'a>(bytes: &'a [u8], how: &Chunking) -> Vec<&'a [u8]> {
    match how {
        Chunking::Singles => bytes.chunks(1).collect(),
        Chunking::Fixed(n) => bytes.chunks(*n).collect(),
        Chunking::Cuts(cuts) => {
            let mut at: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
            at.sort_unstable();
            let mut out = Vec::new();
            let mut prev = 0;
            for c in at {
                // Equal cuts give empty chunks, which must be harmless.
                out.push(&bytes[prev..c]);
                prev = c;
            }
            out.push(&bytes[prev..]);
            out
        }
    }
}

/// Batch size for the engine: 1 cuts at every split point, the default
/// almost never within these short texts.
pub(super) fn flush_size() -> impl Strategy<Value = usize> {
    prop_oneof![Just(1usize), 2usize..40, Just(FLUSH_BYTES)]
}

/// Access to the engine behind a streaming fingerprinter.
pub(super) trait Probe: StreamingFingerprinter {
    fn engine(&mut self) -> &mut Engine;
    fn engine_ref(&self) -> &Engine;
}

impl<T: Tokenizer, const H: usize> Probe for MinHashStreaming<T, H> {
    fn engine(&mut self) -> &mut Engine {
        &mut self.online.engine
    }
    fn engine_ref(&self) -> &Engine {
        &self.online.engine
    }
}

impl<T: Tokenizer> Probe for SimHashStreaming<T> {
    fn engine(&mut self) -> &mut Engine {
        &mut self.online.engine
    }
    fn engine_ref(&self) -> &Engine {
        &self.online.engine
    }
}

pub(super) fn stream<S: Probe>(mut s: S, chunks: &[&[u8]], flush: usize) -> Result<S::Output> {
    s.engine().set_flush_bytes(flush);
    for c in chunks {
        s.update(c)?;
    }
    s.finalize()
}

/// Same signature, or errors with the same message.
pub(super) fn same<O: PartialEq + Debug>(
    offline: Result<O>,
    online: Result<O>,
    what: &str,
) -> core::result::Result<(), TestCaseError> {
    match (offline, online) {
        (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "{}", what),
        (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string(), "{}", what),
        (a, b) => prop_assert!(false, "{}: offline {:?}, streaming {:?}", what, a, b),
    }
    Ok(())
}

/// A tokenizer the crate knows nothing about: no stream plan, so streams
/// with it are held whole.
#[derive(Clone, Copy, Debug)]
pub(super) struct Halves;

impl Tokenizer for Halves {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        // Whitespace-separated words cut after their first char: depends on
        // whole words, so it would break if fed pieces of them.
        TokenStream::Owned(Box::new(input.split_whitespace().flat_map(|w| {
            let mid = w.chars().next().map_or(0, char::len_utf8);
            [w[..mid].to_string(), w[mid..].to_string()]
        })))
    }
    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed("halves")
    }
}

/// Every tokenizer shape the engine handles differently.
pub(super) fn tokenizer(i: usize) -> Box<dyn Tokenizer> {
    let w = WordTokenizer;
    let g = GraphemeTokenizer;
    match i {
        0 => Box::new(w),
        1 => Box::new(g),
        2 => Box::new(ShingleTokenizer { k: 1, inner: w }),
        3 => Box::new(ShingleTokenizer { k: 2, inner: w }),
        4 => Box::new(ShingleTokenizer { k: 3, inner: w }),
        5 => Box::new(ShingleTokenizer { k: 5, inner: w }),
        6 => Box::new(ShingleTokenizer { k: 2, inner: g }),
        7 => Box::new(ShingleTokenizer { k: 3, inner: g }),
        8 => Box::new(ShingleTokenizer {
            k: 2,
            inner: ShingleTokenizer { k: 2, inner: w },
        }),
        9 => Box::new(ShingleTokenizer {
            k: 3,
            inner: ShingleTokenizer { k: 2, inner: g },
        }),
        10 => Box::new(ShingleTokenizer { k: 0, inner: w }),
        11 => Box::new(Halves),
        _ => Box::new(ShingleTokenizer {
            k: 2,
            inner: Halves,
        }),
    }
}
pub(super) const TOKENIZERS: usize = 13;

pub(super) fn canonicalizer(i: usize) -> Canonicalizer {
    let d = CanonicalizerBuilder::default();
    Canonicalizer::new(match i {
        0 => d,
        1 => CanonicalizerBuilder {
            normalization: Normalization::Nfc,
            ..d
        },
        2 => CanonicalizerBuilder {
            normalization: Normalization::None,
            ..d
        },
        3 => CanonicalizerBuilder {
            case_fold: CaseFold::None,
            strip_format: false,
            ..d
        },
        _ => CanonicalizerBuilder {
            strip_bidi: false,
            strip_format: false,
            ..d
        },
    })
}

fn idf() -> IdfTable {
    IdfTable::from_pairs([("the", 0.25_f32), ("a", 3.0), ("ab", 0.5), ("x", 1.75)])
}

fn weighting(i: usize) -> Weighting {
    match i {
        0 => Weighting::Tf,
        1 => Weighting::Uniform,
        _ => Weighting::IdfWeighted(idf()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn minhash_streaming_equals_offline(
        text in text(),
        how in chunking(),
        flush in flush_size(),
        t in 0..TOKENIZERS,
        c in 0usize..5,
    ) {
        let fp = MinHashFingerprinter::<_, 8>::new(canonicalizer(c), tokenizer(t));
        let offline = fp.fingerprint(&text);
        let online = stream(MinHashStreaming::new(fp), &cut(text.as_bytes(), &how), flush);
        same(offline, online, &std::format!("tokenizer {t}, canonicalizer {c}"))?;
    }

    #[test]
    fn simhash_streaming_equals_offline(
        text in text(),
        how in chunking(),
        flush in flush_size(),
        t in prop_oneof![Just(0usize), Just(1), Just(3), Just(8), Just(11)],
        w in 0usize..3,
    ) {
        let fp = SimHashFingerprinter::new(Canonicalizer::default(), tokenizer(t))
            .with_weighting(weighting(w));
        let offline = fp.fingerprint(&text);
        let online = stream(SimHashStreaming::new(fp), &cut(text.as_bytes(), &how), flush);
        same(offline, online, &std::format!("tokenizer {t}, weighting {w}"))?;
    }

    /// Long ASCII-heavy prose with many split points, cut into mid-size
    /// chunks: many batches, windows that cross batches and chunks.
    #[test]
    fn long_prose_equals_offline(
        words in proptest::collection::vec(
            prop_oneof![4 => "[a-z]{1,9}", 1 => proptest::sample::select(PIECES).prop_map(String::from)],
            50..400,
        ),
        gaps in proptest::collection::vec(
            proptest::sample::select(&[" ", " ", " ", "  ", "\n", ", ", "\r\n", "\t"][..]), 400),
        chunk in 1usize..200,
        flush in 1usize..300,
        t in 0..10usize,
    ) {
        let mut text = String::new();
        for (w, g) in words.iter().zip(&gaps) {
            text.push_str(w);
            text.push_str(g);
        }
        let fp = MinHashFingerprinter::<_, 8>::new(Canonicalizer::default(), tokenizer(t));
        let offline = fp.fingerprint(&text);
        let chunks: Vec<&[u8]> = text.as_bytes().chunks(chunk).collect();
        let online = stream(MinHashStreaming::new(fp), &chunks, flush);
        same(offline, online, &std::format!("tokenizer {t}"))?;
    }

    /// Whether the cap is exceeded does not depend on the chunking, and
    /// when it is not, the signature is the offline one.
    #[test]
    fn cap_verdict_ignores_chunking(
        text in text(),
        how in chunking(),
        flush in flush_size(),
        cap in 0usize..48,
        t in prop_oneof![Just(0usize), Just(4), Just(11)],
    ) {
        let make = || MinHashStreaming::new(
            MinHashFingerprinter::<_, 8>::new(Canonicalizer::default(), tokenizer(t)),
        ).with_max_bytes(cap);
        let whole = stream(make(), &[text.as_bytes()], flush);
        let pieces = stream(make(), &cut(text.as_bytes(), &how), flush);
        let is_cap = |r: &Result<_>| matches!(r, Err(e) if e.to_string().contains("exceeded cap"));
        prop_assert_eq!(is_cap(&whole), is_cap(&pieces), "{:?} vs {:?}", whole, pieces);
        if !is_cap(&whole) {
            let fp = MinHashFingerprinter::<_, 8>::new(Canonicalizer::default(), tokenizer(t));
            same(fp.fingerprint(&text), pieces, "under the cap")?;
        }
    }
}
