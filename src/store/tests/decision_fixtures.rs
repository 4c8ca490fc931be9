//! Hand-built stores for the decision tests.

use std::collections::BTreeMap;

use super::super::backend::{CandidateDoc, ChunkOwner, Snapshot, WriteOp};
use super::super::config::GlobalStoreConfig;
use super::super::decision::{Engine, Incoming};
use super::super::fingerprints::{Prepared, bands_for, hex, signature_hex};
use super::super::records::*;
use crate::lsh::SimHashLayout;

pub(in super::super::super) struct Fixture {
    pub cfg: GlobalStoreConfig,
    pub masks: Vec<u64>,
    pub rows: usize,
}

pub(in super::super::super) fn fixture(edit: impl FnOnce(&mut GlobalStoreConfig)) -> Fixture {
    let mut cfg = GlobalStoreConfig {
        document_type_priority: vec!["books".into(), "wiki".into(), "commoncrawl".into()],
        source_to_document_type: BTreeMap::from([
            ("veena".into(), "books".into()),
            ("gutenberg".into(), "books".into()),
            ("wikipedia".into(), "wiki".into()),
            ("dolma".into(), "commoncrawl".into()),
            ("c4".into(), "commoncrawl".into()),
        ]),
        ..GlobalStoreConfig::default()
    };
    edit(&mut cfg);
    cfg.validate().unwrap();
    let masks = SimHashLayout::for_distance(cfg.simhash_max_hamming)
        .unwrap()
        .masks()
        .to_vec();
    let rows =
        cfg.minhash_num_perm / bands_for(cfg.minhash_partial_threshold, cfg.minhash_num_perm);
    Fixture { cfg, masks, rows }
}

pub(in super::super::super) fn sig(equal_prefix: usize, salt: u64) -> Vec<u64> {
    (0..128u64)
        .map(|i| {
            if (i as usize) < equal_prefix {
                i
            } else {
                i + 1000 * salt
            }
        })
        .collect()
}

/// A live stored document with the given fingerprints.
pub(in super::super::super) fn stored(
    id: &str,
    source: &str,
    simhash: Option<u64>,
    minhash: Option<Vec<u64>>,
    chunks: &[[u8; 32]],
) -> CandidateDoc {
    let rec = |t, v: String, c: Option<u32>| FingerprintRecord {
        fingerprint_id: format!("{id}/x"),
        fingerprint_type: t,
        value: v,
        doc_id: id.into(),
        chunk_id: c,
        source: source.into(),
        language: None,
        created_at: 1,
        fingerprint_version: "v1".into(),
        hash_params: String::new(),
    };
    let mut fingerprints = Vec::new();
    if let Some(f) = simhash {
        fingerprints.push(rec(FingerprintType::SimHash, format!("{f:016x}"), None));
    }
    if let Some(s) = &minhash {
        fingerprints.push(rec(FingerprintType::MinHash, signature_hex(s), None));
    }
    for (i, c) in chunks.iter().enumerate() {
        fingerprints.push(rec(FingerprintType::Chunk, hex(c), Some(i as u32)));
    }
    let decision = DecisionRecord {
        doc_id: id.into(),
        source: source.into(),
        action: Action::Accept,
        reason: MatchReason::NoMatch,
        matched_doc_id: None,
        matched_source: None,
        superseded: vec![],
        linked_docs: vec![],
        duplicate_chunks: vec![],
        decided_at: 1,
        replayed: false,
    };
    CandidateDoc::new(
        StoredDocument {
            doc_id: id.into(),
            source: source.into(),
            document_type: None,
            language: None,
            created_at: 1,
            status: DocStatus::Live,
            decision,
        },
        fingerprints,
    )
}

pub(in super::super::super) fn snap_with(
    docs: Vec<CandidateDoc>,
    chunk_owners: Vec<Option<ChunkOwner>>,
) -> Snapshot {
    let mut s = Snapshot {
        chunk_owners,
        ..Snapshot::default()
    };
    for c in docs {
        let id = c.entry.doc_id.clone();
        for r in &c.fingerprints {
            if r.fingerprint_type == FingerprintType::SimHash {
                s.simhash_hits
                    .push((u64::from_str_radix(&r.value, 16).unwrap(), id.clone()));
            }
            if r.fingerprint_type == FingerprintType::MinHash {
                s.band_hits.push(id.clone());
            }
        }
        s.docs.insert(id, std::sync::Arc::new(c));
    }
    s
}

pub(in super::super::super) fn decide(
    f: &Fixture,
    source: &str,
    p: &Prepared,
    snap: &Snapshot,
) -> (DecisionRecord, Vec<WriteOp>) {
    let e = Engine {
        cfg: &f.cfg,
        masks: &f.masks,
        rows: f.rows,
    };
    let inc = Incoming {
        doc_id: "new",
        source,
        language: None,
        prepared: p,
        records: &[],
        now: 2,
    };
    let (d, ws) = e.decide(&inc, snap);
    (d, ws.ops)
}

pub(in super::super::super) fn simhash_only(v: u64) -> Prepared {
    Prepared {
        simhash: Some(v),
        ..Prepared::default()
    }
}
