//! [`MinHashDedup`]: MinHash signatures, a banded [`LshCandidateIndex`], verification
//! by estimated or exact Jaccard.

use alloc::string::String;
use alloc::vec::Vec;

use super::banding::{check_threshold, default_banding};
use super::engine::{self, map_range};
use super::exact::{ExactVerifier, SetMaker};
use super::{
    CandidateIndex, DedupReport, EmptyDocuments, MinHashScheme, Similarity, Verification, Verifier,
};
use crate::classical::minhash::Scheme;
use crate::{
    Canonicalizer, LshCandidateIndex, LshIndexBuilder, MinHashFingerprinter, MinHashSig, Result,
    ShingleTokenizer, Tokenizer, WordTokenizer, classical::minhash::FastMinHashFingerprinter,
};

/// Near-duplicate removal with MinHash: fingerprint every document, find
/// candidate pairs through an [`LshCandidateIndex`](crate::LshCandidateIndex), verify them against the Jaccard
/// threshold, and keep one document per cluster.
///
/// The defaults: threshold 0.8; the default [`Canonicalizer`], word
/// 5-shingles and 128 XXH3 slots (`MinHashFingerprinter::<_, 128>::new`);
/// the banding [`LshIndexBuilder::for_recall`] picks for recall
/// [`DEFAULT_RECALL`](super::DEFAULT_RECALL) (32 bands × 4 rows at 0.8);
/// verification by the exact Jaccard of the token sets
/// ([`Verification::Exact`]); empty documents are an error; pairs are not
/// recorded; [`MinHashScheme::Default`]. The `with_*` methods change one
/// setting each and are checked when a run starts.
///
/// ```
/// use txtfp::dedup::MinHashDedup;
/// let docs = [
///     (10, "the quick brown fox jumps over the lazy dog near the river bank today"),
///     (20, "an entirely different document about astronomy and distant galaxies"),
///     (30, "The quick brown fox jumps over the lazy dog near the river bank today!"),
/// ];
/// let report = MinHashDedup::new().run(docs)?;
/// assert_eq!(report.kept_ids().collect::<Vec<_>>(), [10, 20]);
/// assert_eq!(report.decisions[2].duplicate_of, Some(10));
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MinHashDedup<T: Tokenizer = ShingleTokenizer<WordTokenizer>, const H: usize = 128> {
    fp: MinHashFingerprinter<T, H>,
    scheme: MinHashScheme,
    threshold: f32,
    banding: Option<LshIndexBuilder>,
    verification: Verification,
    empty: EmptyDocuments,
    record_pairs: bool,
    /// Documents per scan round; tests shrink it to cross round boundaries.
    pub(super) scan_chunk: usize,
}

impl MinHashDedup {
    /// The default configuration (see the type's documentation).
    pub fn new() -> Self {
        Self::with_fingerprinter(MinHashFingerprinter::new(
            Canonicalizer::default(),
            ShingleTokenizer {
                k: 5,
                inner: WordTokenizer,
            },
        ))
    }
}

impl Default for MinHashDedup {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Tokenizer, const H: usize> MinHashDedup<T, H> {
    /// Default settings around your own fingerprinter (canonicalizer,
    /// tokenizer, `H`, hash family and seed).
    ///
    /// ```
    /// use txtfp::{Canonicalizer, MinHashFingerprinter, WordTokenizer};
    /// use txtfp::dedup::MinHashDedup;
    /// let fp = MinHashFingerprinter::<_, 64>::new(Canonicalizer::default(), WordTokenizer);
    /// let dedup = MinHashDedup::with_fingerprinter(fp).with_threshold(0.9);
    /// let report = dedup.run_texts(&["one two three four", "four three two one", "five six"])?;
    /// assert_eq!(report.kept_ids().collect::<Vec<_>>(), [0, 2]); // same word sets
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn with_fingerprinter(fp: MinHashFingerprinter<T, H>) -> Self {
        Self {
            fp,
            scheme: MinHashScheme::Default,
            threshold: 0.8,
            banding: None,
            verification: Verification::Exact,
            empty: EmptyDocuments::Error,
            record_pairs: false,
            scan_chunk: engine::SCAN_CHUNK,
        }
    }

    /// Pairs with Jaccard similarity at or above `threshold` (in `(0, 1]`)
    /// are duplicates. Both sides of the comparison are `f32`, so a pair
    /// whose Jaccard is exactly the threshold (say 4/5 against 0.8) passes.
    #[must_use]
    pub fn with_threshold(mut self, threshold: f32) -> Self {
        self.threshold = threshold;
        self
    }

    /// Use this banding instead of the default (see
    /// [`DEFAULT_RECALL`](super::DEFAULT_RECALL)); `bands × rows` must equal
    /// `H`.
    #[must_use]
    pub fn with_banding(mut self, banding: LshIndexBuilder) -> Self {
        self.banding = Some(banding);
        self
    }

