//! The 0.3.2 golden edge cases, streamed.

extern crate std;

use alloc::string::ToString;
use alloc::vec::Vec;
use std::format;

use super::super::engine::FLUSH_BYTES;
use super::super::tests::stream;
use crate::canonical::Canonicalizer;
use crate::{
    MinHashFingerprinter, MinHashStreaming, ShingleTokenizer, SimHashFingerprinter,
    SimHashStreaming, WordTokenizer,
};

/// Every edge-case document of the corpus, streamed in random chunkings
/// (single bytes for the smaller ones), against the 0.3.2 golden values
/// `minhash_xxh3_k5` and `simhash_tf`.
#[test]
fn golden_edge_cases_streamed() {
    use serde_json::Value;

    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let read = |rel: &str| -> Option<Vec<Value>> {
        let path = root.join(rel);
        match std::fs::read_to_string(&path) {
            Ok(t) => Some(
                t.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| serde_json::from_str(l).expect("JSON line"))
                    .collect(),
            ),
            Err(e) => {
                std::eprintln!(
                    "SKIPPED streaming golden test: cannot read {}: {e}",
                    path.display()
                );
                None
            }
        }
    };
    let (Some(corpus), Some(golden)) = (
        read("corpus/edge-cases.jsonl"),
        read("golden/golden-edge.jsonl"),
    ) else {
        return;
    };
    assert_eq!(corpus.len(), golden.len());
    let minhash = MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        },
    );
    let simhash = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
    let mut x = 0x2545_F491_4F6C_DD1D_u64;
    let mut bad = Vec::new();
    for (doc, want) in corpus.iter().zip(&golden) {
        let id = doc["id"].as_str().unwrap_or_default();
        assert_eq!(Some(id), want["id"].as_str());
        let text = doc["text"].as_str().expect("text").as_bytes();
        for round in 0..3 {
            let mut chunks = Vec::new();
            let mut at = 0;
            while at < text.len() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let n = match round {
                    0 if text.len() <= 20_000 => 1,
                    0 => 1 + (x % 7) as usize,
                    1 => 1 + (x % 61) as usize,
                    _ => 1 + (x % 70_000) as usize,
                };
                let end = (at + n).min(text.len());
                chunks.push(&text[at..end]);
                at = end;
            }
            let flush = [1, 37, FLUSH_BYTES][round];
            let mh = stream(MinHashStreaming::new(minhash.clone()), &chunks, flush);
            let m = &want["minhash_xxh3_k5"];
            let mh_ok = match (&mh, m.get("error")) {
                (Err(e), Some(w)) => Some(e.to_string().as_str()) == w.as_str(),
                (Ok(sig), None) => m["hashes"].as_array().is_some_and(|h| {
                    h.iter()
                        .map(Value::as_u64)
                        .eq(sig.hashes.iter().map(|&v| Some(v)))
                }),
                _ => false,
            };
            if !mh_ok {
                bad.push(format!("{id} round {round} minhash_xxh3_k5: {mh:?}"));
            }
            let sh = stream(SimHashStreaming::new(simhash.clone()), &chunks, flush);
            let w = &want["simhash_tf"];
            let sh_ok = match (&sh, w.get("error")) {
                (Err(e), Some(msg)) => Some(e.to_string().as_str()) == msg.as_str(),
                (Ok(sig), None) => w["u64"].as_u64() == Some(sig.0),
                _ => false,
            };
            if !sh_ok {
                bad.push(format!("{id} round {round} simhash_tf: {sh:?} want {w}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
