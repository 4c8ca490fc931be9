//! The cost of a document's chunks when it is ingested and when the log
//! is replayed, and what damage to the log and to `docs.idx` does.

use std::path::{Path, PathBuf};

use super::{DOCS, EmbeddedBackend, LOG_FILE, MANIFEST};
use crate::store::{GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("txtfp-emb-rec-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// One chunk per word: a document of `n` words has `n` chunks.
fn config(root: &Path) -> GlobalStoreConfig {
    let mut cfg = GlobalStoreConfig::from_toml_str("chunk_size = 1").unwrap();
    cfg.root_path = root.to_path_buf();
    cfg
}

fn open(root: &Path) -> crate::Result<GlobalFingerprintStore> {
    EmbeddedBackend::open(root)
        .and_then(|b| GlobalFingerprintStore::with_backend(config(root), Box::new(b)))
}

/// `n` documents of `words` distinct words each.
fn documents(n: usize, words: usize) -> Vec<IncomingDocument> {
    (0..n)
        .map(|i| {
            let text: Vec<String> = (0..words).map(|j| format!("w{i}x{j}")).collect();
            IncomingDocument::new(format!("d{i}"), text.join(" "), "web")
        })
        .collect()
}

/// What a store answers about `docs`.
fn state(store: &GlobalFingerprintStore, docs: &[IncomingDocument]) -> Vec<String> {
    let mut out: Vec<String> = docs
        .iter()
        .map(|d| {
            let e = store.document(&d.doc_id).unwrap().map(|e| e.doc_id);
            let q: Vec<String> = store
                .query(&d.text)
                .unwrap()
                .into_iter()
                .map(|m| m.doc_id)
                .collect();
            format!("{e:?} {q:?}")
        })
        .collect();
    out.push(format!("{:?}", store.metrics().unwrap()));
    out
}

/// Records read from the log while `root` opens.
fn decoded_at_open(root: &Path) -> (u64, Vec<String>) {
    let b = EmbeddedBackend::open(root).unwrap();
    let n = b.lock().unwrap().decoded.get();
    (n, b.recovered().to_vec())
}

/// Replaying a document's many chunk operations decodes its record once
/// (not once per chunk), at open and when a damaged manifest makes the
/// store rebuild from the whole log.
#[test]
fn the_replay_decodes_each_record_once() {
    let root = temp("replay");
    let docs = documents(4, 600);
    let store = open(&root).unwrap();
    store.ingest_batch(&docs[..2]).unwrap();
    store.ingest_batch(&docs[2..]).unwrap();
    let want = state(&store, &docs);
    drop(store);
    let (n, recovered) = decoded_at_open(&root);
    assert!(recovered.is_empty(), "{recovered:?}");
    assert!(n <= docs.len() as u64, "{n} records decoded");
    std::fs::write(root.join(MANIFEST), b"not json").unwrap();
    let (n, recovered) = decoded_at_open(&root);
    assert!(
        recovered.iter().any(|r| r.contains("rebuilt")),
        "{recovered:?}"
    );
    assert!(n <= docs.len() as u64, "{n} records decoded");
    assert_eq!(state(&open(&root).unwrap(), &docs), want);
}

/// Walks over records' fingerprints in search of chunks on this thread.
fn chunk_scans() -> u64 {
    super::CHUNK_SCANS.with(core::cell::Cell::get)
}

/// Ingesting documents of many chunks walks each record for them a few
/// times (once for the chunk numbers, once for the hashes), not once per
/// chunk; the stored state is the one the replay rebuilds.
#[test]
fn ingest_walks_each_record_for_its_chunks_a_few_times() {
    let root = temp("ingest-scans");
    let docs = documents(6, 2000);
    let store = open(&root).unwrap();
    let before = chunk_scans();
    store.ingest_batch(&docs[..3]).unwrap();
    store.ingest_batch(&docs[3..]).unwrap();
    // The second batch again, and a document made of the first one's
    // chunks: decided against what is stored, nothing new to own.
    store.ingest_batch(&docs[3..]).unwrap();
    let copy = IncomingDocument::new("copy", docs[0].text.clone(), "web");
    store.ingest(&copy).unwrap();
    let scans = chunk_scans() - before;
    assert!(
        scans <= 3 * 10,
        "{scans} walks for 10 documents of 2000 chunks"
    );
    let want = state(&store, &docs);
    drop(store);
    assert_eq!(state(&open(&root).unwrap(), &docs), want);
}

/// Frame boundaries of the log at `path`: (header offset, frame length).
fn frames(path: &Path) -> Vec<(usize, usize)> {
    let bytes = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    let mut at = 0;
    while at + 12 <= bytes.len() {
        let n = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        out.push((at, 12 + n));
        at += 12 + n;
    }
    assert_eq!(at, bytes.len());
    out
}

/// Damage to frames other than the last is an error naming the log and
/// the byte, and nothing is cut off; the tail a crash leaves still is.
#[test]
fn only_a_torn_last_frame_is_cut_off() {
    let pristine = temp("log-pristine");
    let docs = documents(6, 20);
    let store = open(&pristine).unwrap();
    for d in docs.chunks(2) {
        store.ingest_batch(d).unwrap();
    }
    drop(store);
    let log = pristine.join(LOG_FILE);
    let bytes = std::fs::read(&log).unwrap();
    let f = frames(&log);
    assert!(f.len() >= 4, "{f:?}");
    let (last, _) = f[f.len() - 1];
    let (second_last, _) = f[f.len() - 2];
    let cases: Vec<(&str, Vec<u8>, Option<usize>)> = vec![
        ("zeroed", vec![0; bytes.len()], Some(0)),
        (
            "garbage",
            (0..bytes.len()).map(|i| i as u8).collect(),
            Some(0),
        ),
        (
            "first-bytes",
            {
                let mut b = bytes.clone();
                b[..40].fill(0xa5);
                b
            },
            Some(0),
        ),
        // The last two frames damaged: the first of them is not the tail.
        (
            "two-frames",
            {
                let mut b = bytes.clone();
                b[second_last..].fill(0);
                b
            },
            Some(second_last),
        ),
        // A crash in the last commit: part of its frame.
        ("torn", bytes[..last + 30].to_vec(), None),
        ("torn-header", bytes[..last + 7].to_vec(), None),
    ];
    for (name, damaged, error_at) in cases {
        let root = temp(&format!("log-{name}"));
        for e in std::fs::read_dir(&pristine).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), root.join(e.file_name())).unwrap();
        }
        std::fs::write(root.join(LOG_FILE), &damaged).unwrap();
        match (open(&root), error_at) {
            (Err(e), Some(at)) => {
                let e = e.to_string();
                assert!(
                    e.contains("corrupt")
                        && e.contains(LOG_FILE)
                        && e.contains(&format!("damaged frame at byte {at} ")),
                    "{name}: {e}"
                );
                let len = std::fs::metadata(root.join(LOG_FILE)).unwrap().len();
                assert_eq!(len, damaged.len() as u64, "{name}: the log was cut");
            }
            (Ok(store), None) => {
                assert_eq!(store.metrics().unwrap().docs, 4, "{name}");
                let len = std::fs::metadata(root.join(LOG_FILE)).unwrap().len();
                assert_eq!(len, last as u64, "{name}");
            }
            (Err(e), None) => panic!("{name}: {e}"),
            (Ok(_), Some(_)) => panic!("{name}: opened"),
        }
    }
}

