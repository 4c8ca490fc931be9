//! The global fingerprint store on its Redis backend: 4 worker processes
//! against a serial run, a worker killed with SIGKILL mid-ingest,
//! parameter checks, decisions and metrics.
//!
//! Needs a server: `eval "$(scripts/setup-redis.sh)"` exports
//! `TXTFP_REDIS_URL`. Without it the tests skip, loudly; with
//! `TXTFP_REQUIRE_REDIS=1` they fail instead.
#![cfg(feature = "store-redis")]

use crate::support::*;
use txtfp::Error;
use txtfp::store::{
    Action, BackendKind, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument,
};

/// The dataset config on the test server under a prefix of its own, or
/// `None` (after saying so on stderr) when there is no server.
fn redis_config(test: &str) -> Option<GlobalStoreConfig> {
    let required = std::env::var("TXTFP_REQUIRE_REDIS").is_ok_and(|v| v == "1");
    let Ok(url) = std::env::var("TXTFP_REDIS_URL") else {
        assert!(
            !required,
            "TXTFP_REQUIRE_REDIS=1 but TXTFP_REDIS_URL is not set"
        );
        loud(&format!(
            "SKIPPED {test}: TXTFP_REDIS_URL is not set (eval \"$(scripts/setup-redis.sh)\")"
        ));
        return None;
    };
    let mut cfg = dataset_config();
    cfg.backend = BackendKind::Redis;
    cfg.redis_url = Some(url.clone());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    cfg.redis_prefix = format!("test-{test}-{}-{nanos}", std::process::id());
    match GlobalFingerprintStore::open(cfg.clone()) {
        Ok(_) => Some(cfg),
        Err(e) if !required => {
            loud(&format!(
                "SKIPPED {test}: Redis at {url} is unreachable: {e}"
            ));
            None
        }
        Err(e) => panic!("TXTFP_REQUIRE_REDIS=1 but Redis at {url} is unreachable: {e}"),
    }
}

#[test]
fn unreachable_server_is_a_store_error() {
    let mut cfg = GlobalStoreConfig::default();
    cfg.backend = BackendKind::Redis;
    cfg.redis_url = Some("redis://127.0.0.1:1/".into());
    let e = GlobalFingerprintStore::open(cfg).err().unwrap();
    assert!(matches!(e, Error::Store(_)), "{e}");
    assert!(
        e.to_string()
            .starts_with("store error: redis redis://127.0.0.1:1/:"),
        "{e}"
    );
}

#[test]
fn decisions_metrics_and_replay() {
    let Some(cfg) = redis_config("basic") else {
        return;
    };
    let store = GlobalFingerprintStore::open(cfg.clone()).unwrap();
    let docs = sample();
    let text = &docs[5].text;
    assert_eq!(
        store
            .ingest(&IncomingDocument::new("a", text.clone(), "ds1"))
            .unwrap()
            .action,
        Action::Accept
    );
    let r = store
        .ingest(&IncomingDocument::new(
            "b",
            text.to_ascii_uppercase(),
            "ds0",
        ))
        .unwrap();
    assert_eq!(
        (r.action, r.superseded.clone()),
        (Action::Replace, vec!["a".to_owned()])
    );
    let r = store
        .ingest(&IncomingDocument::new("c", text.clone(), "ds1"))
        .unwrap();
    assert_eq!(
        (r.action, r.matched_doc_id.as_deref()),
        (Action::Drop, Some("b"))
    );
    let r = store
        .ingest(&IncomingDocument::new("c", "anything", "ds3"))
        .unwrap();
    assert!(r.replayed && r.action == Action::Drop);
    assert_eq!(store.query(text).unwrap()[0].doc_id, "b");
    let m = store.metrics().unwrap();
    assert_eq!(
        (
            m.docs,
            m.kept,
            m.duplicates,
            m.superseded,
            m.cross_source_duplicates
        ),
        (3, 1, 2, 1, 2)
    );
    assert_eq!(m.top_duplicated_sources(5), [("ds1".to_owned(), 2)]);
    // Another process (here: another handle) sees the same store.
    let other = GlobalFingerprintStore::open(cfg).unwrap();
    assert_eq!(
        other.document("a").unwrap().unwrap().decision.action,
        Action::Accept
    );
}

