//! `txtfp.MinHashDedup` and `txtfp.DedupReport`: the Rust engine's in-memory
//! run, and the pieces of its definition a distributed engine computes where
//! the data lives (`txtfp.spark` uses them).

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use txtfp::classical::minhash::FastMinHashFingerprinter;
use txtfp::classical::{DEFAULT_SEED, HashFamily};
use txtfp::dedup::external::{DocumentSource, ExternalOptions, ExternalReport};
use txtfp::dedup::{
    DedupReport, DedupStats, EmptyDocuments, MinHashDedup, MinHashScheme, Similarity, Verification,
    parts,
};
use txtfp::{Canonicalizer, MinHashFingerprinter, Tokenizer};

use crate::canon::{PyCanonicalizer, or_default};
use crate::errors::{bad_value, to_py};
use crate::run::{Policy, Threads, batch};
use crate::settings::{WithTokenizer, hash_family, word_tokens};
use crate::texts::{Doc, RoundReader, arrow_chunks, arrow_docs};

/// A configured run of any slot count.
trait Engine: Send + Sync {
    fn run(&self, ids: Vec<u64>, texts: &[&str]) -> txtfp::Result<DedupReport>;
    fn run_external(
        &self,
        source: &dyn DocumentSource,
        options: &ExternalOptions,
    ) -> txtfp::Result<ExternalReport>;
    /// The signature a run compares, by its scheme, into `row`.
    fn sign(&self, text: &str, scratch: &mut String, row: &mut [u64]) -> txtfp::Result<()>;
    fn token_set(&self, text: &str) -> Vec<u64>;
    fn banding(&self) -> txtfp::Result<(usize, usize)>;
    fn config_hash(&self) -> u64;
}

struct Run<T: Tokenizer, const H: usize> {
    dedup: MinHashDedup<T, H>,
    fast: Option<FastMinHashFingerprinter<T, H>>,
}

impl<T: Tokenizer + Clone + Send + Sync, const H: usize> Engine for Run<T, H> {
    fn run(&self, ids: Vec<u64>, texts: &[&str]) -> txtfp::Result<DedupReport> {
        self.dedup.run(ids.into_iter().zip(texts.iter().copied()))
    }
    fn run_external(
        &self,
        source: &dyn DocumentSource,
        options: &ExternalOptions,
    ) -> txtfp::Result<ExternalReport> {
        self.dedup.run_external(source, options)
    }
    fn sign(&self, text: &str, scratch: &mut String, row: &mut [u64]) -> txtfp::Result<()> {
        match &self.fast {
            Some(fp) => row.copy_from_slice(&fp.fingerprint_with_buffer(text, scratch)?.hashes),
            None => row.copy_from_slice(
                &self
                    .dedup
                    .fingerprinter()
                    .fingerprint_with_buffer(text, scratch)?
                    .hashes,
            ),
        }
        Ok(())
    }
    fn token_set(&self, text: &str) -> Vec<u64> {
        self.dedup.token_set(text)
    }
    fn banding(&self) -> txtfp::Result<(usize, usize)> {
        self.dedup.banding().map(|b| (b.bands, b.rows))
    }
    fn config_hash(&self) -> u64 {
        match &self.fast {
            Some(fp) => fp.config_hash(),
            None => self.dedup.fingerprinter().config_hash(),
        }
    }
}

struct Settings {
    threshold: f32,
    verification: Verification,
    empty: EmptyDocuments,
    fast: bool,
    seed: u64,
    family: HashFamily,
    record_pairs: bool,
}

/// The engine of one configuration, for [`word_tokens`].
struct Build<'a> {
    num_perm: usize,
    canon: Canonicalizer,
    settings: &'a Settings,
}

