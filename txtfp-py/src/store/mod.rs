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

use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use txtfp::store::backend::EmbeddedBackend;
use txtfp::store::{
    BackendKind, DecisionRecord, DocStatus, GlobalFingerprintStore, GlobalStoreConfig,
    IncomingDocument,
};

use crate::errors::{TxtfpError, bad_value, to_py};

mod input;
mod records;

use input::*;
pub use records::PyDecisionRecord;
use records::*;

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
