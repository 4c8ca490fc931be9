//! The duplicate decision engine: a pure function from an incoming
//! document's fingerprints and a [`Snapshot`] of the store to a
//! [`DecisionRecord`] and the [`WriteSet`] that records it.
//!
//! | match | action |
//! |---|---|
//! | SimHash within `simhash_max_hamming`, or MinHash ≥ `minhash_threshold`, with a live document | the higher-priority document stays: incoming loses or ties → [`Action::Drop`] (or [`Action::MarkDuplicate`]); incoming outranks every match → [`Action::Replace`], the matches become superseded |
//! | MinHash in `[minhash_partial_threshold, minhash_threshold)` | [`Action::MarkPartial`]: kept, indexed, marked with the most similar document |
//! | chunk hashes only | [`Action::Link`]: kept, indexed, linked; the shared chunks are listed to drop |
//! | nothing | [`Action::Accept`] |
//!
//! Priority: the type of the source (`document_type_priority` through
//! `source_to_document_type`) first, then `source_priority`; anything
//! unlisted ranks last, and a tie keeps the stored document.

use std::collections::{BTreeMap, BTreeSet};

use super::backend::{CandidateDoc, ChunkOwner, Snapshot, WriteOp, WriteSet};
use super::config::{GlobalStoreConfig, OnDuplicate};
use super::fingerprints::{
    Prepared, band_keys, estimated_jaccard, parse_chunk_hash, parse_signature, simhash_keys,
};
use super::metrics::counter;
use super::records::{
    Action, DecisionRecord, DocStatus, FingerprintRecord, FingerprintType, MatchReason,
    StoredDocument,
};

/// What the engine needs besides the snapshot.
pub(crate) struct Engine<'a> {
    pub cfg: &'a GlobalStoreConfig,
    /// SimHash table masks (the permuted-table layout).
    pub masks: &'a [u64],
    /// MinHash rows per band.
    pub rows: usize,
}

/// The incoming document, without its text.
pub(crate) struct Incoming<'a> {
    pub doc_id: &'a str,
    pub source: &'a str,
    pub language: Option<&'a str>,
    pub prepared: &'a Prepared,
    pub records: &'a [FingerprintRecord],
    pub now: u64,
}

/// Priority of a source: lower is better; (type rank, source rank).
pub(crate) fn rank(cfg: &GlobalStoreConfig, source: &str) -> (usize, usize) {
    let ty = cfg
        .source_to_document_type
        .get(source)
        .and_then(|t| cfg.document_type_priority.iter().position(|x| x == t))
        .unwrap_or(cfg.document_type_priority.len());
    let src = cfg
        .source_priority
        .iter()
        .position(|x| x == source)
        .unwrap_or(cfg.source_priority.len());
    (ty, src)
}

