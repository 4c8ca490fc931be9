//! `txtfp.GlobalFingerprintStore` and `txtfp.DecisionRecord`: a client of
//! the library's global fingerprint store (`txtfp::store`), embedded in a
//! folder or on Redis / a Redis Cluster.
//!
//! The configuration is always the library's TOML: a file, a string, or
//! keyword settings written out as TOML here, so the library alone decides
//! which keys exist and which values are valid. Every call into the store
//! runs without the GIL; the store is shared by any number of Python
//! threads (the library's store takes `&self` and is `Sync`).

use std::path::PathBuf;
use std::sync::{PoisonError, RwLock};

use pyo3::exceptions::{PyOSError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use txtfp::store::backend::EmbeddedBackend;
use txtfp::store::{
    Action, BackendKind, DecisionRecord, DocStatus, FingerprintRecord, FingerprintType,
    GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument, Match, MatchReason, StoreMetrics,
};

use crate::errors::{TxtfpError, bad_value, to_py};
use crate::texts::{one_text, utf8};

/// A library error as an exception whose message starts with `context`.
fn to_py_in(context: &str, err: txtfp::Error) -> PyErr {
    match err {
        txtfp::Error::Io(e) => PyOSError::new_err(format!("{context}: {e}")),
        other => TxtfpError::new_err(format!("{context}: {other}")),
    }
}

/// The global fingerprint store: each ingested document is fingerprinted,
/// decided on against everything stored before (by any job, ever) and
/// recorded with its decision, atomically. No text is stored.
///
/// `GlobalFingerprintStore(root_path)` opens (or creates) an embedded store
/// in the folder `root_path` with the default settings; keyword `settings`
/// are keys of the TOML configuration (`chunk_size=16`,
/// `document_type_priority=[...]`, `source_to_document_type={...}`,
/// `backend="redis"`, `redis_url=...`). `config=` names a TOML file and
/// `toml=` gives TOML text instead (either may hold a `[global_fingerprints]`
/// section); `root_path` then overrides its `root_path`. The embedded store
/// serves one process at a time: `close()` (or leaving a `with` block)
/// releases it. Any number of Python threads may share one store; every
/// call releases the GIL.
#[pyclass(module = "txtfp", frozen, name = "GlobalFingerprintStore")]
pub struct PyGlobalFingerprintStore {
    /// `None` once closed. Calls hold the read side for their whole run, so
    /// `close` waits for them and the store is gone when it returns.
    store: RwLock<Option<GlobalFingerprintStore>>,
    config_toml: String,
    label: String,
    recovered: Vec<String>,
}

impl PyGlobalFingerprintStore {
    /// Runs `f` on the open store without the GIL.
    fn with_store<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&GlobalFingerprintStore) -> txtfp::Result<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| {
            let guard = self.store.read().unwrap_or_else(PoisonError::into_inner);
            match guard.as_ref() {
                Some(store) => f(store).map_err(to_py),
                None => Err(closed()),
            }
        })
    }
}

fn closed() -> PyErr {
    bad_value("the store is closed")
}

/// Opens the store as `GlobalFingerprintStore::open` does, keeping what
/// opening an embedded store repaired (the library's store does not hand
/// its backend back).
fn open(cfg: GlobalStoreConfig) -> txtfp::Result<(GlobalFingerprintStore, Vec<String>)> {
    if cfg.backend != BackendKind::Embedded || !cfg.enabled || cfg.validate().is_err() {
        // Refused before any file is made, with the library's message.
        return Ok((GlobalFingerprintStore::open(cfg)?, Vec::new()));
    }
    let backend = EmbeddedBackend::open(&cfg.root_path)?;
    let recovered = backend.recovered().to_vec();
    Ok((
        GlobalFingerprintStore::with_backend(cfg, Box::new(backend))?,
        recovered,
    ))
}

