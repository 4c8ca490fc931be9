//! The sources an out-of-core run reads: a callable's iterator pulled a
//! round at a time on a thread of its own, and the wrapper that stops any
//! source at its next batch once the run is to stop.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, SyncSender};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString, PyTuple};
use txtfp::dedup::external::{DocumentSource, SourceDoc};
use txtfp::dedup::parts;

use super::type_name;
use crate::errors::TxtfpError;
use crate::texts::{Doc, Round, RoundReader};

/// A source whose reads end at the next batch once `cancel` is set.
pub(super) struct Watched<'a> {
    pub(super) inner: &'a dyn DocumentSource,
    pub(super) cancel: &'a AtomicBool,
}

impl Watched<'_> {
    fn check(&self) -> txtfp::Result<()> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(txtfp::Error::InvalidInput(
                "the run was interrupted; run it again to resume".into(),
            ));
        }
        Ok(())
    }
}

impl DocumentSource for Watched<'_> {
    fn identity(&self) -> String {
        self.inner.identity()
    }

    fn total_bytes(&self) -> u64 {
        self.inner.total_bytes()
    }

    fn read(
        &self,
        sink: &mut dyn FnMut(&[SourceDoc<'_>], u64) -> txtfp::Result<()>,
    ) -> txtfp::Result<()> {
        self.inner.read(&mut |docs, bytes| {
            self.check()?;
            sink(docs, bytes)
        })
    }

    fn read_wanted(
        &self,
        wanted: &mut dyn FnMut(u64) -> bool,
        sink: &mut dyn FnMut(&[SourceDoc<'_>], u64) -> txtfp::Result<()>,
    ) -> txtfp::Result<()> {
        self.inner.read_wanted(wanted, &mut |docs, bytes| {
            self.check()?;
            sink(docs, bytes)
        })
    }
}

/// A zero-argument Python callable returning a fresh iterable of `str` or
/// `(id, str)` pairs, as a [`DocumentSource`].
///
/// A document's key is its position in the high 32 bits and a hash of its
/// id and text in the low 32: the library compares the keys of the second
/// pass with the first's, so a callable whose second pass changes a
/// document is refused, as one that adds or drops documents is.
pub(super) struct Callable<'a> {
    pub(super) make: Py<PyAny>,
    pub(super) identity: String,
    /// The Python exception that ended a read.
    pub(super) failure: Mutex<Option<PyErr>>,
    /// Set when the run is to stop: the reader stops within its round.
    pub(super) cancel: &'a AtomicBool,
}

/// One round of a callable's documents and their ids as JSON text.
struct Batch {
    round: Round,
    ids: Vec<String>,
}

impl Callable<'_> {
    /// Keeps `e` to raise once the run returns, and gives the library an
    /// error that ends the run.
    fn fail(&self, e: PyErr) -> txtfp::Error {
        let msg = e.to_string().replace('\n', " ");
        self.failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert(e);
        txtfp::Error::InvalidInput(format!("the source's iterator raised {msg}"))
    }

    /// Calls the callable and sends its documents to `tx` a round at a time.
    fn produce(&self, py: Python<'_>, tx: &SyncSender<PyResult<Batch>>) -> PyResult<()> {
        let iterable = self.make.bind(py).call0()?;
        let mut reader = RoundReader::new(&iterable)?.ok_or_else(|| {
            PyTypeError::new_err(
                "the source callable returned an Arrow array: return an iterable of str or \
                 (id, str) pairs, or pass Parquet files as paths",
            )
        })?;
        loop {
            let mut ids = Vec::new();
            let round = reader.next_round_by(|index, item| {
                if self.cancel.load(Ordering::Relaxed) {
                    return Err(TxtfpError::new_err("the run was interrupted"));
                }
                split(index, item, &mut ids)
            })?;
            let Some(round) = round else { return Ok(()) };
            if py.detach(|| tx.send(Ok(Batch { round, ids }))).is_err() {
                // The run stopped reading.
                return Ok(());
            }
        }
    }
}

/// The text of one item of a callable's iterable; its id (JSON text) goes
/// to `ids`: the given one of an `(id, text)` pair, else the position.
fn split<'py>(
    index: usize,
    item: Bound<'py, PyAny>,
    ids: &mut Vec<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let Ok(pair) = item.cast::<PyTuple>() else {
        ids.push(index.to_string());
        return Ok(item);
    };
    if pair.len() != 2 {
        return Err(PyTypeError::new_err(format!(
            "source item {index} is a tuple of {} values, not (id, text)",
            pair.len()
        )));
    }
    let id = pair.get_item(0)?;
    if let Ok(s) = id.cast::<PyString>() {
        // A string id is kept as its JSON text, as the corpus reader keeps ids.
        ids.push(serde_json::to_string(&*s.to_cow()?).unwrap_or_default());
    } else if id.is_instance_of::<PyInt>() && !id.is_instance_of::<PyBool>() {
        ids.push(id.str()?.to_cow()?.into_owned());
    } else {
        return Err(PyTypeError::new_err(format!(
            "source item {index}: the id is {}, not int or str",
            type_name(&id)
        )));
    }
    pair.get_item(1)
}

impl DocumentSource for Callable<'_> {
    fn identity(&self) -> String {
        format!("python callable {:?}", self.identity)
    }

    fn read(
        &self,
        sink: &mut dyn FnMut(&[SourceDoc<'_>], u64) -> txtfp::Result<()>,
    ) -> txtfp::Result<()> {
        let (tx, rx) = mpsc::sync_channel::<PyResult<Batch>>(1);
        std::thread::scope(|scope| {
            let reader = scope.spawn(move || {
                Python::attach(|py| {
                    if let Err(e) = self.produce(py, &tx) {
                        let _ = py.detach(|| tx.send(Err(e)));
                    }
                });
            });
            let mut result = Ok(());
            for msg in &rx {
                let batch = match msg {
                    Ok(b) => b,
                    Err(e) => {
                        result = Err(self.fail(e));
                        break;
                    }
                };
                let docs = batch.round.docs();
                let mut out = Vec::with_capacity(docs.len());
                let mut bytes = 0u64;
                for (i, (doc, id)) in docs.iter().zip(&batch.ids).enumerate() {
                    let pos = batch.round.first + i;
                    let Doc::Text(text) = *doc else {
                        let what = match doc {
                            Doc::Missing => "None",
                            _ => "not valid UTF-8",
                        };
                        result = Err(txtfp::Error::InvalidInput(format!(
                            "source item {pos} (id {id}): the text is {what}; a deduplication \
                             run needs a text for every document"
                        )));
                        break;
                    };
                    let check = parts::content_key(text) ^ parts::content_key(id).rotate_left(17);
                    out.push(SourceDoc {
                        id,
                        text,
                        key: ((pos as u64) << 32) | u64::from(check as u32),
                    });
                    bytes += text.len() as u64;
                }
                if result.is_err() {
                    break;
                }
                if let Err(e) = sink(&out, bytes) {
                    result = Err(e);
                    break;
                }
            }
            // A reader blocked on a full channel sees it closed and stops.
            drop(rx);
            let _ = reader.join();
            result
        })
    }
}