    /// Fingerprint with this scheme (default [`MinHashScheme::Default`]).
    #[must_use]
    pub fn with_scheme(mut self, scheme: MinHashScheme) -> Self {
        self.scheme = scheme;
        self
    }

    /// How candidates are checked (default [`Verification::Exact`]).
    #[must_use]
    pub fn with_verification(mut self, verification: Verification) -> Self {
        self.verification = verification;
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
    /// (default `false`). Recording makes the run compare every candidate
    /// pair; without it a candidate already known to be in the same cluster
    /// is skipped, which matters for large groups of near-identical
    /// documents (their pairs grow with the square of the group).
    #[must_use]
    pub fn with_record_pairs(mut self, record: bool) -> Self {
        self.record_pairs = record;
        self
    }

    /// The fingerprinter.
    pub fn fingerprinter(&self) -> &MinHashFingerprinter<T, H> {
        &self.fp
    }

    /// The MinHash scheme.
    pub fn scheme(&self) -> MinHashScheme {
        self.scheme
    }

    /// The similarity threshold.
    pub fn threshold(&self) -> f32 {
        self.threshold
    }

    /// The verification mode.
    pub fn verification(&self) -> Verification {
        self.verification
    }

    /// The policy for documents without tokens.
    pub fn empty_documents(&self) -> EmptyDocuments {
        self.empty
    }

    /// The banding a run uses: the one set with
    /// [`with_banding`](Self::with_banding), else
    /// [`LshIndexBuilder::for_recall`]`(threshold, H,`
    /// [`DEFAULT_RECALL`](super::DEFAULT_RECALL)`)` (one band of `H` rows at
    /// threshold 1).
    ///
    /// # Errors
    ///
    /// [`Error::Config`](crate::Error::Config) for a threshold outside
    /// `(0, 1]` or a banding whose product is not `H`.
    ///
    /// ```
    /// use txtfp::LshIndexBuilder;
    /// use txtfp::dedup::MinHashDedup;
    /// assert_eq!(MinHashDedup::new().banding()?, LshIndexBuilder::new(32, 4));
    /// let err = MinHashDedup::new().with_banding(LshIndexBuilder::new(8, 8)).banding().unwrap_err();
    /// assert_eq!(err.to_string(), "config error: bands * rows (8 * 8 = 64) must equal H = 128");
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn banding(&self) -> Result<LshIndexBuilder> {
        check_threshold(self.threshold)?;
        let banding = match self.banding {
            Some(b) => b,
            None => default_banding(self.threshold, H)?,
        };
        banding.try_build::<H>()?;
        Ok(banding)
    }

    /// Deduplicates `(id, text)` items, keeping the first document of each
    /// cluster in input order.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) naming the id when
    /// an id occurs twice or (under [`EmptyDocuments::Error`]) a document has
    /// no token; [`Error::Config`](crate::Error::Config) for a bad threshold
    /// or banding; the fingerprinter's configuration errors.
    pub fn run<I, S>(&self, items: I) -> Result<DedupReport>
    where
        I: IntoIterator<Item = (u64, S)>,
        S: AsRef<str> + Sync,
    {
        let (ids, texts) = engine::collect_items(items)?;
        self.execute(&ids, &texts, None::<fn(usize) -> u8>)
    }

    /// [`run`](Self::run), keeping in each cluster the document with the
    /// largest `priority(id, text)`; ties go to the earliest in input order.
    /// `priority` is called once per member of each cluster.
    ///
    /// ```
    /// use std::cmp::Reverse;
    /// use txtfp::dedup::MinHashDedup;
    /// let text = "a fairly long sentence that is repeated with tiny changes in the corpus";
    /// let docs = [(7, text.to_string()), (3, format!("{text}.")), (5, format!("{text}!!"))];
    /// let longest = MinHashDedup::new().run_by_priority(docs.clone(), |_, t| t.len())?;
    /// assert_eq!(longest.clusters[0].kept, 5);
    /// let lowest_id = MinHashDedup::new().run_by_priority(docs, |id, _| Reverse(id))?;
    /// assert_eq!(lowest_id.clusters[0].kept, 3);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
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
        let (ids, texts) = engine::collect_items(items)?;
        self.execute(
            &ids,
            &texts,
            Some(|pos: usize| priority(ids[pos], texts[pos].as_ref())),
        )
    }

    /// [`run`](Self::run) with each text's position in `texts` as its id.
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run), minus the repeated-id case.
    pub fn run_texts<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Result<DedupReport> {
        engine::check_count(texts.len())?;
        let ids: Vec<u64> = (0..texts.len() as u64).collect();
        self.execute(&ids, texts, None::<fn(usize) -> u8>)
    }

