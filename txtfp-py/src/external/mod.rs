//! `MinHashDedup.run_external` and `txtfp.ExternalReport`: the library's
//! out-of-core run over a corpus of shards (read in Rust) or over a Python
//! callable, and its report streamed from the work directory.
//!
//! The run works on a thread of its own, without the GIL. The calling
//! thread waits for it, waking every [`TICK`] to pass progress to a Python
//! callback and to let `KeyboardInterrupt` through: either stops the run at
//! its next batch of documents, and the work directory keeps the finished
//! stages. A callable's iterator is read on a third thread that takes the
//! GIL only to pull a round of texts ([`RoundReader`]).
//!
//! [`RoundReader`]: crate::texts::RoundReader

mod report;
mod source;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use txtfp::corpus::{Corpus, CorpusError, ReadOptions, ResolveOptions};
use txtfp::dedup::external::{
    CorpusSource, DEFAULT_MEMORY, DocumentSource, ExternalOptions, ExternalReport, MIN_MEMORY,
    SkipLog, StageProgress,
};

use crate::errors::{TxtfpError, bad_value, to_py};
use crate::run::Threads;

pub use report::{PyExternalDecisions, PyExternalReport};
use source::{Callable, Watched};

/// How often the waiting thread looks for progress and signals.
const TICK: Duration = Duration::from_millis(100);

/// A configured engine's out-of-core run.
pub type RunExternal<'a> =
    dyn Fn(&dyn DocumentSource, &ExternalOptions) -> txtfp::Result<ExternalReport> + Sync + 'a;

/// The keywords of `run_external`.
pub struct Args<'py> {
    pub work_dir: PathBuf,
    pub memory: Option<usize>,
    pub against: Option<PathBuf>,
    pub update_index: bool,
    pub threads: Option<usize>,
    pub text_field: String,
    pub id_field: Option<String>,
    pub strict: bool,
    pub identity: Option<String>,
    pub progress: Option<Bound<'py, PyAny>>,
}

/// Runs `run` over `source` as `args` say.
pub fn run(
    py: Python<'_>,
    run: &RunExternal<'_>,
    source: &Bound<'_, PyAny>,
    args: Args<'_>,
) -> PyResult<PyExternalReport> {
    let threads = Threads::parse(args.threads)?;
    let pool = match threads {
        Threads::All => None,
        Threads::One => Some(Arc::new(
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .map_err(|e| bad_value(format!("cannot start a thread: {e}")))?,
        )),
        Threads::Pool(p) => Some(p),
    };
    let memory = args.memory.unwrap_or(DEFAULT_MEMORY);
    if memory < MIN_MEMORY {
        return Err(bad_value(format!(
            "memory must be at least {MIN_MEMORY} bytes (64 KiB), not {memory}"
        )));
    }
    if args.update_index && args.against.is_none() {
        return Err(bad_value(
            "update_index=True needs against=: the index folder to add the documents to",
        ));
    }
    if let Some(p) = &args.progress
        && !p.is_callable()
    {
        return Err(PyTypeError::new_err(
            "progress must be a callable taking (stage, done, total)",
        ));
    }
    let mut options = ExternalOptions::new(&args.work_dir).with_memory(memory);
    if let Some(index) = &args.against {
        options = options.against(index).update_index(args.update_index);
    }
    let stop = Stop::new(py, args.progress.as_ref(), pool.as_deref());
    match corpus_inputs(source)? {
        Some(inputs) => {
            if args.identity.is_some() {
                return Err(bad_value(
                    "identity= is for a callable source: a corpus's identity is its files' \
                     paths, sizes and modification times",
                ));
            }
            let corpus = resolve(&inputs)?;
            let read = ReadOptions::default()
                .text_column(&args.text_field)
                .id_column(args.id_field.as_deref());
            let skip_log = args.work_dir.join("skips.json");
            let src = CorpusSource::new(&corpus, read)
                .strict(args.strict)
                .with_log_file(&skip_log);
            let report = stop.drive(run, &src, options)?.map_err(run_error)?;
            // A resumed run may not have read the corpus: the first pass's
            // log is in the work directory.
            let skips = SkipLog::load(&skip_log).unwrap_or_else(|_| src.skips());
            let warnings = corpus.warnings().iter().map(|w| w.to_string()).collect();
            Ok(PyExternalReport::new(report, skips, warnings, memory))
        }
        None => {
            let identity = match args.identity {
                Some(id) => id,
                None => fresh_identity(&args.work_dir)?,
            };
            let src = Callable {
                make: source.clone().unbind(),
                identity,
                failure: Mutex::new(None),
                cancel: &stop.cancel,
            };
            let result = stop.drive(run, &src, options)?;
            let failure = src.failure.lock().unwrap_or_else(|e| e.into_inner()).take();
            let report = match (result, failure) {
                (Ok(r), _) => r,
                (Err(_), Some(py_err)) => return Err(py_err),
                (Err(e), None) => return Err(run_error(e)),
            };
            Ok(PyExternalReport::new(
                report,
                SkipLog::default(),
                Vec::new(),
                memory,
            ))
        }
    }
}

