//! [`GlobalFingerprintStore::ingest`] and
//! [`GlobalFingerprintStore::ingest_batch`]: fingerprint, decide, record.

use std::time::{SystemTime, UNIX_EPOCH};

use super::decision::Incoming;
use super::fingerprints::{Lookup, Prepared, hex, signature_hex};
use super::{
    DecisionRecord, FingerprintRecord, FingerprintType, GlobalFingerprintStore, IncomingDocument,
};
use crate::{Error, Result};

/// Documents fingerprinted by
/// [`GlobalFingerprintStore::prepare_batch`], waiting for
/// [`GlobalFingerprintStore::ingest_prepared`]. It owns the documents and can
/// move between threads.
pub struct PreparedBatch {
    params: super::HashParams,
    docs: Vec<IncomingDocument>,
    parts: Vec<Result<Fingerprinted>>,
}

/// One document's fingerprints, lookup keys and records (stamped with the
/// time only at its turn to be decided): everything that does not depend
/// on the store, computed on any thread.
struct Fingerprinted {
    prepared: Prepared,
    lookup: Lookup,
    records: Vec<FingerprintRecord>,
}

impl PreparedBatch {
    /// The documents, in order.
    pub fn docs(&self) -> &[IncomingDocument] {
        &self.docs
    }
}

/// A document fingerprinted and ready to decide on.
struct Ready<'a> {
    doc: &'a IncomingDocument,
    prepared: Prepared,
    lookup: Lookup,
    records: Vec<FingerprintRecord>,
}

impl GlobalFingerprintStore {
    /// Fingerprints `doc`, decides on it against everything stored and
    /// records the fingerprints and the decision, atomically. The returned
    /// decision is durable (embedded) or applied on the server (Redis)
    /// when this returns. An id stored before replays its first decision
    /// (`replayed = true`) and writes nothing.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] for an empty id or source, a text over
    /// `max_doc_bytes`, or a text without words; [`Error::Store`] when the
    /// backend fails (nothing of this document is then stored).
    pub fn ingest(&self, doc: &IncomingDocument) -> Result<DecisionRecord> {
        let f = self.prepare(doc)?;
        let mut ready = Ready {
            doc,
            prepared: f.prepared,
            lookup: f.lookup,
            records: f.records,
        };
        let now = ready.stamp();
        let inc = ready.incoming(now);
        let engine = self.engine();
        let mut out = None;
        self.backend
            .update(&ready.lookup, self.config.max_candidates, &mut |snap| {
                let (d, ws) = engine.decide(&inc, snap);
                out = Some(d);
                Ok(ws)
            })?;
        out.ok_or_else(|| Error::Store("backend applied no decision".into()))
    }

    /// [`ingest`](Self::ingest) for many documents, in order (each decided
    /// against the store and the documents before it). On the embedded
    /// backend the whole batch is one transaction with one commit (far
    /// faster than one commit per document, see BENCHMARKS.md); on Redis
    /// each document is its own transaction.
    ///
    /// ```
    /// # fn main() -> txtfp::Result<()> {
    /// use txtfp::store::{Action, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};
    /// let dir = std::env::temp_dir().join(format!("txtfp-batch-doc-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let mut cfg = GlobalStoreConfig::default();
    /// cfg.root_path = dir.clone();
    /// let store = GlobalFingerprintStore::open(cfg)?;
    /// let text = "one batch, one commit: the second copy is decided against the first";
    /// let out = store.ingest_batch(&[
    ///     IncomingDocument::new("a", text, "web"),
    ///     IncomingDocument::new("b", "", "web"),
    ///     IncomingDocument::new("c", text, "web"),
    /// ])?;
    /// assert_eq!(out[0].as_ref().unwrap().action, Action::Accept);
    /// assert!(out[1].is_err()); // no words: this document only is refused
    /// assert_eq!(out[2].as_ref().unwrap().matched_doc_id.as_deref(), Some("a"));
    /// # drop(store); std::fs::remove_dir_all(&dir)?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// Per document, as [`ingest`](Self::ingest) for bad input (the
    /// others go on). The outer error is a backend failure: on the embedded
    /// backend nothing of the batch is then stored; on Redis the documents
    /// before the failing one are. Re-running the batch is safe either way
    /// (stored ids replay).
    pub fn ingest_batch(&self, docs: &[IncomingDocument]) -> Result<Vec<Result<DecisionRecord>>> {
        let parts = self.prepare_all(docs);
        self.decide_all(docs, parts)
    }