    fn execute<S, K, P>(&self, ids: &[u64], texts: &[S], priority: Option<P>) -> Result<DedupReport>
    where
        S: AsRef<str> + Sync,
        K: Ord,
        P: FnMut(usize) -> K,
    {
        let banding = self.banding()?;
        // Configuration errors hold for every document: report them as such.
        self.fp.canonicalizer().check()?;
        self.fp.tokenizer().validate()?;
        match self.scheme {
            MinHashScheme::Default => {
                let sigs = engine::fingerprint_all(ids, texts, self.empty, &self.fp)?;
                self.decide_on(ids, texts, priority, banding, &sigs)
            }
            MinHashScheme::Fast => {
                let fast = FastMinHashFingerprinter::<&T, H>::new(
                    self.fp.canonicalizer().clone(),
                    self.fp.tokenizer(),
                )
                .with_seed(self.fp.seed());
                let sigs = engine::fingerprint_all(ids, texts, self.empty, &fast)?;
                self.decide_on(ids, texts, priority, banding, &sigs)
            }
        }
    }

    /// Steps 2–5 of a run over `sigs` of scheme `Sch`, one per text
    /// (`None` for a text without tokens).
    fn decide_on<S, K, P, Sch>(
        &self,
        ids: &[u64],
        texts: &[S],
        priority: Option<P>,
        banding: LshIndexBuilder,
        sigs: &[Option<MinHashSig<H, Sch>>],
    ) -> Result<DedupReport>
    where
        S: AsRef<str> + Sync,
        K: Ord,
        P: FnMut(usize) -> K,
        Sch: Scheme,
    {
        let mut index = LshCandidateIndex::<H, Sch>::from_builder(banding)?;
        engine::index_all(&mut index, sigs)?;
        let present: Vec<bool> = sigs.iter().map(Option::is_some).collect();
        if self.verification == Verification::Exact {
            let needed = engine::with_candidates(&index, sigs);
            let maker = SetMaker {
                canon: self.fp.canonicalizer(),
                tok: self.fp.tokenizer(),
                family: self.fp.hasher(),
                seed: self.fp.seed(),
            };
            let sets = map_range(0..texts.len(), String::new, |i, buf| {
                needed[i].then(|| maker.token_set(texts[i].as_ref(), buf))
            });
            let verifier = ExactVerifier {
                sets,
                threshold: self.threshold,
            };
            let links = engine::link(sigs, &index, &verifier, self.record_pairs, self.scan_chunk);
            return Ok(engine::decide(
                ids, &present, self.empty, links, &verifier, priority,
            ));
        }
        let verifier = SignatureVerifier {
            sigs,
            estimate: MinHashSig::jaccard,
            threshold: (self.verification == Verification::Estimated).then_some(self.threshold),
        };
        let links = engine::link(sigs, &index, &verifier, self.record_pairs, self.scan_chunk);
        Ok(engine::decide(
            ids, &present, self.empty, links, &verifier, priority,
        ))
    }
}

/// The run keeps the signatures itself, so the index stores only band keys
/// (about 220 bytes a document instead of 1.25 KB); a run fingerprints with
/// one scheme, and the index is of that scheme.
impl<const H: usize, S: Scheme> CandidateIndex<MinHashSig<H, S>> for LshCandidateIndex<H, S> {
    fn insert_batch(&mut self, docs: Vec<(u64, MinHashSig<H, S>)>) -> Result<()> {
        self.try_extend(docs.iter().map(|(id, sig)| (*id, sig)))
    }

    fn candidates(&self, sig: &MinHashSig<H, S>) -> Vec<u64> {
        self.query(sig)
    }
}

/// Verifies by the signatures' estimated Jaccard; with no threshold
/// ([`Verification::None`]) every candidate passes.
struct SignatureVerifier<'a, Sig> {
    sigs: &'a [Option<Sig>],
    estimate: fn(&Sig, &Sig) -> f32,
    threshold: Option<f32>,
}

impl<Sig: Sync> Verifier for SignatureVerifier<'_, Sig> {
    fn verify(&self, a: usize, b: usize) -> Option<Similarity> {
        let j = self.jaccard(a, b)?;
        match self.threshold {
            Some(t) if j < t => None,
            _ => Some(Similarity::Jaccard(j)),
        }
    }

    fn similarity(&self, a: usize, b: usize) -> Option<Similarity> {
        self.jaccard(a, b).map(Similarity::Jaccard)
    }
}

impl<Sig> SignatureVerifier<'_, Sig> {
    fn jaccard(&self, a: usize, b: usize) -> Option<f32> {
        Some((self.estimate)(
            self.sigs[a].as_ref()?,
            self.sigs[b].as_ref()?,
        ))
    }
}
