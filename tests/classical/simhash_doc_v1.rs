//! `simhash-doc-v1` against vectors made by independent references
//! (`tests/data/simhash-doc-v1-make.py`):
//!
//! * `jenkins-lookup3.json`: `hashlittle2` computed by Bob Jenkins' own
//!   `lookup3.c` (from the PyPI sdist `jenkins==1.0.2`, compiled with gcc);
//! * `simhash-doc-v1.jsonl`: tokens, fingerprint and text form of 27
//!   documents in 22 languages (+ 4 with stop lists), computed by a plain
//!   Python implementation of the spec over that `lookup3.c`;
//! * and `docs/simhash-doc-v1.md` must print every one of those vectors.
#![cfg(feature = "interop")]

use serde_json::Value;
use txtfp::classical::simhash::{DocV1Match, SimHashDocV1, StopWords, hashlittle2, jenkins64};
use txtfp::{Fingerprinter, SimHash64, hamming};

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn doc_vectors() -> Vec<Value> {
    data("simhash-doc-v1.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn scheme_for(v: &Value) -> SimHashDocV1 {
    match v["stop"].as_str() {
        None => SimHashDocV1::new(),
        Some(lang) => SimHashDocV1::new().with_stop_words(StopWords::builtin(lang).unwrap()),
    }
}

#[test]
fn jenkins_matches_the_reference_lookup3() {
    let file: Value = serde_json::from_str(&data("jenkins-lookup3.json")).unwrap();
    let vectors = file["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 60, "{} vectors", vectors.len());
    let mut lengths = std::collections::BTreeSet::new();
    for v in vectors {
        let key = hex_bytes(v["key_hex"].as_str().unwrap());
        let (pc, pb) = (
            v["pc"].as_u64().unwrap() as u32,
            v["pb"].as_u64().unwrap() as u32,
        );
        let want = (
            v["c"].as_u64().unwrap() as u32,
            v["b"].as_u64().unwrap() as u32,
        );
        assert_eq!(
            hashlittle2(&key, pc, pb),
            want,
            "key {key:02x?} seeds {pc:#x} {pb:#x}"
        );
        if (pc, pb) == (0, 0) {
            assert_eq!(
                jenkins64(&key),
                u64::from(want.0) | (u64::from(want.1) << 32)
            );
        }
        lengths.insert(key.len());
    }
    // Every tail length of the last block, and several full blocks.
    assert!((0..=40).all(|n| lengths.contains(&n)) && lengths.contains(&1000));
}

#[test]
fn documents_match_the_reference_vectors() {
    let vectors = doc_vectors();
    let plain: Vec<&Value> = vectors.iter().filter(|v| v["stop"].is_null()).collect();
    let langs: std::collections::BTreeSet<&str> =
        plain.iter().map(|v| v["lang"].as_str().unwrap()).collect();
    assert!(
        plain.len() >= 20 && langs.len() >= 20,
        "{} docs, {} languages",
        plain.len(),
        langs.len()
    );
    for v in &vectors {
        let id = v["id"].as_str().unwrap();
        let text = v["text"].as_str().unwrap();
        let scheme = scheme_for(v);
        let want_tokens: Vec<String> = v["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect();
        assert_eq!(scheme.tokens(text), want_tokens, "{id}: tokens");
        let want = u64::from_str_radix(v["simhash"].as_str().unwrap(), 16).unwrap();
        let got = scheme.fingerprint(text).unwrap();
        assert_eq!(got, SimHash64(want), "{id}: {:016x} vs {want:016x}", got.0);
        let form = v["text_form"].as_str().unwrap();
        assert_eq!(SimHashDocV1::to_text(got), form, "{id}: text form");
        assert_eq!(SimHashDocV1::parse(form).unwrap(), got);
        assert_eq!(
            SimHashDocV1::parse(&form.to_ascii_lowercase()).unwrap(),
            got
        );
    }
}

#[test]
fn the_spec_page_prints_every_vector() {
    let spec = std::fs::read_to_string(format!(
        "{}/docs/simhash-doc-v1.md",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    for v in doc_vectors() {
        let row = format!(
            "| {} | `{}` | `{}` |",
            v["id"].as_str().unwrap(),
            v["simhash"].as_str().unwrap(),
            v["text_form"].as_str().unwrap()
        );
        assert!(
            spec.contains(&row),
            "docs/simhash-doc-v1.md lacks the row {row}"
        );
    }
    for lang in StopWords::LANGUAGES {
        assert!(
            spec.contains(&format!("`{lang}`")),
            "stop list {lang} not printed"
        );
    }
}

#[cfg(feature = "lsh")]
#[test]
fn formatting_changes_keep_the_fingerprint_and_lookup_finds_it() {
    let scheme = SimHashDocV1::new();
    let base = "Near-duplicate detection finds documents that say almost the same thing, even \
                when a few words were changed, added or removed, across web pages, PDF files \
                and plain text, in many languages and scripts.";
    let a = scheme.fingerprint(base).unwrap();
    // Markup-level changes leave the tokens, hence the bits, unchanged.
    let b = scheme
        .fingerprint(&base.replace(", ", " — ").to_uppercase())
        .unwrap();
    assert_eq!(a, b);
    assert_eq!(SimHashDocV1::match_level(a, b), DocV1Match::Close);
    let other = scheme
        .fingerprint("Completely unrelated words about cooking pasta at home.")
        .unwrap();
    assert_eq!(SimHashDocV1::match_level(a, other), DocV1Match::Distinct);
    let mut idx = SimHashDocV1::index();
    assert_eq!(idx.max_distance(), SimHashDocV1::MAX_DISTANCE);
    idx.insert(1, a);
    idx.insert(2, other);
    assert_eq!(idx.query(&b), [1]);
    assert!(hamming(a, other) > SimHashDocV1::MAX_DISTANCE);
}

fn hex_bytes(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}
