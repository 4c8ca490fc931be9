//! `txtfp store ingest | query | metrics` on the bundled sample, checked
//! against the library's `GlobalFingerprintStore` fed the same documents.

#![cfg(all(feature = "cli", feature = "store"))]

mod cli_support;

use cli_support::*;
use serde_json::Value;
use txtfp::store::{GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};

const SAMPLE: &str = "examples/data/sample.jsonl";

/// A decision without its time stamp.
fn timeless(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("decided_at");
    v
}

#[test]
fn ingest_matches_the_library_and_replays() {
    let dir = fresh_dir("store_ingest");
    let root = dir.join("store");
    let r = root.to_str().unwrap();
    let out = txtfp(&[
        "store",
        "ingest",
        SAMPLE,
        "--root",
        r,
        "--source-column",
        "src",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let decisions = json_lines(&stdout(&out));
    assert_eq!(decisions.len(), 195);
    let err = stderr(&out);
    assert!(err.contains("195 documents (accept "), "{err}");

    // The same documents through the library, in a second store.
    let toml = format!("root_path = {:?}", dir.join("library"));
    let cfg = GlobalStoreConfig::from_toml_str(&toml).unwrap();
    let store = GlobalFingerprintStore::open(cfg).unwrap();
    for (line, got) in json_lines(&read(&data(SAMPLE))).iter().zip(&decisions) {
        let doc = IncomingDocument::new(
            line["id"].as_str().unwrap(),
            line["text"].as_str().unwrap(),
            line["src"].as_str().unwrap(),
        );
        let want = serde_json::to_value(store.ingest(&doc).unwrap()).unwrap();
        assert_eq!(timeless(got.clone()), timeless(want));
    }
    let dropped = decisions.iter().filter(|d| d["action"] == "drop").count();
    assert!(dropped > 0);

    // Metrics agree with the decisions.
    let out = txtfp(&["store", "metrics", "--root", r, "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let m: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(m["docs"], 195);
    assert_eq!(m["duplicates"], dropped);
    let out = txtfp(&["store", "metrics", "--root", r]);
    assert!(
        stdout(&out).starts_with("documents 195: kept "),
        "{}",
        stdout(&out)
    );

    // Ingesting again replays every first decision.
    let decisions_file = dir.join("again.jsonl");
    let args = ["store", "ingest", SAMPLE, "--root", r, "-q", "--decisions"];
    let out = txtfp(&[&args[..], &[decisions_file.to_str().unwrap()]].concat());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let again = json_lines(&read(&decisions_file));
    assert!(again.iter().all(|d| d["replayed"] == true));
    let actions = |v: &[Value]| v.iter().map(|d| d["action"].clone()).collect::<Vec<_>>();
    assert_eq!(actions(&again), actions(&decisions));
}

#[test]
fn query_finds_stored_near_duplicates() {
    let dir = fresh_dir("store_query");
    let r = dir.join("store");
    let r = r.to_str().unwrap();
    let out = txtfp(&[
        "store",
        "ingest",
        SAMPLE,
        "--root",
        r,
        "-q",
        "--decisions",
        "/dev/null",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // a.txt is the text of s000349; b.txt its near-duplicate s000980.
    let out = txtfp(&[
        "store",
        "query",
        "--root",
        r,
        "tests/data/cli/a.txt",
        "tests/data/cli/short.txt",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    assert_eq!(lines[0]["name"], "tests/data/cli/a.txt");
    let ids: Vec<&str> = lines[0]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["doc_id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"s000349"), "{ids:?}");
    assert_eq!(lines[1]["matches"], serde_json::json!([]));
    // From stdin.
    let out = txtfp_stdin(
        &["store", "query", "--root", r],
        read(&data("tests/data/cli/a.txt")).as_bytes(),
    );
    assert_eq!(json_lines(&stdout(&out))[0]["matches"], lines[0]["matches"]);
}

#[test]
fn store_errors() {
    let out = txtfp(&["store", "metrics"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--root DIR or --config FILE"));
    let out = txtfp(&[
        "store",
        "metrics",
        "--config",
        "tests/data/cli/no-such.toml",
    ]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).starts_with("txtfp: tests/data/cli/no-such.toml: "));
    // Bad records are skipped and named; the good ones are ingested.
    let dir = fresh_dir("store_errors");
    let r = dir.join("store");
    let out = txtfp(&[
        "store",
        "ingest",
        "tests/data/cli/mixed.jsonl",
        "--root",
        r.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 7);
    assert!(stderr(&out).contains("skipped tests/data/cli/mixed.jsonl:7: no \"text\" column"));
    let out = txtfp(&[
        "store",
        "ingest",
        "tests/data/cli/mixed.jsonl",
        "--strict",
        "--root",
        r.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).starts_with("txtfp: tests/data/cli/mixed.jsonl:3: malformed JSON"));
}
