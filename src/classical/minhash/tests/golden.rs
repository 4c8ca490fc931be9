//! MinHash against the published crate's outputs on the edge-case corpus
//! (`../shared/golden/golden-edge.jsonl`, made by `shared/tools/txtfp-ref`
//! with 0.3.2). Skipped, loudly, when the shared folder is not beside the
//! crate.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use std::path::PathBuf;

use serde_json::Value;

use super::super::{MinHashFingerprinter, MinHashSig};
use crate::canonical::Canonicalizer;
use crate::classical::{Fingerprinter, HashFamily};
use crate::fingerprint::Fingerprint;
use crate::tokenize::{ShingleTokenizer, WordTokenizer};

fn shared(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel)
}

fn read_jsonl(rel: &str) -> Option<Vec<Value>> {
    let path = shared(rel);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            std::eprintln!(
                "SKIPPED minhash golden test: cannot read {}: {e}",
                path.display()
            );
            return None;
        }
    };
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).expect("golden line is JSON"))
            .collect(),
    )
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compare one fingerprint result with its golden record; returns the
/// mismatches as readable lines.
fn check<const H: usize>(
    id: &str,
    field: &str,
    got: crate::Result<MinHashSig<H>>,
    config_hash: u64,
    want: &Value,
    name: fn(&MinHashSig<H>) -> Option<String>,
) -> Vec<String> {
    let mut bad = Vec::new();
    let mut differ = |what: &str, g: &dyn core::fmt::Debug, w: &dyn core::fmt::Debug| {
        bad.push(format!("{id} {field} {what}: got {g:?}, want {w:?}"));
    };
    match (got, want.get("error")) {
        (Err(e), Some(w)) => {
            if e.to_string() != w.as_str().unwrap_or_default() {
                differ("error", &e.to_string(), w);
            }
            let dbg = format!("{e:?}");
            if Some(dbg.as_str()) != want["error_debug"].as_str() {
                differ("error_debug", &dbg, &want["error_debug"]);
            }
        }
        (Err(e), None) => differ("result", &e, &"a signature"),
        (Ok(sig), Some(w)) => differ("result", &sig.hashes.first(), w),
        (Ok(sig), None) => {
            let hashes: Vec<u64> = want["hashes"]
                .as_array()
                .expect("hashes array")
                .iter()
                .map(|v| v.as_u64().expect("u64 hash"))
                .collect();
            if sig.hashes[..] != hashes[..] {
                differ("hashes", &&sig.hashes[..], &hashes);
            }
            if Some(u64::from(sig.schema)) != want["schema"].as_u64() {
                differ("schema", &sig.schema, &want["schema"]);
            }
            let le = hex(&sig.to_le_bytes());
            if Some(le.as_str()) != want["bytes_hex"].as_str() {
                differ("bytes_hex", &le, &want["bytes_hex"]);
            }
            #[cfg(target_endian = "little")]
            if hex(sig.as_bytes()) != le {
                differ("as_bytes", &hex(sig.as_bytes()), &le);
            }
            if let Some(w) = want.get("name") {
                // `name` is recorded for the H = 128 fingerprinters only.
                let got = name(&sig).unwrap_or_default();
                if Some(got.as_str()) != w.as_str() {
                    differ("name", &got, w);
                }
            }
            #[cfg(feature = "serde")]
            {
                let v = serde_json::to_value(sig).expect("serialize");
                if v["schema"] != want["schema"] || v["hashes"] != want["hashes"] {
                    differ("serde", &v, want);
                }
            }
        }
    }
    let ch = format!("{config_hash:016x}");
    if want.get("error").is_none() && Some(ch.as_str()) != want["config_hash"].as_str() {
        bad.push(format!(
            "{id} {field} config_hash: got {ch}, want {}",
            want["config_hash"]
        ));
    }
    bad
}

fn name128(sig: &MinHashSig<128>) -> Option<String> {
    Some(Fingerprint::MinHash(*sig).name())
}

#[test]
fn golden_edge_minhash() {
    let (Some(corpus), Some(golden)) = (
        read_jsonl("corpus/edge-cases.jsonl"),
        read_jsonl("golden/golden-edge.jsonl"),
    ) else {
        return;
    };
    assert_eq!(
        corpus.len(),
        golden.len(),
        "corpus and golden differ in length"
    );
    let canon = Canonicalizer::default();
    let k5 = ShingleTokenizer {
        k: 5,
        inner: WordTokenizer,
    };
    let xxh3_k5 = MinHashFingerprinter::<_, 128>::new(canon.clone(), k5);
    let murmur_k5 = MinHashFingerprinter::<_, 128>::new(canon.clone(), k5)
        .with_hasher(HashFamily::MurmurHash3_x64_128);
    let xxh3_h64 = MinHashFingerprinter::<_, 64>::new(canon, WordTokenizer);

    let mut bad = Vec::new();
    let mut signatures = 0;
    for (doc, want) in corpus.iter().zip(&golden) {
        let id = doc["id"].as_str().expect("id");
        assert_eq!(Some(id), want["id"].as_str(), "records out of order");
        let text = doc["text"].as_str().expect("text");
        for (field, got, ch) in [
            (
                "minhash_xxh3_k5",
                xxh3_k5.fingerprint(text),
                xxh3_k5.config_hash(),
            ),
            (
                "minhash_murmur_k5",
                murmur_k5.fingerprint(text),
                murmur_k5.config_hash(),
            ),
        ] {
            signatures += usize::from(got.is_ok());
            bad.extend(check(id, field, got, ch, &want[field], name128));
        }
        let field = "minhash_xxh3_k1_h64";
        let got = xxh3_h64.fingerprint(text);
        signatures += usize::from(got.is_ok());
        let ch = xxh3_h64.config_hash();
        bad.extend(check(id, field, got, ch, &want[field], |_| None));
    }
    assert!(signatures > 100, "only {signatures} signatures compared");
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
