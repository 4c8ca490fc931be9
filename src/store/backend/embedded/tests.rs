//! The embedded backend against the earlier (redb) one on the same
//! documents, through checkpoints, merges, reopens, a torn log tail, a
//! damaged segment and a conversion.

use std::path::{Path, PathBuf};

use super::{EmbeddedBackend, LEGACY_FILE, LOG_FILE};
use crate::store::backend::LegacyRedbStore;
use crate::store::{DecisionRecord, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("txtfp-emb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn config(root: &Path) -> GlobalStoreConfig {
    let mut cfg = GlobalStoreConfig::from_toml_str(
        r#"
        chunk_size = 48
        minhash_partial_threshold = 0.5
        document_type_priority = ["books", "web"]
        source_to_document_type = { a = "web", b = "web", c = "books" }
        source_priority = ["a"]
        "#,
    )
    .unwrap();
    cfg.root_path = root.to_path_buf();
    cfg
}

/// Sample texts, copies with words dropped, mixtures sharing chunks, from
/// three sources of different priority.
fn documents() -> Vec<IncomingDocument> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data/sample.jsonl");
    let texts: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["text"].as_str().unwrap().to_owned()
        })
        .collect();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let sources = ["a", "b", "c"];
    let mut out = Vec::new();
    for (n, t) in texts.iter().enumerate() {
        let words: Vec<&str> = t.split_whitespace().collect();
        out.push(IncomingDocument::new(
            format!("o{n}"),
            t.clone(),
            sources[n % 3],
        ));
        for v in 0..3 {
            let kept: Vec<&str> = words
                .iter()
                .filter(|_| !next().is_multiple_of(12 + 8 * v))
                .copied()
                .collect();
            let src = sources[(next() % 3) as usize];
            out.push(IncomingDocument::new(
                format!("v{n}.{v}"),
                kept.join(" "),
                src,
            ));
        }
        if n > 0 && words.len() > 60 {
            let other: Vec<&str> = texts[n - 1].split_whitespace().collect();
            let mixed = format!("{} {}", words[..48].join(" "), other.join(" "));
            out.push(IncomingDocument::new(format!("m{n}"), mixed, "b"));
        }
    }
    // Ids in ingest order: the engine breaks ties between equally ranked
    // matches by age, then id, so this makes decisions independent of
    // which documents share a millisecond.
    for (i, d) in out.iter_mut().enumerate() {
        d.doc_id = format!("{i:05}-{}", d.doc_id);
    }
    // A repeated id replays.
    let again = out[1].doc_id.clone();
    out.push(IncomingDocument::new(
        again,
        "something else entirely now",
        "a",
    ));
    out
}

fn plain(mut d: DecisionRecord) -> DecisionRecord {
    d.decided_at = 0;
    d
}

fn ingest_all(store: &GlobalFingerprintStore, docs: &[IncomingDocument]) -> Vec<DecisionRecord> {
    let mut out = Vec::new();
    for batch in docs.chunks(7) {
        for d in store.ingest_batch(batch).unwrap() {
            out.push(plain(d.unwrap()));
        }
    }
    out
}

fn legacy_store(root: &Path) -> GlobalFingerprintStore {
    let b = LegacyRedbStore::open(root).unwrap();
    GlobalFingerprintStore::with_backend(config(root), Box::new(b)).unwrap()
}

fn embedded_store(root: &Path, every: usize) -> GlobalFingerprintStore {
    let b = EmbeddedBackend::open(root).unwrap().checkpoint_every(every);
    GlobalFingerprintStore::with_backend(config(root), Box::new(b)).unwrap()
}

/// Everything a store holds about `docs`, comparable across backends.
fn state(store: &GlobalFingerprintStore, docs: &[IncomingDocument]) -> Vec<String> {
    let mut out: Vec<String> = docs
        .iter()
        .map(|d| {
            let e = store.document(&d.doc_id).unwrap().map(|mut e| {
                e.created_at = 0;
                e.decision.decided_at = 0;
                e
            });
            let mut fps = store.fingerprints(&d.doc_id).unwrap();
            for f in &mut fps {
                f.created_at = 0;
            }
            let q = store.query(&d.text).map(|mut m| {
                m.sort_by(|a, b| a.doc_id.cmp(&b.doc_id));
                m
            });
            format!("{e:?} {fps:?} {q:?}")
        })
        .collect();
    out.push(format!("{:?}", store.metrics().unwrap()));
    out
}