impl WithTokenizer for Build<'_> {
    type Out = Option<Box<dyn Engine>>;

    fn with<T: Tokenizer + Clone + Send + Sync + 'static>(self, tok: T) -> Self::Out {
        let Build {
            num_perm,
            canon,
            settings: s,
        } = self;
        macro_rules! pick {
            ($($h:literal)*) => {
                match num_perm {
                    $(
                        $h => {
                            let fp = MinHashFingerprinter::<T, $h>::new(canon.clone(), tok.clone())
                                .with_seed(s.seed)
                                .with_hasher(s.family);
                            let dedup = MinHashDedup::with_fingerprinter(fp)
                                .with_threshold(s.threshold)
                                .with_verification(s.verification)
                                .with_empty_documents(s.empty)
                                .with_record_pairs(s.record_pairs)
                                .with_scheme(if s.fast { MinHashScheme::Fast } else { MinHashScheme::Default });
                            let fast = s.fast.then(|| {
                                FastMinHashFingerprinter::<T, $h>::new(canon.clone(), tok.clone())
                                    .with_seed(s.seed)
                            });
                            Some(Box::new(Run { dedup, fast }) as Box<dyn Engine>)
                        }
                    )*
                    _ => None,
                }
            };
        }
        pick!(16 32 64 128 256 512)
    }
}

/// Near-duplicate detection with MinHash: the Rust engine's run, and the
/// pieces of it that `txtfp.spark` computes on the executors.
///
/// A run collapses exact copies, fingerprints the rest, pairs documents
/// that share a band bucket with the bucket's first document, verifies
/// each pair (`verification="exact"`: Jaccard of the token sets,
/// `"estimated"`: of the signatures, `"none"`), and keeps the first
/// document of each connected cluster.
#[pyclass(module = "txtfp", frozen, name = "MinHashDedup")]
pub struct PyMinHashDedup {
    engine: Box<dyn Engine>,
    threshold: f32,
    num_perm: usize,
}