/// Damage shaped like a torn tail but inside what the checkpoint covers,
/// met while rebuilding damaged tables from the log: an error, not a cut.
#[test]
fn a_rebuild_never_cuts_below_the_checkpoint() {
    let root = temp("log-floor");
    let store = open(&root).unwrap();
    store.ingest_batch(&documents(6, 20)).unwrap();
    drop(store);
    let b = EmbeddedBackend::open(&root).unwrap();
    b.checkpoint().unwrap();
    drop(b);
    let seg = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "seg"))
        .unwrap();
    std::fs::write(&seg, b"damaged").unwrap();
    let log = root.join(LOG_FILE);
    let mut bytes = std::fs::read(&log).unwrap();
    let last = frames(&log).last().unwrap().0;
    *bytes.last_mut().unwrap() ^= 0x40;
    std::fs::write(&log, &bytes).unwrap();
    let e = open(&root).err().unwrap().to_string();
    assert!(
        e.contains(LOG_FILE)
            && e.contains(&format!("damaged frame at byte {last} "))
            && e.contains(&format!("checkpoint covers {} bytes", bytes.len())),
        "{e}"
    );
    assert_eq!(std::fs::metadata(&log).unwrap().len(), bytes.len() as u64);
}

/// `docs.idx` overwritten: found at open and rebuilt from the log, with
/// the same answers.
#[test]
fn a_damaged_docs_index_is_rebuilt() {
    let root = temp("docs-idx");
    let docs = documents(8, 20);
    let store = open(&root).unwrap();
    store.ingest_batch(&docs).unwrap();
    drop(store);
    let b = EmbeddedBackend::open(&root).unwrap();
    b.checkpoint().unwrap();
    drop(b);
    let want = state(&open(&root).unwrap(), &docs);
    let path = root.join(DOCS);
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    assert_eq!(len, 16 * docs.len());
    std::fs::write(&path, (0..len).map(|i| i as u8).collect::<Vec<u8>>()).unwrap();
    let b = EmbeddedBackend::open(&root).unwrap();
    assert!(
        b.recovered()
            .iter()
            .any(|r| r.contains(DOCS) && r.contains("rebuilt")),
        "{:?}",
        b.recovered()
    );
    drop(b);
    assert_eq!(state(&open(&root).unwrap(), &docs), want);
}
