//! Out-of-core deduplication: corpora larger than memory, in bounded memory,
//! resumable after a kill.
//!
//! [`MinHashDedup::run_external`] gives the clusters
//! [`MinHashDedup::run`](super::MinHashDedup::run) gives, for any memory
//! budget and thread count, while holding only a budgeted share of the
//! corpus's fingerprints in memory. It reads the corpus twice through a
//! [`DocumentSource`] and keeps everything else in a work directory:
//!
//! 1. **sketch**: every document is fingerprinted on the thread pool; its
//!    content key (XXH3-128 of the text) and its band keys are buffered and
//!    written as sorted runs whenever the buffer reaches its share of the
//!    budget; ids go to an id file.
//! 2. **pairs**: the content runs are merged (exact copies link to the first
//!    copy), then each band's runs are merged on its own thread; every
//!    bucket gives the pairs (representative, member), the representative
//!    being its smallest position, never all pairs of a bucket. The pairs
//!    are written as runs sorted by their later document.
//! 3. **verify**: a second pass over the corpus computes the token sets (or,
//!    for estimated verification, the signatures) of the documents in
//!    candidate pairs only, parks the representatives' on disk, and checks
//!    each pair as its later document goes by.
//! 4. **cluster**: union-find over the verified links, by smallest position,
//!    so every cluster's root is the document it keeps; the result does not
//!    depend on the order of the links, hence not on threads or budget.
//!
//! [`SimHashDedup::run_external`](crate::dedup::SimHashDedup::run_external)
//! runs the same stages for SimHash, giving the clusters of
//! [`SimHashDedup::run_texts`](crate::dedup::SimHashDedup::run_texts): the
//! sketch spills each signature; **pairs** links equal signatures as it
//! links exact copies, leaving one document per signature value; **verify**
//! sorts those values once per table of the radius's
//! [`SimHashLayout`](crate::lsh::SimHashLayout) and links every pair of a
//! table's group within `k` bits, each pair in the first table that
//! proposes it. Nothing is read twice: the distance needs only the
//! signatures.
//!
//! A run [`against`](ExternalOptions::against) a [`DedupIndex`] also looks
//! every content key and band key up in the index during **pairs**, verifies
//! the pairs with indexed documents during **verify** (a SimHash run looks
//! its texts and signatures up during **pairs** and each table's groups
//! during **verify**), and lets a cluster that reaches the index drop all
//! its members during **cluster**; with
//! [`update_index`](ExternalOptions::update_index) a fifth stage, **index**,
//! adds the run's documents to the index.
//!
//! Each stage ends with a marker file; a run started again with the same
//! settings, input and work directory skips the finished stages. The report
//! streams the decisions from the work directory in input order.
//!
//! ```
//! use txtfp::dedup::MinHashDedup;
//! use txtfp::dedup::external::{ExternalOptions, TextSource};
//! let texts = [
//!     "the quick brown fox jumps over the lazy dog near the river bank today",
//!     "an entirely different document about astronomy and distant galaxies",
//!     "The quick brown fox jumps over the lazy dog near the river bank today!",
//! ];
//! let dir = std::env::temp_dir().join(format!("txtfp-doc-external-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! let report = MinHashDedup::new()
//!     .run_external(&TextSource::new(&texts), &ExternalOptions::new(&dir))?;
//! let kept: Vec<u64> = report
//!     .decisions()?
//!     .filter_map(|d| d.map(|d| d.keep.then_some(d.position)).transpose())
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(kept, [0, 1]);
//! assert_eq!(report.stats.dropped, 1);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cluster;
#[cfg(feature = "corpus")]
mod corpus_source;
mod index;
mod pairs;
mod records;
mod report;
mod runs;
mod simhash;
mod sketch;
mod source;
mod verify;
mod workdir;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[cfg(feature = "corpus")]
pub use corpus_source::{CorpusSource, MAX_LISTED_SKIPS, SkipLog};
pub use index::{DedupIndex, IndexIds};
pub use report::{
    Decisions, DuplicateIds, ExternalCluster, ExternalDecision, ExternalReport, Ids, IndexedMatch,
    StageReport,
};
pub use source::{DocumentSource, SourceDoc, TextSource};

use super::{DedupStats, MinHashDedup, MinHashScheme};
use crate::classical::FingerprintBatch;
use crate::classical::minhash::{FastMinHashFingerprinter, Scheme};
use crate::{MinHashSig, Result, Tokenizer};
use workdir::WorkDir;

/// The default memory budget: 1 GiB.
pub const DEFAULT_MEMORY: usize = 1 << 30;

/// Smallest budget accepted (64 KiB): below it the runs get so small that
/// merging them costs more than it saves.
pub const MIN_MEMORY: usize = 64 << 10;

