//! End-to-end SimHash tests: spec Appendix A vectors, the real-valued IDF
//! semantics, config hashes, and the 0.3.2 golden files when present.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::canonical::Canonicalizer;
use crate::classical::{DEFAULT_SEED, Fingerprinter, HashFamily, TokenSketch};
use crate::tokenize::{ShingleTokenizer, Tokenizer, WordTokenizer};

fn tf() -> SimHashFingerprinter<WordTokenizer> {
    SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer)
}

fn lo(token: &str) -> u64 {
    HashFamily::Xxh3_64
        .hash128(token.as_bytes(), DEFAULT_SEED)
        .0
}

fn idf(pairs: &[(&str, f32)]) -> SimHashFingerprinter<WordTokenizer> {
    tf().with_weighting(Weighting::IdfWeighted(IdfTable::from_pairs(
        pairs.iter().copied(),
    )))
}

/// The W11-fixed semantics written out plainly: distinct tokens in
/// first-occurrence order, weight `tf × idf` in f64, ±weight per bit.
fn idf_reference(tokens: &[&str], table: &IdfTable) -> u64 {
    let mut order: Vec<(&str, u64)> = Vec::new();
    for &t in tokens {
        match order.iter_mut().find(|(s, _)| *s == t) {
            Some((_, n)) => *n += 1,
            None => order.push((t, 1)),
        }
    }
    let mut acc = [0f64; 64];
    for (t, n) in order {
        let w = n as f64 * f64::from(table.get(t));
        let h = lo(t);
        for (b, a) in acc.iter_mut().enumerate() {
            *a += if (h >> b) & 1 == 1 { w } else { -w };
        }
    }
    acc.iter()
        .enumerate()
        .fold(0, |o, (b, &a)| o | (u64::from(a > 0.0) << b))
}

#[test]
fn appendix_a_tf_uniform_mmh3() {
    let rows: [(&str, u64, u64, u64); 4] = [
        (
            "the quick brown fox jumps over the lazy dog",
            0xce0e315a6cc6f940,
            0x0e02305268c47840,
            0x7b4dd140e45ae07f,
        ),
        (
            "the the the the cat",
            0xca0f2d5eacea9941,
            0xc2082540a0c00841,
            0x5d6db1c2e4d2e935,
        ),
        (
            "hello",
            0x9c165db7b53c9009,
            0x9c165db7b53c9009,
            0xbb93b20b339e7d54,
        ),
        (
            "Hello, HELLO hello!",
            0x9c165db7b53c9009,
            0x9c165db7b53c9009,
            0xbb93b20b339e7d54,
        ),
    ];
    let uniform = tf().with_weighting(Weighting::Uniform);
    let mmh3 = tf().with_hasher(HashFamily::MurmurHash3_x64_128);
    for (input, want_tf, want_uniform, want_mmh3) in rows {
        assert_eq!(
            tf().fingerprint(input).unwrap().bits(),
            want_tf,
            "tf {input:?}"
        );
        assert_eq!(
            uniform.fingerprint(input).unwrap().bits(),
            want_uniform,
            "uniform {input:?}"
        );
        assert_eq!(
            mmh3.fingerprint(input).unwrap().bits(),
            want_mmh3,
            "mmh3 {input:?}"
        );
    }
    // The spec's tie vector: two tokens, opposite bits clear.
    assert_eq!(
        tf().fingerprint("the dog").unwrap().bits(),
        0x0200015224889800
    );
    assert_eq!(lo("the") & lo("dog"), 0x0200015224889800);
}

#[test]
fn one_token_document_is_the_token_hash() {
    for w in ["hello", "a", "naïve", "x1"] {
        assert_eq!(tf().fingerprint(w).unwrap().bits(), lo(w), "{w}");
    }
    let mmh3 = tf()
        .with_hasher(HashFamily::MurmurHash3_x64_128)
        .with_seed(3);
    assert_eq!(
        mmh3.fingerprint("hello").unwrap().bits(),
        HashFamily::MurmurHash3_x64_128.hash128(b"hello", 3).0
    );
}