#[test]
fn incompatible_parameters_are_refused() {
    let Some(mut cfg) = redis_config("params") else {
        return;
    };
    drop(GlobalFingerprintStore::open(cfg.clone()).unwrap());
    cfg.simhash_max_hamming = 4;
    let e = GlobalFingerprintStore::open(cfg).err().unwrap();
    assert_eq!(
        e.to_string(),
        "store parameter mismatch: simhash_max_hamming is 3 in the store, 4 in the config"
    );
}

#[test]
fn four_processes_match_a_serial_run() {
    let Some(cfg) = redis_config("procs") else {
        return;
    };
    let base = distinct_base(&cfg);
    let sets = datasets(&base);
    let all_ids: Vec<String> = sets.iter().flatten().map(|d| d.doc_id.clone()).collect();

    let mut serial_cfg = cfg.clone();
    serial_cfg.redis_prefix.push_str("-serial");
    let serial = GlobalFingerprintStore::open(serial_cfg).unwrap();
    for d in sets.iter().flatten() {
        serial.ingest(d).unwrap();
    }
    let serial_live = live_ids(&serial, all_ids.iter().map(String::as_str));
    assert_same_set(&serial_live, &expected_live(&base));
    let serial_m = serial.metrics().unwrap();

    let dir = temp_dir("store-redis-procs");
    std::fs::create_dir_all(&dir).unwrap();
    let mut children = Vec::new();
    for w in 0..4 {
        // Worker w ingests datasets w and w+1 (each dataset by two
        // processes at once), in an order of its own.
        let mut mine: Vec<IncomingDocument> =
            sets[w].iter().chain(&sets[(w + 1) % 4]).cloned().collect();
        mine.sort_by_key(|d| (d.doc_id.len() * 31 + w * 7) % 13);
        let file = dir.join(format!("w{w}.jsonl"));
        write_docs(&file, &mine);
        children.push((spawn_worker(&cfg, &file), mine.len()));
    }
    let mut acked = 0;
    for (mut child, n) in children {
        let (acks, other) = read_acks(&mut child, None);
        assert_eq!(acks.len(), n, "worker output: {other:?}");
        acked += acks.len();
    }
    assert_eq!(acked, 2 * all_ids.len());
    let store = GlobalFingerprintStore::open(cfg).unwrap();
    assert_same_set(
        &live_ids(&store, all_ids.iter().map(String::as_str)),
        &serial_live,
    );
    assert_no_duplicate_live(&store, &base);
    let m = store.metrics().unwrap();
    assert_eq!(
        (m.docs, m.kept, m.duplicates),
        (serial_m.docs, serial_m.kept, serial_m.duplicates)
    );
    assert_eq!(
        m.docs as usize,
        all_ids.len(),
        "every id counted once, replays not at all"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sigkilled_worker_loses_no_acknowledged_record() {
    let Some(cfg) = redis_config("crash") else {
        return;
    };
    let docs: Vec<IncomingDocument> = (0..20)
        .flat_map(|k| {
            sample().into_iter().map(move |d| {
                IncomingDocument::new(format!("k{k}/{}", d.id), d.text, format!("ds{}", k % 4))
            })
        })
        .collect();
    let file = temp_dir("store-redis-crash").with_extension("jsonl");
    write_docs(&file, &docs);
    let mut child = spawn_worker(&cfg, &file);
    let (acks, other) = read_acks(&mut child, Some(200));
    assert!(
        acks.len() >= 200 && acks.len() < docs.len(),
        "{} acks; output {other:?}",
        acks.len()
    );

    let store = GlobalFingerprintStore::open(cfg).unwrap();
    check_after_crash(&store, &acks, &docs);
    std::fs::remove_file(&file).unwrap();
}