#[test]
fn decisions_and_state_equal_the_earlier_backend_through_checkpoints() {
    let docs = documents();
    let old_root = temp("old");
    let old = legacy_store(&old_root);
    let want = ingest_all(&old, &docs);
    let want_state = state(&old, &docs);
    assert!(
        want.iter()
            .any(|d| d.action == crate::store::Action::Replace)
    );
    assert!(want.iter().any(|d| d.action == crate::store::Action::Link));
    assert!(want.iter().any(|d| d.action == crate::store::Action::Drop));
    // Every recent-part size: checkpoints after a few documents (many
    // segments and merges), now and then, never.
    for every in [40, 700, usize::MAX] {
        let root = temp(&format!("new-{every}"));
        let store = embedded_store(&root, every);
        let got = ingest_all(&store, &docs);
        assert_eq!(got, want, "checkpoint every {every}");
        assert_eq!(state(&store, &docs), want_state, "checkpoint every {every}");
        drop(store);
        // Reopened: the same (replayed from the log, or read from segments).
        let store = embedded_store(&root, every);
        assert_eq!(state(&store, &docs), want_state, "reopened, every {every}");
        let segments = std::fs::read_dir(&root)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(".seg")
            })
            .count();
        if every == 40 {
            assert!((2..=12).contains(&segments), "{segments} segments");
        }
    }
}

#[test]
fn a_torn_tail_is_cut_and_a_damaged_segment_rebuilt() {
    let docs = documents();
    let (first, second) = docs.split_at(docs.len() / 2);
    let root = temp("damage");
    let store = embedded_store(&root, 300);
    ingest_all(&store, first);
    drop(store);
    // A commit cut short by a crash: part of a frame at the end.
    let log = root.join(LOG_FILE);
    let mut bytes = std::fs::read(&log).unwrap();
    let intact = bytes.len();
    bytes.extend_from_slice(b"TXFL\x40\x00\x00\x00garbage");
    std::fs::write(&log, &bytes).unwrap();
    let b = EmbeddedBackend::open(&root).unwrap();
    assert_eq!(b.recovered().len(), 1, "{:?}", b.recovered());
    assert_eq!(std::fs::metadata(&log).unwrap().len(), intact as u64);
    drop(b);
    // A damaged segment: rebuilt from the log.
    let seg = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "seg"))
        .unwrap();
    let mut s = std::fs::read(&seg).unwrap();
    s[10] ^= 0xff;
    std::fs::write(&seg, &s).unwrap();
    let b = EmbeddedBackend::open(&root).unwrap();
    assert!(b.recovered()[0].contains("rebuilt"), "{:?}", b.recovered());
    let store = GlobalFingerprintStore::with_backend(config(&root), Box::new(b)).unwrap();
    let got = ingest_all(&store, second);
    // The same as an undamaged store.
    let clean_root = temp("damage-clean");
    let clean = embedded_store(&clean_root, 300);
    ingest_all(&clean, first);
    assert_eq!(got, ingest_all(&clean, second));
    assert_eq!(state(&store, &docs), state(&clean, &docs));
}

#[test]
fn a_store_of_the_earlier_format_converts_with_nothing_lost() {
    let docs = documents();
    let (first, second) = docs.split_at(docs.len() / 2);
    let root = temp("migrate");
    let old = legacy_store(&root);
    ingest_all(&old, first);
    let before = state(&old, &docs);
    let after_old = ingest_all(&old, second);
    let final_old = state(&old, &docs);
    drop(old);
    // Start again from the first half only.
    let root = temp("migrate2");
    let old = legacy_store(&root);
    ingest_all(&old, first);
    drop(old);
    let e = EmbeddedBackend::open(&root).err().unwrap().to_string();
    assert!(e.contains("migrate"), "{e}");
    let m = EmbeddedBackend::migrate(&root).unwrap();
    assert!(m.documents > 0 && m.chunks > 0);
    assert!(!root.join(LEGACY_FILE).exists() && m.kept_as.exists());
    let store = embedded_store(&root, 500);
    assert_eq!(state(&store, &docs), before);
    assert_eq!(ingest_all(&store, second), after_old);
    assert_eq!(state(&store, &docs), final_old);
}

