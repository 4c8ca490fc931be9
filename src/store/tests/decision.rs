//! The decision table and the priority rules, on hand-built snapshots.

use super::super::backend::{ChunkOwner, Snapshot, WriteOp};
use super::super::config::OnDuplicate;
use super::super::decision::rank;
use super::super::fingerprints::Prepared;
use super::super::records::*;
use super::decision_fixtures::*;

#[test]
fn no_match_accepts() {
    let f = fixture(|_| {});
    let (d, ops) = decide(&f, "dolma", &simhash_only(0xffff), &Snapshot::default());
    assert_eq!(
        (d.action, d.reason, d.matched_doc_id),
        (Action::Accept, MatchReason::NoMatch, None)
    );
    assert!(ops.iter().any(|o| matches!(o, WriteOp::SimHashAdd { .. })));
}

#[test]
fn simhash_match_same_type_keeps_existing() {
    let f = fixture(|_| {});
    let snap = snap_with(vec![stored("old", "c4", Some(0b111), None, &[])], vec![]);
    let (d, ops) = decide(&f, "dolma", &simhash_only(0), &snap);
    assert_eq!(d.action, Action::Drop);
    assert_eq!(d.reason, MatchReason::SimHash { distance: 3 });
    assert_eq!(d.matched_doc_id.as_deref(), Some("old"));
    // A dropped document is recorded but never indexed.
    assert!(
        ops.iter()
            .any(|o| matches!(o, WriteOp::PutDoc(e) if e.status == DocStatus::Duplicate))
    );
    assert!(!ops.iter().any(|o| matches!(o, WriteOp::SimHashAdd { .. })));
    assert!(ops.contains(&WriteOp::Count("cross_source_duplicates".into(), 1)));
}

#[test]
fn simhash_beyond_radius_is_no_match() {
    let f = fixture(|_| {});
    let snap = snap_with(vec![stored("old", "c4", Some(0b1111), None, &[])], vec![]);
    let (d, _) = decide(&f, "dolma", &simhash_only(0), &snap);
    assert_eq!(d.action, Action::Accept);
}

#[test]
fn mark_instead_of_drop_when_configured() {
    let f = fixture(|c| c.on_duplicate = OnDuplicate::Mark);
    let snap = snap_with(vec![stored("old", "dolma", Some(1), None, &[])], vec![]);
    let (d, _) = decide(&f, "dolma", &simhash_only(0), &snap);
    assert_eq!(d.action, Action::MarkDuplicate);
    assert!(d.action.is_kept() && d.action.is_duplicate() && !d.action.is_indexed());
}

#[test]
fn higher_type_replaces_and_supersedes() {
    let f = fixture(|_| {});
    let chunk = [7u8; 32];
    let snap = snap_with(
        vec![stored("old", "dolma", Some(0), None, &[chunk])],
        vec![Some(ChunkOwner {
            doc_id: "old".into(),
            chunk_id: 0,
        })],
    );
    let p = Prepared {
        simhash: Some(0),
        chunks: vec![chunk],
        ..Prepared::default()
    };
    let (d, ops) = decide(&f, "veena", &p, &snap);
    assert_eq!(d.action, Action::Replace);
    assert_eq!(d.superseded, ["old"]);
    // The shared chunk is taken over, not reported as a duplicate.
    assert!(d.duplicate_chunks.is_empty() && d.linked_docs.is_empty());
    assert!(ops.iter().any(|o| matches!(o, WriteOp::PutDoc(e)
        if e.doc_id == "old" && e.status == DocStatus::Superseded { by: "new".into() })));
    assert_eq!(
        ops.iter()
            .filter(|o| matches!(o, WriteOp::SimHashRemove { .. }))
            .count(),
        f.masks.len()
    );
    assert!(
        ops.iter()
            .any(|o| matches!(o, WriteOp::ChunkSet(h, ow) if *h == chunk && ow.doc_id == "new"))
    );
    assert!(!ops.iter().any(|o| matches!(o, WriteOp::ChunkRemove(_))));
}

#[test]
fn lower_type_is_dropped_against_higher() {
    let f = fixture(|_| {});
    let snap = snap_with(vec![stored("book", "veena", Some(0), None, &[])], vec![]);
    let (d, _) = decide(&f, "wikipedia", &simhash_only(0), &snap);
    assert_eq!(
        (d.action, d.matched_source.as_deref()),
        (Action::Drop, Some("veena"))
    );
}

#[test]
fn source_priority_decides_within_a_type() {
    let f = fixture(|c| c.source_priority = vec!["gutenberg".into(), "veena".into()]);
    let snap = snap_with(vec![stored("v", "veena", Some(0), None, &[])], vec![]);
    assert_eq!(
        decide(&f, "gutenberg", &simhash_only(0), &snap).0.action,
        Action::Replace
    );
    let snap = snap_with(vec![stored("g", "gutenberg", Some(0), None, &[])], vec![]);
    assert_eq!(
        decide(&f, "veena", &simhash_only(0), &snap).0.action,
        Action::Drop
    );
}

#[test]
fn type_outranks_source_priority() {
    // dolma is first in source_priority but commoncrawl ranks below wiki.
    let f = fixture(|c| c.source_priority = vec!["dolma".into(), "wikipedia".into()]);
    let snap = snap_with(vec![stored("w", "wikipedia", Some(0), None, &[])], vec![]);
    assert_eq!(
        decide(&f, "dolma", &simhash_only(0), &snap).0.action,
        Action::Drop
    );
    assert!(rank(&f.cfg, "wikipedia") < rank(&f.cfg, "dolma"));
    // Unmapped sources rank last.
    assert!(rank(&f.cfg, "dolma") < rank(&f.cfg, "unknown"));
}

