//! The batch driver every fingerprinter shares: rows of a fixed width filled
//! without the GIL, on the rayon pool or on the calling thread, with one
//! error policy.

use std::sync::{Arc, Mutex, OnceLock, mpsc};

use pyo3::prelude::*;
use rayon::prelude::*;

use crate::errors::{TxtfpError, bad_value};
use crate::texts::{Doc, Round, RoundReader, arrow_chunks, arrow_docs, doc_problem};

/// What a batch does with a document it cannot fingerprint (empty, `None`,
/// not UTF-8, too short for TLSH).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Raise `TxtfpError` naming the first such document (the default).
    Raise,
    /// Fill its row with the fingerprinter's empty value.
    Empty,
}

impl Policy {
    /// The policy named by the `errors` keyword.
    pub fn parse(name: &str) -> PyResult<Policy> {
        match name {
            "raise" => Ok(Policy::Raise),
            "empty" => Ok(Policy::Empty),
            other => Err(bad_value(format!(
                "errors must be \"raise\" or \"empty\", not {other:?}"
            ))),
        }
    }
}

/// Where a batch runs: `None` on every core (rayon's global pool), `1` on
/// the calling thread, `n` on a pool of `n` threads kept for later calls.
#[derive(Clone)]
pub enum Threads {
    All,
    One,
    Pool(Arc<rayon::ThreadPool>),
}

impl Threads {
    /// The threads named by the `threads` keyword.
    pub fn parse(threads: Option<usize>) -> PyResult<Threads> {
        match threads {
            None => Ok(Threads::All),
            Some(0) => Err(bad_value(
                "threads must be at least 1 (None uses every core)",
            )),
            Some(1) => Ok(Threads::One),
            Some(n) if n > MAX_THREADS => Err(bad_value(format!(
                "threads must be at most {MAX_THREADS}, not {n}"
            ))),
            Some(n) => {
                // One pool is kept, for the count last asked for: a caller
                // cycling through counts does not pile up idle threads.
                static POOL: OnceLock<Mutex<Option<SizedPool>>> = OnceLock::new();
                let mut kept = POOL
                    .get_or_init(Default::default)
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                if let Some((size, pool)) = kept.as_ref()
                    && *size == n
                {
                    return Ok(Threads::Pool(pool.clone()));
                }
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("txtfp-py-{i}"))
                    .build()
                    .map_err(|e| bad_value(format!("cannot start {n} threads: {e}")))?;
                let pool = Arc::new(pool);
                *kept = Some((n, pool.clone()));
                Ok(Threads::Pool(pool))
            }
        }
    }
}

/// A pool and its thread count.
type SizedPool = (usize, Arc<rayon::ThreadPool>);

/// Most threads a `threads=` keyword may ask for.
pub const MAX_THREADS: usize = 1024;

/// The rows of a batch: `n` rows of `width` values, row-major.
pub struct Rows<T> {
    pub values: Vec<T>,
    pub n: usize,
}

/// Rows filled so far, and the failures met.
struct Sink<'a, T, F> {
    values: Vec<T>,
    first_failure: Option<(usize, String)>,
    failed: usize,
    out_of_memory: Option<usize>,
    width: usize,
    empty: &'a T,
    threads: &'a Threads,
    sign: &'a F,
}