/// Damage to each file: a typed error naming the file, or a repair, and
/// never a panic; what a repair keeps decides as before.
#[test]
fn every_kind_of_damage_is_an_error_or_a_repair() {
    let docs = documents();
    let (first, second) = docs.split_at(docs.len() / 2);
    let build = |name: &str| {
        let root = temp(name);
        let store = embedded_store(&root, 200);
        ingest_all(&store, first);
        drop(store);
        root
    };
    let open = |root: &Path| {
        EmbeddedBackend::open(root)
            .and_then(|b| GlobalFingerprintStore::with_backend(config(root), Box::new(b)))
    };
    let reference = build("dmg-ref");
    let want_state = state(&open(&reference).unwrap(), &docs);

    // The log cut to half: refused (the checkpoint covers more) or cut off.
    let root = build("dmg-half");
    let log = root.join(LOG_FILE);
    let len = std::fs::metadata(&log).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let e = open(&root).err().unwrap().to_string();
    assert!(e.contains("store.log"), "{e}");

    // 64 KiB zeroed in the middle. Frames after the checkpoint are checked
    // as they are replayed: an error naming the log and the offset. Frames
    // before it are read when a document in them is: that document's reads
    // fail with an error naming the log, the rest of the store works.
    for (name, at_end) in [("dmg-zero-tail", true), ("dmg-zero-mid", false)] {
        let root = build(name);
        if at_end {
            // A second half after the last checkpoint, then damage in it.
            let store = embedded_store(&root, usize::MAX);
            ingest_all(&store, &second[..second.len() / 2]);
            drop(store);
        }
        let log = root.join(LOG_FILE);
        let mut bytes = std::fs::read(&log).unwrap();
        let covered: u64 = serde_json::from_slice::<serde_json::Value>(
            &std::fs::read(root.join("MANIFEST")).unwrap(),
        )
        .unwrap()["log_end"]
            .as_u64()
            .unwrap();
        let start = if at_end {
            covered as usize + 100
        } else {
            covered as usize / 2
        };
        let end = (start + 65_536).min(bytes.len() - 20);
        assert!(start < end, "{name}: {start} {end}");
        bytes[start..end].fill(0);
        std::fs::write(&log, &bytes).unwrap();
        match open(&root) {
            Err(e) => {
                let e = e.to_string();
                assert!(
                    at_end && e.contains("store.log") && e.contains("damaged frame at byte"),
                    "{e}"
                );
            }
            Ok(store) => {
                assert!(!at_end);
                let mut failed = 0;
                for d in &docs {
                    if let Err(e) = store.document(&d.doc_id) {
                        assert!(e.to_string().contains("store.log"), "{e}");
                        failed += 1;
                    }
                }
                assert!(failed > 0 && failed < docs.len(), "{failed}");
                assert!(store.metrics().is_ok());
            }
        }
    }

    // An empty log under a created store: refused, never a new store.
    let root = build("dmg-empty");
    std::fs::write(root.join(LOG_FILE), b"").unwrap();
    let e = open(&root).err().unwrap().to_string();
    assert!(e.contains("empty or missing"), "{e}");

    // The manifest, docs.idx or a segment damaged: rebuilt from the log,
    // with the same content and the same later decisions.
    let want_later = ingest_all(&open(&build("dmg-ref2")).unwrap(), second);
    for (name, hit) in [("manifest", "MANIFEST"), ("docs", "docs.idx")] {
        let root = build(&format!("dmg-{name}"));
        let path = root.join(hit);
        let mut b = std::fs::read(&path).unwrap();
        b.truncate(b.len() / 3);
        std::fs::write(&path, &b).unwrap();
        let backend = EmbeddedBackend::open(&root).unwrap();
        assert!(
            backend.recovered().iter().any(|r| r.contains("rebuilt")),
            "{name}: {:?}",
            backend.recovered()
        );
        let store = GlobalFingerprintStore::with_backend(config(&root), Box::new(backend)).unwrap();
        assert_eq!(state(&store, &docs), want_state, "{name}");
        assert_eq!(ingest_all(&store, second), want_later, "{name}");
    }
}

