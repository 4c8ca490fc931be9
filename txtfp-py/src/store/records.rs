//! `DecisionRecord` and the dicts the store's answers become.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use txtfp::store::{
    Action, DecisionRecord, FingerprintRecord, FingerprintType, Match, MatchReason, StoreMetrics,
};

/// The decision on one document, as the store recorded it.
///
/// `action` is `"accept"`, `"drop"`, `"mark_duplicate"`, `"replace"`,
/// `"link"` or `"mark_partial"`; `reason` is a dict with `kind`
/// (`"no_match"`, `"sim_hash"` with `distance`, `"min_hash"` or
/// `"partial_min_hash"` with `jaccard`, `"chunk_overlap"` with `shared` and
/// `total`). `to_dict()` is the JSON object `txtfp store ingest` writes.
#[pyclass(module = "txtfp", frozen, name = "DecisionRecord")]
pub struct PyDecisionRecord {
    pub(super) record: DecisionRecord,
}

#[pymethods]
impl PyDecisionRecord {
    /// The document's id.
    #[getter]
    fn doc_id(&self) -> &str {
        &self.record.doc_id
    }

    /// The document's source.
    #[getter]
    fn source(&self) -> &str {
        &self.record.source
    }

    /// What was done, e.g. `"accept"` or `"drop"`.
    #[getter]
    fn action(&self) -> &'static str {
        action_name(self.record.action)
    }

    /// The match that decided, as a dict with `kind`.
    #[getter]
    fn reason<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        reason_dict(py, &self.record.reason)
    }

    /// The stored document that decided it, or `None` for a plain accept.
    #[getter]
    fn matched_doc_id(&self) -> Option<&str> {
        self.record.matched_doc_id.as_deref()
    }

    /// The source of `matched_doc_id`.
    #[getter]
    fn matched_source(&self) -> Option<&str> {
        self.record.matched_source.as_deref()
    }

    /// Documents this one replaced (`"replace"`).
    #[getter]
    fn superseded(&self) -> Vec<String> {
        self.record.superseded.clone()
    }

    /// Documents holding chunks of this one, in first-seen order.
    #[getter]
    fn linked_docs(&self) -> Vec<String> {
        self.record.linked_docs.clone()
    }

    /// This document's chunk numbers already stored: the chunks to drop.
    #[getter]
    fn duplicate_chunks(&self) -> Vec<u32> {
        self.record.duplicate_chunks.clone()
    }

    /// Unix time of the decision, in milliseconds.
    #[getter]
    fn decided_at(&self) -> u64 {
        self.record.decided_at
    }

    /// Whether this is the stored decision of an id ingested before.
    #[getter]
    fn replayed(&self) -> bool {
        self.record.replayed
    }

    /// Whether the document stays in the output (all but `"drop"`).
    #[getter]
    fn is_kept(&self) -> bool {
        self.record.action.is_kept()
    }

    /// Whether it is a full duplicate (`"drop"` or `"mark_duplicate"`).
    #[getter]
    fn is_duplicate(&self) -> bool {
        self.record.action.is_duplicate()
    }

    /// Whether it is indexed (later documents match it).
    #[getter]
    fn is_indexed(&self) -> bool {
        self.record.action.is_indexed()
    }

    /// The decision as the JSON object of `txtfp store ingest` (`replayed`
    /// only when true).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = &self.record;
        let d = PyDict::new(py);
        d.set_item("doc_id", &r.doc_id)?;
        d.set_item("source", &r.source)?;
        d.set_item("action", action_name(r.action))?;
        d.set_item("reason", reason_dict(py, &r.reason)?)?;
        d.set_item("matched_doc_id", &r.matched_doc_id)?;
        d.set_item("matched_source", &r.matched_source)?;
        d.set_item("superseded", &r.superseded)?;
        d.set_item("linked_docs", &r.linked_docs)?;
        d.set_item("duplicate_chunks", &r.duplicate_chunks)?;
        d.set_item("decided_at", r.decided_at)?;
        if r.replayed {
            d.set_item("replayed", true)?;
        }
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let r = &self.record;
        let matched = r
            .matched_doc_id
            .as_deref()
            .map_or(String::new(), |m| format!(", matched_doc_id={m:?}"));
        let replayed = if r.replayed { ", replayed=True" } else { "" };
        format!(
            "DecisionRecord(doc_id={:?}, action={:?}{matched}{replayed})",
            r.doc_id,
            action_name(r.action)
        )
    }
}