/// The inputs of a corpus source, or `None` for a callable.
fn corpus_inputs(source: &Bound<'_, PyAny>) -> PyResult<Option<Vec<PathBuf>>> {
    let py = source.py();
    let is_path = |o: &Bound<'_, PyAny>| -> PyResult<bool> {
        Ok(o.is_instance_of::<PyString>() || o.hasattr(pyo3::intern!(py, "__fspath__"))?)
    };
    let inputs: Vec<PathBuf> = if is_path(source)? {
        vec![source.extract()?]
    } else if source.is_instance_of::<PyList>() || source.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for item in source.try_iter()? {
            let item = item?;
            if !is_path(&item)? {
                return Err(PyTypeError::new_err(format!(
                    "source lists must hold paths (str or os.PathLike), not {}",
                    type_name(&item)
                )));
            }
            out.push(item.extract()?);
        }
        if out.is_empty() {
            return Err(bad_value("source is an empty list of paths"));
        }
        out
    } else if source.is_callable() {
        return Ok(None);
    } else {
        return Err(PyTypeError::new_err(format!(
            "source must be a path, a list of paths (JSONL or Parquet shards, folders, glob \
             patterns) or a callable returning an iterable of texts, not {}{}",
            type_name(source),
            if source.try_iter().is_ok() {
                " (the corpus is read twice: pass a function returning a fresh iterable)"
            } else {
                ""
            }
        )));
    };
    for p in &inputs {
        if p.as_os_str() == "-" {
            return Err(bad_value(
                "source \"-\": standard input cannot be read twice; an out-of-core run reads \
                 its corpus twice",
            ));
        }
    }
    Ok(Some(inputs))
}

/// The corpus of `inputs`: a missing path is `FileNotFoundError`, other
/// resolution errors as [`corpus_error`].
fn resolve(inputs: &[PathBuf]) -> PyResult<Corpus> {
    for p in inputs {
        let glob = p.to_str().is_some_and(|s| s.contains(['*', '?', '[']));
        let list = p.to_str().is_some_and(|s| s.starts_with('@'));
        if !glob && !list && std::fs::symlink_metadata(p).is_err() && !p.exists() {
            return Err(PyFileNotFoundError::new_err((
                2,
                "No such file or directory",
                p.display().to_string(),
            )));
        }
    }
    Corpus::resolve(inputs, &ResolveOptions::default()).map_err(corpus_error)
}

/// A corpus's I/O error as `OSError`, anything else as `TxtfpError`.
fn corpus_error(e: CorpusError) -> PyErr {
    match e {
        CorpusError::Io { .. } => PyOSError::new_err(e.to_string()),
        other => TxtfpError::new_err(other.to_string()),
    }
}

