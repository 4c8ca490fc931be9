//! [`SimHashDedup`]: 64-bit SimHash signatures, a [`SimHashIndex`],
//! verification by Hamming distance.

use alloc::format;
use alloc::vec::Vec;

use super::engine;
use super::{CandidateIndex, DedupReport, EmptyDocuments, Similarity, Verifier};
use crate::{
    Canonicalizer, Error, Result, SimHash64, SimHashFingerprinter, SimHashIndex, Tokenizer,
    WordTokenizer, hamming,
};

/// Largest Hamming distance a [`SimHashDedup`] accepts: beyond 64 every pair
/// would match.
const MAX_DISTANCE: u32 = 64;

/// Near-duplicate removal with SimHash: documents whose 64-bit signatures
/// differ in at most `k` bits are duplicates. Candidates come from a
/// [`SimHashIndex`] of radius `k`, which finds every pair within `k` bits
/// (no S-curve losses); each is checked again before it counts.
///
/// The defaults: `k = 3`; the default [`Canonicalizer`], words and
/// [`Weighting::Tf`](crate::Weighting::Tf) (`SimHashFingerprinter::new`);
/// empty documents are an error; pairs are not recorded.
///
/// ```
/// use txtfp::dedup::{SimHashDedup, Similarity};
/// let docs = [
///     (1, "the committee approved the annual budget after a long debate about road repairs"),
///     (2, "The committee approved the annual budget after a long debate about road repairs."),
///     (3, "a recipe for bread needs flour, water, salt, yeast and a warm place to rise"),
/// ];
/// let report = SimHashDedup::new().run(docs)?;
/// assert_eq!(report.kept_ids().collect::<Vec<_>>(), [1, 3]);
/// assert_eq!(report.decisions[1].similarity, Some(Similarity::Hamming(0)));
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SimHashDedup<T: Tokenizer = WordTokenizer> {
    fp: SimHashFingerprinter<T>,
    max_distance: u32,
    empty: EmptyDocuments,
    record_pairs: bool,
    pub(super) scan_chunk: usize,
}

impl SimHashDedup {
    /// The default configuration (see the type's documentation).
    pub fn new() -> Self {
        Self::with_fingerprinter(SimHashFingerprinter::new(
            Canonicalizer::default(),
            WordTokenizer,
        ))
    }
}

impl Default for SimHashDedup {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Tokenizer> SimHashDedup<T> {
    /// Default settings around your own fingerprinter.
    pub fn with_fingerprinter(fp: SimHashFingerprinter<T>) -> Self {
        Self {
            fp,
            max_distance: 3,
            empty: EmptyDocuments::Error,
            record_pairs: false,
            scan_chunk: engine::SCAN_CHUNK,
        }
    }

    /// Pairs at Hamming distance `k` or less are duplicates (default 3).
    /// Checked when a run starts: [`SimHashIndex::with_max_distance`]
    /// accepts up to [`MAX_AUTO_DISTANCE`](crate::lsh::MAX_AUTO_DISTANCE) (7).
    #[must_use]
    pub fn with_max_distance(mut self, k: u32) -> Self {
        self.max_distance = k;
        self
    }

    /// What to do with documents that yield no token (default
    /// [`EmptyDocuments::Error`]).
    #[must_use]
    pub fn with_empty_documents(mut self, empty: EmptyDocuments) -> Self {
        self.empty = empty;
        self
    }

    /// Whether to list every verified pair in [`DedupReport::pairs`]
    /// (default `false`; see [`MinHashDedup::with_record_pairs`](super::MinHashDedup::with_record_pairs)).
    #[must_use]
    pub fn with_record_pairs(mut self, record: bool) -> Self {
        self.record_pairs = record;
        self
    }

    /// The fingerprinter.
    pub fn fingerprinter(&self) -> &SimHashFingerprinter<T> {
        &self.fp
    }

    /// The largest Hamming distance of a duplicate pair.
    pub fn max_distance(&self) -> u32 {
        self.max_distance
    }

