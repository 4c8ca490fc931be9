//! [`MinHashDedup`]: MinHash signatures, star candidate pairs from the band
//! buckets, verification by estimated or exact Jaccard.

use alloc::vec::Vec;

use super::banding::{check_threshold, default_banding};
use super::engine::{self, Contents, Fingerprinted, Grouping, Links};
use super::exact::{ExactMeasure, SetMaker};
use super::star::{self, Measure, Scan};
use super::{DedupReport, EmptyDocuments, MinHashScheme, Similarity, Verification};
use crate::classical::FingerprintBatch;
use crate::classical::minhash::Scheme;
use crate::{
    Canonicalizer, LshIndexBuilder, MinHashFingerprinter, MinHashSig, Result, ShingleTokenizer,
    Tokenizer, WordTokenizer, classical::minhash::FastMinHashFingerprinter,
};

/// Near-duplicate removal with MinHash: fingerprint every distinct text,
/// pair each band bucket's first document with its other members (the band
/// keys of an [`LshCandidateIndex`](crate::LshCandidateIndex)), verify those
/// pairs against the Jaccard threshold, and keep one document per cluster.
/// The [module documentation](super) defines a run exactly.
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

    /// Whether to list the pairs that linked the clusters in
    /// [`DedupReport::pairs`] (default `false`): the verified star pairs
    /// (a bucket representative and a later member) and the exact copies
    /// with their first occurrence, not every pair within a cluster (see
    /// the [module documentation](super)). Recording changes nothing else.
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
        let contents = engine::collapse_contents(texts);
        match self.scheme {
            MinHashScheme::Default => {
                self.decide_on(ids, texts, priority, banding, contents, &self.fp)
            }
            MinHashScheme::Fast => {
                let fast = FastMinHashFingerprinter::<&T, H>::new(
                    self.fp.canonicalizer().clone(),
                    self.fp.tokenizer(),
                )
                .with_seed(self.fp.seed());
                self.decide_on(ids, texts, priority, banding, contents, &fast)
            }
        }
    }

    /// Steps 3–6 of a run (see the [module documentation](super)) with the
    /// fingerprinter `fp` of scheme `Sch`.
    fn decide_on<S, K, P, Sch, F>(
        &self,
        ids: &[u64],
        texts: &[S],
        priority: Option<P>,
        banding: LshIndexBuilder,
        contents: Contents,
        fp: &F,
    ) -> Result<DedupReport>
    where
        S: AsRef<str> + Sync,
        K: Ord,
        P: FnMut(usize) -> K,
        Sch: Scheme,
        F: FingerprintBatch<Output = MinHashSig<H, Sch>> + Sync,
    {
        let (bands, rows) = (banding.bands, banding.rows);
        // Exact verification needs no signature once the band keys exist:
        // keep only the keys (8 bytes a band instead of 8 bytes a slot).
        let keep_sigs = self.verification != Verification::Exact;
        let mut keys: Vec<Vec<u64>> = (0..bands)
            .map(|_| Vec::with_capacity(contents.unique.len()))
            .collect();
        let mut sigs: Vec<MinHashSig<H, Sch>> = Vec::new();
        let fps = engine::fingerprint_unique(
            ids,
            texts,
            &contents,
            self.empty,
            fp,
            |sig: MinHashSig<H, Sch>| {
                let k: Vec<u64> = (0..bands)
                    .map(|b| crate::lsh::band_key_at(&sig.hashes, rows, b))
                    .collect();
                (k, keep_sigs.then_some(sig))
            },
            |(k, sig)| {
                for (band, key) in keys.iter_mut().zip(k) {
                    band.push(key);
                }
                sigs.extend(sig);
            },
        )?;
        let reps = star::bucket_reps(&keys);
        drop(keys);
        let n_live = fps.live.len();
        let mut links = Links::new(ids.len(), self.record_pairs);
        links.link_copies(&contents, &fps.present, Similarity::Jaccard(1.0));
        if self.verification == Verification::Exact {
            let mut measure = ExactMeasure {
                maker: SetMaker {
                    canon: self.fp.canonicalizer(),
                    tok: self.fp.tokenizer(),
                    family: self.fp.hasher(),
                    seed: self.fp.seed(),
                },
                texts,
                live: &fps.live,
                sets: (0..n_live).map(|_| None).collect(),
                threshold: self.threshold,
            };
            measure.hold(&star::representatives(&reps, n_live));
            let scan = star::scan(&reps, n_live, &measure);
            drop(reps);
            add_edges(&mut links, &fps, &scan);
            let grouping = engine::group(&links, ids.len(), priority);
            let mut kept = alloc::vec![false; n_live];
            for &k in &grouping.kept {
                if let Some(d) = fps.dense(contents.first[k as usize]) {
                    kept[d] = true;
                }
            }
            measure.hold(&kept);
            return Ok(finish(
                ids, &contents, &fps, self.empty, links, grouping, &scan, &measure,
            ));
        }
        let measure = SignatureMeasure {
            sigs: &sigs,
            threshold: (self.verification == Verification::Estimated).then_some(self.threshold),
        };
        let scan = star::scan(&reps, n_live, &measure);
        drop(reps);
        add_edges(&mut links, &fps, &scan);
        let grouping = engine::group(&links, ids.len(), priority);
        Ok(finish(
            ids, &contents, &fps, self.empty, links, grouping, &scan, &measure,
        ))
    }
}