/// The in-memory readers the fuzz targets drive see what opening the store
/// sees: every frame and operation of the log, every segment's entries
/// through its directory; damage is found where it is.
#[test]
fn the_in_memory_readers_agree_with_the_store_files() {
    use super::fuzzing;
    use super::log::{HEADER, Log};
    let root = temp("in-memory");
    let store = embedded_store(&root, 300);
    ingest_all(&store, &documents());
    drop(store);
    let log = std::fs::read(root.join(LOG_FILE)).unwrap();
    let scan = fuzzing::log(&log).unwrap();
    let mut frames = Vec::new();
    let copy = temp("in-memory-log").join(LOG_FILE);
    std::fs::write(&copy, &log).unwrap();
    Log::open(&copy, 0, 0, &mut |at, p| {
        frames.push((at, p.len()));
        Ok(())
    })
    .unwrap();
    assert!(frames.len() > 10);
    assert_eq!(scan.frames, frames);
    assert!(scan.ops > frames.len() && scan.damaged_at.is_none());
    // A torn tail, and damage with a valid frame after it.
    let (at, len) = frames[frames.len() - 1];
    let torn = fuzzing::log(&log[..log.len() - 3]).unwrap();
    assert_eq!(
        (torn.damaged_at, torn.valid_after, torn.torn),
        (Some(at - HEADER), None, true)
    );
    // A flipped payload byte or header byte: the frame fails its check, and
    // the valid frame after it is reported (opening the store refuses).
    let (second, second_len) = frames[1];
    for flip in [second, second - HEADER] {
        let mut bad = log.clone();
        bad[flip as usize] ^= 0x55;
        let d = fuzzing::log(&bad).unwrap();
        assert_eq!(d.damaged_at, Some(second - HEADER));
        assert_eq!(d.valid_after, Some(second + second_len as u64));
        assert!(!d.torn);
    }
    // A whole frame whose operation is unknown: an error naming the byte.
    let mut unknown = log.clone();
    unknown.extend_from_slice(b"TXFL");
    unknown.extend_from_slice(&1u32.to_le_bytes());
    unknown.extend_from_slice(&crc32fast::hash(&[0xee]).to_le_bytes());
    unknown.push(0xee);
    let e = fuzzing::log(&unknown).unwrap_err().to_string();
    assert!(
        e.contains(&format!("unreadable operation at byte {}", log.len() + 12)),
        "{e}"
    );
    assert!(len > 0);

    let seg_path = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "seg"))
        .unwrap();
    let seg = std::fs::read(&seg_path).unwrap();
    let tags = fuzzing::segment(seg.clone()).unwrap();
    let check = |tags: &[fuzzing::SegmentTag]| {
        let mut keys = 0;
        for t in tags {
            for (key, docs) in &t.lookups {
                let want: Vec<u32> = t
                    .adds
                    .iter()
                    .filter(|&&e| (e >> 32) as u32 == *key)
                    .map(|&e| e as u32)
                    .collect();
                assert_eq!(docs, &want);
                keys += 1;
            }
            assert!(t.found_removes.iter().all(|&f| f));
            assert!(t.filtered_out.is_empty());
        }
        keys
    };
    assert!(check(&tags) > 100);
    // The same tables in the second format, whose block directories are
    // outside the checksums: a damaged one still gives the right answers.
    let runs: Vec<super::segment::TagRuns> = tags
        .iter()
        .map(|t| super::segment::TagRuns {
            adds: t.adds.clone(),
            removes: t.removes.clone(),
        })
        .collect();
    let v2 = super::segment::second_format(&runs);
    let mut dir = v2.clone();
    let word = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
    let n = runs.len();
    let mut at = 8 + 4 + n * 20 + 12 + 4;
    let mut damaged = 0;
    for t in 0..n {
        let (adds, removes) = (word(&v2, 12 + t * 20), word(&v2, 20 + t * 20));
        at += (adds + removes) * 8;
        let dir_len = adds.div_ceil(super::segment::BLOCK) * 4;
        for b in &mut dir[at..at + dir_len] {
            *b = b.wrapping_mul(7) ^ 0x5a;
            damaged += 1;
        }
        at += dir_len;
    }
    // Then the key filter.
    assert_eq!(at + word(&v2, 12 + n * 20) * 64, v2.len());
    assert!(damaged > 100);
    assert!(check(&fuzzing::segment(dir).unwrap()) > 0);
    // In the packed format a lookup trusts the directory, and its
    // checksum refuses a damaged one at open.
    let mut at = 8 + 4 + n * 32 + 12 + 4;
    for t in 0..n {
        let (adds, bytes, removes) = (
            word(&seg, 12 + t * 32),
            word(&seg, 20 + t * 32),
            word(&seg, 28 + t * 32),
        );
        at += bytes + removes * 8;
        let dir_len = adds.div_ceil(super::segment::BLOCK) * 8;
        if dir_len > 0 {
            let mut bad = seg.clone();
            bad[at + dir_len / 2] ^= 0x20;
            let e = fuzzing::segment(bad).unwrap_err().to_string();
            assert!(e.contains(&format!("directory of table {t}")), "{e}");
        }
        at += dir_len;
    }
    assert_eq!(at + word(&seg, 12 + n * 32) * 64, seg.len());
    let mut body = seg;
    body[200] ^= 1;
    assert!(fuzzing::segment(body).is_err());
}

