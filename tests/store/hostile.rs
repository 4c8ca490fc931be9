//! Hostile input within the configured caps: the largest document
//! accepted (and one byte more refused), and thousands of documents that
//! share one chunk, on the embedded store (and on the Redis Cluster when
//! one is configured).
#![cfg(feature = "store")]

use crate::support::*;
use txtfp::Error;
use txtfp::store::{Action, GlobalFingerprintStore, IncomingDocument};

/// `n` words of a deterministic stream, never repeating a 5-word shingle
/// for long.
fn words(seed: u64, n: usize) -> String {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut out = String::with_capacity(n * 8);
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&format!("w{:x}", x % 100_000));
    }
    out
}

#[test]
fn the_largest_document_is_decided_and_one_byte_more_is_refused() {
    let dir = temp_dir("store-hostile-big");
    let cap = 8 << 20;
    let store = open_in(&dir, |c| c.max_doc_bytes = cap);
    let mut text = words(7, cap / 7);
    text.truncate(cap);
    while text.len() < cap {
        text.push(' ');
    }
    let d = store
        .ingest(&IncomingDocument::new("big", text.clone(), "web"))
        .unwrap();
    assert_eq!(d.action, Action::Accept);
    // Every chunk is recorded; a second copy is a duplicate of it.
    assert!(store.fingerprints("big").unwrap().len() > 1000);
    let again = store
        .ingest(&IncomingDocument::new("big-2", text.clone(), "web"))
        .unwrap();
    assert_eq!(again.matched_doc_id.as_deref(), Some("big"));
    text.push('x');
    let err = store
        .ingest(&IncomingDocument::new("too-big", text, "web"))
        .unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err}");
    assert!(err.to_string().contains("too-big"), "{err}");
    assert!(store.document("too-big").unwrap().is_none());
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `n` documents whose first chunk is the same 64 words and whose other
/// three are their own.
fn sharing_one_chunk(n: usize) -> Vec<IncomingDocument> {
    let shared = words(1, 64);
    (0..n)
        .map(|i| {
            IncomingDocument::new(
                format!("d{i:06}"),
                format!("{shared} {}", words(1000 + i as u64, 192)),
                "web",
            )
        })
        .collect()
}

fn check_sharing(store: &GlobalFingerprintStore, docs: &[IncomingDocument]) {
    let mut decided = Vec::new();
    for batch in docs.chunks(1024) {
        for r in store.ingest_batch(batch).unwrap() {
            decided.push(r.unwrap());
        }
    }
    assert_eq!(decided[0].action, Action::Accept);
    for d in &decided[1..] {
        // Each keeps its own chunk and links to the first holder of the
        // shared one.
        assert_eq!(d.action, Action::Link, "{}", d.doc_id);
        assert_eq!(d.linked_docs, ["d000000"], "{}", d.doc_id);
        assert_eq!(d.duplicate_chunks, [0], "{}", d.doc_id);
    }
    let m = store.metrics().unwrap();
    assert_eq!(m.docs as usize, docs.len());
    assert_eq!(m.kept as usize, docs.len());
}

/// The shared words also crowd MinHash bands (a band whose minima all fall
/// in them is the same for every document), so each document meets
/// thousands of candidates; `max_candidates` bounds what it verifies.
#[test]
fn twenty_thousand_documents_sharing_one_chunk() {
    let dir = temp_dir("store-hostile-chunk");
    let store = open_in(&dir, |c| c.max_candidates = 20);
    check_sharing(&store, &sharing_one_chunk(20_000));
    drop(store);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "store-redis")]
#[test]
fn documents_sharing_one_chunk_on_a_cluster() {
    let Ok(nodes) = std::env::var("TXTFP_REDIS_CLUSTER") else {
        assert!(
            std::env::var("TXTFP_REQUIRE_REDIS").map_or(true, |v| v != "1"),
            "TXTFP_REQUIRE_REDIS=1 but TXTFP_REDIS_CLUSTER is not set"
        );
        return;
    };
    let mut cfg: txtfp::store::GlobalStoreConfig = dataset_config();
    cfg.backend = txtfp::store::BackendKind::RedisCluster;
    cfg.redis_nodes = nodes.split(',').map(str::to_owned).collect();
    cfg.redis_prefix = format!("test-hostile-{}", std::process::id());
    cfg.max_candidates = 100;
    let store = GlobalFingerprintStore::open(cfg).unwrap();
    check_sharing(&store, &sharing_one_chunk(4_000));
}