/// The stage that adds a run's documents to its index.
const INDEX_STAGE: &str = "index";

/// The index a run uses, and whether it adds its documents to it.
pub(crate) struct IndexUse {
    pub(crate) index: index::DedupIndex,
    pub(crate) update: bool,
}

impl IndexUse {
    /// Opens the index `options` name, if any, for a run whose fingerprint
    /// and key settings are `settings` with `tables` key tables (bands).
    fn open(options: &ExternalOptions, settings: &str, tables: usize) -> Result<Option<Self>> {
        let Some(dir) = &options.against else {
            return Ok(None);
        };
        let index = index::DedupIndex::open_for_run(dir, settings, tables, options.update_index)?;
        if index.settings() != settings {
            return Err(crate::Error::InvalidInput(format!(
                "{}: the index was built with other settings ({}) than this run's ({})",
                dir.display(),
                index.settings(),
                settings
            )));
        }
        Ok(Some(Self {
            index,
            update: options.update_index,
        }))
    }

    /// The line of the work directory's identity that names the index.
    fn identity(&self) -> String {
        format!(
            "index {:016x} {} update {}\n",
            self.index.meta().uid,
            self.index.dir().display(),
            self.update
        )
    }

    /// Refuses to go on when the index changed since the pairs stage looked
    /// keys up in it, unless the change is this run's own update.
    fn check_unchanged(&self, work: &WorkDir, pr: &pairs::Pairs) -> Result<()> {
        let meta = self.index.meta();
        let ours = meta.generation == pr.index_generation + 1
            && meta.updated_by == pr.token
            && work.marker(cluster::STAGE)?.is_some();
        if meta.generation != pr.index_generation && !ours {
            return Err(index::update::changed(
                self.index.dir(),
                pr.index_generation,
                meta.generation,
            ));
        }
        Ok(())
    }

    /// The index stage of a run that updates its index: adds the run's
    /// documents, their new keys (`newkeys-BBB-*.run` in `keys_dir`) and
    /// the texts of `texts_dir`; returns how many documents it added.
    fn add_run(
        index: Option<&Self>,
        stages: &mut Stages<'_>,
        work: &WorkDir,
        sk: &sketch::Sketch,
        pr: &pairs::Pairs,
        keys_dir: &Path,
        texts_dir: Option<&Path>,
    ) -> Result<u64> {
        let Some(i) = index.filter(|i| i.update) else {
            return Ok(0);
        };
        stages.run(INDEX_STAGE, || match work.marker(INDEX_STAGE)? {
            Some(summary) => Ok((sketch::summary_value(&summary, "added")?, true)),
            None => {
                let added = index::update::apply(
                    &i.index,
                    pr.index_generation,
                    pr.token,
                    &index::update::NewDocs {
                        documents: sk.documents,
                        sketch_dir: &sk.dir,
                        pairs_dir: &pr.dir,
                        keys_dir,
                        texts_dir,
                    },
                )?;
                work.finish(INDEX_STAGE, &format!("added {added}\n"))?;
                Ok((added, false))
            }
        })
    }
}

/// What a progress callback is told: a stage, and how far it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageProgress {
    /// `"sketch"`, `"pairs"`, `"verify"`, `"cluster"` or `"index"`.
    pub stage: &'static str,
    /// Work done: input bytes for the passes over the corpus, records for
    /// the merges.
    pub done: u64,
    /// Work in all, `0` when not known.
    pub total: u64,
}

/// A progress callback.
pub type ProgressFn = Arc<dyn Fn(StageProgress) + Send + Sync>;

/// Where and within what memory an out-of-core run works.
#[derive(Clone)]
pub struct ExternalOptions {
    work_dir: PathBuf,
    memory: usize,
    progress: Option<ProgressFn>,
    against: Option<PathBuf>,
    update_index: bool,
}

impl core::fmt::Debug for ExternalOptions {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ExternalOptions")
            .field("work_dir", &self.work_dir)
            .field("memory", &self.memory)
            .field("progress", &self.progress.is_some())
            .field("against", &self.against)
            .field("update_index", &self.update_index)
            .finish()
    }
}

impl ExternalOptions {
    /// A run in `work_dir` (created if missing) with [`DEFAULT_MEMORY`].
    pub fn new(work_dir: impl AsRef<Path>) -> Self {
        Self {
            work_dir: work_dir.as_ref().to_path_buf(),
            memory: DEFAULT_MEMORY,
            progress: None,
            against: None,
            update_index: false,
        }
    }