    /// Fingerprints `docs` (on every core) without deciding anything, so a
    /// caller can fingerprint the next batch while the store decides this
    /// one: [`ingest_prepared`](Self::ingest_prepared) then decides them
    /// exactly as [`ingest_batch`](Self::ingest_batch) would.
    ///
    /// ```
    /// # fn main() -> txtfp::Result<()> {
    /// use txtfp::store::{Action, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};
    /// let dir = std::env::temp_dir().join(format!("txtfp-prepared-doc-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let mut cfg = GlobalStoreConfig::default();
    /// cfg.root_path = dir.clone();
    /// let store = GlobalFingerprintStore::open(cfg)?;
    /// let text = "fingerprinted ahead, decided in order, one commit per batch";
    /// let first = store.prepare_batch(vec![IncomingDocument::new("a", text, "web")]);
    /// let second = store.prepare_batch(vec![IncomingDocument::new("b", text, "web")]);
    /// assert_eq!(store.ingest_prepared(first)?[0].as_ref().unwrap().action, Action::Accept);
    /// assert_eq!(store.ingest_prepared(second)?[0].as_ref().unwrap().action, Action::Drop);
    /// # drop(store); std::fs::remove_dir_all(&dir)?;
    /// # Ok(()) }
    /// ```
    pub fn prepare_batch(&self, docs: Vec<IncomingDocument>) -> PreparedBatch {
        let parts = self.prepare_all(&docs);
        PreparedBatch {
            params: self.params.clone(),
            docs,
            parts,
        }
    }

    /// Decides and records a [`prepare_batch`](Self::prepare_batch)ed batch,
    /// in order, as [`ingest_batch`](Self::ingest_batch) does.
    ///
    /// # Errors
    ///
    /// As [`ingest_batch`](Self::ingest_batch); [`Error::InvalidInput`] for
    /// a batch prepared by a store with other hash parameters.
    pub fn ingest_prepared(&self, batch: PreparedBatch) -> Result<Vec<Result<DecisionRecord>>> {
        if batch.params != self.params {
            return Err(Error::InvalidInput(
                "the batch was prepared by a store with other hash parameters".into(),
            ));
        }
        self.decide_all(&batch.docs, batch.parts)
    }

    fn prepare_all(&self, docs: &[IncomingDocument]) -> Vec<Result<Fingerprinted>> {
        use rayon::prelude::*;
        docs.par_iter().map(|doc| self.prepare(doc)).collect()
    }

    /// Decides `docs` (fingerprinted as `parts`) in order, in one
    /// `update_many`.
    fn decide_all(
        &self,
        docs: &[IncomingDocument],
        parts: Vec<Result<Fingerprinted>>,
    ) -> Result<Vec<Result<DecisionRecord>>> {
        let mut out: Vec<Result<DecisionRecord>> = Vec::with_capacity(docs.len());
        let mut ready: Vec<Ready<'_>> = Vec::new();
        let mut slots: Vec<usize> = Vec::new();
        for (doc, r) in docs.iter().zip(parts) {
            match r {
                Ok(f) => {
                    slots.push(out.len());
                    ready.push(Ready {
                        doc,
                        prepared: f.prepared,
                        lookup: f.lookup,
                        records: f.records,
                    });
                    out.push(Err(Error::Store("not decided".into())));
                }
                Err(e) => out.push(Err(e)),
            }
        }
        let lookups: Vec<Lookup> = ready.iter().map(|r| r.lookup.clone()).collect();
        let engine = self.engine();
        let mut decided: Vec<Option<DecisionRecord>> = vec![None; ready.len()];
        self.backend
            .update_many(&lookups, self.config.max_candidates, &mut |i, snap| {
                let r = ready
                    .get_mut(i)
                    .ok_or_else(|| Error::Store(format!("backend asked for item {i}")))?;
                // Stamped at its turn, not while fingerprinting (which runs
                // out of order on many threads): ties between equally ranked
                // matches go to the older, as one ingest after another.
                let now = r.stamp();
                let (d, ws) = engine.decide(&r.incoming(now), snap);
                decided[i] = Some(d);
                Ok(ws)
            })?;
        for (slot, d) in slots.into_iter().zip(decided) {
            out[slot] = d.ok_or_else(|| Error::Store("backend applied no decision".into()));
        }
        Ok(out)
    }