#[pymethods]
impl PyMinHashDedup {
    #[new]
    #[pyo3(signature = (threshold = 0.8, *, k = 5, num_perm = 128, fast = false, verification = "exact", empty = "keep", seed = DEFAULT_SEED, hasher = "xxh3", canonicalizer = None, record_pairs = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        threshold: f32,
        k: usize,
        num_perm: usize,
        fast: bool,
        verification: &str,
        empty: &str,
        seed: u64,
        hasher: &str,
        canonicalizer: Option<&Bound<'_, PyCanonicalizer>>,
        record_pairs: bool,
    ) -> PyResult<Self> {
        let verification = match verification {
            "exact" => Verification::Exact,
            "estimated" => Verification::Estimated,
            "none" => Verification::None,
            other => {
                return Err(bad_value(format!(
                    "verification must be \"exact\", \"estimated\" or \"none\", not {other:?}"
                )));
            }
        };
        let empty = match empty {
            "keep" => EmptyDocuments::Keep,
            "drop" => EmptyDocuments::Drop,
            "error" => EmptyDocuments::Error,
            other => {
                return Err(bad_value(format!(
                    "empty must be \"keep\", \"drop\" or \"error\", not {other:?}"
                )));
            }
        };
        let family = hash_family(hasher)?;
        let s = Settings {
            threshold,
            verification,
            empty,
            fast,
            seed,
            family,
            record_pairs,
        };
        let build = Build {
            num_perm,
            canon: or_default(canonicalizer),
            settings: &s,
        };
        let engine = word_tokens(k, build)?.ok_or_else(|| {
            bad_value(format!(
                "num_perm must be one of {:?}, not {num_perm}",
                crate::minhash::NUM_PERMS
            ))
        })?;
        engine.banding().map_err(to_py)?;
        Ok(PyMinHashDedup {
            engine,
            threshold,
            num_perm,
        })
    }

    /// Deduplicates `texts` (a list of `str` or an Arrow string array); the
    /// ids are `ids` (unique non-negative integers) or the positions. Input
    /// order decides which document of a cluster is kept: the first.
    #[pyo3(signature = (texts, ids = None))]
    fn run(
        &self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        ids: Option<Vec<u64>>,
    ) -> PyResult<PyDedupReport> {
        let mut owned: Vec<String> = Vec::new();
        let mut nones = Vec::new();
        collect_texts(texts, &mut owned, &mut nones)?;
        if let Some(&i) = nones.first() {
            return Err(crate::errors::TxtfpError::new_err(format!(
                "texts[{i}]: a deduplication run needs a text for every document (None or invalid UTF-8)"
            )));
        }
        let ids: Vec<u64> = ids.unwrap_or_else(|| (0..owned.len() as u64).collect());
        if ids.len() != owned.len() {
            return Err(bad_value(format!(
                "{} ids for {} texts",
                ids.len(),
                owned.len()
            )));
        }
        let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
        let report = py.detach(|| self.engine.run(ids, &refs)).map_err(to_py)?;
        Ok(PyDedupReport { report })
    }

    /// The same run out of core: the same kept documents, `duplicate_of`
    /// and clusters as `run`, for any memory budget and thread count,
    /// holding a budgeted share of the fingerprints in memory and the rest
    /// in `work_dir`. Documents are numbered by their position in the
    /// source; the report (`ExternalReport`) streams the decisions from
    /// `work_dir`, which stays until the caller removes it.
    ///
    /// `source` is read twice, in the same order each time:
    /// - a path, a folder, a glob pattern (`"data/*.jsonl.zst"`) or a list
    ///   of them: JSONL (also `.gz` / `.zst`) and Parquet shards, read and
    ///   parsed in Rust. `text_field` names the text, `id_field` the id
    ///   (`None`: none; a record without one gets `"FILE:ROW"`). A bad
    ///   record is skipped and counted (`report.skipped`), or with
    ///   `strict=True` raises `TxtfpError`;
    /// - a zero-argument callable returning a fresh iterable of `str`, or
    ///   of `(id, str)` pairs (ids `int` or `str`; otherwise the id is the
    ///   position). The run fails with `TxtfpError` when the second pass
    ///   differs from the first; an exception raised by the iterator ends
    ///   the run and is raised as it is. `identity` is a string that
    ///   changes whenever the corpus does (a file's name and mtime, a
    ///   query and its snapshot): the work directory records it and
    ///   refuses to resume with another. Without it the run cannot resume,
    ///   and `work_dir` must be new or empty.
    ///
    /// `memory`: the budget of the run's buffers in bytes (default 1 GiB,
    /// at least 65536). `against`: a dedup index folder (`txtfp index
    /// build`, or a run with `update_index=True`); documents duplicating an
    /// indexed one are dropped, `report.indexed_duplicates` counts them.
    /// `update_index=True` then adds this run's documents to that index,
    /// creating it if the folder holds none. `threads`: as for batches.
    /// `progress`: called as `progress(stage, done, total)` on the calling
    /// thread while the run works.
    ///
    /// The same call with the same settings, source and work directory
    /// resumes after the last finished stage of an interrupted or failed
    /// run (`report.stages[i]["resumed"]`). `KeyboardInterrupt`, or an
    /// exception of `progress`, stops the run at its next batch of
    /// documents (a merge stage runs to its end first).
    #[pyo3(signature = (source, work_dir, *, memory = None, against = None, update_index = false, threads = None, text_field = "text".to_owned(), id_field = Some("id".to_owned()), strict = false, identity = None, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn run_external(
        &self,
        py: Python<'_>,
        source: &Bound<'_, PyAny>,
        work_dir: std::path::PathBuf,
        memory: Option<usize>,
        against: Option<std::path::PathBuf>,
        update_index: bool,
        threads: Option<usize>,
        text_field: String,
        id_field: Option<String>,
        strict: bool,
        identity: Option<String>,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<crate::external::PyExternalReport> {
        let args = crate::external::Args {
            work_dir,
            memory,
            against,
            update_index,
            threads,
            text_field,
            id_field,
            strict,
            identity,
            progress,
        };
        crate::external::run(py, &|s, o| self.engine.run_external(s, o), source, args)
    }

    /// `(bands, rows)` of the run's banding (its product is `num_perm`).
    #[getter]
    fn banding(&self) -> PyResult<(usize, usize)> {
        self.engine.banding().map_err(to_py)
    }

    #[getter]
    fn threshold(&self) -> f32 {
        self.threshold
    }

    #[getter]
    fn num_perm(&self) -> usize {
        self.num_perm
    }

    /// The signature configuration's hash (the scheme's fingerprinter).
    #[getter]
    fn config_hash(&self) -> u64 {
        self.engine.config_hash()
    }

    /// The per-document pieces of a run, as NumPy arrays of `n` rows:
    /// `content_key` (`uint64` `(n, 2)`: low and high halves of xxh3-128 of
    /// the raw text), `has_tokens` (`bool`), `signature` (`uint64`
    /// `(n, num_perm)`, the run's scheme; all ones without tokens) and
    /// `band_keys` (`uint64` `(n, bands)`). `None` and invalid UTF-8 values
    /// raise `TxtfpError` naming them.
    #[pyo3(signature = (texts, *, threads = None))]
    fn parts<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let threads = Threads::parse(threads)?;
        let (bands, rows) = self.engine.banding().map_err(to_py)?;
        let h = self.num_perm;
        // One row per document: 2 content-key words, a token flag, the
        // signature, the band keys.
        let width = 3 + h + bands;
        let out = batch(
            py,
            texts,
            width,
            0u64,
            Policy::Raise,
            &threads,
            |t, s, row| {
                let key = parts::content_key(t);
                let (head, rest) = row.split_at_mut(3);
                head[0] = key as u64;
                head[1] = (key >> 64) as u64;
                let (sig, keys) = rest.split_at_mut(h);
                match self.engine.sign(t, s, sig) {
                    Ok(()) => {
                        head[2] = 1;
                        keys.copy_from_slice(&parts::band_keys(sig, rows)?);
                    }
                    Err(txtfp::Error::InvalidInput(m)) if m == "empty document" => {
                        head[2] = 0;
                        sig.fill(u64::MAX);
                        keys.fill(0);
                    }
                    Err(e) => return Err(e),
                }
                Ok(())
            },
        )?;
        let n = out.n;
        let all = Array2::from_shape_vec((n, width), out.values)
            .map_err(|e| bad_value(format!("internal shape error: {e}")))?;
        let d = PyDict::new(py);
        d.set_item(
            "content_key",
            all.slice(numpy::ndarray::s![.., 0..2])
                .to_owned()
                .into_pyarray(py),
        )?;
        d.set_item(
            "has_tokens",
            PyArray1::from_iter(py, all.column(2).iter().map(|&v| v == 1)),
        )?;
        d.set_item(
            "signature",
            all.slice(numpy::ndarray::s![.., 3..3 + h])
                .to_owned()
                .into_pyarray(py),
        )?;
        d.set_item(
            "band_keys",
            all.slice(numpy::ndarray::s![.., 3 + h..])
                .to_owned()
                .into_pyarray(py),
        )?;
        Ok(d)
    }

    /// Exact Jaccard of `a[i]` and `b[i]` for every `i` (their token sets
    /// under the run's configuration), as `float32`: the similarity exact
    /// verification compares with the threshold.
    #[pyo3(signature = (a, b, *, threads = None))]
    fn exact_jaccard<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        b: &Bound<'py, PyAny>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let threads = Threads::parse(threads)?;
        let sets = |texts: &Bound<'py, PyAny>| -> PyResult<Vec<Vec<u64>>> {
            let rows = batch(
                py,
                texts,
                1,
                Vec::new(),
                Policy::Raise,
                &threads,
                |t, _, row| {
                    row[0] = self.engine.token_set(t);
                    Ok(())
                },
            )?;
            Ok(rows.values)
        };
        let (sa, sb) = (sets(a)?, sets(b)?);
        if sa.len() != sb.len() {
            return Err(bad_value(format!(
                "{} texts against {}",
                sa.len(),
                sb.len()
            )));
        }
        let j: Vec<f32> = py.detach(|| {
            sa.iter()
                .zip(&sb)
                .map(|(x, y)| parts::set_jaccard(x, y))
                .collect()
        });
        Ok(PyArray1::from_vec(py, j))
    }

    fn __repr__(&self) -> String {
        format!(
            "MinHashDedup(threshold={}, num_perm={}, banding={:?})",
            self.threshold,
            self.num_perm,
            self.engine.banding().ok()
        )
    }
}