#[test]
fn empty_documents_are_errors_in_every_mode() {
    let modes = [
        Weighting::Tf,
        Weighting::Uniform,
        Weighting::IdfWeighted(IdfTable::default()),
    ];
    for w in modes {
        let fp = tf().with_weighting(w);
        for input in ["", "   ", "!!!", "\u{200B}"] {
            let err = fp.fingerprint(input).unwrap_err();
            assert_eq!(
                err.to_string(),
                "invalid input: empty document",
                "{input:?}"
            );
            assert_eq!(
                alloc::format!("{err:?}"),
                "InvalidInput(\"empty document\")"
            );
        }
        let err = fp.sketch().finish().unwrap_err();
        assert_eq!(err.to_string(), "invalid input: empty document");
    }
}

#[test]
fn idf_weights_are_real_valued() {
    // 0.3.2 truncated 2·0.1 and 2·0.4 to 0 and returned 0; now `dog` (0.8)
    // outvotes `the` (0.2) on every bit where they differ.
    let got = idf(&[("the", 0.1), ("dog", 0.4)])
        .fingerprint("the dog the dog")
        .unwrap();
    assert_eq!(got.bits(), lo("dog"));
    assert_eq!(got.bits(), 0x061001f2768cfa00);
    // Appendix A row that truncation did not change (3.8 → 3 vs 5.0 → 5).
    let got = idf(&[("the", 1.9), ("dog", 2.5)])
        .fingerprint("the dog the dog")
        .unwrap();
    assert_eq!(got.bits(), 0x061001f2768cfa00);
    // 0.6 vs 0.4: 0.3.2 gave 0 (both truncated); now `the` wins.
    let got = idf(&[("the", 0.6), ("dog", 0.4)])
        .fingerprint("the dog")
        .unwrap();
    assert_eq!(got.bits(), lo("the"));
    // NaN and negative weights are dropped by `from_pairs`: both tokens weigh
    // 1.0, so only shared bits survive (0.3.2 gave f9effe0d897305ff).
    let got = idf(&[("the", f32::NAN), ("dog", -3.0)])
        .fingerprint("the dog")
        .unwrap();
    assert_eq!(got.bits(), 0x0200015224889800);
    // Absent tokens weigh 1.0; all-zero weights give an Ok zero signature.
    let got = idf(&[("the", 0.0)]).fingerprint("the the dog").unwrap();
    assert_eq!(got.bits(), lo("dog"));
    let got = idf(&[("the", 0.0)]).fingerprint("The THE the").unwrap();
    assert_eq!(got.bits(), 0);
}

