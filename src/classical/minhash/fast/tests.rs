//! The fast scheme against its plain reference, plus determinism, empty
//! documents, seeds, accuracy and the byte format.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::fingerprinter::sketch_tokens;
use super::hash::{Keys, token_hash};
use super::sketch::{EMPTY, FastSketch, max_rounds};
use super::{FAST_SCHEMA, FastMinHashFingerprinter, FastMinHashSig, reference};
use crate::canonical::Canonicalizer;
use crate::{
    Error, Fingerprinter, GraphemeTokenizer, MinHashFingerprinter, ShingleTokenizer, Tokenizer,
    WordTokenizer,
};

fn text_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            // A space before an alphabetic combining mark makes one word
            // that contains the space.
            "[ a]{0,2}[\\u{93E}\\u{A880}\\u{300}]{1,2}[ a]{0,2}",
            "[a-c0-2 .,:'_\\n\\t-]{0,12}",
            "[\\u{300}\\u{200B}é中ﬁ’ \\u{1F600}a.1]{0,6}",
            "[a-z]{9,20} ",
            Just("  ".to_string()),
        ],
        0..14,
    )
    .prop_map(|parts| parts.concat())
}

/// The element hashes the sketch collects, before binning.
fn fused_elems<T: Tokenizer>(tok: &T, canonical: &str, seed: u64) -> Vec<u64> {
    let mut sk = FastSketch::<8>::new(seed, 0);
    sketch_tokens(tok, canonical, &mut sk);
    sk.elems
}

fn generic_elems<T: Tokenizer>(tok: &T, canonical: &str, seed: u64) -> Vec<u64> {
    let keys = Keys::new(seed);
    let mut v = Vec::new();
    tok.for_each_token(canonical, &mut |t| v.push(token_hash(t.as_bytes(), &keys)));
    v
}

fn check_against_reference<T: Tokenizer + Clone, const H: usize>(
    tok: &T,
    text: &str,
    seed: u64,
) -> Result<(), TestCaseError> {
    let canon = Canonicalizer::default();
    let fp = FastMinHashFingerprinter::<T, H>::new(canon.clone(), tok.clone()).with_seed(seed);
    let toks = reference::tokens(&canon, tok, text);
    match (fp.fingerprint(text), reference::slots(&toks, seed, H)) {
        (Ok(sig), Some(want)) => prop_assert_eq!(&sig.hashes[..], &want[..]),
        (Err(Error::InvalidInput(m)), None) => prop_assert_eq!(m, "empty document"),
        (got, want) => prop_assert!(false, "{got:?} vs {want:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// The fused word and word-shingle loops hash exactly the generic
    /// tokenizer's tokens, in order, and each like the definition.
    #[test]
    fn fused_elements_equal_generic_tokens(text in text_strategy(), k in 1usize..8, seed in any::<u64>()) {
        let canonical = Canonicalizer::default().canonicalize(&text);
        let words = WordTokenizer;
        prop_assert_eq!(fused_elems(&words, &canonical, seed), generic_elems(&words, &canonical, seed));
        let sh = ShingleTokenizer { k, inner: WordTokenizer };
        prop_assert_eq!(fused_elems(&sh, &canonical, seed), generic_elems(&sh, &canonical, seed));
        let mut toks = Vec::new();
        sh.for_each_token(&canonical, &mut |t| toks.push(reference::token_hash(t, seed)));
        prop_assert_eq!(generic_elems(&sh, &canonical, seed), toks);
    }

    /// Whole signatures equal the reference, for built-in and other
    /// tokenizers, few and many slots (few: the filling rounds run).
    #[test]
    fn signatures_equal_reference(text in text_strategy(), k in 1usize..6, seed in any::<u64>()) {
        check_against_reference::<_, 16>(&WordTokenizer, &text, seed)?;
        check_against_reference::<_, 128>(&ShingleTokenizer { k, inner: WordTokenizer }, &text, seed)?;
        check_against_reference::<_, 5>(&ShingleTokenizer { k, inner: WordTokenizer }, &text, seed)?;
        check_against_reference::<_, 32>(&ShingleTokenizer { k, inner: GraphemeTokenizer }, &text, seed)?;
    }

    #[test]
    fn bytes_round_trip(hashes in proptest::array::uniform8(any::<u64>())) {
        let sig = FastMinHashSig::<8> { hashes, ..FastMinHashSig::empty() };
        prop_assert_eq!(FastMinHashSig::<8>::from_bytes(&sig.to_le_bytes()).unwrap(), sig);
        prop_assert!(crate::MinHashSig::<8>::from_bytes(&sig.to_le_bytes()).is_err());
    }

    #[test]
    fn from_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..60)) {
        if let Ok(sig) = FastMinHashSig::<4>::from_bytes(&bytes) {
            prop_assert_eq!(sig.to_le_bytes(), bytes);
        }
    }
}