    /// Deduplicates `(id, text)` items, keeping the first document of each
    /// cluster in input order.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] naming the id when an id occurs twice or
    /// (under [`EmptyDocuments::Error`]) a document has no token;
    /// [`Error::Config`] for a distance the index does not support; the
    /// fingerprinter's configuration errors.
    pub fn run<I, S>(&self, items: I) -> Result<DedupReport>
    where
        I: IntoIterator<Item = (u64, S)>,
        S: AsRef<str> + Sync,
    {
        let index = self.index()?;
        let (ids, texts) = engine::collect_items(items)?;
        self.execute(index, &ids, &texts, None::<fn(usize) -> u8>)
    }

    /// [`run`](Self::run), keeping in each cluster the document with the
    /// largest `priority(id, text)`; ties go to the earliest in input order.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run).
    pub fn run_by_priority<I, S, K, F>(&self, items: I, mut priority: F) -> Result<DedupReport>
    where
        I: IntoIterator<Item = (u64, S)>,
        S: AsRef<str> + Sync,
        K: Ord,
        F: FnMut(u64, &str) -> K,
    {
        let index = self.index()?;
        let (ids, texts) = engine::collect_items(items)?;
        let key = |pos: usize| priority(ids[pos], texts[pos].as_ref());
        self.execute(index, &ids, &texts, Some(key))
    }

    /// [`run`](Self::run) with each text's position in `texts` as its id.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run), minus the repeated-id case.
    pub fn run_texts<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Result<DedupReport> {
        let index = self.index()?;
        engine::check_count(texts.len())?;
        let ids: Vec<u64> = (0..texts.len() as u64).collect();
        self.execute(index, &ids, texts, None::<fn(usize) -> u8>)
    }

    /// An empty index of this run's radius.
    fn index(&self) -> Result<SimHashIndex> {
        self.check()?;
        SimHashIndex::with_max_distance(self.max_distance)
    }

    /// Runs with `index` as the candidate finder; `priority` as in
    /// [`MinHashDedup::run_by_priority`](super::MinHashDedup::run_by_priority).
    pub(crate) fn execute<X, S, K, P>(
        &self,
        mut index: X,
        ids: &[u64],
        texts: &[S],
        priority: Option<P>,
    ) -> Result<DedupReport>
    where
        X: CandidateIndex<SimHash64>,
        S: AsRef<str> + Sync,
        K: Ord,
        P: FnMut(usize) -> K,
    {
        self.check()?;
        self.fp.canonicalizer().check()?;
        self.fp.tokenizer().validate()?;
        let sigs = engine::fingerprint_all(ids, texts, self.empty, &self.fp)?;
        engine::index_all(&mut index, &sigs)?;
        let present: Vec<bool> = sigs.iter().map(Option::is_some).collect();
        let verifier = HammingVerifier {
            sigs: &sigs,
            k: self.max_distance,
        };
        let links = engine::link(&sigs, &index, &verifier, self.record_pairs, self.scan_chunk);
        Ok(engine::decide(
            ids, &present, self.empty, links, &verifier, priority,
        ))
    }

    /// Rejects `k > 64`.
    fn check(&self) -> Result<()> {
        if self.max_distance > MAX_DISTANCE {
            return Err(Error::Config(format!(
                "SimHash max distance must be at most {MAX_DISTANCE}; got {}",
                self.max_distance
            )));
        }
        Ok(())
    }
}

impl CandidateIndex<SimHash64> for SimHashIndex {
    fn insert_batch(&mut self, docs: Vec<(u64, SimHash64)>) -> Result<()> {
        #[cfg(feature = "parallel")]
        {
            self.try_extend_par(docs)
        }
        #[cfg(not(feature = "parallel"))]
        {
            self.try_extend(docs)
        }
    }

    fn candidates(&self, sig: &SimHash64) -> Vec<u64> {
        self.query(sig)
    }
}

/// Hamming distance at most `k`.
struct HammingVerifier<'a> {
    sigs: &'a [Option<SimHash64>],
    k: u32,
}

impl Verifier for HammingVerifier<'_> {
    fn verify(&self, a: usize, b: usize) -> Option<Similarity> {
        let d = self.distance(a, b)?;
        (d <= self.k).then_some(Similarity::Hamming(d))
    }

    fn similarity(&self, a: usize, b: usize) -> Option<Similarity> {
        self.distance(a, b).map(Similarity::Hamming)
    }
}

impl HammingVerifier<'_> {
    fn distance(&self, a: usize, b: usize) -> Option<u32> {
        Some(hamming(self.sigs[a]?, self.sigs[b]?))
    }
}