impl Engine<'_> {
    /// The decision and its writes. A stored id replays its decision and
    /// writes nothing.
    pub(crate) fn decide(&self, inc: &Incoming<'_>, snap: &Snapshot) -> (DecisionRecord, WriteSet) {
        if let Some(existing) = &snap.existing {
            let mut d = existing.decision.clone();
            d.replayed = true;
            return (d, WriteSet::default());
        }
        let live = |id: &str| -> Option<&CandidateDoc> {
            snap.docs
                .get(id)
                .map(|c| &**c)
                .filter(|c| c.entry.status == DocStatus::Live)
        };
        // Full-document matches, and the partial ones.
        let mut full: BTreeMap<&str, MatchReason> = BTreeMap::new();
        let mut partial: Vec<(&str, f64)> = Vec::new();
        if let Some(f) = inc.prepared.simhash {
            for (v, id) in &snap.simhash_hits {
                let distance = (v ^ f).count_ones();
                if distance <= self.cfg.simhash_max_hamming && live(id).is_some() {
                    full.insert(id, MatchReason::SimHash { distance });
                }
            }
        }
        if let Some(sig) = &inc.prepared.minhash {
            for id in &snap.band_hits {
                let Some(c) = live(id) else { continue };
                let Some(other) = c.minhash() else { continue };
                let jaccard = estimated_jaccard(sig, other);
                if jaccard >= self.cfg.minhash_threshold {
                    full.entry(id).or_insert(MatchReason::MinHash { jaccard });
                } else if jaccard >= self.cfg.minhash_partial_threshold {
                    partial.push((id, jaccard));
                }
            }
        }
        let mine = rank(self.cfg, inc.source);
        let mut d = DecisionRecord {
            doc_id: inc.doc_id.to_owned(),
            source: inc.source.to_owned(),
            action: Action::Accept,
            reason: MatchReason::NoMatch,
            matched_doc_id: None,
            matched_source: None,
            superseded: Vec::new(),
            linked_docs: Vec::new(),
            duplicate_chunks: Vec::new(),
            decided_at: inc.now,
            replayed: false,
        };
        if !full.is_empty() {
            // Highest priority first; ties: the oldest, then the smallest id.
            let mut ranked: Vec<(&str, MatchReason, &CandidateDoc)> = full
                .iter()
                .filter_map(|(id, r)| live(id).map(|c| (*id, *r, c)))
                .collect();
            ranked.sort_by(|a, b| {
                (rank(self.cfg, &a.2.entry.source), a.2.entry.created_at, a.0).cmp(&(
                    rank(self.cfg, &b.2.entry.source),
                    b.2.entry.created_at,
                    b.0,
                ))
            });
            // `full` holds live documents only, so `ranked` is not empty.
            if let Some(&(best, reason, c)) = ranked.first() {
                d.reason = reason;
                d.matched_doc_id = Some(best.to_owned());
                d.matched_source = Some(c.entry.source.clone());
            }
            if ranked
                .iter()
                .all(|m| mine < rank(self.cfg, &m.2.entry.source))
            {
                d.action = Action::Replace;
                d.superseded = ranked.iter().map(|m| m.0.to_owned()).collect();
            } else {
                d.action = match self.cfg.on_duplicate {
                    OnDuplicate::Drop => Action::Drop,
                    OnDuplicate::Mark => Action::MarkDuplicate,
                };
                let ws = self.writes_duplicate(inc, &d);
                return (d, ws);
            }
        }
        let owners = self.chunk_plan(inc, snap, &mut d);
        if d.action == Action::Accept {
            if let Some((id, jaccard)) = partial.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
                d.action = Action::MarkPartial;
                d.reason = MatchReason::PartialMinHash { jaccard: *jaccard };
                d.matched_doc_id = Some((*id).to_owned());
                d.matched_source = live(id).map(|c| c.entry.source.clone());
            } else if let Some(first) = d.linked_docs.first() {
                d.action = Action::Link;
                d.reason = MatchReason::ChunkOverlap {
                    shared: d.duplicate_chunks.len() as u32,
                    total: inc.prepared.chunks.len() as u32,
                };
                d.matched_doc_id = Some(first.clone());
                d.matched_source = snap.docs.get(first).map(|c| c.entry.source.clone());
            }
        }
        let ws = self.writes_indexed(inc, snap, &d, owners);
        (d, ws)
    }

    /// Which chunks are duplicates (recorded in `d`), and the new owner of
    /// every chunk this document takes: new ones, and those of documents
    /// it supersedes.
    fn chunk_plan(
        &self,
        inc: &Incoming<'_>,
        snap: &Snapshot,
        d: &mut DecisionRecord,
    ) -> Vec<([u8; 32], u32)> {
        let mut take = Vec::new();
        let mut seen: BTreeSet<[u8; 32]> = BTreeSet::new();
        for (i, h) in inc.prepared.chunks.iter().enumerate() {
            let i = i as u32;
            if !seen.insert(*h) {
                d.duplicate_chunks.push(i);
                continue;
            }
            match snap.chunk_owners.get(i as usize).and_then(Option::as_ref) {
                Some(o) if !d.superseded.contains(&o.doc_id) => {
                    d.duplicate_chunks.push(i);
                    if !d.linked_docs.contains(&o.doc_id) {
                        d.linked_docs.push(o.doc_id.clone());
                    }
                }
                _ => take.push((*h, i)),
            }
        }
        take
    }

    fn entry(&self, inc: &Incoming<'_>, d: &DecisionRecord, status: DocStatus) -> StoredDocument {
        StoredDocument {
            doc_id: inc.doc_id.to_owned(),
            source: inc.source.to_owned(),
            document_type: self.cfg.source_to_document_type.get(inc.source).cloned(),
            language: inc.language.map(str::to_owned),
            created_at: inc.now,
            status,
            decision: d.clone(),
        }
    }

    fn writes_duplicate(&self, inc: &Incoming<'_>, d: &DecisionRecord) -> WriteSet {
        let mut ops = vec![
            WriteOp::PutDoc(Box::new(self.entry(inc, d, DocStatus::Duplicate))),
            WriteOp::PutFingerprints(inc.doc_id.to_owned(), inc.records.to_vec()),
        ];
        let cross = d.matched_source.as_deref() != Some(inc.source);
        count_doc(&mut ops, inc.source, false, cross);
        WriteSet { ops }
    }

    fn writes_indexed(
        &self,
        inc: &Incoming<'_>,
        snap: &Snapshot,
        d: &DecisionRecord,
        take: Vec<([u8; 32], u32)>,
    ) -> WriteSet {
        let mut ops = Vec::new();
        let taken: BTreeSet<[u8; 32]> = take.iter().map(|t| t.0).collect();
        for id in &d.superseded {
            let Some(c) = snap.docs.get(id) else { continue };
            self.unindex(&mut ops, c, &taken);
            let mut e = c.entry.clone();
            e.status = DocStatus::Superseded {
                by: inc.doc_id.to_owned(),
            };
            let cross = e.source != inc.source;
            count(&mut ops, counter::SUPERSEDED, 1);
            count(&mut ops, counter::KEPT, -1);
            count(&mut ops, counter::DUPLICATES, 1);
            count(&mut ops, &counter::source(&e.source, "kept"), -1);
            count(&mut ops, &counter::source(&e.source, "duplicates"), 1);
            if cross {
                count(&mut ops, counter::CROSS_SOURCE, 1);
            }
            ops.push(WriteOp::PutDoc(Box::new(e)));
        }
        ops.push(WriteOp::PutDoc(Box::new(self.entry(
            inc,
            d,
            DocStatus::Live,
        ))));
        ops.push(WriteOp::PutFingerprints(
            inc.doc_id.to_owned(),
            inc.records.to_vec(),
        ));
        if let Some(f) = inc.prepared.simhash {
            for (table, key) in simhash_keys(self.masks, f) {
                ops.push(WriteOp::SimHashAdd {
                    table,
                    key,
                    value: f,
                    doc_id: inc.doc_id.to_owned(),
                });
            }
        }
        if let Some(sig) = &inc.prepared.minhash {
            for (band, key) in band_keys(sig, self.rows) {
                ops.push(WriteOp::BandAdd {
                    band,
                    key,
                    doc_id: inc.doc_id.to_owned(),
                });
            }
        }
        for (h, chunk_id) in take {
            ops.push(WriteOp::ChunkSet(
                h,
                ChunkOwner {
                    doc_id: inc.doc_id.to_owned(),
                    chunk_id,
                },
            ));
        }
        count_doc(&mut ops, inc.source, true, false);
        count(&mut ops, counter::CHUNKS, inc.prepared.chunks.len() as i64);
        count(
            &mut ops,
            counter::CHUNKS_REUSED,
            d.duplicate_chunks.len() as i64,
        );
        match d.action {
            Action::Link => count(&mut ops, counter::LINKED, 1),
            Action::MarkPartial => count(&mut ops, counter::PARTIAL, 1),
            _ => {}
        }
        WriteSet { ops }
    }

    /// Removes a superseded document from the SimHash tables, the bands
    /// and the chunks it owns (except those the newcomer takes over).
    fn unindex(&self, ops: &mut Vec<WriteOp>, c: &CandidateDoc, taken: &BTreeSet<[u8; 32]>) {
        let id = &c.entry.doc_id;
        let not_owned = &c.entry.decision.duplicate_chunks;
        for r in &c.fingerprints {
            match r.fingerprint_type {
                FingerprintType::SimHash => {
                    let Ok(v) = u64::from_str_radix(&r.value, 16) else {
                        continue;
                    };
                    for (table, key) in simhash_keys(self.masks, v) {
                        ops.push(WriteOp::SimHashRemove {
                            table,
                            key,
                            value: v,
                            doc_id: id.clone(),
                        });
                    }
                }
                FingerprintType::MinHash => {
                    let Some(sig) = parse_signature(&r.value) else {
                        continue;
                    };
                    for (band, key) in band_keys(&sig, self.rows) {
                        ops.push(WriteOp::BandRemove {
                            band,
                            key,
                            doc_id: id.clone(),
                        });
                    }
                }
                FingerprintType::Chunk => {
                    let owned = r.chunk_id.is_some_and(|n| !not_owned.contains(&n));
                    let Some(h) = parse_chunk_hash(&r.value) else {
                        continue;
                    };
                    if owned && !taken.contains(&h) {
                        ops.push(WriteOp::ChunkRemove(h));
                    }
                }
            }
        }
    }
}

fn count(ops: &mut Vec<WriteOp>, name: &str, delta: i64) {
    if delta != 0 {
        ops.push(WriteOp::Count(name.to_owned(), delta));
    }
}

/// The per-document counters: every document counts once, as kept or as a
/// duplicate.
fn count_doc(ops: &mut Vec<WriteOp>, source: &str, kept: bool, cross: bool) {
    count(ops, counter::DOCS, 1);
    count(ops, &counter::source(source, "docs"), 1);
    let (total, per_source) = if kept {
        (counter::KEPT, "kept")
    } else {
        (counter::DUPLICATES, "duplicates")
    };
    count(ops, total, 1);
    count(ops, &counter::source(source, per_source), 1);
    if cross {
        count(ops, counter::CROSS_SOURCE, 1);
    }
}
