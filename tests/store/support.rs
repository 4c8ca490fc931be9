//! Shared by the `store_*` tests: real text, the overlapping datasets of
//! the concurrency tests, and the worker process they spawn (the test
//! binary itself, re-invoked on its ignored `worker` test).

#![cfg(feature = "store")]
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use txtfp::store::{
    Action, DocStatus, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument, MatchReason,
};

/// A line of examples/data/sample.jsonl.
#[derive(Clone, Debug)]
pub struct Doc {
    pub id: String,
    pub text: String,
    pub src: String,
}

pub fn sample() -> Vec<Doc> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/sample.jsonl");
    let text = std::fs::read_to_string(path).expect("examples/data/sample.jsonl");
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            Doc {
                id: v["id"].as_str().unwrap().into(),
                text: v["text"].as_str().unwrap().into(),
                src: v["src"].as_str().unwrap().into(),
            }
        })
        .collect()
}

/// A notice on the real stderr: `eprintln!` would be captured by the test
/// harness and shown only for failures.
pub fn loud(msg: &str) {
    let _ = writeln!(std::io::stderr(), "\n*** {msg} ***\n");
}

/// A fresh, unique directory under the system temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let d = std::env::temp_dir().join(format!("txtfp-{name}-{}-{nanos}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The dataset names, and the config that ranks them
/// ds3 (books) > ds2 > ds0 > ds1 (all web, ds1 unlisted in source_priority).
pub const DATASETS: [&str; 4] = ["ds0", "ds1", "ds2", "ds3"];

pub fn dataset_config() -> GlobalStoreConfig {
    let mut cfg = GlobalStoreConfig::from_toml_str(
        r#"
        [global_fingerprints]
        chunk_size = 64
        document_type_priority = ["books", "web"]
        source_to_document_type = { ds0 = "web", ds1 = "web", ds2 = "web", ds3 = "books" }
        source_priority = ["ds2", "ds0"]
        "#,
    )
    .unwrap();
    cfg.root_path = PathBuf::new();
    cfg
}

/// An embedded store under `dir` with [`dataset_config`], changed by `edit`.
pub fn open_in(dir: &Path, edit: impl FnOnce(&mut GlobalStoreConfig)) -> GlobalFingerprintStore {
    let mut cfg = dataset_config();
    cfg.root_path = dir.to_path_buf();
    edit(&mut cfg);
    GlobalFingerprintStore::open(cfg).unwrap()
}

/// Rank of a dataset under [`dataset_config`] (lower wins).
pub fn dataset_rank(ds: &str) -> usize {
    ["ds3", "ds2", "ds0", "ds1"]
        .iter()
        .position(|d| *d == ds)
        .unwrap()
}

/// The sample documents that a serial run keeps live: pairwise no full
/// match, so copies of one of them match each other and nothing else.
pub fn distinct_base(cfg: &GlobalStoreConfig) -> Vec<Doc> {
    let mut cfg = cfg.clone();
    cfg.backend = txtfp::store::BackendKind::Embedded;
    cfg.root_path = temp_dir("store-base");
    let store = GlobalFingerprintStore::open(cfg.clone()).unwrap();
    let docs = sample();
    for d in &docs {
        store
            .ingest(&IncomingDocument::new(d.id.clone(), d.text.clone(), "base"))
            .unwrap();
    }
    let base: Vec<Doc> = docs
        .into_iter()
        .filter(|d| store.document(&d.id).unwrap().unwrap().status == DocStatus::Live)
        .collect();
    drop(store);
    std::fs::remove_dir_all(&cfg.root_path).unwrap();
    base
}

/// Dataset `i` holds the base documents whose position is not `i` mod 4
/// (each document is in three datasets), as a variant whose fingerprints
/// equal the original's: ds1 adds whitespace, ds3 upper-cases ASCII.
pub fn datasets(base: &[Doc]) -> Vec<Vec<IncomingDocument>> {
    (0..4)
        .map(|i| {
            base.iter()
                .enumerate()
                .filter(|(n, _)| n % 4 != i)
                .map(|(_, d)| {
                    let text = match i {
                        1 => d.text.replace(' ', "  ").replace('\n', "\n \n"),
                        3 => d.text.to_ascii_uppercase(),
                        _ => d.text.clone(),
                    };
                    IncomingDocument::new(format!("{}/{}", DATASETS[i], d.id), text, DATASETS[i])
                })
                .collect()
        })
        .collect()
}