#[pymethods]
impl PyGlobalFingerprintStore {
    #[new]
    #[pyo3(signature = (root_path = None, *, config = None, toml = None, **settings))]
    fn new(
        py: Python<'_>,
        root_path: Option<PathBuf>,
        config: Option<PathBuf>,
        toml: Option<&str>,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let settings = settings.filter(|s| !s.is_empty());
        let mut cfg = match (&config, toml, settings) {
            (Some(_), Some(_), _) => {
                return Err(bad_value("give config= (a file) or toml= (text), not both"));
            }
            (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => {
                return Err(bad_value(
                    "keyword settings cannot be combined with config= or toml=: put them in the TOML",
                ));
            }
            (Some(path), None, None) => GlobalStoreConfig::from_path(path)
                .map_err(|e| to_py_in(&path.display().to_string(), e))?,
            (None, Some(text), None) => GlobalStoreConfig::from_toml_str(text).map_err(to_py)?,
            (None, None, settings) => {
                let text = match settings {
                    Some(s) => settings_toml(s)?,
                    None => String::new(),
                };
                let cfg = GlobalStoreConfig::from_toml_str(&text).map_err(to_py)?;
                if root_path.is_none() && cfg.backend == BackendKind::Embedded {
                    return Err(bad_value(
                        "name the store: root_path (an embedded store's folder), config= (a TOML \
                         file) or toml= (TOML text)",
                    ));
                }
                cfg
            }
        };
        if let Some(root) = root_path {
            cfg.root_path = root;
        }
        let config_toml = cfg.to_toml_string().map_err(to_py)?;
        let label = match cfg.backend {
            BackendKind::Embedded => format!("root_path={:?}", cfg.root_path),
            BackendKind::Redis => format!("backend=\"redis\", redis_prefix={:?}", cfg.redis_prefix),
            BackendKind::RedisCluster => format!(
                "backend=\"redis-cluster\", redis_prefix={:?}",
                cfg.redis_prefix
            ),
        };
        let (store, recovered) = py
            .detach(|| open(cfg))
            .map_err(|e| to_py_in("cannot open the store", e))?;
        Ok(Self {
            store: RwLock::new(Some(store)),
            config_toml,
            label,
            recovered,
        })
    }

    /// Fingerprints one document, decides on it against the store and
    /// records both; the decision is durable when this returns. An id
    /// stored before replays its first decision (`replayed` is `True`) and
    /// writes nothing. `doc_id` is a `str` or an `int` (its decimal text).
    #[pyo3(signature = (doc_id, text, source, *, language = None))]
    fn ingest(
        &self,
        py: Python<'_>,
        doc_id: &Bound<'_, PyAny>,
        text: &Bound<'_, PyAny>,
        source: &str,
        language: Option<String>,
    ) -> PyResult<PyDecisionRecord> {
        let doc = IncomingDocument {
            doc_id: id_text(doc_id)?,
            text: text_of(text)?.map_err(to_py)?,
            source: source.to_owned(),
            language,
        };
        let record = self.with_store(py, |s| s.ingest(&doc))?;
        Ok(PyDecisionRecord { record })
    }

    /// Ingests `docs` in order, as one transaction of the store (one
    /// commit on the embedded backend): the decisions are those of
    /// ingesting them one at a time. Each document is a tuple `(doc_id,
    /// text)`, `(doc_id, text, source)` or `(doc_id, text, source,
    /// language)`, or a mapping with `doc_id` (or `id`), `text` and
    /// optionally `source` and `language`; a missing source is `source`.
    ///
    /// Returns one entry per document, in order: its `DecisionRecord`, or
    /// the `TxtfpError` (not raised) for a document refused alone (no
    /// words, an empty id, over `max_doc_bytes`, invalid UTF-8); the
    /// others are stored. A malformed entry raises `TypeError` /
    /// `ValueError` before anything is stored; a failure of the store
    /// itself raises.
    #[pyo3(signature = (docs, *, source = None))]
    fn ingest_batch(
        &self,
        py: Python<'_>,
        docs: &Bound<'_, PyAny>,
        source: Option<&str>,
    ) -> PyResult<Py<PyList>> {
        // Texts that cannot be read are refused alone, like the store's
        // own refusals: a readable document's slot is its index in `ok`.
        let mut ok: Vec<IncomingDocument> = Vec::new();
        let mut slots: Vec<txtfp::Result<usize>> = Vec::new();
        for (i, item) in docs.try_iter()?.enumerate() {
            match incoming(&item?, source).map_err(|e| at_index(py, i, e))? {
                Ok(doc) => {
                    slots.push(Ok(ok.len()));
                    ok.push(doc);
                }
                Err(e) => slots.push(Err(e)),
            }
        }
        let results = self.with_store(py, |s| s.ingest_batch(&ok))?;
        let mut decided: Vec<Option<txtfp::Result<DecisionRecord>>> =
            results.into_iter().map(Some).collect();
        let out = PyList::empty(py);
        for (i, slot) in slots.into_iter().enumerate() {
            let entry = slot.and_then(|k| {
                decided
                    .get_mut(k)
                    .and_then(Option::take)
                    .unwrap_or_else(|| Err(txtfp::Error::Store("no decision returned".into())))
            });
            match entry {
                Ok(record) => out.append(PyDecisionRecord { record })?,
                Err(e) => out.append(to_py_in(&format!("docs[{i}]"), e).into_value(py))?,
            }
        }
        Ok(out.unbind())
    }

    /// The live stored documents `text` matches, strongest first; nothing
    /// is written. Each is a dict: `doc_id`, `source`, `reason` (as in
    /// `DecisionRecord.reason`) and `shared_chunks` (the query's chunk
    /// numbers it holds).
    fn query<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let text = text_of(text)?.map_err(to_py)?;
        let found = self.with_store(py, |s| s.query(&text))?;
        let out = PyList::empty(py);
        for m in &found {
            out.append(match_dict(py, m)?)?;
        }
        Ok(out)
    }

