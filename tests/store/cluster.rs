//! The global fingerprint store on a Redis Cluster: the same decisions as
//! the embedded store, worker processes against the serial run in the
//! store's global order, workers killed with SIGKILL, a master killed and
//! restarted.
//!
//! Needs a cluster: `eval "$(scripts/setup-redis-cluster.sh)"` exports
//! `TXTFP_REDIS_CLUSTER` (and `TXTFP_REDIS_CLUSTER_DIR`, for the restart
//! test). Without it the tests skip, loudly; with `TXTFP_REQUIRE_REDIS=1`
//! they fail instead.
#![cfg(feature = "store-redis")]

use std::collections::BTreeMap;

use crate::support::*;
use txtfp::store::backend::ClusterBackend;
use txtfp::store::{
    BackendKind, DecisionRecord, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument,
};

/// The dataset config on the test cluster under a prefix of its own, or
/// `None` (after saying so on stderr) when there is no cluster.
fn cluster_config(test: &str) -> Option<GlobalStoreConfig> {
    let required = std::env::var("TXTFP_REQUIRE_REDIS").is_ok_and(|v| v == "1");
    let Ok(nodes) = std::env::var("TXTFP_REDIS_CLUSTER") else {
        assert!(
            !required,
            "TXTFP_REQUIRE_REDIS=1 but TXTFP_REDIS_CLUSTER is not set"
        );
        loud(&format!(
            "SKIPPED {test}: TXTFP_REDIS_CLUSTER is not set (eval \"$(scripts/setup-redis-cluster.sh)\")"
        ));
        return None;
    };
    let mut cfg = dataset_config();
    cfg.backend = BackendKind::RedisCluster;
    cfg.redis_nodes = nodes.split(',').map(str::to_owned).collect();
    cfg.redis_lease_ms = 3_000;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    cfg.redis_prefix = format!("test-{test}-{}-{nanos}", std::process::id());
    match GlobalFingerprintStore::open(cfg.clone()) {
        Ok(_) => Some(cfg),
        Err(e) if !required => {
            loud(&format!(
                "SKIPPED {test}: the cluster at {nodes} is unreachable: {e}"
            ));
            None
        }
        Err(e) => panic!("TXTFP_REQUIRE_REDIS=1 but the cluster at {nodes} is unreachable: {e}"),
    }
}

/// A decision without its time stamp.
fn shape(d: &DecisionRecord) -> String {
    let mut d = d.clone();
    d.decided_at = 0;
    format!("{d:?}")
}

/// Documents with every kind of decision: the overlapping datasets (drops,
/// replacements across priorities, chunk links), then a second pass over
/// some of them (replays), in an order that mixes the datasets.
fn mixed_docs(cfg: &GlobalStoreConfig) -> Vec<IncomingDocument> {
    let base = distinct_base(cfg);
    let sets = datasets(&base);
    let mut docs: Vec<IncomingDocument> = Vec::new();
    let longest = sets.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        for s in [1, 0, 3, 2] {
            if let Some(d) = sets[s].get(i) {
                docs.push(d.clone());
            }
        }
    }
    let again: Vec<IncomingDocument> = docs.iter().step_by(5).cloned().collect();
    docs.extend(again);
    docs
}

#[test]
fn batches_decide_as_the_embedded_store_one_at_a_time() {
    let Some(cfg) = cluster_config("embedded") else {
        return;
    };
    let docs = mixed_docs(&cfg);
    let dir = temp_dir("store-cluster-reference");
    let reference = open_in(&dir, |_| {});
    let want: Vec<String> = docs
        .iter()
        .map(|d| shape(&reference.ingest(d).unwrap()))
        .collect();
    let store = GlobalFingerprintStore::open(cfg).unwrap();
    let mut got = Vec::new();
    // Batches of every size from 1 up, so that documents meet their
    // matches in the same batch, in the one before, and further back.
    let mut rest = docs.as_slice();
    let mut size = 1;
    while !rest.is_empty() {
        let (now, later) = rest.split_at(size.min(rest.len()));
        for r in store.ingest_batch(now).unwrap() {
            got.push(shape(&r.unwrap()));
        }
        rest = later;
        size = size % 9 + 1;
    }
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "document {i} ({})", docs[i].doc_id);
    }
    for d in &docs {
        let (a, b) = (
            store.document(&d.doc_id).unwrap().unwrap(),
            reference.document(&d.doc_id).unwrap().unwrap(),
        );
        assert_eq!(
            (&a.status, shape(&a.decision)),
            (&b.status, shape(&b.decision)),
            "{}",
            d.doc_id
        );
        assert_eq!(
            store.fingerprints(&d.doc_id).unwrap().len(),
            reference.fingerprints(&d.doc_id).unwrap().len()
        );
    }
    let (m, r) = (store.metrics().unwrap(), reference.metrics().unwrap());
    assert_eq!(format!("{m:?}"), format!("{r:?}"));
    for d in docs.iter().step_by(7) {
        let ids = |s: &GlobalFingerprintStore| -> Vec<String> {
            s.query(&d.text)
                .unwrap()
                .into_iter()
                .map(|m| m.doc_id)
                .collect()
        };
        assert_eq!(ids(&store), ids(&reference), "query {}", d.doc_id);
    }
    drop(reference);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every decided document of the store behind `cfg`, in its global order.
fn global_order(cfg: &GlobalStoreConfig) -> Vec<(u64, txtfp::store::backend::CandidateDoc)> {
    let b = ClusterBackend::open(&cfg.redis_nodes, &cfg.redis_prefix).unwrap();
    let mut out = Vec::new();
    let mut from = 1;
    loop {
        let got = b.decided(from, 4096).unwrap();
        let empty = got.is_empty();
        out.extend(got);
        from += 4096;
        if empty && from > out.last().map_or(0, |l| l.0) + 8192 {
            return out;
        }
    }
}