proptest::proptest! {
    /// The chunk map of a cached record answers what scanning the records
    /// answers: the first chunk record with the hash, its number or none.
    #[test]
    fn cached_chunk_owners_equal_the_scan(
        chunks in proptest::collection::vec((0u8..6, proptest::option::of(0u32..50), 0u8..4), 0..40),
        asked in 0u8..7,
    ) {
        use crate::store::records::{DocStatus, FingerprintRecord, FingerprintType};
        let hash = |b: u8| [b; 32];
        let hex = |b: u8| hash(b).iter().map(|x| format!("{x:02x}")).collect::<String>();
        let rec = |kind, value: String, chunk_id| FingerprintRecord {
            fingerprint_id: "d/chunk".into(),
            fingerprint_type: kind,
            value,
            doc_id: "d".into(),
            chunk_id,
            source: "s".into(),
            language: None,
            created_at: 0,
            fingerprint_version: "v1".into(),
            hash_params: String::new(),
        };
        let fps: Vec<FingerprintRecord> = chunks
            .iter()
            .map(|&(b, id, kind)| match kind {
                // Now and then another kind with a chunk's value, or a
                // value that is not a hash.
                0 => rec(FingerprintType::SimHash, hex(b), id),
                1 => rec(FingerprintType::Chunk, "zz".into(), id),
                _ => rec(FingerprintType::Chunk, hex(b), id),
            })
            .collect();
        let entry = crate::store::StoredDocument {
            doc_id: "d".into(),
            source: "s".into(),
            document_type: None,
            language: None,
            created_at: 0,
            status: DocStatus::Live,
            decision: crate::store::DecisionRecord {
                doc_id: "d".into(),
                source: "s".into(),
                action: crate::store::Action::Accept,
                reason: crate::store::MatchReason::NoMatch,
                matched_doc_id: None,
                matched_source: None,
                superseded: Vec::new(),
                linked_docs: Vec::new(),
                duplicate_chunks: Vec::new(),
                decided_at: 0,
                replayed: false,
            },
        };
        let hot = super::Hot::new((entry.clone(), fps.clone()));
        let h = hash(asked);
        proptest::prop_assert_eq!(hot.owner(&h), super::owner_of(&h, &entry, &fps));
    }
}