#[test]
fn idf_matches_reference_on_a_longer_document() {
    let text = "the cat and the dog and the bird saw the cat near a dog";
    let table = IdfTable::from_pairs([("the", 0.05), ("and", 0.2), ("cat", 1.7), ("a", 0.3)]);
    let fp = tf().with_weighting(Weighting::IdfWeighted(table.clone()));
    let tokens: Vec<&str> = text.split(' ').collect();
    assert_eq!(
        fp.fingerprint(text).unwrap().bits(),
        idf_reference(&tokens, &table)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// IDF sketch (hash-keyed map, first-occurrence order) equals the plain
    /// string-keyed reference.
    #[test]
    fn idf_sketch_matches_reference(
        picks in prop::collection::vec(0usize..12, 1..60),
        weights in prop::collection::vec(0.0f32..5.0, 12),
    ) {
        const VOCAB: [&str; 12] =
            ["the", "a", "cat", "dog", "bird", "sat", "on", "mat", "x", "yy", "zzz", "q"];
        let tokens: Vec<&str> = picks.iter().map(|&i| VOCAB[i]).collect();
        // Half the vocabulary listed, the rest defaults to 1.0.
        let table = IdfTable::from_pairs(VOCAB.iter().zip(&weights).step_by(2).map(|(t, &w)| (*t, w)));
        let fp = tf().with_weighting(Weighting::IdfWeighted(table.clone()));
        prop_assert_eq!(fp.fingerprint(&tokens.join(" ")).unwrap().bits(), idf_reference(&tokens, &table));
    }

    /// Uniform = Tf over the distinct tokens; Tf is order-independent.
    #[test]
    fn uniform_is_tf_of_distinct_tokens(picks in prop::collection::vec(0usize..30, 1..80)) {
        let tokens: Vec<String> = picks.iter().map(|i| alloc::format!("w{i}")).collect();
        let mut distinct = tokens.clone();
        distinct.sort();
        distinct.dedup();
        let uniform = tf().with_weighting(Weighting::Uniform);
        prop_assert_eq!(
            uniform.fingerprint(&tokens.join(" ")).unwrap(),
            tf().fingerprint(&distinct.join(" ")).unwrap()
        );
        let mut reversed = tokens.clone();
        reversed.reverse();
        prop_assert_eq!(
            tf().fingerprint(&tokens.join(" ")).unwrap(),
            tf().fingerprint(&reversed.join(" ")).unwrap()
        );
    }
}

#[test]
fn config_hashes() {
    assert_eq!(tf().config_hash(), 0xcd2b56b620c8dd97);
    assert_eq!(
        tf().with_weighting(Weighting::Uniform).config_hash(),
        0x60f3ec3a61b0cee4
    );
    let table = IdfTable::from_pairs([("the", 0.1)]);
    let with_table = tf().with_weighting(Weighting::IdfWeighted(table.clone()));
    let want = crate::config_hash_classical(
        &Canonicalizer::default(),
        "word-uax29",
        &alloc::format!("simhash-b64-idf-weighted-{:016x}", table.content_hash()),
        HashFamily::Xxh3_64,
        DEFAULT_SEED,
    );
    assert_eq!(with_table.config_hash(), want);
    let other = tf().with_weighting(Weighting::IdfWeighted(IdfTable::from_pairs([("the", 0.2)])));
    assert_ne!(with_table.config_hash(), other.config_hash());
    let same = tf().with_weighting(Weighting::IdfWeighted(IdfTable::from_pairs([("the", 0.1)])));
    assert_eq!(with_table.config_hash(), same.config_hash());
    assert_ne!(tf().with_seed(1).config_hash(), tf().config_hash());
    assert_ne!(
        tf().with_hasher(HashFamily::MurmurHash3_x64_128)
            .config_hash(),
        tf().config_hash()
    );
}

#[test]
fn builder_and_getters() {
    let built =
        SimHashFingerprinterBuilder::default().build(Canonicalizer::default(), WordTokenizer);
    assert_eq!(built.seed(), DEFAULT_SEED);
    assert_eq!(built.hasher(), HashFamily::Xxh3_64);
    assert_eq!(built.weighting(), &Weighting::Tf);
    assert_eq!(built.config_hash(), tf().config_hash());
    assert_eq!(built.tokenizer().name(), "word-uax29");
    assert_eq!(
        built.canonicalizer().config_string(),
        Canonicalizer::default().config_string()
    );
    let custom = SimHashFingerprinterBuilder::default()
        .seed(9)
        .hasher(HashFamily::MurmurHash3_x64_128)
        .weighting(Weighting::Uniform)
        .build(Canonicalizer::default(), WordTokenizer);
    let chained = tf()
        .with_seed(9)
        .with_hasher(HashFamily::MurmurHash3_x64_128)
        .with_weighting(Weighting::Uniform);
    assert_eq!(custom.config_hash(), chained.config_hash());
    let text = "some text with some repeated text";
    assert_eq!(
        custom.fingerprint(text).unwrap(),
        chained.fingerprint(text).unwrap()
    );
    let streaming = chained.clone().into_streaming();
    assert_eq!(
        streaming.fingerprinter().config_hash(),
        chained.config_hash()
    );
}

/// A configuration this build cannot honour fails before any input is
/// looked at, even an empty one (0.3.2 silently skipped the skeleton, W7).
#[cfg(not(feature = "security"))]
#[test]
fn canonicalizer_configuration_errors_come_first() {
    let canon = crate::canonical::CanonicalizerBuilder {
        apply_confusable: true,
        ..Default::default()
    }
    .build();
    let fp = SimHashFingerprinter::new(canon, WordTokenizer);
    for input in ["", "hello"] {
        let err = fp.fingerprint(input).unwrap_err();
        assert_eq!(
            err.to_string(),
            "feature `security` not enabled at compile time"
        );
    }
}

#[test]
fn tokenizer_configuration_errors_surface() {
    let fp = SimHashFingerprinter::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: usize::MAX,
            inner: WordTokenizer,
        },
    );
    let want = fp.tokenizer().validate().unwrap_err().to_string();
    assert_eq!(fp.fingerprint("a b c").unwrap_err().to_string(), want);
}