fn run_error(e: txtfp::Error) -> PyErr {
    match e {
        txtfp::Error::Corpus(c) => corpus_error(c),
        other => to_py(other),
    }
}

/// The identity of a callable given none: unique, so the run never resumes
/// another one; its work directory must then be new or empty.
fn fresh_identity(work_dir: &Path) -> PyResult<String> {
    let used = std::fs::read_dir(work_dir).is_ok_and(|mut d| d.next().is_some());
    if used {
        return Err(bad_value(format!(
            "{}: the work directory is not empty, and a callable source without identity= \
             cannot resume a run: give identity= (a string that changes whenever the corpus \
             does) or an empty work directory",
            work_dir.display()
        )));
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    Ok(format!("unnamed {} {nanos}", std::process::id()))
}

/// What stops a run early: `KeyboardInterrupt` (or another signal's
/// exception), or an exception of the progress callback.
struct Stop<'a, 'py> {
    py: Python<'py>,
    progress: Option<&'a Bound<'py, PyAny>>,
    pool: Option<&'a rayon::ThreadPool>,
    cancel: AtomicBool,
}

impl<'a, 'py> Stop<'a, 'py> {
    fn new(
        py: Python<'py>,
        progress: Option<&'a Bound<'py, PyAny>>,
        pool: Option<&'a rayon::ThreadPool>,
    ) -> Self {
        Self {
            py,
            progress,
            pool,
            cancel: AtomicBool::new(false),
        }
    }

    /// Runs `run` over `source` on a thread of its own; the calling thread
    /// waits without the GIL. The outer error is what stopped the run from
    /// Python.
    fn drive(
        &self,
        run: &RunExternal<'_>,
        source: &dyn DocumentSource,
        options: ExternalOptions,
    ) -> PyResult<txtfp::Result<ExternalReport>> {
        let (ptx, prx) = mpsc::channel::<StageProgress>();
        let options = match self.progress {
            Some(_) => options.with_progress(Arc::new(move |p| {
                let _ = ptx.send(p);
            })),
            None => options,
        };
        let watched = Watched {
            inner: source,
            cancel: &self.cancel,
        };
        let (dtx, drx) = mpsc::sync_channel(1);
        let drx = Mutex::new(drx);
        let pool = self.pool;
        std::thread::scope(|scope| {
            let (watched, options) = (&watched, &options);
            scope.spawn(move || {
                let go = || run(watched, options);
                let r = match pool {
                    Some(p) => p.install(go),
                    None => go(),
                };
                let _ = dtx.send(r);
            });
            let mut stopped: Option<PyErr> = None;
            loop {
                let got = self.py.detach(|| {
                    drx.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .recv_timeout(TICK)
                });
                if let (Some(cb), None) = (self.progress, &stopped) {
                    for p in latest_per_stage(prx.try_iter()) {
                        if let Err(e) = cb.call1((p.stage, p.done, p.total)) {
                            stopped = Some(e);
                            self.cancel.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                }
                match got {
                    Ok(result) => {
                        return match stopped {
                            Some(e) => Err(e),
                            None => Ok(result),
                        };
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => {
                        return Err(TxtfpError::new_err(
                            "internal error: the out-of-core run's thread failed",
                        ));
                    }
                }
                if stopped.is_none()
                    && let Err(e) = self.py.check_signals()
                {
                    stopped = Some(e);
                    self.cancel.store(true, Ordering::Relaxed);
                }
            }
        })
    }
}

/// The last report of each stage in `events`, in order.
fn latest_per_stage(events: impl Iterator<Item = StageProgress>) -> Vec<StageProgress> {
    let mut out: Vec<StageProgress> = Vec::new();
    for p in events {
        match out.last_mut() {
            Some(last) if last.stage == p.stage => *last = p,
            _ => out.push(p),
        }
    }
    out
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an unknown type".into())
}
