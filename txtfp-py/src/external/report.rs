//! `txtfp.ExternalReport` and its decisions, streamed from the work
//! directory as batches of NumPy arrays.

use std::path::PathBuf;
use std::sync::Mutex;

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use txtfp::dedup::Similarity;
use txtfp::dedup::external::{Decisions, ExternalDecision, ExternalReport, Ids, SkipLog};

use crate::errors::{bad_value, to_py};

/// The result of `MinHashDedup.run_external`: counts and stage figures in
/// memory, the decisions streamed from the work directory.
#[pyclass(module = "txtfp", frozen, name = "ExternalReport")]
pub struct PyExternalReport {
    report: ExternalReport,
    skips: SkipLog,
    warnings: Vec<String>,
    memory: usize,
}

impl PyExternalReport {
    pub(super) fn new(
        report: ExternalReport,
        skips: SkipLog,
        warnings: Vec<String>,
        memory: usize,
    ) -> Self {
        Self {
            report,
            skips,
            warnings,
            memory,
        }
    }

    fn documents(&self) -> u64 {
        self.report.stats.documents as u64
    }
}

#[pymethods]
impl PyExternalReport {
    /// Counts: documents, kept, dropped, empty, clusters, candidate_pairs,
    /// compared_pairs, verified_pairs (as `DedupReport.stats`).
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        crate::dedup::stats_dict(py, &self.report.stats)
    }

    /// The stages in order, each a dict: `name`, `seconds`, `resumed` (the
    /// stage had finished in an earlier run in this work directory),
    /// `peak_rss` (bytes, `None` off Linux) and `work_dir_bytes`.
    #[getter]
    fn stages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for s in &self.report.stages {
            let d = PyDict::new(py);
            d.set_item("name", s.name)?;
            d.set_item("seconds", s.seconds)?;
            d.set_item("resumed", s.resumed)?;
            d.set_item("peak_rss", s.peak_rss)?;
            d.set_item("work_dir_bytes", s.work_dir_bytes)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// Documents dropped as duplicates of indexed ones (counted in
    /// `stats["dropped"]` too).
    #[getter]
    fn indexed_duplicates(&self) -> u64 {
        self.report.indexed_duplicates
    }

    /// Documents the run added to its index (`update_index=True`).
    #[getter]
    fn index_added(&self) -> u64 {
        self.report.index_added
    }

    /// Input bytes, as the source counted them.
    #[getter]
    fn bytes(&self) -> u64 {
        self.report.bytes
    }

    /// The work directory holding the decisions.
    #[getter]
    fn work_dir(&self) -> PathBuf {
        self.report.work_dir().to_path_buf()
    }

    /// Bad records the corpus's first pass skipped (malformed JSON, no text
    /// field, invalid UTF-8), as `strict=True` would have refused them.
    #[getter]
    fn skipped(&self) -> u64 {
        self.skips.count
    }

    /// The first 1000 skipped records as `(place, reason)`.
    #[getter]
    fn skipped_records(&self) -> Vec<(String, String)> {
        self.skips.listed.clone()
    }

    /// What resolving the corpus's paths left out, and why (symbolic links,
    /// files reached twice, ...).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// The decisions in input order, `batch` documents at a time: each a
    /// dict of NumPy arrays `position` (`uint64`), `keep`, `empty`
    /// (`bool`), `duplicate_of` (the kept position of the document's
    /// cluster), `cluster` (its number, from 0 in order of the clusters'
    /// first members, as in `DedupReport.cluster`),
    /// `matched` (the document of its best verified link), `indexed` (the
    /// indexed original's position in the index, for a run `against` one),
    /// `indexed_matched` (`int64`, `-1` for none), `similarity` and
    /// `indexed_similarity` (`float32` Jaccard of those links, NaN for
    /// none), and with `ids=True` a list `ids` of the source's ids.
    #[pyo3(signature = (batch = 65536, *, start = 0, ids = true))]
    fn decisions(&self, batch: usize, start: u64, ids: bool) -> PyResult<PyExternalDecisions> {
        if batch == 0 {
            return Err(bad_value("batch must be at least 1"));
        }
        let decisions = self.report.decisions_from(start).map_err(to_py)?;
        let ids = if ids {
            Some(self.report.ids().map_err(to_py)?)
        } else {
            None
        };
        Ok(PyExternalDecisions {
            state: Mutex::new(Stream {
                decisions,
                ids,
                next: start.min(self.documents()),
                end: self.documents(),
            }),
            batch,
        })
    }

    /// Every decision at once, as one dict of the arrays `decisions()`
    /// yields: for a corpus whose decisions fit in memory.
    #[pyo3(signature = (*, ids = true))]
    fn to_arrays<'py>(&self, py: Python<'py>, ids: bool) -> PyResult<Bound<'py, PyDict>> {
        let all = self.decisions(self.documents().max(1) as usize, 0, ids)?;
        match all.next_batch(py)? {
            Some(d) => Ok(d),
            None => Columns::default().into_dict(py, ids.then(Vec::new)),
        }
    }

    /// Whether each document is kept (`bool`, input order).
    #[getter]
    fn keep<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let keep = py.detach(|| -> txtfp::Result<Vec<bool>> {
            self.report
                .decisions()?
                .map(|d| d.map(|d| d.keep))
                .collect()
        });
        Ok(PyArray1::from_vec(py, keep.map_err(to_py)?))
    }

    /// The source's id of the document at `position`: a corpus's id field
    /// (`str` or `int`, as stored), `"FILE:ROW"` for a record without one,
    /// a callable's given id or the position.
    fn id<'py>(&self, py: Python<'py>, position: u64) -> PyResult<Bound<'py, PyAny>> {
        let id = py.detach(|| self.report.id(position)).map_err(to_py)?;
        IdDecoder::new(py)?.decode(&id)
    }

    /// Documents whose id an earlier document already carries: `count`
    /// and up to `examples` such ids (sorted in the work directory, within
    /// the run's memory budget).
    #[pyo3(signature = (examples = 5))]
    fn duplicate_ids<'py>(&self, py: Python<'py>, examples: usize) -> PyResult<Bound<'py, PyDict>> {
        let found = py
            .detach(|| self.report.duplicate_ids(self.memory, examples))
            .map_err(to_py)?;
        let decoder = IdDecoder::new(py)?;
        let d = PyDict::new(py);
        d.set_item("count", found.count)?;
        let list = PyList::empty(py);
        for id in &found.examples {
            list.append(decoder.decode(id)?)?;
        }
        d.set_item("examples", list)?;
        Ok(d)
    }

    fn __len__(&self) -> usize {
        self.report.stats.documents
    }

    fn __repr__(&self) -> String {
        let s = &self.report.stats;
        format!(
            "ExternalReport(documents={}, kept={}, dropped={}, clusters={}, work_dir={:?})",
            s.documents,
            s.kept,
            s.dropped,
            s.clusters,
            self.report.work_dir().display().to_string()
        )
    }
}