#[test]
fn long_shingles_and_long_words() {
    let text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi \
                omicron pi rho sigma tau upsilon phi chi psi omega "
        .repeat(9)
        + &"x".repeat(300);
    for k in [1, 2, 5, 40, 64, 65, 200, 1024] {
        let t = ShingleTokenizer {
            k,
            inner: WordTokenizer,
        };
        let canonical = Canonicalizer::default().canonicalize(&text);
        assert_eq!(
            fused_elems(&t, &canonical, 3),
            generic_elems(&t, &canonical, 3),
            "k = {k}"
        );
        check_against_reference::<_, 64>(&t, &text, 3).unwrap();
    }
}

/// Heavily repeated shingles (the filling rounds deduplicate them).
#[test]
fn repetitive_documents() {
    for text in ["a ".repeat(5000), "a b c ".repeat(3000), "x".repeat(100)] {
        let t = ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        };
        check_against_reference::<_, 128>(&t, &text, 11).unwrap();
        check_against_reference::<_, 128>(&WordTokenizer, &text, 11).unwrap();
    }
}

#[test]
fn deterministic_and_seeded() {
    let fp = FastMinHashFingerprinter::<_, 64>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 3,
            inner: WordTokenizer,
        },
    );
    let doc = "the quick brown fox jumps over the lazy dog";
    let a = fp.fingerprint(doc).unwrap();
    assert_eq!(a, fp.clone().fingerprint(doc).unwrap());
    assert_eq!(a.schema, FAST_SCHEMA);
    assert_eq!(a._pad, [0; 6]);
    assert!(a.hashes.iter().all(|&v| v != EMPTY));
    let b = fp.clone().with_seed(1).fingerprint(doc).unwrap();
    assert_ne!(a, b);
    assert!(a.jaccard(&b) < 0.2, "{}", a.jaccard(&b));
    assert_ne!(fp.config_hash(), fp.clone().with_seed(1).config_hash());
    let mut buf = String::from("stale contents");
    assert_eq!(fp.fingerprint_with_buffer(doc, &mut buf).unwrap(), a);
}

#[test]
fn empty_documents_error_like_the_default() {
    let fast = FastMinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer);
    let default = MinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer);
    for doc in ["", "   ", "!!!", "\u{200B}"] {
        let e = fast.fingerprint(doc).unwrap_err();
        assert_eq!(
            e.to_string(),
            default.fingerprint(doc).unwrap_err().to_string()
        );
        assert!(
            matches!(&e, Error::InvalidInput(m) if m == "empty document"),
            "{e:?}"
        );
    }
    // Configuration errors come first, as in the default scheme.
    let bad = FastMinHashFingerprinter::<_, 16>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 0,
            inner: WordTokenizer,
        },
    );
    let bad_default = MinHashFingerprinter::<_, 16>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 0,
            inner: WordTokenizer,
        },
    );
    assert_eq!(
        bad.fingerprint("").unwrap_err().to_string(),
        bad_default.fingerprint("").unwrap_err().to_string()
    );
}

#[test]
fn zero_slots() {
    let fp = FastMinHashFingerprinter::<_, 0>::new(Canonicalizer::default(), WordTokenizer);
    let s = fp.fingerprint("a b c").unwrap();
    assert_eq!(s.jaccard(&s), 0.0);
    assert!(fp.fingerprint("").is_err());
}