impl<T, F> Sink<'_, T, F>
where
    T: Clone + Send + Sync,
    F: Fn(&str, &mut String, &mut [T]) -> txtfp::Result<()> + Sync,
{
    /// Appends the rows of `docs`, the first of which is document `first`.
    fn take(&mut self, first: usize, docs: &[Doc<'_>]) {
        let start = self.values.len();
        let more = docs.len().saturating_mul(self.width);
        // An allocation failure is an exception, not an abort.
        if self.out_of_memory.is_some() || self.values.try_reserve(more).is_err() {
            self.out_of_memory.get_or_insert(first);
            return;
        }
        self.values.resize(start + more, self.empty.clone());
        let out = &mut self.values[start..];
        let failures = fill(docs, out, self.width, self.empty, self.threads, self.sign);
        self.failed += failures.len();
        if self.first_failure.is_none() {
            self.first_failure = failures.into_iter().next().map(|(i, m)| (first + i, m));
        }
    }

    fn finish(self, policy: Policy) -> PyResult<Rows<T>> {
        if let Some(first) = self.out_of_memory {
            return Err(pyo3::exceptions::PyMemoryError::new_err(format!(
                "no memory for the rows of texts[{first}] and after ({} values a row)",
                self.width
            )));
        }
        if let (Policy::Raise, Some((index, message))) = (policy, self.first_failure) {
            let more = match self.failed - 1 {
                0 => String::new(),
                k => format!(" ({k} more documents failed)"),
            };
            return Err(TxtfpError::new_err(format!(
                "texts[{index}]: {message}{more}"
            )));
        }
        let n = self.values.len().checked_div(self.width).unwrap_or(0);
        Ok(Rows {
            values: self.values,
            n,
        })
    }
}

/// Fills one row per text of `texts` with `sign(text, scratch, row)`.
///
/// A document that cannot be fingerprinted gets the row `empty`; under
/// [`Policy::Raise`] the call then fails with a `TxtfpError` that names the
/// first such document by its index and says how many more there were.
///
/// Arrow input is read in place without the GIL. A Python iterable is read
/// a round at a time under the GIL while a second thread fingerprints the
/// round before (on `threads`), so the encoding that needs the interpreter
/// overlaps the work that does not.
pub fn batch<T, F>(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    width: usize,
    empty: T,
    policy: Policy,
    threads: &Threads,
    sign: F,
) -> PyResult<Rows<T>>
where
    T: Clone + Send + Sync,
    F: Fn(&str, &mut String, &mut [T]) -> txtfp::Result<()> + Sync,
{
    let mut sink = Sink {
        values: Vec::new(),
        first_failure: None,
        failed: 0,
        out_of_memory: None,
        width,
        empty: &empty,
        threads,
        sign: &sign,
    };
    let Some(mut reader) = RoundReader::new(texts)? else {
        let chunks = arrow_chunks(texts)?;
        py.detach(|| {
            let mut docs = Vec::new();
            let mut first = 0;
            for chunk in &chunks {
                docs.clear();
                arrow_docs(chunk, &mut docs);
                sink.take(first, &docs);
                first += docs.len();
            }
        });
        return sink.finish(policy);
    };
    let Some(one) = reader.next_round()? else {
        return sink.finish(policy);
    };
    let Some(two) = reader.next_round()? else {
        // A single round: nothing to overlap.
        py.detach(|| sink.take(one.first, &one.docs()));
        return sink.finish(policy);
    };
    let (sink, read) = std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<Round>(1);
        let worker = scope.spawn(move || {
            for round in rx {
                sink.take(round.first, &round.docs());
            }
            sink
        });
        let send = |round: Round| py.detach(|| tx.send(round)).is_ok();
        let mut read = Ok(());
        if send(one) && send(two) {
            loop {
                match reader.next_round() {
                    Ok(Some(round)) => {
                        if !send(round) {
                            break;
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        read = Err(e);
                        break;
                    }
                }
            }
        }
        drop(tx);
        (py.detach(|| worker.join()), read)
    });
    read?;
    let sink =
        sink.map_err(|_| TxtfpError::new_err("internal error: a fingerprinting thread failed"))?;
    sink.finish(policy)
}

/// Signs `docs` into `out` (one row of `width` each); returns the failures
/// as (index in `docs`, message), in order.
fn fill<T, F>(
    docs: &[Doc<'_>],
    out: &mut [T],
    width: usize,
    empty: &T,
    threads: &Threads,
    sign: &F,
) -> Vec<(usize, String)>
where
    T: Clone + Send + Sync,
    F: Fn(&str, &mut String, &mut [T]) -> txtfp::Result<()> + Sync,
{
    let one = |scratch: &mut String, (i, (doc, row)): (usize, (&Doc<'_>, &mut [T]))| {
        let res = match *doc {
            Doc::Text(text) => sign(text, scratch, row).map_err(|e| e.to_string()),
            other => Err(doc_problem(other).unwrap_or_default().to_owned()),
        };
        res.err().map(|m| {
            row.fill(empty.clone());
            (i, m)
        })
    };
    if width == 0 {
        return Vec::new();
    }
    let parallel = |out: &mut [T]| -> Vec<(usize, String)> {
        docs.par_iter()
            .zip(out.par_chunks_mut(width))
            .enumerate()
            .with_min_len(4)
            .map_init(String::new, one)
            .flatten()
            .collect()
    };
    match threads {
        Threads::One => {
            let mut scratch = String::new();
            docs.iter()
                .zip(out.chunks_mut(width))
                .enumerate()
                .filter_map(|x| one(&mut scratch, x))
                .collect()
        }
        Threads::All => parallel(out),
        Threads::Pool(pool) => pool.install(|| parallel(out)),
    }
}