/// A store over `b`, and a handle on `b` to wait for its merges.
fn shared_store(
    root: &Path,
    b: EmbeddedBackend,
) -> (std::sync::Arc<EmbeddedBackend>, GlobalFingerprintStore) {
    let b = std::sync::Arc::new(b);
    let backend = Box::new(std::sync::Arc::clone(&b));
    let store = GlobalFingerprintStore::with_backend(config(root), backend).unwrap();
    (b, store)
}

/// The segments on disk are exactly those the manifest names, and their
/// sizes obey the merge rule (each under half the one below it).
fn assert_settled(b: &EmbeddedBackend, root: &Path) {
    b.wait_for_merges().unwrap();
    let g = b.lock().unwrap();
    let sizes: Vec<u64> = g.tables.segments().iter().map(|s| s.entries()).collect();
    assert!(
        sizes.windows(2).all(|w| w[1] * 2 < w[0]),
        "sizes after merging: {sizes:?}"
    );
    let mut on_disk: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("seg-"))
        .collect();
    on_disk.sort();
    let mut named = g.manifest.segments.clone();
    named.sort();
    assert_eq!(on_disk, named);
}

/// Merges run on the backend's own thread while documents are ingested
/// (checkpoints every 40 entries: hundreds of segments flushed, merged
/// while later ones are written); with the thread stopped they run inline,
/// and with a tiny segment budget ingestion waits for them. Every way
/// decides and stores what the earlier backend does.
#[test]
fn background_merges_keep_decisions_and_settle_to_the_size_rule() {
    let docs = documents();
    let old = legacy_store(&temp("bg-old"));
    let want = ingest_all(&old, &docs);
    let want_state = state(&old, &docs);
    for (name, max_segments, inline) in [
        ("bg", 24, false),
        ("bg-wait", 2, false),
        ("bg-inline", 3, true),
    ] {
        let root = temp(name);
        let mut b = EmbeddedBackend::open(&root).unwrap().checkpoint_every(40);
        b.max_segments = max_segments;
        if inline {
            b.stop_merging();
        }
        let (b, store) = shared_store(&root, b);
        assert_eq!(ingest_all(&store, &docs), want, "{name}");
        if max_segments < 24 {
            let n = b.lock().unwrap().tables.segments().len();
            assert!(
                n <= max_segments || b.lock().unwrap().tables.plan().is_none(),
                "{name}: {n}"
            );
        }
        assert_settled(&b, &root);
        assert_eq!(state(&store, &docs), want_state, "{name}");
        drop(store);
        drop(b);
        let store = embedded_store(&root, 40);
        assert_eq!(state(&store, &docs), want_state, "{name} reopened");
    }
}

/// Closing while merges are under way (five times, at different points)
/// stops them; what a stopped merge wrote is swept, and the store opens
/// with everything acknowledged.
#[test]
fn closing_during_merges_loses_nothing() {
    let docs = documents();
    let old = legacy_store(&temp("stop-old"));
    let want = ingest_all(&old, &docs);
    let want_state = state(&old, &docs);
    let root = temp("stop");
    let parts: Vec<&[IncomingDocument]> = docs.chunks(docs.len().div_ceil(5)).collect();
    let mut got = Vec::new();
    for part in parts {
        let store = embedded_store(&root, 40);
        got.extend(ingest_all(&store, part));
        drop(store);
        // What a process killed mid-merge leaves: a partial file, a whole
        // one the manifest never named.
        std::fs::write(root.join("seg-900000.tmp"), b"partial").unwrap();
        std::fs::write(root.join("seg-900001.seg"), b"TXFSEG02 unnamed").unwrap();
    }
    assert_eq!(got, want);
    let (b, store) = shared_store(&root, EmbeddedBackend::open(&root).unwrap());
    assert_eq!(state(&store, &docs), want_state);
    assert_settled(&b, &root);
}