/// The copy fallback after the round cap: deterministic and complete.
#[test]
fn fallback_fills_every_bin() {
    let mut sk = FastSketch::<32>::new(9, 1);
    sk.elems.push(0x1234_5678_9abc_def0);
    sk.bin_all();
    let a = sk.finish_with_cap(0).unwrap();
    assert!(
        a.iter()
            .all(|&v| v == 0x1234_5678_9abc_def0 & ((1 << 40) - 1))
    );
    let mut sk = FastSketch::<32>::new(9, 3);
    sk.elems.extend([1u64 << 63, 3, 1 << 62]);
    sk.bin_all();
    let b = sk.finish_with_cap(0).unwrap();
    assert!(b.iter().all(|&v| v != EMPTY));
    assert_eq!(max_rounds(128), 64 * 128 + 64);
    assert_eq!(max_rounds(1 << 30), (1 << 24) - 2);
}

/// Estimates on sets of known Jaccard similarity, word tokens (each token
/// its own element), fixed seeds: within 4 standard deviations each, and
/// unbiased on average over the seeds.
#[test]
fn estimates_are_near_the_truth() {
    let fp = FastMinHashFingerprinter::<_, 256>::new(Canonicalizer::default(), WordTokenizer);
    let words = |r: core::ops::Range<u32>| r.map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
    // (size of A, shared, size of B) -> J = shared / (a + b - shared)
    for (a, shared, b) in [
        (1000, 800, 1000),
        (1000, 500, 1000),
        (60, 50, 60),
        (20, 10, 30),
    ] {
        let doc_a = words(0..a);
        let doc_b = words(a - shared..a - shared + b);
        let j = f64::from(shared) / f64::from(a + b - shared);
        let sd = (j * (1.0 - j) / 256.0).sqrt();
        let mut sum = 0.0;
        let seeds = 0..20u64;
        for seed in seeds.clone() {
            let fp = fp.clone().with_seed(seed);
            let est = f64::from(
                fp.fingerprint(&doc_a)
                    .unwrap()
                    .jaccard(&fp.fingerprint(&doc_b).unwrap()),
            );
            assert!((est - j).abs() < 4.0 * sd, "J {j}, seed {seed}: {est}");
            sum += est;
        }
        let mean = sum / seeds.count() as f64;
        assert!((mean - j).abs() < 1.5 * sd, "J {j}: mean {mean}");
    }
    // Disjoint and identical sets.
    let x = fp.fingerprint(&words(0..50)).unwrap();
    let y = fp.fingerprint(&words(50..100)).unwrap();
    assert_eq!(x.jaccard(&y), 0.0);
    assert_eq!(x.jaccard(&fp.fingerprint(&words(0..50)).unwrap()), 1.0);
}

#[test]
fn bytes_format_and_errors() {
    assert_eq!(core::mem::size_of::<FastMinHashSig<128>>(), 1032);
    assert_eq!(core::mem::align_of::<FastMinHashSig<3>>(), 8);
    assert_eq!(core::mem::offset_of!(FastMinHashSig<3>, hashes), 8);
    let s = FastMinHashSig::<2> {
        hashes: [0x0102, u64::MAX],
        ..FastMinHashSig::empty()
    };
    let le = s.to_le_bytes();
    assert_eq!(le[..10], [0x01, 0x46, 0, 0, 0, 0, 0, 0, 2, 1]);
    #[cfg(target_endian = "little")]
    assert_eq!(s.as_bytes(), &le[..]);
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&le);
    assert_eq!(FastMinHashSig::<2>::from_bytes(&shifted[1..]).unwrap(), s);
    assert_eq!(FastMinHashSig::<2>::try_from(&le[..]).unwrap(), s);
    assert_eq!(
        FastMinHashSig::<2>::from_bytes(&le[1..])
            .unwrap_err()
            .to_string(),
        "invalid input: FastMinHashSig<2> is 24 bytes, got 23"
    );
    let mut bad = le.clone();
    bad[5] = 7;
    assert_eq!(
        FastMinHashSig::<2>::from_bytes(&bad)
            .unwrap_err()
            .to_string(),
        "invalid input: FastMinHashSig<2> pad bytes 2..8 must be zero, got [00, 00, 00, 07, 00, 00]"
    );
    let default = crate::MinHashSig::<2>::empty().to_le_bytes();
    assert!(matches!(
        FastMinHashSig::<2>::from_bytes(&default),
        Err(Error::SchemaMismatch {
            expected: 0x4601,
            actual: 1
        })
    ));
    assert_eq!(
        FastMinHashSig::<0>::empty().to_string(),
        "FastMinHashSig<0>[]"
    );
    assert_eq!(
        s.to_string(),
        "FastMinHashSig<2>[0000000000000102, ffffffffffffffff]"
    );
}