/// The texts of `texts` as owned strings; the indices of `None` and invalid
/// values go to `nones`.
fn collect_texts(
    texts: &Bound<'_, PyAny>,
    out: &mut Vec<String>,
    nones: &mut Vec<usize>,
) -> PyResult<()> {
    let mut take = |first: usize, docs: &[Doc<'_>]| {
        for (i, d) in docs.iter().enumerate() {
            match d {
                Doc::Text(t) => out.push((*t).to_owned()),
                _ => {
                    nones.push(first + i);
                    out.push(String::new());
                }
            }
        }
    };
    match RoundReader::new(texts)? {
        Some(mut reader) => {
            while let Some(round) = reader.next_round()? {
                take(round.first, &round.docs());
            }
        }
        None => {
            let mut first = 0;
            for chunk in arrow_chunks(texts)? {
                let mut docs = Vec::new();
                arrow_docs(&chunk, &mut docs);
                take(first, &docs);
                first += docs.len();
            }
        }
    }
    Ok(())
}

/// What a run decided: per document (`ids`, `keep`, `duplicate_of`,
/// `similarity`, `cluster`, `empty`, all NumPy arrays in input order), the
/// `clusters`, the verified `pairs` (when recorded) and the `stats`.
#[pyclass(module = "txtfp", frozen, name = "DedupReport")]
pub struct PyDedupReport {
    report: DedupReport,
}