/// The decisions of an `ExternalReport`, a batch at a time (an iterator of
/// dicts; see `ExternalReport.decisions`).
#[pyclass(module = "txtfp", frozen, name = "ExternalDecisions")]
pub struct PyExternalDecisions {
    state: Mutex<Stream>,
    batch: usize,
}

struct Stream {
    decisions: Decisions,
    ids: Option<Ids>,
    next: u64,
    end: u64,
}

impl PyExternalDecisions {
    fn next_batch<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let read = py.detach(
            || -> txtfp::Result<Option<(Columns, Option<Vec<String>>)>> {
                let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
                if s.next >= s.end {
                    return Ok(None);
                }
                let n = (s.end - s.next).min(self.batch as u64) as usize;
                let mut cols = Columns::with_capacity(n);
                for _ in 0..n {
                    match s.decisions.next() {
                        Some(d) => cols.push(&d?),
                        None => break,
                    }
                }
                let first = s.next;
                s.next += cols.position.len() as u64;
                let ids = match &s.ids {
                    Some(reader) => Some(
                        (first..s.next)
                            .map(|p| reader.get(p))
                            .collect::<txtfp::Result<Vec<String>>>()?,
                    ),
                    None => None,
                };
                if cols.position.is_empty() {
                    s.next = s.end;
                    return Ok(None);
                }
                Ok(Some((cols, ids)))
            },
        );
        let Some((cols, ids)) = read.map_err(to_py)? else {
            return Ok(None);
        };
        let ids = match ids {
            Some(ids) => {
                let decoder = IdDecoder::new(py)?;
                Some(
                    ids.iter()
                        .map(|id| decoder.decode(id))
                        .collect::<PyResult<Vec<_>>>()?,
                )
            }
            None => None,
        };
        cols.into_dict(py, ids).map(Some)
    }
}