/// What every run must end with: for each base document, exactly its copy
/// from the highest-ranked dataset holding it is live.
pub fn expected_live(base: &[Doc]) -> BTreeSet<String> {
    base.iter()
        .enumerate()
        .map(|(n, d)| {
            let best = (0..4)
                .filter(|i| n % 4 != *i)
                .min_by_key(|i| dataset_rank(DATASETS[*i]))
                .unwrap();
            format!("{}/{}", DATASETS[best], d.id)
        })
        .collect()
}

/// The live ids among `ids`.
pub fn live_ids<'a>(
    store: &GlobalFingerprintStore,
    ids: impl IntoIterator<Item = &'a str>,
) -> BTreeSet<String> {
    ids.into_iter()
        .filter(|id| {
            store
                .document(id)
                .unwrap()
                .is_some_and(|d| d.status == DocStatus::Live)
        })
        .map(str::to_owned)
        .collect()
}

/// `got == want`, showing only the difference when not.
pub fn assert_same_set(got: &BTreeSet<String>, want: &BTreeSet<String>) {
    let extra: Vec<_> = got.difference(want).collect();
    let missing: Vec<_> = want.difference(got).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "live but should not be: {extra:?}; missing: {missing:?}"
    );
}

/// No base text matches two live documents in full.
pub fn assert_no_duplicate_live(store: &GlobalFingerprintStore, base: &[Doc]) {
    for d in base {
        let full: Vec<_> = store
            .query(&d.text)
            .unwrap()
            .into_iter()
            .filter(|m| {
                matches!(
                    m.reason,
                    MatchReason::SimHash { .. } | MatchReason::MinHash { .. }
                )
            })
            .collect();
        assert_eq!(full.len(), 1, "{}: live full matches {full:?}", d.id);
    }
}

/// Writes documents as JSONL for a worker.
pub fn write_docs(path: &Path, docs: &[IncomingDocument]) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for d in docs {
        let v = serde_json::json!({"doc_id": d.doc_id, "text": d.text, "source": d.source});
        writeln!(f, "{v}").unwrap();
    }
    f.flush().unwrap();
}

/// Starts the test binary's `worker` test in a new process: it opens the
/// store of `cfg` and ingests the documents of `docs_file`, printing
/// `ACK <action> <doc id>` after each ingest returns.
pub fn spawn_worker(cfg: &GlobalStoreConfig, docs_file: &Path) -> Child {
    spawn_batch_worker(cfg, docs_file, 0)
}

/// [`spawn_worker`] ingesting batches of `batch` (0: one at a time).
pub fn spawn_batch_worker(cfg: &GlobalStoreConfig, docs_file: &Path, batch: usize) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .env("TXTFP_STORE_WORKER_BATCH", batch.to_string())
        .args([
            "support::worker",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
            "-q",
        ])
        .env("TXTFP_STORE_WORKER_CONFIG", cfg.to_toml_string().unwrap())
        .env("TXTFP_STORE_WORKER_DOCS", docs_file)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

/// The body of the `worker` test (does nothing unless spawned).
pub fn worker_main() {
    let (Ok(cfg), Ok(docs)) = (
        std::env::var("TXTFP_STORE_WORKER_CONFIG"),
        std::env::var("TXTFP_STORE_WORKER_DOCS"),
    ) else {
        return;
    };
    let out = std::io::stdout();
    let store = match GlobalFingerprintStore::open(GlobalStoreConfig::from_toml_str(&cfg).unwrap())
    {
        Ok(s) => s,
        Err(e) => {
            writeln!(out.lock(), "ERR {e}").unwrap();
            return;
        }
    };
    // TXTFP_STORE_WORKER_BATCH=N: `ingest_batch` of N, acknowledged after
    // each batch; otherwise one `ingest` per document.
    let batch: usize = std::env::var("TXTFP_STORE_WORKER_BATCH")
        .ok()
        .and_then(|b| b.parse().ok())
        .unwrap_or(0);
    let mut pending: Vec<IncomingDocument> = Vec::new();
    let flush = |pending: &mut Vec<IncomingDocument>| {
        let rs = store.ingest_batch(pending).unwrap();
        let mut o = out.lock();
        for (d, r) in pending.iter().zip(rs) {
            writeln!(o, "ACK {:?} {}", r.unwrap().action, d.doc_id).unwrap();
        }
        o.flush().unwrap();
        pending.clear();
    };
    for line in BufReader::new(std::fs::File::open(docs).unwrap()).lines() {
        let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let d = IncomingDocument::new(
            v["doc_id"].as_str().unwrap(),
            v["text"].as_str().unwrap(),
            v["source"].as_str().unwrap(),
        );
        if batch > 0 {
            pending.push(d);
            if pending.len() == batch {
                flush(&mut pending);
            }
            continue;
        }
        let r = store.ingest(&d).unwrap();
        let mut o = out.lock();
        writeln!(o, "ACK {:?} {}", r.action, d.doc_id).unwrap();
        o.flush().unwrap();
    }
    if !pending.is_empty() {
        flush(&mut pending);
    }
}