    /// The stored entry of `doc_id`, or `None`: a dict with `doc_id`,
    /// `source`, `document_type`, `language`, `created_at` (Unix ms),
    /// `status` (`"live"`, `"duplicate"` or `"superseded"`),
    /// `superseded_by` and `decision` (its `DecisionRecord`).
    fn document<'py>(
        &self,
        py: Python<'py>,
        doc_id: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let id = id_text(doc_id)?;
        let Some(doc) = self.with_store(py, |s| s.document(&id))? else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("doc_id", &doc.doc_id)?;
        d.set_item("source", &doc.source)?;
        d.set_item("document_type", &doc.document_type)?;
        d.set_item("language", &doc.language)?;
        d.set_item("created_at", doc.created_at)?;
        let (status, by) = match &doc.status {
            DocStatus::Live => ("live", None),
            DocStatus::Duplicate => ("duplicate", None),
            DocStatus::Superseded { by } => ("superseded", Some(by.as_str())),
        };
        d.set_item("status", status)?;
        d.set_item("superseded_by", by)?;
        d.set_item(
            "decision",
            PyDecisionRecord {
                record: doc.decision,
            },
        )?;
        Ok(Some(d))
    }

    /// The stored fingerprint records of `doc_id` (empty when unknown;
    /// duplicates keep theirs too, unindexed): dicts with `fingerprint_id`, `fingerprint_type`
    /// (`"simhash"`, `"minhash"` or `"chunk"`), `value` (hex), `doc_id`,
    /// `chunk_id`, `source`, `language`, `created_at`,
    /// `fingerprint_version` and `hash_params`.
    fn fingerprints<'py>(
        &self,
        py: Python<'py>,
        doc_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let id = id_text(doc_id)?;
        let records = self.with_store(py, |s| s.fingerprints(&id))?;
        let out = PyList::empty(py);
        for r in &records {
            out.append(fingerprint_dict(py, r)?)?;
        }
        Ok(out)
    }

    /// The store's global metrics (every ingest by every process, ever),
    /// as the dict of `txtfp store metrics --json`: the counts, the rates,
    /// `source_dominance`, `top_duplicated_sources` and per-source
    /// `sources`.
    fn metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let m = self.with_store(py, GlobalFingerprintStore::metrics)?;
        metrics_dict(py, &m)
    }

    /// The configuration in use, as a `[global_fingerprints]` TOML document
    /// (`toml=` of a new store takes it back).
    #[getter]
    fn config(&self) -> &str {
        &self.config_toml
    }

    /// What opening repaired in an embedded store: a torn log tail cut off
    /// (a commit a crash interrupted, or a damaged log from the first bad
    /// frame on) or lookup tables rebuilt from the log. Empty when the
    /// store was intact, and for Redis.
    #[getter]
    fn recovered(&self) -> Vec<String> {
        self.recovered.clone()
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self, py: Python<'_>) -> bool {
        py.detach(|| {
            self.store
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .is_none()
        })
    }

    /// Closes the store: waits for the calls under way on other threads,
    /// then releases it (an embedded store's lock, its merge thread; a
    /// Redis connection). Later calls raise `ValueError`; closing again
    /// does nothing.
    fn close(&self, py: Python<'_>) {
        let store = py.detach(|| {
            self.store
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
        });
        py.detach(move || drop(store));
    }

    fn __enter__<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, Self>> {
        if slf.get().closed(slf.py()) {
            return Err(closed());
        }
        Ok(slf)
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _kind: &Bound<'_, PyAny>,
        _value: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let state = if self.closed(py) { ", closed" } else { "" };
        format!("GlobalFingerprintStore({}{state})", self.label)
    }
}