/// Merges the verified star pairs of `scan` (dense indices) into `links`
/// (positions).
fn add_edges(links: &mut Links, fps: &Fingerprinted, scan: &Scan) {
    links.compared(scan.candidates);
    for (d, edges) in scan.edges.iter().enumerate() {
        for &(r, sim) in edges {
            links.verified(fps.live[r as usize], fps.live[d], sim);
        }
    }
}

/// The report: a dropped document's similarity to its kept one is 1 for
/// two copies of one text, the verified similarity when the pair was
/// verified, else measured now.
#[allow(clippy::too_many_arguments)]
fn finish<M: Measure>(
    ids: &[u64],
    contents: &Contents,
    fps: &Fingerprinted,
    empty: EmptyDocuments,
    links: Links,
    grouping: Grouping,
    scan: &Scan,
    measure: &M,
) -> DedupReport {
    let first = &contents.first;
    engine::report(
        ids,
        &fps.present,
        empty,
        links,
        grouping,
        || measure.probe(),
        |doc, kept, probe| {
            let (fd, fk) = (first[doc as usize], first[kept as usize]);
            if fd == fk {
                return Some(Similarity::Jaccard(1.0));
            }
            let (d, k) = (fps.dense(fd)? as u32, fps.dense(fk)? as u32);
            if let Some(sim) = scan.edge(d, k) {
                return Some(sim);
            }
            measure.load(d, probe);
            measure.similarity(k, probe)
        },
    )
}

/// Estimated Jaccard of the signatures (dense indices); with no threshold
/// ([`Verification::None`]) every pair passes.
struct SignatureMeasure<'a, const H: usize, Sch: Scheme> {
    sigs: &'a [MinHashSig<H, Sch>],
    threshold: Option<f32>,
}

impl<const H: usize, Sch: Scheme> Measure for SignatureMeasure<'_, H, Sch> {
    /// The loaded document.
    type Probe = u32;

    fn probe(&self) -> u32 {
        0
    }

    fn load(&self, d: u32, probe: &mut u32) {
        *probe = d;
    }

    fn similarity(&self, r: u32, probe: &u32) -> Option<Similarity> {
        let (a, b) = (self.sigs.get(r as usize)?, self.sigs.get(*probe as usize)?);
        Some(Similarity::Jaccard(a.jaccard(b)))
    }

    fn verify(&self, r: u32, probe: &u32) -> Option<Similarity> {
        let sim = self.similarity(r, probe)?;
        match (self.threshold, sim) {
            (Some(t), Similarity::Jaccard(j)) if j < t => None,
            _ => Some(sim),
        }
    }
}