    /// Dedups against the [`DedupIndex`] in `dir`: a document that
    /// duplicates an indexed one (the two would be in one cluster had the
    /// indexed corpus and this one been deduplicated together, indexed
    /// first) is dropped, and its decision names the indexed document in
    /// [`ExternalDecision::indexed`]. The run's own documents are decided
    /// exactly as in that one run over both corpora: deduplicating `A` with
    /// [`update_index`](Self::update_index), then `B` against the index,
    /// keeps the `B` documents that deduplicating `A` then `B` together
    /// keeps. The index's settings must be the run's: method, fingerprinter
    /// and, for MinHash, scheme and banding (threshold and verification may
    /// differ), for SimHash, the radius.
    #[must_use]
    pub fn against(mut self, dir: impl AsRef<Path>) -> Self {
        self.against = Some(dir.as_ref().to_path_buf());
        self
    }

    /// After the run, adds its documents (all but exact copies and empty
    /// ones) to the index given to [`against`](Self::against), creating it
    /// when the directory holds none. Indexing every document, not only
    /// the kept ones, is what keeps a chain of runs `A`, `B`, `C`… equal to
    /// one run over their concatenation.
    #[must_use]
    pub fn update_index(mut self, yes: bool) -> Self {
        self.update_index = yes;
        self
    }

    /// The index the run is deduplicated against, if any.
    pub fn index_dir(&self) -> Option<&Path> {
        self.against.as_deref()
    }

    /// The memory budget in bytes, at least [`MIN_MEMORY`]. It bounds the
    /// buffers of the stages (sorted runs, pair lists); the clustering
    /// stage also holds 4 bytes per document (8 in a run against an index,
    /// whose update holds 4 more), the verification stage 16 bytes per
    /// representative document and a bit per document, and the source holds
    /// its own read-ahead.
    #[must_use]
    pub fn with_memory(mut self, bytes: usize) -> Self {
        self.memory = bytes.max(MIN_MEMORY);
        self
    }

    /// Calls `f` as each stage advances (from worker threads too).
    #[must_use]
    pub fn with_progress(mut self, f: ProgressFn) -> Self {
        self.progress = Some(f);
        self
    }

    /// The work directory.
    pub fn work_dir(&self) -> &Path {
        &self.work_dir
    }

    /// The memory budget in bytes.
    pub fn memory(&self) -> usize {
        self.memory
    }

    pub(crate) fn report(&self, stage: &'static str, done: u64, total: u64) {
        if let Some(p) = &self.progress {
            p(StageProgress { stage, done, total });
        }
    }
}

/// The stages of a run as they finish: their times, peak memory and the
/// work directory's size after each.
struct Stages<'a> {
    work: &'a WorkDir,
    done: Vec<StageReport>,
}

impl<'a> Stages<'a> {
    fn new(work: &'a WorkDir) -> Self {
        workdir::reset_peak_rss();
        Self {
            work,
            done: Vec::with_capacity(5),
        }
    }

    /// Runs (or resumes) the stage `name`: `f` returns its result and
    /// whether it was read from the stage's marker. An I/O error is named
    /// by the stage.
    fn run<T>(&mut self, name: &'static str, f: impl FnOnce() -> Result<(T, bool)>) -> Result<T> {
        let start = Instant::now();
        let (out, resumed) = f().map_err(|e| in_stage(name, e))?;
        self.done.push(StageReport {
            name,
            seconds: start.elapsed().as_secs_f64(),
            resumed,
            peak_rss: workdir::peak_rss(),
            work_dir_bytes: self.work.size(),
        });
        workdir::reset_peak_rss();
        Ok(out)
    }

    /// The report of the finished run.
    fn report(
        self,
        sk: &sketch::Sketch,
        cr: &cluster::Clustered,
        counts: &Counts,
        empty: super::EmptyDocuments,
    ) -> ExternalReport {
        let empty_dropped = if empty == super::EmptyDocuments::Drop {
            sk.empty
        } else {
            0
        };
        let stats = DedupStats {
            documents: sk.documents as usize,
            kept: (sk.documents - cr.dropped - empty_dropped) as usize,
            dropped: (cr.dropped + empty_dropped) as usize,
            clusters: cr.clusters as usize,
            empty: sk.empty as usize,
            candidate_pairs: counts.candidates + counts.copies,
            compared_pairs: counts.candidates + counts.copies,
            verified_pairs: counts.verified + counts.copies,
        };
        let mut report = ExternalReport::new(
            self.work.root().to_path_buf(),
            sk.documents,
            sk.bytes,
            empty,
            stats,
            self.done,
        );
        report.indexed_duplicates = cr.indexed;
        report
    }
}

/// The pair counts of a run: links by collapse (equal texts, or equal
/// signatures), then the candidate pairs compared and those verified.
struct Counts {
    copies: u64,
    candidates: u64,
    verified: u64,
}

