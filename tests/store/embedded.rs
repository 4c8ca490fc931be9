//! The global fingerprint store on its embedded (redb) backend: decisions
//! on real text, 4 threads against a serial run, a worker killed with
//! SIGKILL mid-ingest, persistence and parameter checks.
#![cfg(feature = "store")]

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::support::*;
use txtfp::Error;
use txtfp::store::{
    Action, DocStatus, FingerprintType, GlobalFingerprintStore, IncomingDocument, MatchReason,
};

#[test]
fn real_text_decisions_and_records() {
    let dir = temp_dir("store-emb-real");
    let store = open_in(&dir, |_| {});
    let docs = sample();
    let d0 = &docs[0];
    let first = store
        .ingest(&IncomingDocument::new("a", d0.text.clone(), "ds0").with_language("en"))
        .unwrap();
    assert_eq!(first.action, Action::Accept);
    // A rehosted copy from a lower-ranked source: dropped against "a".
    let copy = format!("{}\n", d0.text.replace(' ', "\t"));
    let dup = store
        .ingest(&IncomingDocument::new("b", copy.clone(), "ds1"))
        .unwrap();
    assert_eq!(
        (dup.action, dup.matched_doc_id.as_deref()),
        (Action::Drop, Some("a"))
    );
    assert!(matches!(dup.reason, MatchReason::SimHash { distance: 0 }));
    // From the books dataset: replaces "a".
    let book = store
        .ingest(&IncomingDocument::new("c", copy, "ds3"))
        .unwrap();
    assert_eq!(
        (book.action, book.superseded.clone()),
        (Action::Replace, vec!["a".to_owned()])
    );
    assert_eq!(
        store.document("a").unwrap().unwrap().status,
        DocStatus::Superseded { by: "c".into() }
    );
    // Ingesting an id again replays its decision.
    let again = store
        .ingest(&IncomingDocument::new(
            "b",
            "other text entirely here",
            "ds0",
        ))
        .unwrap();
    assert!(again.replayed && again.action == Action::Drop);

    // A document made of another's first chunk plus new text: kept, linked.
    let long: Vec<&Doc> = docs[1..]
        .iter()
        .filter(|d| d.text.split_whitespace().count() > 150)
        .collect();
    let words: Vec<&str> = long[0].text.split_whitespace().collect();
    store
        .ingest(&IncomingDocument::new("d", long[0].text.clone(), "ds0"))
        .unwrap();
    let mixed = format!("{} {}", words[..64].join(" "), long[1].text);
    let link = store
        .ingest(&IncomingDocument::new("e", mixed, "ds0"))
        .unwrap();
    assert_eq!(link.action, Action::Link, "{link:?}");
    assert_eq!(
        (link.linked_docs.clone(), link.duplicate_chunks.clone()),
        (vec!["d".to_owned()], vec![0])
    );

    // Records: the seed's schema, no text.
    let recs = store.fingerprints("a").unwrap();
    let kinds: BTreeSet<_> = recs
        .iter()
        .map(|r| format!("{:?}", r.fingerprint_type))
        .collect();
    assert_eq!(kinds.len(), 3);
    for r in &recs {
        assert_eq!(
            (r.doc_id.as_str(), r.source.as_str(), r.language.as_deref()),
            ("a", "ds0", Some("en"))
        );
        assert_eq!(r.fingerprint_version, "v1");
        assert!(!r.hash_params.is_empty());
        assert_eq!(
            r.chunk_id.is_some(),
            r.fingerprint_type == FingerprintType::Chunk
        );
    }
    let stored_bytes = std::fs::metadata(dir.join("store.log")).unwrap().len();
    assert!(stored_bytes > 0);
    drop(store);

    // Everything is still there after a reopen.
    let store = open_in(&dir, |_| {});
    assert_eq!(
        store
            .document("b")
            .unwrap()
            .unwrap()
            .decision
            .matched_doc_id
            .as_deref(),
        Some("a")
    );
    let m = store.metrics().unwrap();
    assert_eq!(
        (m.docs, m.kept, m.duplicates, m.superseded, m.linked),
        (5, 3, 2, 1, 1)
    );
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn incompatible_parameters_are_refused() {
    let dir = temp_dir("store-emb-params");
    drop(open_in(&dir, |_| {}));
    let mut cfg = dataset_config();
    cfg.root_path = dir.clone();
    cfg.minhash_ngram = 3;
    let e = GlobalFingerprintStore::open(cfg.clone()).err().unwrap();
    assert!(
        matches!(&e, Error::StoreParamsMismatch { field, .. } if field == "minhash_ngram"),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "store parameter mismatch: minhash_ngram is 5 in the store, 3 in the config"
    );
    cfg.minhash_ngram = 5;
    cfg.chunk_hash = false;
    let e = GlobalFingerprintStore::open(cfg.clone()).err().unwrap();
    assert!(
        e.to_string()
            .contains("chunk_hash is true in the store, false in the config"),
        "{e}"
    );
    cfg.chunk_hash = true;
    cfg.fingerprint_version = "v2".into();
    let e = GlobalFingerprintStore::open(cfg.clone()).err().unwrap();
    assert!(
        e.to_string()
            .contains("fingerprint_version is v1 in the store, v2 in the config"),
        "{e}"
    );
    // Priorities are not hash parameters: they may change between runs.
    cfg.fingerprint_version = "v1".into();
    cfg.source_priority = vec!["ds1".into()];
    assert!(GlobalFingerprintStore::open(cfg).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_a_typed_error_and_stores_nothing() {
    let dir = temp_dir("store-emb-input");
    let store = open_in(&dir, |c| c.max_doc_bytes = 1000);
    for d in [
        IncomingDocument::new("", "text", "s"),
        IncomingDocument::new("x", "text", ""),
        IncomingDocument::new("x\n", "text", "s"),
        IncomingDocument::new("x", " \t ... !!", "s"),
        IncomingDocument::new("x", "word ".repeat(300), "s"),
    ] {
        assert!(
            matches!(store.ingest(&d), Err(Error::InvalidInput(_))),
            "{d:?}"
        );
    }
    assert!(store.document("x").unwrap().is_none());
    assert_eq!(store.metrics().unwrap().docs, 0);
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn four_threads_match_a_serial_run() {
    let cfg = dataset_config();
    let base = distinct_base(&cfg);
    assert!(
        base.len() > 100,
        "only {} distinct sample documents",
        base.len()
    );
    let sets = datasets(&base);
    let all_ids: Vec<String> = sets.iter().flatten().map(|d| d.doc_id.clone()).collect();

    let serial_dir = temp_dir("store-emb-serial");
    let serial = open_in(&serial_dir, |_| {});
    for d in sets.iter().flatten() {
        serial.ingest(d).unwrap();
    }
    let serial_live = live_ids(&serial, all_ids.iter().map(String::as_str));
    assert_same_set(&serial_live, &expected_live(&base));
    let serial_metrics = serial.metrics().unwrap();

    let dir = temp_dir("store-emb-threads");
    let store = Arc::new(open_in(&dir, |_| {}));
    std::thread::scope(|s| {
        for w in 0..4 {
            let store = Arc::clone(&store);
            // Worker w ingests datasets w and w+1, in an order of its own.
            let mut mine: Vec<&IncomingDocument> =
                sets[w].iter().chain(&sets[(w + 1) % 4]).collect();
            mine.sort_by_key(|d| (d.doc_id.len() * 31 + w * 7) % 13);
            s.spawn(move || {
                for d in mine {
                    store.ingest(d).unwrap();
                }
            });
        }
    });
    let live = live_ids(&store, all_ids.iter().map(String::as_str));
    assert_same_set(&live, &serial_live);
    assert_no_duplicate_live(&store, &base);
    let m = store.metrics().unwrap();
    assert_eq!(
        (m.docs, m.kept, m.duplicates),
        (
            serial_metrics.docs,
            serial_metrics.kept,
            serial_metrics.duplicates
        )
    );
    assert_eq!(
        m.docs as usize,
        all_ids.len(),
        "every id counted once, replays not at all"
    );
    drop((store, serial));
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&serial_dir).unwrap();
}

#[test]
fn sigkilled_worker_loses_no_acknowledged_record() {
    let dir = temp_dir("store-emb-crash");
    let mut cfg = dataset_config();
    cfg.root_path = dir.clone();
    let docs = many_docs(8);
    let file = dir.with_extension("jsonl");
    write_docs(&file, &docs);
    let mut child = spawn_worker(&cfg, &file);
    let (acks, other) = read_acks(&mut child, Some(40));
    assert!(
        acks.len() >= 40 && acks.len() < docs.len(),
        "{} acks; output {other:?}",
        acks.len()
    );

    // The store opens cleanly, holds every acknowledged decision, and
    // finishes the run.
    let store = GlobalFingerprintStore::open(cfg.clone()).unwrap();
    check_after_crash(&store, &acks, &docs);
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&file).unwrap();
}

/// Killed with SIGKILL at five moments (one document per call and batches
/// of 8, alternately), each run starting over: every acknowledged decision
/// is stored as acknowledged, replays agree with it, and a last run
/// completes the store.
#[test]
fn workers_killed_at_five_moments_lose_nothing_acknowledged() {
    let dir = temp_dir("store-emb-kill5");
    let mut cfg = dataset_config();
    cfg.root_path = dir.clone();
    let docs = many_docs(8);
    let file = dir.with_extension("jsonl");
    write_docs(&file, &docs);
    let acked = killed_at_five_moments(&cfg, &file, docs.len(), (10, 400), |round| {
        [0, 8][round % 2]
    });
    let mut child = spawn_batch_worker(&cfg, &file, 8);
    let (acks, other) = read_acks(&mut child, None);
    assert_eq!(acks.len(), docs.len(), "{other:?}");
    for (id, a) in &acked {
        assert_eq!(&acks[id], a, "{id} replayed differently");
    }
    let store = GlobalFingerprintStore::open(cfg).unwrap();
    assert_eq!(store.metrics().unwrap().docs as usize, docs.len());
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn a_second_process_is_refused_with_a_clear_error() {
    let dir = temp_dir("store-emb-lock");
    let mut cfg = dataset_config();
    cfg.root_path = dir.clone();
    let store = GlobalFingerprintStore::open(cfg.clone()).unwrap();
    let file = dir.join("docs.jsonl");
    write_docs(
        &file,
        &[IncomingDocument::new(
            "x",
            "some words to ingest here",
            "ds0",
        )],
    );
    let mut child = spawn_worker(&cfg, &file);
    let (acks, other) = read_acks(&mut child, None);
    assert!(acks.is_empty());
    assert!(
        other
            .iter()
            .any(|l| l.starts_with("ERR store error:") && l.contains("open in another process")),
        "{other:?}"
    );
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}
