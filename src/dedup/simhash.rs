//! [`SimHashDedup`]: 64-bit SimHash signatures, a [`SimHashIndex`],
//! verification by Hamming distance.

use alloc::format;
use alloc::vec::Vec;

use hashbrown::HashMap;

use super::engine::{self, Links, map_range};
use super::{DedupReport, EmptyDocuments, Similarity};
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
/// (no S-curve losses); each is checked again before it counts. Copies of
/// one text and documents with one signature value are linked without the
/// index (see the [module documentation](super)).
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

    /// Whether to list the pairs that linked the clusters in
    /// [`DedupReport::pairs`] (default `false`): the exact copies and equal
    /// signatures with their first occurrence, and every pair of distinct
    /// signature values within `k` (see the [module documentation](super)).
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

    /// What happens to documents without a token.
    pub fn empty_documents(&self) -> EmptyDocuments {
        self.empty
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
        X: CandidateIndex,
        S: AsRef<str> + Sync,
        K: Ord,
        P: FnMut(usize) -> K,
    {
        self.check()?;
        self.fp.canonicalizer().check()?;
        self.fp.tokenizer().validate()?;
        let contents = engine::collapse_contents(texts);
        let mut sigs: Vec<SimHash64> = Vec::with_capacity(contents.unique.len());
        let fps = engine::fingerprint_unique(
            ids,
            texts,
            &contents,
            self.empty,
            &self.fp,
            |sig| sig,
            |sig| sigs.push(sig),
        )?;
        let live = &fps.live;
        let mut links = Links::new(ids.len(), self.record_pairs);
        links.link_copies(&contents, &fps.present, Similarity::Hamming(0));

        // Value collapse: one document per signature value goes into the
        // index; the others are linked to it at distance 0.
        let mut first_with: HashMap<u64, u32> = HashMap::with_capacity(sigs.len());
        let mut values: Vec<u32> = Vec::new();
        for (d, &sig) in sigs.iter().enumerate() {
            let f = *first_with.entry(sig.0).or_insert(d as u32);
            if f as usize == d {
                values.push(d as u32);
            } else {
                links.collapsed(live[f as usize], live[d], Similarity::Hamming(0));
            }
        }
        drop(first_with);
        index.insert_batch(
            values
                .iter()
                .map(|&d| (u64::from(live[d as usize]), sigs[d as usize]))
                .collect(),
        )?;

        // Every pair of distinct values within `k`, found by its later
        // document; rounds bound the candidates held at once.
        let sig_at = |pos: u64| -> Option<SimHash64> {
            let pos = u32::try_from(pos).ok()?;
            Some(sigs[fps.dense(pos)?])
        };
        for round in values.chunks(engine::ROUND) {
            let found = map_range(
                0..round.len(),
                || (),
                |j, _| {
                    let d = round[j] as usize;
                    let (pos, sig) = (live[d], sigs[d]);
                    let mut candidates = 0;
                    let mut edges = Vec::new();
                    for c in index.candidates(&sig) {
                        if c >= u64::from(pos) {
                            continue;
                        }
                        let Some(other) = sig_at(c) else { continue };
                        candidates += 1;
                        let dist = hamming(other, sig);
                        if dist <= self.max_distance {
                            edges.push((c as u32, Similarity::Hamming(dist)));
                        }
                    }
                    (pos, candidates, edges)
                },
            );
            for (pos, candidates, edges) in found {
                links.compared(candidates);
                for (c, sim) in edges {
                    links.verified(c, pos, sim);
                }
            }
        }

        let grouping = engine::group(&links, ids.len(), priority);
        let first = &contents.first;
        Ok(engine::report(
            ids,
            &fps.present,
            self.empty,
            links,
            grouping,
            || (),
            |doc, kept, _| {
                let a = sig_at(u64::from(first[doc as usize]))?;
                let b = sig_at(u64::from(first[kept as usize]))?;
                Some(Similarity::Hamming(hamming(a, b)))
            },
        ))
    }

    /// Rejects `k > 64`.
    pub(crate) fn check(&self) -> Result<()> {
        if self.max_distance > MAX_DISTANCE {
            return Err(Error::Config(format!(
                "SimHash max distance must be at most {MAX_DISTANCE}; got {}",
                self.max_distance
            )));
        }
        Ok(())
    }
}

/// An index that proposes candidate pairs. Signatures are inserted under
/// their input position; [`candidates`](Self::candidates) returns positions
/// without repeats, in any order, possibly including the probe itself, and
/// must include every stored signature within the run's distance (a run
/// checks the distance of each again).
pub(crate) trait CandidateIndex: Sync {
    /// Adds `(position, signature)` pairs, positions fresh and ascending.
    fn insert_batch(&mut self, docs: Vec<(u64, SimHash64)>) -> Result<()>;
    /// Positions of the documents that may be near `sig`.
    fn candidates(&self, sig: &SimHash64) -> Vec<u64>;
}

impl CandidateIndex for SimHashIndex {
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
