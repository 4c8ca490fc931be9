//! TLSH parity: txtfp 0.3.2's digests of canonical text, and py-tlsh 5.0.0's
//! (the reference C++ TLSH) of the raw UTF-8.
//!
//! * `tests/data/golden-*.compact.jsonl` (committed; edge cases + every 5th
//!   corpus-small document): the `tlsh` field of txtfp 0.3.2.
//! * `tests/data/tlsh-peers.compact.jsonl` (committed, same ids): py-tlsh
//!   `tlsh.hash(text.encode('utf-8'))`, `null` under 50 bytes, `"TNULL"`
//!   when the reference refuses the input.
//! * The full sets under `../shared` when present (loudly skipped otherwise).
#![cfg(feature = "tlsh")]

use std::collections::HashMap;
use std::path::Path;

use crate::common::*;
use serde_json::Value;
use txtfp::classical::tlsh::TlshStreaming;
use txtfp::{
    Fingerprinter, StreamingFingerprinter, TlshFingerprint, TlshFingerprinter, tlsh_distance,
};

/// Our `tlsh` golden field: `{hex, config_hash}` or `{error, error_debug}`.
fn ours_txtfp(fp: &TlshFingerprinter, text: &str) -> Value {
    match fp.fingerprint(text) {
        Ok(f) => serde_json::json!({
            "hex": f.hex(),
            "config_hash": format!("{:016x}", fp.config_hash()),
        }),
        Err(e) => serde_json::json!({ "error": e.to_string(), "error_debug": format!("{e:?}") }),
    }
}

/// Checks every record's `tlsh` against `fingerprint(text)` (and the stream
/// of the canonical text against it); returns the number of digests.
fn check_txtfp(recs: &[Value], text_of: &dyn Fn(&Value) -> String, what: &str) -> usize {
    let fp = TlshFingerprinter::default();
    let (mut errs, mut digests) = (Vec::new(), 0);
    for rec in recs {
        let text = text_of(rec);
        let mut want = rec["tlsh"].clone();
        if let Some(o) = want.as_object_mut() {
            o.remove("name"); // the full goldens also carry "tlsh-v1"
            assert!(rec["tlsh"].get("name").is_none_or(|n| n == "tlsh-v1"));
        }
        let got = ours_txtfp(&fp, &text);
        if got != want {
            errs.push(format!("{}: want {want} got {got}", rec["id"]));
            continue;
        }
        if let Ok(f) = fp.fingerprint(&text) {
            digests += 1;
            let canon = fp.canonicalizer().canonicalize(&text);
            let mut s = TlshStreaming::new();
            for piece in canon.as_bytes().chunks(977) {
                s.update(piece).unwrap();
            }
            assert_eq!(s.finalize().unwrap(), f, "{}: stream", rec["id"]);
        }
    }
    assert!(
        errs.is_empty(),
        "{what}: {} of {} differ:\n{}",
        errs.len(),
        recs.len(),
        errs[..errs.len().min(10)].join("\n")
    );
    eprintln!(
        "{what}: {} records, {digests} digests identical",
        recs.len()
    );
    digests
}