    /// Validates and fingerprints one document.
    fn prepare(&self, doc: &IncomingDocument) -> Result<Fingerprinted> {
        check_id("doc_id", &doc.doc_id)?;
        check_id("source", &doc.source)?;
        if doc.text.len() > self.config.max_doc_bytes {
            return Err(Error::InvalidInput(format!(
                "document {:?} has {} bytes; max_doc_bytes is {}",
                doc.doc_id,
                doc.text.len(),
                self.config.max_doc_bytes
            )));
        }
        let prepared = self.hasher.prepare(&doc.doc_id, &doc.text)?;
        let lookup = self.hasher.lookup(&doc.doc_id, &prepared);
        let records = self.records(doc, &prepared);
        Ok(Fingerprinted {
            prepared,
            lookup,
            records,
        })
    }

    /// The fingerprint records of one document, not yet stamped.
    fn records(&self, doc: &IncomingDocument, p: &Prepared) -> Vec<FingerprintRecord> {
        let c = &self.config;
        let rec = |kind: FingerprintType,
                   id: String,
                   value: String,
                   chunk: Option<u32>,
                   params: String| {
            FingerprintRecord {
                fingerprint_id: id,
                fingerprint_type: kind,
                value,
                doc_id: doc.doc_id.clone(),
                chunk_id: chunk,
                source: doc.source.clone(),
                language: doc.language.clone(),
                created_at: 0,
                fingerprint_version: c.fingerprint_version.clone(),
                hash_params: params,
            }
        };
        let mut out = Vec::with_capacity(2 + p.chunks.len());
        if let Some(f) = p.simhash {
            let params = format!(
                "tokens=words;max_hamming={};tables={}",
                c.simhash_max_hamming,
                self.masks.len()
            );
            out.push(rec(
                FingerprintType::SimHash,
                format!("{}/simhash", doc.doc_id),
                format!("{f:016x}"),
                None,
                params,
            ));
        }
        if let Some(sig) = &p.minhash {
            let params = format!(
                "ngram={};num_perm={};bands={};rows={}",
                c.minhash_ngram, c.minhash_num_perm, self.params.minhash_bands, self.rows
            );
            out.push(rec(
                FingerprintType::MinHash,
                format!("{}/minhash", doc.doc_id),
                signature_hex(sig),
                None,
                params,
            ));
        }
        for (i, h) in p.chunks.iter().enumerate() {
            let params = format!(
                "unit=words;size={};overlap={};hash=sha256",
                c.chunk_size, c.chunk_overlap
            );
            out.push(rec(
                FingerprintType::Chunk,
                format!("{}/chunk/{i}", doc.doc_id),
                hex(h),
                Some(i as u32),
                params,
            ));
        }
        out
    }
}

impl Ready<'_> {
    /// Stamps the records with the time now, and returns it.
    fn stamp(&mut self) -> u64 {
        let now = now_ms();
        for r in &mut self.records {
            r.created_at = now;
        }
        now
    }

    fn incoming(&self, now: u64) -> Incoming<'_> {
        Incoming {
            doc_id: &self.doc.doc_id,
            source: &self.doc.source,
            language: self.doc.language.as_deref(),
            prepared: &self.prepared,
            records: &self.records,
            now,
        }
    }
}

/// Ids and sources: non-empty, at most 1024 bytes, no control characters
/// (they become parts of database keys).
fn check_id(what: &str, v: &str) -> Result<()> {
    if v.is_empty() || v.len() > 1024 || v.chars().any(char::is_control) {
        let shown: String = v.chars().take(64).collect();
        return Err(Error::InvalidInput(format!(
            "{what} must be 1 to 1024 bytes without control characters; got {shown:?}"
        )));
    }
    Ok(())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