#[test]
fn same_type_without_source_priority_keeps_existing() {
    let f = fixture(|_| {});
    let snap = snap_with(vec![stored("c", "c4", Some(0), None, &[])], vec![]);
    assert_eq!(
        decide(&f, "dolma", &simhash_only(0), &snap).0.action,
        Action::Drop
    );
    let snap = snap_with(vec![stored("d", "dolma", Some(0), None, &[])], vec![]);
    assert_eq!(
        decide(&f, "c4", &simhash_only(0), &snap).0.action,
        Action::Drop
    );
}

#[test]
fn minhash_at_threshold_is_a_duplicate() {
    let f = fixture(|c| c.simhash = false);
    // 116 of 128 slots equal: 0.906 >= 0.9.
    let snap = snap_with(
        vec![stored("old", "c4", None, Some(sig(116, 1)), &[])],
        vec![],
    );
    let p = Prepared {
        minhash: Some(sig(116, 2)),
        ..Prepared::default()
    };
    let (d, _) = decide(&f, "c4", &p, &snap);
    assert_eq!(d.action, Action::Drop);
    assert!(
        matches!(d.reason, MatchReason::MinHash { jaccard } if (jaccard - 116.0 / 128.0).abs() < 1e-12)
    );
    assert!(d.superseded.is_empty());
    // ... and with priority the incoming one wins.
    let (d, _) = decide(&f, "wikipedia", &p, &snap);
    assert_eq!((d.action, d.superseded.len()), (Action::Replace, 1));
}

#[test]
fn minhash_partial_overlap_is_kept_and_marked() {
    let f = fixture(|c| c.simhash = false);
    let snap = snap_with(
        vec![stored("old", "c4", None, Some(sig(80, 1)), &[])],
        vec![],
    );
    let p = Prepared {
        minhash: Some(sig(80, 2)),
        ..Prepared::default()
    };
    let (d, ops) = decide(&f, "veena", &p, &snap);
    assert_eq!(d.action, Action::MarkPartial);
    assert!(matches!(d.reason, MatchReason::PartialMinHash { jaccard } if jaccard == 80.0 / 128.0));
    assert_eq!(d.matched_doc_id.as_deref(), Some("old"));
    assert!(d.superseded.is_empty(), "a partial overlap never replaces");
    assert!(ops.iter().any(|o| matches!(o, WriteOp::BandAdd { .. })));
    // Below the partial bound: a plain accept.
    let p = Prepared {
        minhash: Some(sig(40, 2)),
        ..Prepared::default()
    };
    assert_eq!(decide(&f, "veena", &p, &snap).0.action, Action::Accept);
}

#[test]
fn chunk_overlap_links_and_never_drops() {
    let f = fixture(|_| {});
    let (a, b, c) = ([1u8; 32], [2u8; 32], [3u8; 32]);
    let owners = vec![
        Some(ChunkOwner {
            doc_id: "x".into(),
            chunk_id: 4,
        }),
        None,
        Some(ChunkOwner {
            doc_id: "y".into(),
            chunk_id: 0,
        }),
        None,
    ];
    let snap = snap_with(
        vec![
            stored("x", "dolma", Some(u64::MAX), None, &[]),
            stored("y", "veena", None, None, &[]),
        ],
        owners,
    );
    // Far SimHash, chunks a and c stored already, b repeated inside the document.
    let p = Prepared {
        simhash: Some(0),
        chunks: vec![a, b, c, b],
        ..Prepared::default()
    };
    let (d, ops) = decide(&f, "dolma", &p, &snap);
    assert_eq!(d.action, Action::Link);
    assert_eq!(
        d.reason,
        MatchReason::ChunkOverlap {
            shared: 3,
            total: 4
        }
    );
    assert_eq!(d.linked_docs, ["x", "y"]);
    assert_eq!(d.duplicate_chunks, [0, 2, 3]);
    let owned: Vec<u32> = ops
        .iter()
        .filter_map(|o| match o {
            WriteOp::ChunkSet(_, ow) => Some(ow.chunk_id),
            _ => None,
        })
        .collect();
    assert_eq!(owned, [1]);
    assert!(ops.contains(&WriteOp::Count("chunks_reused".into(), 3)));
}

#[test]
fn incoming_must_outrank_every_match_to_replace() {
    let f = fixture(|_| {});
    let snap = snap_with(
        vec![
            stored("crawl", "dolma", Some(0), None, &[]),
            stored("book", "veena", Some(1), None, &[]),
        ],
        vec![],
    );
    let (d, _) = decide(&f, "wikipedia", &simhash_only(0), &snap);
    assert_eq!(
        (d.action, d.matched_doc_id.as_deref()),
        (Action::Drop, Some("book"))
    );
}

#[test]
fn replay_writes_nothing() {
    let f = fixture(|_| {});
    let mut old = stored("new", "dolma", Some(0), None, &[]).entry;
    old.decision.action = Action::Drop;
    let snap = Snapshot {
        existing: Some(old),
        ..Snapshot::default()
    };
    let (d, ops) = decide(&f, "veena", &simhash_only(0), &snap);
    assert_eq!((d.action, d.replayed), (Action::Drop, true));
    assert!(ops.is_empty());
}

#[test]
fn non_live_documents_never_match() {
    let f = fixture(|_| {});
    let mut gone = stored("old", "dolma", Some(0), None, &[]);
    gone.entry.status = DocStatus::Superseded { by: "other".into() };
    let snap = snap_with(vec![gone], vec![]);
    assert_eq!(
        decide(&f, "dolma", &simhash_only(0), &snap).0.action,
        Action::Accept
    );
}
