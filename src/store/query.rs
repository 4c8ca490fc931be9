//! [`GlobalFingerprintStore::query`]: what the store holds that a text
//! matches, without recording anything.

use std::collections::BTreeMap;

use super::GlobalFingerprintStore;
use super::backend::CandidateDoc;
use super::fingerprints::estimated_jaccard;
use super::records::{DocStatus, Match, MatchReason};
use crate::Result;

/// Order of reasons in a query answer: full matches first.
fn strength(r: &MatchReason) -> (u8, f64) {
    match *r {
        MatchReason::SimHash { distance } => (0, f64::from(distance)),
        MatchReason::MinHash { jaccard } => (1, -jaccard),
        MatchReason::PartialMinHash { jaccard } => (2, -jaccard),
        MatchReason::ChunkOverlap { shared, .. } => (3, -f64::from(shared)),
        MatchReason::NoMatch => (4, 0.0),
    }
}

impl GlobalFingerprintStore {
    /// The live stored documents `text` matches: SimHash within the radius,
    /// MinHash at or above the threshold, MinHash in the partial band, or
    /// shared chunks, strongest first (SimHash by distance, then MinHash,
    /// partial MinHash, chunk overlap). Nothing is written.
    ///
    /// ```
    /// # fn main() -> txtfp::Result<()> {
    /// use txtfp::store::{GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument, MatchReason};
    /// let dir = std::env::temp_dir().join(format!("txtfp-query-doc-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let mut cfg = GlobalStoreConfig::default();
    /// cfg.root_path = dir.clone();
    /// let store = GlobalFingerprintStore::open(cfg)?;
    /// let text = "the global store answers queries from every job that ever ran against it";
    /// store.ingest(&IncomingDocument::new("d1", text, "web"))?;
    /// let hits = store.query(text)?;
    /// assert_eq!(hits.len(), 1);
    /// assert_eq!(hits[0].reason, MatchReason::SimHash { distance: 0 });
    /// assert!(store.query("an unrelated sentence about something else entirely")?.is_empty());
    /// # drop(store); std::fs::remove_dir_all(&dir)?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) for a text over
    /// `max_doc_bytes` or without words; backend errors as in
    /// [`ingest`](Self::ingest).
    pub fn query(&self, text: &str) -> Result<Vec<Match>> {
        if text.len() > self.config.max_doc_bytes {
            return Err(crate::Error::InvalidInput(format!(
                "query text has {} bytes; max_doc_bytes is {}",
                text.len(),
                self.config.max_doc_bytes
            )));
        }
        let prepared = self.hasher.prepare("<query>", text)?;
        // The empty id is never stored (ingest rejects it).
        let lookup = self.hasher.lookup("", &prepared);
        let snap = self.backend.snapshot(&lookup, self.config.max_candidates)?;
        let live = |id: &str| -> Option<&CandidateDoc> {
            snap.docs
                .get(id)
                .map(|c| &**c)
                .filter(|c| c.entry.status == DocStatus::Live)
        };
        let mut found: BTreeMap<String, Match> = BTreeMap::new();
        let put = |found: &mut BTreeMap<String, Match>, c: &CandidateDoc, reason: MatchReason| {
            let m = found
                .entry(c.entry.doc_id.clone())
                .or_insert_with(|| Match {
                    doc_id: c.entry.doc_id.clone(),
                    source: c.entry.source.clone(),
                    reason,
                    shared_chunks: Vec::new(),
                });
            if strength(&reason).0 < strength(&m.reason).0 {
                m.reason = reason;
            }
        };
        if let Some(f) = prepared.simhash {
            for (v, id) in &snap.simhash_hits {
                let distance = (v ^ f).count_ones();
                if let Some(c) = live(id).filter(|_| distance <= self.config.simhash_max_hamming) {
                    put(&mut found, c, MatchReason::SimHash { distance });
                }
            }
        }
        if let Some(sig) = &prepared.minhash {
            for id in &snap.band_hits {
                let Some(c) = live(id) else { continue };
                let Some(other) = c.minhash() else {
                    continue;
                };
                let jaccard = estimated_jaccard(sig, other);
                if jaccard >= self.config.minhash_threshold {
                    put(&mut found, c, MatchReason::MinHash { jaccard });
                } else if jaccard >= self.config.minhash_partial_threshold {
                    put(&mut found, c, MatchReason::PartialMinHash { jaccard });
                }
            }
        }
        let total = prepared.chunks.len() as u32;
        for (i, owner) in snap.chunk_owners.iter().enumerate() {
            let Some(c) = owner.as_ref().and_then(|o| live(&o.doc_id)) else {
                continue;
            };
            put(
                &mut found,
                c,
                MatchReason::ChunkOverlap { shared: 0, total },
            );
            if let Some(m) = found.get_mut(c.entry.doc_id.as_str()) {
                m.shared_chunks.push(i as u32);
                if let MatchReason::ChunkOverlap { shared, .. } = &mut m.reason {
                    *shared += 1;
                }
            }
        }
        let mut out: Vec<Match> = found.into_values().collect();
        out.sort_by(|a, b| {
            let (x, y) = (strength(&a.reason), strength(&b.reason));
            x.0.cmp(&y.0)
                .then(x.1.total_cmp(&y.1))
                .then_with(|| a.doc_id.cmp(&b.doc_id))
        });
        Ok(out)
    }
}
