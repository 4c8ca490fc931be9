//! `CjkTokenizer` (jieba) against txtfp 0.3.2: the golden `cjk` tokens of the
//! canonical text, byte for byte.
//!
//! * `tests/data/cjk-golden.jsonl` (committed, made by
//!   `tests/data/cjk-golden-make.py`): short edge cases with full token
//!   arrays, every short Chinese/Japanese corpus-small document, and a few
//!   documents per other language.
//! * `tests/data/golden-{edge,small}.compact.jsonl`: their `cjk_count` and
//!   `cjk_digest` fields.
//! * `../shared/golden/golden-edge.jsonl` (full tokens) and
//!   `golden-small.digest.jsonl` (all 2,000 documents): run when ../shared is
//!   present, loudly skipped otherwise.
#![cfg(feature = "cjk")]

use crate::common::{data_file, read_jsonl, shared_file, token_digest};
use serde_json::Value;
use txtfp::{Canonicalizer, CjkSegmenter, CjkTokenizer, Tokenizer};

fn tokens(t: &CjkTokenizer, s: &str) -> Vec<String> {
    let mut v = Vec::new();
    t.for_each_token(s, &mut |x| v.push(x.to_string()));
    v
}

/// Checks one golden record; returns a description of the mismatch.
fn check(canon: &Canonicalizer, text: &str, want: &Value) -> Option<String> {
    let t = CjkTokenizer::new(CjkSegmenter::Jieba);
    let c = canon.canonicalize(text);
    let got = tokens(&t, &c);
    let streamed: Vec<String> = t.tokens(&c).into_string_iter().collect();
    if streamed != got {
        return Some("tokens() and for_each_token() disagree".into());
    }
    if let Some(arr) = want.get("cjk").and_then(Value::as_array) {
        let want_toks: Vec<&str> = arr.iter().map(|v| v.as_str().unwrap()).collect();
        if got != want_toks {
            let i = got
                .iter()
                .zip(&want_toks)
                .take_while(|(a, b)| a == b)
                .count();
            return Some(format!(
                "first difference at token {i}: got {:?}, want {:?}",
                got.get(i),
                want_toks.get(i)
            ));
        }
    }
    let count = want["cjk_count"].as_u64().unwrap() as usize;
    let digest = want["cjk_digest"].as_str().unwrap();
    if got.len() != count || token_digest(&got) != digest {
        return Some(format!(
            "count {} digest {} (want {count} {digest})",
            got.len(),
            token_digest(&got)
        ));
    }
    None
}

fn check_records(what: &str, recs: &[(String, Value)]) {
    let canon = Canonicalizer::default();
    let mut errs = Vec::new();
    for (text, want) in recs {
        if let Some(e) = check(&canon, text, want) {
            errs.push(format!("{}: {e}", want["id"]));
        }
    }
    assert!(
        errs.is_empty(),
        "{what}: {} of {} differ:\n{}",
        errs.len(),
        recs.len(),
        errs.join("\n")
    );
    eprintln!("{what}: {} documents match txtfp 0.3.2", recs.len());
}

fn with_text(file: &str) -> Vec<(String, Value)> {
    read_jsonl(&data_file(file))
        .into_iter()
        .map(|v| (v["text"].as_str().unwrap().to_string(), v))
        .collect()
}

#[test]
fn committed_cjk_fixture() {
    let recs = with_text("cjk-golden.jsonl");
    assert!(recs.len() > 150, "fixture too small: {}", recs.len());
    let with_arrays = recs.iter().filter(|(_, v)| v.get("cjk").is_some()).count();
    assert!(
        with_arrays > 40,
        "edge cases with token arrays: {with_arrays}"
    );
    check_records("cjk-golden.jsonl", &recs);
}

#[test]
fn compact_goldens_cjk_fields() {
    for f in ["golden-edge.compact.jsonl", "golden-small.compact.jsonl"] {
        check_records(f, &with_text(f));
    }
}

fn full(corpus: &str, golden: &str) {
    let (Some(c), Some(g)) = (shared_file(corpus), shared_file(golden)) else {
        return;
    };
    let texts: std::collections::HashMap<String, String> = read_jsonl(&c)
        .into_iter()
        .enumerate()
        .map(|(n, v)| {
            let id = v.get("id").cloned().unwrap_or(serde_json::json!(n));
            (id.to_string(), v["text"].as_str().unwrap().to_string())
        })
        .collect();
    let recs: Vec<(String, Value)> = read_jsonl(&g)
        .into_iter()
        .map(|v| (texts[&v["id"].to_string()].clone(), v))
        .collect();
    check_records(golden, &recs);
}

#[test]
fn full_golden_edge_cjk() {
    full("corpus/edge-cases.jsonl", "golden/golden-edge.jsonl");
}

#[test]
fn full_golden_corpus_small_cjk() {
    full(
        "corpus/corpus-small.jsonl",
        "golden/golden-small.digest.jsonl",
    );
}

/// The CJK probe vectors observed on txtfp 0.3.2,
/// with and without HMM, on raw (not canonicalized) text.
#[test]
fn spec_vectors_with_and_without_hmm() {
    let both: &[(&str, &[&str])] = &[
        ("我爱北京天安门", &["我", "爱", "北京", "天安门"]),
        (
            "中文测试，简单一点。",
            &["中文", "测试", "，", "简单", "一点", "。"],
        ),
        (
            "hello world 你好世界 123",
            &["hello", "world", "你好", "世界", "123"],
        ),
        ("  中 文  ", &["中", "文"]),
        ("Rust语言很好用", &["Rust", "语言", "很", "好", "用"]),
        ("我来到北京清华大学", &["我", "来到", "北京", "清华大学"]),
    ];
    let plain: &[(&str, &[&str])] = &[
        ("café naïve", &["caf", "é", "na", "ï", "ve"]),
        ("こんにちは", &["こ", "ん", "に", "ち", "は"]),
        ("안녕 하세요", &["안", "녕", "하", "세", "요"]),
        (
            "a-b_c.d 3.14 C++ #tag 100%",
            &[
                "a", "-", "b", "_", "c", ".", "d", "3", ".", "14", "C++", "#", "tag", "100", "%",
            ],
        ),
        ("北京大学生", &["北京", "大学生"]),
        ("😀好", &["😀", "好"]),
        ("中国,人民", &["中国", ",", "人民"]),
    ];
    let t = CjkTokenizer::default();
    for (s, want) in both.iter().chain(plain) {
        assert_eq!(tokens(&t, s), *want, "{s:?}");
    }
    let hmm = t.with_hmm(true);
    for (s, want) in both {
        assert_eq!(tokens(&hmm, s), *want, "hmm {s:?}");
    }
    assert_eq!(t.name(), "cjk-jieba");
    assert_eq!(hmm.name(), "cjk-jieba-hmm");
}