/// The project's shared reference folder: `$TXTFP_SHARED_DIR`, else
/// `../shared` beside the crate.
#[cfg(feature = "std")]
fn shared_dir() -> String {
    std::env::var("TXTFP_SHARED_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared").into())
}

#[cfg(feature = "std")]
#[test]
fn repo_goldens() {
    let dir = alloc::format!("{}/golden/upstream", shared_dir());
    let Ok(names) = std::fs::read_dir(alloc::format!("{dir}/corpora")) else {
        std::eprintln!("SKIPPED repo_goldens: {dir} not found");
        return;
    };
    let mut seen = 0;
    for entry in names {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let want = std::fs::read(alloc::format!("{dir}/golden/simhash/{stem}_b64.bin")).unwrap();
        let got = tf().fingerprint(&text).unwrap();
        assert_eq!(got.as_bytes(), &want[..], "{stem}");
        assert_eq!(SimHash64::from_bytes(&want).unwrap(), got, "{stem}");
        seen += 1;
    }
    assert_eq!(seen, 6);
}

/// Every record of the 0.3.2 golden file: value, bytes, serde, name,
/// config hash and error strings of `simhash_tf` and `simhash_uniform`.
#[cfg(feature = "std")]
#[test]
fn golden_edge_cases() {
    use serde_json::Value;
    let root = shared_dir();
    let (Ok(golden), Ok(corpus)) = (
        std::fs::read_to_string(alloc::format!("{root}/golden/golden-edge.jsonl")),
        std::fs::read_to_string(alloc::format!("{root}/corpus/edge-cases.jsonl")),
    ) else {
        std::eprintln!("SKIPPED golden_edge_cases: {root}/golden or corpus not found");
        return;
    };
    let uniform = tf().with_weighting(Weighting::Uniform);
    let mut checked = 0;
    for (g, c) in golden.lines().zip(corpus.lines()) {
        let g: Value = serde_json::from_str(g).unwrap();
        let c: Value = serde_json::from_str(c).unwrap();
        assert_eq!(g["id"], c["id"]);
        let id = g["id"].as_str().unwrap();
        let text = c["text"].as_str().unwrap();
        for (field, fp) in [("simhash_tf", tf()), ("simhash_uniform", uniform.clone())] {
            let want = &g[field];
            match fp.fingerprint(text) {
                Ok(s) => {
                    let hex: String = s
                        .as_bytes()
                        .iter()
                        .map(|b| alloc::format!("{b:02x}"))
                        .collect();
                    assert_eq!(
                        want["hex"],
                        alloc::format!("{:016x}", s.bits()),
                        "{id} {field}"
                    );
                    assert_eq!(want["u64"].as_u64(), Some(s.bits()), "{id} {field}");
                    assert_eq!(want["bytes_hex"], hex, "{id} {field}");
                    assert_eq!(
                        want["name"],
                        crate::Fingerprint::SimHash(s).name(),
                        "{id} {field}"
                    );
                    assert_eq!(
                        want["config_hash"],
                        alloc::format!("{:016x}", fp.config_hash()),
                        "{id} {field}"
                    );
                    #[cfg(feature = "serde")]
                    assert_eq!(
                        want["serde"],
                        serde_json::to_value(s).unwrap(),
                        "{id} {field}"
                    );
                }
                Err(e) => {
                    assert_eq!(want["error"], e.to_string(), "{id} {field}");
                    assert_eq!(want["error_debug"], alloc::format!("{e:?}"), "{id} {field}");
                }
            }
        }
        checked += 1;
    }
    assert_eq!(checked, golden.lines().count());
    assert!(checked >= 80, "only {checked} golden records");
}