/// The serial run of the documents `cfg`'s store decided, in its global
/// order, on the embedded store: the same final entries.
fn assert_equals_serial_run(cfg: &GlobalStoreConfig, texts: &BTreeMap<String, IncomingDocument>) {
    let order = global_order(cfg);
    let dir = temp_dir("store-cluster-serial");
    let serial = open_in(&dir, |_| {});
    for (_, c) in &order {
        serial.ingest(&texts[&c.entry.doc_id]).unwrap();
    }
    let store = GlobalFingerprintStore::open(cfg.clone()).unwrap();
    for id in texts.keys() {
        let (a, b) = (store.document(id).unwrap(), serial.document(id).unwrap());
        let a = a.map(|a| (a.status, shape(&a.decision)));
        let b = b.map(|b| (b.status, shape(&b.decision)));
        assert_eq!(a, b, "{id}");
    }
    let (m, s) = (store.metrics().unwrap(), serial.metrics().unwrap());
    assert_eq!(format!("{m:?}"), format!("{s:?}"));
    drop(serial);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn four_worker_processes_equal_the_serial_run_in_global_order() {
    let Some(cfg) = cluster_config("procs") else {
        return;
    };
    let base = distinct_base(&cfg);
    let sets = datasets(&base);
    let dir = temp_dir("store-cluster-procs");
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
        children.push((spawn_batch_worker(&cfg, &file, 5 + w), mine.len()));
    }
    for (mut child, n) in children {
        let (acks, other) = read_acks(&mut child, None);
        assert_eq!(acks.len(), n, "worker output: {other:?}");
    }
    let texts: BTreeMap<String, IncomingDocument> = sets
        .iter()
        .flatten()
        .map(|d| (d.doc_id.clone(), d.clone()))
        .collect();
    let store = GlobalFingerprintStore::open(cfg.clone()).unwrap();
    assert_same_set(
        &live_ids(&store, texts.keys().map(String::as_str)),
        &expected_live(&base),
    );
    assert_no_duplicate_live(&store, &base);
    assert_eq!(store.metrics().unwrap().docs as usize, texts.len());
    assert_equals_serial_run(&cfg, &texts);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn workers_killed_at_five_moments_lose_nothing_acknowledged() {
    let Some(cfg) = cluster_config("kill") else {
        return;
    };
    let docs = many_docs(12);
    let file = temp_dir("store-cluster-kill").with_extension("jsonl");
    write_docs(&file, &docs);
    // Five kills at moments of a fixed pseudo-random walk (each run starts
    // over from the first document: what is stored replays).
    let acked = killed_at_five_moments(&cfg, &file, docs.len(), (20, 140), |_| 8);
    // A last worker finishes the run past every voided batch.
    let mut child = spawn_batch_worker(&cfg, &file, 8);
    let (acks, other) = read_acks(&mut child, None);
    assert_eq!(acks.len(), docs.len(), "{other:?}");
    for (id, a) in &acked {
        assert_eq!(&acks[id], a, "{id} replayed differently");
    }
    let store = GlobalFingerprintStore::open(cfg.clone()).unwrap();
    assert_acks_stored(&store, &acks);
    assert_eq!(store.metrics().unwrap().docs as usize, docs.len());
    let texts = docs.iter().map(|d| (d.doc_id.clone(), d.clone())).collect();
    assert_equals_serial_run(&cfg, &texts);
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn a_master_killed_and_restarted_loses_nothing() {
    let Some(cfg) = cluster_config("restart") else {
        return;
    };
    let Ok(dir) = std::env::var("TXTFP_REDIS_CLUSTER_DIR") else {
        loud("SKIPPED restart: TXTFP_REDIS_CLUSTER_DIR is not set");
        return;
    };
    let node = std::path::Path::new(&dir).join("2");
    let docs = many_docs(16);
    let file = temp_dir("store-cluster-restart").with_extension("jsonl");
    write_docs(&file, &docs);
    let mut child = spawn_batch_worker(&cfg, &file, 8);
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let mut acks: BTreeMap<String, String> = BTreeMap::new();
    let mut restarted = false;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some((action, id)) = line.strip_prefix("ACK ").and_then(|r| r.split_once(' ')) {
            acks.insert(id.to_owned(), action.to_owned());
        }
        if !restarted && acks.len() >= 100 {
            // SIGKILL the master: what it acknowledged is in its AOF.
            let pid = std::fs::read_to_string(node.join("redis.pid")).unwrap();
            let ok = std::process::Command::new("kill")
                .args(["-9", pid.trim()])
                .status()
                .unwrap();
            assert!(ok.success());
            std::thread::sleep(std::time::Duration::from_millis(700));
            let ok = std::process::Command::new(node.join("start.sh"))
                .status()
                .unwrap();
            assert!(ok.success(), "restarting the master");
            restarted = true;
        }
    }
    assert!(child.wait().unwrap().success());
    assert!(restarted);
    assert_eq!(acks.len(), docs.len());
    let store = GlobalFingerprintStore::open(cfg.clone()).unwrap();
    assert_acks_stored(&store, &acks);
    assert_eq!(store.metrics().unwrap().docs as usize, docs.len());
    let texts = docs.iter().map(|d| (d.doc_id.clone(), d.clone())).collect();
    assert_equals_serial_run(&cfg, &texts);
    std::fs::remove_file(&file).unwrap();
}