/// The unified enum carries a fast signature under its own label, apart
/// from the default scheme's.
#[test]
fn fingerprint_enum_variant() {
    let fp = FastMinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
    let sig = fp.fingerprint("a few words for the enum").unwrap();
    let f = crate::Fingerprint::FastMinHash(sig);
    assert_eq!(f.name(), "fast-minhash-h128-v17921");
    let m = f.metadata();
    assert_eq!(m.algorithm, crate::algo::FAST_MINHASH_128);
    assert_eq!(m.schema_version, FAST_SCHEMA);
    assert_eq!(m.byte_size, 8 + 8 * 128);
    assert_ne!(
        f,
        crate::Fingerprint::MinHash(crate::MinHashSig {
            schema: 1,
            _pad: [0; 6],
            hashes: sig.hashes,
        })
    );
}

/// A word with a space in it: the one case where a word is more than one
/// piece of the definition. The fused paths must hash it (and any shingle
/// holding it) by the definition. (Found by the streaming proptest.)
#[test]
fn words_that_contain_a_space() {
    for text in [" \u{a880}", "x \u{93E} y z", "a  \u{93E}\u{93E} b c d e f"] {
        let canonical = Canonicalizer::default().canonicalize(text);
        let mut words = Vec::new();
        WordTokenizer.for_each_token(&canonical, &mut |w| words.push(w.to_string()));
        assert!(words.iter().any(|w| w.contains(' ')), "{words:?}");
        for k in 1..4 {
            let sh = ShingleTokenizer {
                k,
                inner: WordTokenizer,
            };
            assert_eq!(
                fused_elems(&sh, &canonical, 7),
                generic_elems(&sh, &canonical, 7),
                "{text:?} k {k}"
            );
            check_against_reference::<_, 128>(&sh, text, 7).unwrap();
        }
        assert_eq!(
            fused_elems(&WordTokenizer, &canonical, 7),
            generic_elems(&WordTokenizer, &canonical, 7)
        );
        check_against_reference::<_, 16>(&WordTokenizer, text, 7).unwrap();
    }
}

proptest! {
    /// Texts dense in the characters that put U+0020 inside a word (spaces,
    /// wide spaces, joiners, alphabetic marks): the fused paths equal the
    /// definition, and the word scan reports a word holding a space exactly
    /// when there is one (that sends a text off the fused paths).
    #[test]
    fn spaced_words_follow_the_definition(
        parts in proptest::collection::vec(proptest::sample::select(vec![
            " ", "  ", "a", "1", ".", "'", "_", "\u{93E}", "\u{A880}", "\u{300}", "\u{200D}",
            "\u{FE0F}", "\u{1F600}", "\u{915}", "\u{E01}", "\u{3000}", "\t", "\n",
            "\u{1680}", "\u{2000}", "\u{200A}", "\u{205F}", "\u{2007}", "\u{A0}", "\u{AD}",
            "\u{200B}",
        ]), 0..16),
        k in 1usize..4,
    ) {
        let text = parts.concat();
        let sh = ShingleTokenizer { k, inner: WordTokenizer };
        prop_assert_eq!(fused_elems(&sh, &text, 5), generic_elems(&sh, &text, 5));
        prop_assert_eq!(fused_elems(&WordTokenizer, &text, 5), generic_elems(&WordTokenizer, &text, 5));
        let mut spaced = false;
        WordTokenizer.for_each_token(&text, &mut |w| spaced |= w.contains(' '));
        prop_assert_eq!(crate::tokenize::for_each_word_span_spaced(&text, |_, _| ()), spaced, "{:?}", text);
    }
}