/// `ACK` lines of a worker's stdout: doc id → action name.
pub fn read_acks(
    child: &mut Child,
    stop_after: Option<usize>,
) -> (BTreeMap<String, String>, Vec<String>) {
    let mut acks = BTreeMap::new();
    let mut other = Vec::new();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let mut killed = false;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("ACK ") {
            let (action, id) = rest.split_once(' ').unwrap();
            acks.insert(id.to_owned(), action.to_owned());
            if !killed && stop_after.is_some_and(|n| acks.len() >= n) {
                // SIGKILL: no destructor, no flush, no commit of the
                // ingest in flight.
                child.kill().unwrap();
                killed = true;
            }
        } else if !line.trim().is_empty() {
            other.push(line);
        }
    }
    child.wait().unwrap();
    (acks, other)
}

/// Action name as the worker prints it.
pub fn action_name(a: Action) -> String {
    format!("{a:?}")
}

/// After a worker was killed mid-ingest: `store` (reopened) holds every
/// acknowledged decision, its counters agree with its entries (at most one
/// document past the last acknowledgement), and it finishes the run.
pub fn check_after_crash(
    store: &GlobalFingerprintStore,
    acks: &BTreeMap<String, String>,
    docs: &[IncomingDocument],
) {
    assert_acks_stored(store, acks);
    let stored = docs
        .iter()
        .filter(|d| store.document(&d.doc_id).unwrap().is_some())
        .count();
    assert!(
        stored == acks.len() || stored == acks.len() + 1,
        "{stored} stored, {} acked",
        acks.len()
    );
    assert_eq!(store.metrics().unwrap().docs as usize, stored);
    for d in docs {
        store.ingest(d).unwrap();
    }
    assert_eq!(store.metrics().unwrap().docs as usize, docs.len());
}

/// Entry point of the worker processes that [`spawn_worker`] starts (the
/// test binary re-invoked on this test; does nothing when run normally).
#[test]
#[ignore = "worker process of the multi-process tests; spawned by them"]
fn worker() {
    worker_main();
}

/// The sample, `copies` times over under ids of their own, over 4 sources.
pub fn many_docs(copies: usize) -> Vec<IncomingDocument> {
    (0..copies)
        .flat_map(|k| {
            sample().into_iter().map(move |d| {
                IncomingDocument::new(format!("k{k:02}/{}", d.id), d.text, format!("ds{}", k % 4))
            })
        })
        .collect()
}

/// Every acknowledged decision is stored as acknowledged.
pub fn assert_acks_stored(store: &GlobalFingerprintStore, acks: &BTreeMap<String, String>) {
    for (id, action) in acks {
        let d = store
            .document(id)
            .unwrap()
            .unwrap_or_else(|| panic!("acknowledged {id} lost"));
        assert_eq!(&action_name(d.decision.action), action, "{id}");
    }
}

/// Five worker processes over `file` (`docs` documents), each starting over
/// and SIGKILLed after a pseudo-random number of acknowledgements, from
/// `first` to `first + spread`; round `r` ingests in batches of `batch(r)`
/// (0: one document per call). After each kill the store `cfg` opens and
/// holds every decision acknowledged so far, as acknowledged, and no
/// document is acknowledged twice differently. Returns them: id → action.
pub fn killed_at_five_moments(
    cfg: &GlobalStoreConfig,
    file: &Path,
    docs: usize,
    (first, spread): (usize, u64),
    batch: impl Fn(usize) -> usize,
) -> BTreeMap<String, String> {
    let mut acked: BTreeMap<String, String> = BTreeMap::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..5 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let stop = first + (x % spread) as usize;
        let mut child = spawn_batch_worker(cfg, file, batch(round));
        let (acks, other) = read_acks(&mut child, Some(stop));
        assert!(acks.len() >= stop.min(docs), "round {round}: {other:?}");
        for (id, a) in acks {
            if let Some(before) = acked.insert(id.clone(), a.clone()) {
                assert_eq!(before, a, "{id} acknowledged twice, differently");
            }
        }
        let store = GlobalFingerprintStore::open(cfg.clone()).unwrap();
        assert_acks_stored(&store, &acked);
    }
    acked
}