/// Names the stage an I/O error happened in (its kind is kept, so a full
/// disk stays `StorageFull`): the message then tells which work the
/// resumed run will redo.
fn in_stage(stage: &str, e: crate::Error) -> crate::Error {
    match e {
        crate::Error::Io(io) => crate::Error::Io(std::io::Error::new(
            io.kind(),
            format!("{stage} stage: {io}"),
        )),
        other => other,
    }
}

impl<T: Tokenizer + Sync, const H: usize> MinHashDedup<T, H> {
    /// [`run_texts`](Self::run_texts) for a corpus read from `source`
    /// through a work directory, in the memory `options` allow: the same
    /// clusters, kept documents and `duplicate_of` for any budget and thread
    /// count (see the [module documentation](self::super::external)).
    /// Documents are numbered by their position in the source. The kept
    /// document of a cluster is its first; [`run_by_priority`](Self::run_by_priority)
    /// has no out-of-core form, and pairs are not recorded. A document's
    /// similarity in the report is that of its best verified link (the
    /// in-memory report gives the similarity to the kept document).
    ///
    /// Started again after an interruption with the same settings, source
    /// and work directory, the run resumes after the last finished stage.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run) for settings and documents (a document is named
    /// by its position and id); [`Error::Io`](crate::Error::Io) naming the
    /// file for a failing read or write (a full disk included: the work
    /// directory stays resumable); [`Error::InvalidInput`](crate::Error::InvalidInput)
    /// when the work directory holds another run or a source's second pass
    /// differs from its first; [`Error::Corrupt`](crate::Error::Corrupt) for
    /// damaged work files.
    pub fn run_external<D: DocumentSource + ?Sized>(
        &self,
        source: &D,
        options: &ExternalOptions,
    ) -> Result<ExternalReport> {
        let banding = self.banding()?;
        self.fingerprinter().canonicalizer().check()?;
        self.fingerprinter().tokenizer().validate()?;
        let fp = self.fingerprinter();
        match self.scheme() {
            MinHashScheme::Default => self.external_with(fp, banding, source, options),
            MinHashScheme::Fast => {
                let fast = FastMinHashFingerprinter::<&T, H>::new(
                    fp.canonicalizer().clone(),
                    fp.tokenizer(),
                )
                .with_seed(fp.seed());
                self.external_with(&fast, banding, source, options)
            }
        }
    }

    fn external_with<F, S, D>(
        &self,
        fp: &F,
        banding: crate::LshIndexBuilder,
        source: &D,
        options: &ExternalOptions,
    ) -> Result<ExternalReport>
    where
        F: FingerprintBatch<Output = MinHashSig<H, S>> + Sync,
        S: Scheme,
        D: DocumentSource + ?Sized,
    {
        let identity = format!(
            "txtfp external dedup 1\nconfig {:016x} scheme {:?} H {H} bands {} rows {} \
             threshold {} verification {:?} empty {:?}\ninput {}\n",
            self.fingerprinter().config_hash(),
            self.scheme(),
            banding.bands,
            banding.rows,
            self.threshold(),
            self.verification(),
            self.empty_documents(),
            source.identity()
        );
        let settings = format!(
            "config {:016x} scheme {:?} H {H} bands {} rows {}",
            self.fingerprinter().config_hash(),
            self.scheme(),
            banding.bands,
            banding.rows
        );
        let index = IndexUse::open(options, &settings, banding.bands)?;
        let mut identity = identity;
        if let Some(i) = &index {
            identity.push_str(&i.identity());
        }
        let work = WorkDir::open(options.work_dir(), &identity)?;
        let mut stages = Stages::new(&work);
        let keys = sketch::BandKeys {
            fp,
            bands: banding.bands,
            rows: banding.rows,
        };
        let sk = stages.run(sketch::STAGE, || {
            sketch::run(&work, &keys, self.empty_documents(), source, options)
        })?;
        let pr = stages.run(pairs::STAGE, || {
            pairs::run(&work, &sk, banding.bands, index.as_ref(), options)
        })?;
        if let Some(i) = &index {
            i.check_unchanged(&work, &pr)?;
        }
        let ctx = verify::Context {
            dedup: self,
            fp,
            source,
            options,
            index: index.as_ref(),
        };
        let vr = stages.run(verify::STAGE, || verify::run(&work, &sk, &pr, &ctx))?;
        let cr = stages.run(cluster::STAGE, || {
            cluster::run(&work, &sk, &pr, &vr, index.is_some(), options)
        })?;

        let index_added = IndexUse::add_run(
            index.as_ref(),
            &mut stages,
            &work,
            &sk,
            &pr,
            &pr.dir,
            Some(&vr.dir),
        )?;
        let counts = Counts {
            copies: pr.copies,
            candidates: vr.candidates,
            verified: vr.verified,
        };
        let mut report = stages.report(&sk, &cr, &counts, self.empty_documents());
        report.index_added = index_added;
        Ok(report)
    }
}