/// The names of the CLI's JSON (the library's serde names).
pub(super) fn action_name(a: Action) -> &'static str {
    match a {
        Action::Accept => "accept",
        Action::Drop => "drop",
        Action::MarkDuplicate => "mark_duplicate",
        Action::Replace => "replace",
        Action::Link => "link",
        Action::MarkPartial => "mark_partial",
    }
}

pub(super) fn reason_dict<'py>(py: Python<'py>, r: &MatchReason) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match *r {
        MatchReason::NoMatch => d.set_item("kind", "no_match")?,
        MatchReason::SimHash { distance } => {
            d.set_item("kind", "sim_hash")?;
            d.set_item("distance", distance)?;
        }
        MatchReason::MinHash { jaccard } => {
            d.set_item("kind", "min_hash")?;
            d.set_item("jaccard", jaccard)?;
        }
        MatchReason::PartialMinHash { jaccard } => {
            d.set_item("kind", "partial_min_hash")?;
            d.set_item("jaccard", jaccard)?;
        }
        MatchReason::ChunkOverlap { shared, total } => {
            d.set_item("kind", "chunk_overlap")?;
            d.set_item("shared", shared)?;
            d.set_item("total", total)?;
        }
    }
    Ok(d)
}

pub(super) fn match_dict<'py>(py: Python<'py>, m: &Match) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("doc_id", &m.doc_id)?;
    d.set_item("source", &m.source)?;
    d.set_item("reason", reason_dict(py, &m.reason)?)?;
    d.set_item("shared_chunks", &m.shared_chunks)?;
    Ok(d)
}

pub(super) fn fingerprint_dict<'py>(
    py: Python<'py>,
    r: &FingerprintRecord,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("fingerprint_id", &r.fingerprint_id)?;
    let kind = match r.fingerprint_type {
        FingerprintType::SimHash => "simhash",
        FingerprintType::MinHash => "minhash",
        FingerprintType::Chunk => "chunk",
    };
    d.set_item("fingerprint_type", kind)?;
    d.set_item("value", &r.value)?;
    d.set_item("doc_id", &r.doc_id)?;
    d.set_item("chunk_id", r.chunk_id)?;
    d.set_item("source", &r.source)?;
    d.set_item("language", &r.language)?;
    d.set_item("created_at", r.created_at)?;
    d.set_item("fingerprint_version", &r.fingerprint_version)?;
    d.set_item("hash_params", &r.hash_params)?;
    Ok(d)
}

/// The keys and values of `StoreMetrics::to_json`.
pub(super) fn metrics_dict<'py>(py: Python<'py>, m: &StoreMetrics) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("docs", m.docs)?;
    d.set_item("kept", m.kept)?;
    d.set_item("duplicates", m.duplicates)?;
    d.set_item("superseded", m.superseded)?;
    d.set_item("cross_source_duplicates", m.cross_source_duplicates)?;
    d.set_item("linked", m.linked)?;
    d.set_item("partial", m.partial)?;
    d.set_item("chunks", m.chunks)?;
    d.set_item("chunks_reused", m.chunks_reused)?;
    d.set_item("duplication_rate", m.duplication_rate())?;
    d.set_item(
        "cross_dataset_collision_rate",
        m.cross_dataset_collision_rate(),
    )?;
    d.set_item("chunk_reuse_rate", m.chunk_reuse_rate())?;
    let dominance = PyList::empty(py);
    for (source, share) in m.source_dominance() {
        let e = PyDict::new(py);
        e.set_item("source", source)?;
        e.set_item("share", share)?;
        dominance.append(e)?;
    }
    d.set_item("source_dominance", dominance)?;
    let top = PyList::empty(py);
    for (source, n) in m.top_duplicated_sources(10) {
        let e = PyDict::new(py);
        e.set_item("source", source)?;
        e.set_item("duplicates", n)?;
        top.append(e)?;
    }
    d.set_item("top_duplicated_sources", top)?;
    let sources = PyList::empty(py);
    for s in &m.sources {
        let e = PyDict::new(py);
        e.set_item("source", &s.source)?;
        e.set_item("docs", s.docs)?;
        e.set_item("kept", s.kept)?;
        e.set_item("duplicates", s.duplicates)?;
        sources.append(e)?;
    }
    d.set_item("sources", sources)?;
    Ok(d)
}