/// Checks py-tlsh digests of raw bytes; returns the valid ones (for distances).
/// `null` (not hashed: under 50 bytes) must be our length error, `"TNULL"`
/// our entropy error.
fn check_peers(
    peers: &[Value],
    texts: &HashMap<String, String>,
    what: &str,
) -> Vec<TlshFingerprint> {
    let fp = TlshFingerprinter::default();
    let mut out = Vec::new();
    let mut errs = Vec::new();
    for rec in peers.iter().filter(|r| r.get("id").is_some()) {
        let id = rec["id"].as_str().unwrap();
        let Some(text) = texts.get(id) else { continue };
        let got = fp.sketch_bytes(text.as_bytes());
        let ok = match (rec["tlsh"].as_str(), &got) {
            (None, Err(e)) => e.to_string().contains("tlsh requires at least 50 bytes"),
            // The peers file has no digest for exactly 50 bytes (edge-017),
            // while the reference C++ (`data_len < MIN_DATA_LENGTH`), tlsh2 and
            // txtfp 0.3.2 (the golden above) all accept 50: a harness cut-off.
            (None, Ok(_)) => text.len() == txtfp::TLSH_MIN_INPUT_BYTES,
            (Some("TNULL"), Err(e)) => e.to_string().contains("insufficient entropy"),
            (Some(h), Ok(f)) => {
                out.push(f.clone());
                f.hex() == h
            }
            _ => false,
        };
        if !ok {
            errs.push(format!("{id}: py-tlsh {} vs ours {got:?}", rec["tlsh"]));
        }
    }
    assert!(errs.is_empty(), "{what}:\n{}", errs.join("\n"));
    assert!(!out.is_empty(), "{what}: no digests compared");
    eprintln!("{what}: {} py-tlsh digests identical", out.len());
    out
}

/// `tlsh_distance` on real digests: symmetric, 0 on itself, equal to the
/// reference diff (tlsh2 on the strings as py-tlsh wrote them, so our
/// validation and case normalisation change nothing).
fn check_distances(fps: &[TlshFingerprint]) {
    let mut n = 0;
    let step = 1 + fps.len() / 50;
    for (i, a) in fps.iter().enumerate() {
        for b in fps.iter().skip(i).step_by(step).take(40) {
            let d = tlsh_distance(a, b).unwrap();
            let ra: tlsh2::Tlsh128_1 = a.hex().parse().unwrap();
            let rb: tlsh2::Tlsh128_1 = b
                .hex()
                .to_ascii_lowercase()
                .replacen('t', "T", 1)
                .parse()
                .unwrap();
            assert_eq!(d, ra.diff(&rb, true), "{a} {b}");
            assert_eq!(d, tlsh_distance(b, a).unwrap());
            n += 1;
        }
        assert_eq!(tlsh_distance(a, a).unwrap(), 0);
    }
    assert!(n > 100, "only {n} pairs");
}

fn texts_of(recs: &[Value]) -> HashMap<String, String> {
    recs.iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                r["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn compact_txtfp_and_py_tlsh() {
    let mut all = Vec::new();
    for name in ["golden-edge.compact.jsonl", "golden-small.compact.jsonl"] {
        let recs = read_jsonl(&data_file(name));
        check_txtfp(&recs, &|r| r["text"].as_str().unwrap().to_string(), name);
        all.extend(recs);
    }
    let peers = read_jsonl(&data_file("tlsh-peers.compact.jsonl"));
    assert_eq!(peers.len(), all.len(), "peer subset out of date");
    let fps = check_peers(&peers, &texts_of(&all), "tlsh-peers.compact.jsonl");
    check_distances(&fps);
}

fn shared_texts(rel: &str) -> Option<HashMap<String, String>> {
    let recs = read_jsonl(&shared_file(rel)?);
    Some(texts_of(&recs))
}

fn full(corpus: &str, golden: &str, peers: &str) {
    let Some(texts) = shared_texts(corpus) else {
        return;
    };
    if let Some(p) = shared_file(golden) {
        let recs = read_jsonl(&p);
        let n = check_txtfp(&recs, &|r| texts[r["id"].as_str().unwrap()].clone(), golden);
        assert!(n > 0);
    }
    if let Some(p) = shared_file(peers) {
        let fps = check_peers(&read_jsonl(Path::new(&p)), &texts, peers);
        check_distances(&fps);
    }
}

#[test]
fn full_edge_cases() {
    full(
        "corpus/edge-cases.jsonl",
        "golden/golden-edge.jsonl",
        "golden/peers/golden-datasketch-tlsh-edge-cases.jsonl",
    );
}

#[test]
fn full_corpus_small() {
    full(
        "corpus/corpus-small.jsonl",
        "golden/golden-small.digest.jsonl",
        "golden/peers/golden-datasketch-tlsh-corpus-small.jsonl",
    );
}