#[pymethods]
impl PyExternalDecisions {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.next_batch(py)
    }
}

/// A batch of decisions, column by column.
#[derive(Default)]
struct Columns {
    position: Vec<u64>,
    keep: Vec<bool>,
    empty: Vec<bool>,
    duplicate_of: Vec<i64>,
    cluster: Vec<i64>,
    matched: Vec<i64>,
    similarity: Vec<f32>,
    indexed: Vec<i64>,
    indexed_matched: Vec<i64>,
    indexed_similarity: Vec<f32>,
}

fn or_minus_one(x: Option<u64>) -> i64 {
    x.map_or(-1, |v| v as i64)
}

fn jaccard(s: Option<Similarity>) -> f32 {
    s.and_then(Similarity::jaccard).unwrap_or(f32::NAN)
}

impl Columns {
    fn with_capacity(n: usize) -> Self {
        Self {
            position: Vec::with_capacity(n),
            keep: Vec::with_capacity(n),
            empty: Vec::with_capacity(n),
            duplicate_of: Vec::with_capacity(n),
            cluster: Vec::with_capacity(n),
            matched: Vec::with_capacity(n),
            similarity: Vec::with_capacity(n),
            indexed: Vec::with_capacity(n),
            indexed_matched: Vec::with_capacity(n),
            indexed_similarity: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, d: &ExternalDecision) {
        self.position.push(d.position);
        self.keep.push(d.keep);
        self.empty.push(d.empty);
        self.duplicate_of.push(or_minus_one(d.duplicate_of));
        self.cluster.push(or_minus_one(d.cluster));
        self.matched.push(or_minus_one(d.matched));
        self.similarity.push(jaccard(d.similarity));
        let x = d.indexed.as_ref();
        self.indexed.push(or_minus_one(x.map(|x| x.position)));
        let link = x.and_then(|x| x.link);
        self.indexed_matched.push(or_minus_one(link.map(|l| l.0)));
        self.indexed_similarity.push(jaccard(link.map(|l| l.1)));
    }

    fn into_dict<'py>(
        self,
        py: Python<'py>,
        ids: Option<Vec<Bound<'py, PyAny>>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("position", PyArray1::from_vec(py, self.position))?;
        d.set_item("keep", PyArray1::from_vec(py, self.keep))?;
        d.set_item("empty", PyArray1::from_vec(py, self.empty))?;
        d.set_item("duplicate_of", PyArray1::from_vec(py, self.duplicate_of))?;
        d.set_item("cluster", PyArray1::from_vec(py, self.cluster))?;
        d.set_item("matched", PyArray1::from_vec(py, self.matched))?;
        d.set_item("similarity", PyArray1::from_vec(py, self.similarity))?;
        d.set_item("indexed", PyArray1::from_vec(py, self.indexed))?;
        d.set_item(
            "indexed_matched",
            PyArray1::from_vec(py, self.indexed_matched),
        )?;
        d.set_item(
            "indexed_similarity",
            PyArray1::from_vec(py, self.indexed_similarity),
        )?;
        if let Some(ids) = ids {
            d.set_item("ids", PyList::new(py, ids)?)?;
        }
        Ok(d)
    }
}

/// Ids as the work directory stores them (JSON text) back to Python values.
struct IdDecoder<'py> {
    py: Python<'py>,
    loads: Bound<'py, PyAny>,
}

impl<'py> IdDecoder<'py> {
    fn new(py: Python<'py>) -> PyResult<Self> {
        Ok(Self {
            py,
            loads: py.import("json")?.getattr("loads")?,
        })
    }

    /// An integer or a plain string directly, other JSON through
    /// `json.loads`; text that is not JSON as it is.
    fn decode(&self, id: &str) -> PyResult<Bound<'py, PyAny>> {
        if let Ok(n) = id.parse::<i64>()
            && !id.starts_with('+')
        {
            return Ok(n.into_pyobject(self.py)?.into_any());
        }
        if let Some(inner) = id.strip_prefix('"').and_then(|s| s.strip_suffix('"'))
            && !inner.contains(['"', '\\'])
        {
            return Ok(PyString::new(self.py, inner).into_any());
        }
        Ok(self
            .loads
            .call1((id,))
            .unwrap_or_else(|_| PyString::new(self.py, id).into_any()))
    }
}