/// The decision on one document, as the store recorded it.
///
/// `action` is `"accept"`, `"drop"`, `"mark_duplicate"`, `"replace"`,
/// `"link"` or `"mark_partial"`; `reason` is a dict with `kind`
/// (`"no_match"`, `"sim_hash"` with `distance`, `"min_hash"` or
/// `"partial_min_hash"` with `jaccard`, `"chunk_overlap"` with `shared` and
/// `total`). `to_dict()` is the JSON object `txtfp store ingest` writes.
#[pyclass(module = "txtfp", frozen, name = "DecisionRecord")]
pub struct PyDecisionRecord {
    record: DecisionRecord,
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
fn action_name(a: Action) -> &'static str {
    match a {
        Action::Accept => "accept",
        Action::Drop => "drop",
        Action::MarkDuplicate => "mark_duplicate",
        Action::Replace => "replace",
        Action::Link => "link",
        Action::MarkPartial => "mark_partial",
    }
}

fn reason_dict<'py>(py: Python<'py>, r: &MatchReason) -> PyResult<Bound<'py, PyDict>> {
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

fn match_dict<'py>(py: Python<'py>, m: &Match) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("doc_id", &m.doc_id)?;
    d.set_item("source", &m.source)?;
    d.set_item("reason", reason_dict(py, &m.reason)?)?;
    d.set_item("shared_chunks", &m.shared_chunks)?;
    Ok(d)
}

fn fingerprint_dict<'py>(py: Python<'py>, r: &FingerprintRecord) -> PyResult<Bound<'py, PyDict>> {
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
fn metrics_dict<'py>(py: Python<'py>, m: &StoreMetrics) -> PyResult<Bound<'py, PyDict>> {
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

/// A document id: a `str`, or an `int` as its decimal text (the CLI's id
/// of a JSON number).
fn id_text(v: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = v.cast::<PyString>() {
        return s.extract::<String>();
    }
    if v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>() {
        return v.str()?.extract::<String>();
    }
    Err(PyTypeError::new_err(format!(
        "doc_id must be str or int, not {}",
        v.get_type().name()?
    )))
}

/// A text as an owned `String`: the outer error for a wrong type, the
/// inner (the library's kind) for a text with no UTF-8 form.
fn text_of(v: &Bound<'_, PyAny>) -> PyResult<txtfp::Result<String>> {
    let bytes = match one_text(v) {
        Ok(b) => b,
        Err(e) if e.is_instance_of::<PyTypeError>(v.py()) => return Err(e),
        Err(e) => return Ok(Err(txtfp::Error::InvalidInput(e.value(v.py()).to_string()))),
    };
    Ok(utf8(bytes.as_bytes()).map(str::to_owned))
}