#[pymethods]
impl PyDedupReport {
    /// The documents' ids (`uint64`).
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_iter(py, self.report.decisions.iter().map(|d| d.id))
    }

    /// Whether each document is kept (`bool`).
    #[getter]
    fn keep<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_iter(py, self.report.decisions.iter().map(|d| d.keep))
    }

    /// The kept document each dropped one duplicates (`int64`, `-1` for
    /// none; ids at or above 2**63 are not supported here).
    #[getter]
    fn duplicate_of<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_iter(
            py,
            self.report
                .decisions
                .iter()
                .map(|d| d.duplicate_of.map_or(-1, |x| x as i64)),
        )
    }

    /// Jaccard similarity to `duplicate_of` (`float32`, NaN for none).
    #[getter]
    fn similarity<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_iter(
            py,
            self.report.decisions.iter().map(|d| {
                d.similarity
                    .and_then(Similarity::jaccard)
                    .unwrap_or(f32::NAN)
            }),
        )
    }

    /// Index of the document's cluster in `clusters` (`int64`, `-1` for
    /// none).
    #[getter]
    fn cluster<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_iter(
            py,
            self.report
                .decisions
                .iter()
                .map(|d| d.cluster.map_or(-1, |c| c as i64)),
        )
    }

    /// Whether the document had no token (`bool`).
    #[getter]
    fn empty<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_iter(py, self.report.decisions.iter().map(|d| d.empty))
    }

    /// The clusters of two or more documents, as `(kept, members)` tuples
    /// with the members in input order.
    #[getter]
    fn clusters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            self.report
                .clusters
                .iter()
                .map(|c| (c.kept, c.members.clone())),
        )
    }

    /// The verified pairs `(a, b, jaccard)` the clusters were built from
    /// (empty unless the run had `record_pairs=True`).
    #[getter]
    fn pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            self.report
                .pairs
                .iter()
                .map(|p| (p.a, p.b, p.similarity.jaccard().unwrap_or(f32::NAN))),
        )
    }

    /// Counts: documents, kept, dropped, empty, clusters, candidate_pairs,
    /// compared_pairs, verified_pairs.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        stats_dict(py, &self.report.stats)
    }

    /// The ids of the kept documents, in input order (`uint64`).
    fn kept_ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_iter(py, self.report.kept_ids())
    }

    /// The ids of the dropped documents, in input order (`uint64`).
    fn dropped_ids<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_iter(py, self.report.dropped_ids())
    }

    fn __len__(&self) -> usize {
        self.report.decisions.len()
    }

    fn __repr__(&self) -> String {
        let s = &self.report.stats;
        format!(
            "DedupReport(documents={}, kept={}, dropped={}, clusters={})",
            s.documents, s.kept, s.dropped, s.clusters
        )
    }
}

/// A run's counts as a dict, for the in-memory and the out-of-core report.
pub(crate) fn stats_dict<'py>(py: Python<'py>, s: &DedupStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("documents", s.documents)?;
    d.set_item("kept", s.kept)?;
    d.set_item("dropped", s.dropped)?;
    d.set_item("empty", s.empty)?;
    d.set_item("clusters", s.clusters)?;
    d.set_item("candidate_pairs", s.candidate_pairs)?;
    d.set_item("compared_pairs", s.compared_pairs)?;
    d.set_item("verified_pairs", s.verified_pairs)?;
    Ok(d)
}