/// A merge that reads a damaged table reports it, naming the segment, at
/// the next checkpoint; the other documents stay readable.
#[test]
fn a_damaged_segment_met_by_a_merge_is_reported() {
    let docs = documents();
    let (first, second) = docs.split_at(docs.len() / 2);
    let root = temp("merge-damage");
    let (b, store) = shared_store(
        &root,
        EmbeddedBackend::open(&root).unwrap().checkpoint_every(40),
    );
    ingest_all(&store, first);
    b.wait_for_merges().unwrap();
    // Flip a byte of the newest segment's first table (under its checksum,
    // not its header): the next flush is merged with it.
    let newest = b
        .lock()
        .unwrap()
        .tables
        .segments()
        .last()
        .unwrap()
        .path()
        .to_path_buf();
    let tags = b.lock().unwrap().tables.segments()[0].tags();
    let at = super::segment::header_len(tags, super::segment::Format::V3) as u64 + 1;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&newest)
        .unwrap();
    let mut byte = [0u8];
    std::os::unix::fs::FileExt::read_exact_at(&file, &mut byte, at).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&file, &[byte[0] ^ 0x40], at).unwrap();
    // The second half's flushes outgrow it, so some merge reads it: the
    // checkpoint after that (a batch's ingest) reports it, or waiting for
    // the merges at the end does.
    let mut reported = None;
    for batch in second.chunks(7) {
        if let Err(e) = store.ingest_batch(batch) {
            reported = Some(e);
            break;
        }
    }
    let reported = reported.or_else(|| b.wait_for_merges().err());
    let e = reported.expect("the damage is reported").to_string();
    assert!(
        e.contains(&newest.display().to_string()) && e.contains("checksum"),
        "{e}"
    );
    // The damaged block (a packed block's keys follow from its first one)
    // may point lookups astray: a typed error or nothing for them, the
    // others answer.
    let failed = first
        .iter()
        .filter(|d| match store.document(&d.doc_id) {
            Ok(found) => found.is_none(),
            Err(e) => matches!(e, crate::Error::Corrupt(_)),
        })
        .count();
    assert!(failed <= super::segment::BLOCK, "{failed} lookups failed");
}

/// A store whose segments are of the earlier plain format (as the previous
/// release wrote them) opens, decides the same, and merges them into
/// packed ones.
#[test]
fn segments_of_the_earlier_format_are_read_and_merged() {
    use super::segment::{Segment, second_format};
    let docs = documents();
    let (first, second) = docs.split_at(docs.len() / 2);
    let clean_root = temp("plain-ref");
    let clean = embedded_store(&clean_root, 60);
    ingest_all(&clean, first);
    let want_later = ingest_all(&clean, second);
    let want_state = state(&clean, &docs);

    let root = temp("plain");
    let store = embedded_store(&root, 60);
    ingest_all(&store, first);
    drop(store);
    let mut rewritten = 0;
    for e in std::fs::read_dir(&root).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "seg") {
            let seg = Segment::open(&path).unwrap();
            let tags: Vec<_> = (0..seg.tags()).map(|t| seg.read_tag(t).unwrap()).collect();
            drop(seg);
            std::fs::write(&path, second_format(&tags)).unwrap();
            rewritten += 1;
        }
    }
    assert!(rewritten > 0);
    let (b, store) = shared_store(
        &root,
        EmbeddedBackend::open(&root).unwrap().checkpoint_every(60),
    );
    assert!(b.recovered().is_empty(), "{:?}", b.recovered());
    assert_eq!(ingest_all(&store, second), want_later);
    assert_settled(&b, &root);
    assert_eq!(state(&store, &docs), want_state);
    // The second half outgrew the smallest of the old segments, so merges
    // took some of them into packed ones.
    let plain = b
        .lock()
        .unwrap()
        .tables
        .segments()
        .iter()
        .filter(|s| std::fs::read(s.path()).unwrap()[..8] == *b"TXFSEG02")
        .count();
    assert!(plain < rewritten, "{plain} of {rewritten} still plain");
}