/// One entry of `ingest_batch`: the outer error for a malformed entry, the
/// inner for a text with no UTF-8 form.
fn incoming(
    item: &Bound<'_, PyAny>,
    default_source: Option<&str>,
) -> PyResult<txtfp::Result<IncomingDocument>> {
    let (id, text, source, language) = if let Ok(m) = item.cast::<PyMapping>() {
        let get = |k: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
            if m.contains(k)? {
                Ok(Some(m.get_item(k)?))
            } else {
                Ok(None)
            }
        };
        let id = match get("doc_id")? {
            Some(v) => v,
            None => get("id")?.ok_or_else(|| bad_value("a mapping needs doc_id (or id)"))?,
        };
        let text = get("text")?.ok_or_else(|| bad_value("a mapping needs text"))?;
        (id, text, get("source")?, get("language")?)
    } else if let Ok(t) = item.cast::<PyTuple>() {
        if !(2..=4).contains(&t.len()) {
            return Err(bad_value(format!(
                "a tuple is (doc_id, text[, source[, language]]); got {} items",
                t.len()
            )));
        }
        let at = |i: usize| t.get_item(i).ok();
        (t.get_item(0)?, t.get_item(1)?, at(2), at(3))
    } else {
        return Err(PyTypeError::new_err(format!(
            "a document is a tuple (doc_id, text[, source[, language]]) or a mapping, not {}",
            item.get_type().name()?
        )));
    };
    let source = match source.filter(|s| !s.is_none()) {
        Some(s) => s.extract::<String>()?,
        None => default_source
            .ok_or_else(|| bad_value("no source: give one per document or source="))?
            .to_owned(),
    };
    let language = match language.filter(|l| !l.is_none()) {
        Some(l) => Some(l.extract::<String>()?),
        None => None,
    };
    let doc_id = id_text(&id)?;
    Ok(text_of(&text)?.map(|text| IncomingDocument {
        doc_id,
        text,
        source,
        language,
    }))
}

/// `err` with the index of the entry of `docs` it is about.
fn at_index(py: Python<'_>, i: usize, err: PyErr) -> PyErr {
    let msg = format!("docs[{i}]: {}", err.value(py));
    if err.is_instance_of::<PyTypeError>(py) {
        PyTypeError::new_err(msg)
    } else {
        bad_value(msg)
    }
}

/// Keyword settings as a TOML document, for the library's parser (which
/// names an unknown key or a bad value).
fn settings_toml(settings: &Bound<'_, PyDict>) -> PyResult<String> {
    let mut out = String::new();
    for (k, v) in settings.iter() {
        let key: String = k.extract()?;
        let value = toml_value(&v, 0).map_err(|e| {
            let py = v.py();
            let msg = format!("{key}: {}", e.value(py));
            if e.is_instance_of::<PyTypeError>(py) {
                PyTypeError::new_err(msg)
            } else {
                bad_value(msg)
            }
        })?;
        out.push_str(&toml_string(&key));
        out.push_str(" = ");
        out.push_str(&value);
        out.push('\n');
    }
    Ok(out)
}

/// Deepest nesting of lists and dicts in a setting (the config has
/// lists of names and one table of names).
const MAX_SETTING_DEPTH: usize = 4;

fn toml_value(v: &Bound<'_, PyAny>, depth: usize) -> PyResult<String> {
    if depth > MAX_SETTING_DEPTH {
        return Err(bad_value("nested too deeply for a store setting"));
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(if v.extract::<bool>()? {
            "true"
        } else {
            "false"
        }
        .into());
    }
    if v.is_instance_of::<PyInt>() {
        return match v.extract::<i64>() {
            Ok(n) => Ok(n.to_string()),
            Err(_) => Err(bad_value(format!(
                "{} does not fit a TOML integer",
                v.str()?
            ))),
        };
    }
    if v.is_instance_of::<PyFloat>() {
        let x: f64 = v.extract()?;
        return Ok(if x.is_nan() {
            "nan".into()
        } else if x.is_infinite() {
            if x > 0.0 { "inf" } else { "-inf" }.into()
        } else {
            format!("{x:?}")
        });
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(toml_string(&s.extract::<String>()?));
    }
    if v.hasattr("__fspath__")? {
        let path: PathBuf = v.extract()?;
        let s = path
            .to_str()
            .ok_or_else(|| bad_value(format!("the path {path:?} is not valid UTF-8")))?;
        return Ok(toml_string(s));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut parts = Vec::with_capacity(d.len());
        for (k, x) in d.iter() {
            let key: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("table keys must be str"))?;
            parts.push(format!(
                "{} = {}",
                toml_string(&key),
                toml_value(&x, depth + 1)?
            ));
        }
        return Ok(format!("{{ {} }}", parts.join(", ")));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut parts = Vec::new();
        for x in v.try_iter()? {
            parts.push(toml_value(&x?, depth + 1)?);
        }
        return Ok(format!("[{}]", parts.join(", ")));
    }
    if v.is_none() {
        return Err(bad_value(
            "None has no TOML form: leave the setting out for its default",
        ));
    }
    Err(PyTypeError::new_err(format!(
        "a store setting is a bool, int, float, str, path, list or dict, not {}",
        v.get_type().name()?
    )))
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
