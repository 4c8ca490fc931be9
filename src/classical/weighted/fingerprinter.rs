//! [`WeightedMinHashFingerprinter`]: text → weighted token set →
//! [`WeightedMinHashSig`].

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use hashbrown::HashMap;

use super::{WeightedMinHashSig, WeightedMinHasher};
use crate::canonical::Canonicalizer;
#[cfg(feature = "simhash")]
use crate::classical::simhash::IdfTable;
use crate::classical::{DEFAULT_SEED, Fingerprinter, HashFamily};
use crate::tokenize::Tokenizer;
use crate::{Error, Result};

/// How a token's weight is computed from its count `tf` in the document.
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub enum TermWeighting {
    /// The raw count `tf` (the default).
    #[default]
    Tf,
    /// Sublinear count `1 + ln tf`.
    SublinearTf,
    /// `tf · idf(token)` with the table's weight (tokens it does not list
    /// weigh 1). Feature `simhash`, which holds [`IdfTable`].
    #[cfg(feature = "simhash")]
    TfIdf(IdfTable),
    /// `(1 + ln tf) · idf(token)`. Feature `simhash`.
    #[cfg(feature = "simhash")]
    SublinearTfIdf(IdfTable),
}

impl TermWeighting {
    /// The weighting's part of [`WeightedMinHashFingerprinter::config_hash`].
    fn tag(&self) -> String {
        match self {
            Self::Tf => String::from("tf"),
            Self::SublinearTf => String::from("logtf"),
            #[cfg(feature = "simhash")]
            Self::TfIdf(t) => format!("tf-idf-{:016x}", t.content_hash()),
            #[cfg(feature = "simhash")]
            Self::SublinearTfIdf(t) => format!("logtf-idf-{:016x}", t.content_hash()),
        }
    }

    fn sublinear(&self) -> bool {
        match self {
            Self::Tf => false,
            Self::SublinearTf => true,
            #[cfg(feature = "simhash")]
            Self::TfIdf(_) => false,
            #[cfg(feature = "simhash")]
            Self::SublinearTfIdf(_) => true,
        }
    }

    #[cfg(feature = "simhash")]
    fn idf(&self) -> Option<&IdfTable> {
        match self {
            Self::TfIdf(t) | Self::SublinearTfIdf(t) => Some(t),
            _ => None,
        }
    }

    #[cfg(not(feature = "simhash"))]
    fn idf(&self) -> Option<&Unweighted> {
        None
    }
}

/// Stands in for the IDF table when feature `simhash` is off.
#[cfg(not(feature = "simhash"))]
struct Unweighted;

#[cfg(not(feature = "simhash"))]
impl Unweighted {
    fn get(&self, _token: &str) -> f32 {
        1.0
    }
}

/// Weighted MinHash of canonicalized text: the document's distinct tokens
/// (words, or k-word shingles with a
/// [`ShingleTokenizer`](crate::ShingleTokenizer)), each weighted by
/// [`TermWeighting`], sketched by a [`WeightedMinHasher`]. A token's key is
/// its seeded XXH3-64.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, ShingleTokenizer, WordTokenizer};
/// use txtfp::classical::weighted::{WeightedMinHashFingerprinter, weighted_jaccard};
/// let fp = WeightedMinHashFingerprinter::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 2, inner: WordTokenizer },
///     128,
/// )?;
/// let a = fp.fingerprint("the cat sat on the mat, the cat sat")?;
/// let b = fp.fingerprint("The cat sat on the mat")?;
/// assert!(weighted_jaccard(&a, &b)? > 0.3);
/// assert_eq!(fp.fingerprint("  ").unwrap_err().to_string(), "invalid input: empty document");
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct WeightedMinHashFingerprinter<T: Tokenizer> {
    canon: Canonicalizer,
    tok: T,
    hasher: WeightedMinHasher,
    weighting: TermWeighting,
}

impl<T: Tokenizer> WeightedMinHashFingerprinter<T> {
    /// `num_perm` slots, [`DEFAULT_SEED`], [`TermWeighting::Tf`].
    ///
    /// # Errors
    /// [`Error::Config`] if `num_perm` is 0 or too large (see
    /// [`WeightedMinHasher::new`]).
    pub fn new(canon: Canonicalizer, tok: T, num_perm: usize) -> Result<Self> {
        Ok(Self {
            canon,
            tok,
            hasher: WeightedMinHasher::new(num_perm, DEFAULT_SEED)?,
            weighting: TermWeighting::Tf,
        })
    }

    /// The same fingerprinter with another seed (token keys and sampler).
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        // The slot count was checked when `self` was built.
        if let Ok(h) = WeightedMinHasher::new(self.hasher.num_perm(), seed) {
            self.hasher = h;
        }
        self
    }

    /// The same fingerprinter with another term weighting.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, IdfTable, WordTokenizer};
    /// use txtfp::classical::weighted::{TermWeighting, WeightedMinHashFingerprinter};
    /// let idf = IdfTable::from_pairs([("the", 0.05_f32), ("cat", 3.0)]);
    /// let fp = WeightedMinHashFingerprinter::new(Canonicalizer::default(), WordTokenizer, 64)?
    ///     .with_weighting(TermWeighting::TfIdf(idf));
    /// let set = fp.weighted_set("the the cat")?;
    /// let mut w: Vec<f64> = set.iter().map(|&(_, w)| w).collect();
    /// w.sort_by(f64::total_cmp);
    /// assert!((w[0] - 0.1).abs() < 1e-6 && w[1] == 3.0);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    #[must_use]
    pub fn with_weighting(mut self, weighting: TermWeighting) -> Self {
        self.weighting = weighting;
        self
    }

    /// The canonicalizer applied before tokenizing.
    pub fn canonicalizer(&self) -> &Canonicalizer {
        &self.canon
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &T {
        &self.tok
    }

    /// The sampler (slot count and seed).
    pub fn hasher(&self) -> &WeightedMinHasher {
        &self.hasher
    }

    /// The term weighting.
    pub fn weighting(&self) -> &TermWeighting {
        &self.weighting
    }

    /// `XXH3_64` of `canonicalizer | tokenizer | wmh-icws1-n<N>-<weighting>
    /// | xxh3-64 | seed` (see [`crate::config_hash_classical`]); the
    /// weighting part is `tf`, `logtf`, `tf-idf-<table hash>` or
    /// `logtf-idf-<table hash>`. Compare signatures only when it matches.
    pub fn config_hash(&self) -> u64 {
        crate::config_hash_classical(
            &self.canon,
            &self.tok.name(),
            &format!(
                "wmh-icws1-n{}-{}",
                self.hasher.num_perm(),
                self.weighting.tag()
            ),
            HashFamily::Xxh3_64,
            self.hasher.seed(),
        )
    }

    /// The document's weighted token set: `(key, weight)` per distinct
    /// token with a positive weight, sorted by key. What
    /// [`Fingerprinter::fingerprint`] sketches, and what
    /// [`weighted_jaccard_exact`](super::weighted_jaccard_exact) takes.
    ///
    /// # Errors
    /// As [`Fingerprinter::fingerprint`].
    pub fn weighted_set(&self, input: &str) -> Result<Vec<(u64, f64)>> {
        let mut buf = String::with_capacity(input.len());
        self.weighted_set_with_buffer(input, &mut buf)
    }

    /// [`Self::weighted_set`] with a caller-owned buffer for the canonical
    /// text.
    ///
    /// # Errors
    /// As [`Fingerprinter::fingerprint`].
    pub fn weighted_set_with_buffer(
        &self,
        input: &str,
        buf: &mut String,
    ) -> Result<Vec<(u64, f64)>> {
        self.canon.check()?;
        self.tok.validate()?;
        if input.is_empty() {
            return Err(empty_document());
        }
        self.canon.canonicalize_into(input, buf);
        let seed = self.hasher.seed();
        let key = |t: &[u8]| xxhash_rust::xxh3::xxh3_64_with_seed(t, seed);
        // Count, then weigh: the IDF lookup needs the token text once per
        // distinct token only.
        let mut counts: HashMap<u64, (u32, f32)> = HashMap::new();
        if let Some(idf) = self.weighting.idf() {
            crate::tokenize::fused::for_each_token(&self.tok, buf, |t| {
                counts
                    .entry(key(t.as_bytes()))
                    .or_insert_with(|| (0, idf.get(t)))
                    .0 += 1;
            });
        } else {
            crate::tokenize::fused::for_each_token_bytes(&self.tok, buf, |t| {
                counts.entry(key(t)).or_insert((0, 1.0)).0 += 1;
            });
        }
        if counts.is_empty() {
            return Err(empty_document());
        }
        let sublinear = self.weighting.sublinear();
        let mut set: Vec<(u64, f64)> = counts
            .into_iter()
            .map(|(k, (tf, idf))| {
                let tf = f64::from(tf);
                let tf = if sublinear { 1.0 + tf.ln() } else { tf };
                (k, tf * f64::from(idf))
            })
            .filter(|&(_, w)| w > 0.0)
            .collect();
        if set.is_empty() {
            return Err(Error::InvalidInput(String::from("every token weighs zero")));
        }
        set.sort_unstable_by_key(|&(k, _)| k);
        Ok(set)
    }

    /// [`Fingerprinter::fingerprint`] with a caller-owned buffer for the
    /// canonical text.
    ///
    /// # Errors
    /// As [`Fingerprinter::fingerprint`].
    pub fn fingerprint_with_buffer(
        &self,
        input: &str,
        buf: &mut String,
    ) -> Result<WeightedMinHashSig> {
        let set = self.weighted_set_with_buffer(input, buf)?;
        self.hasher.sketch(&set)
    }
}

impl<T: Tokenizer> Fingerprinter for WeightedMinHashFingerprinter<T> {
    type Output = WeightedMinHashSig;

    /// Canonicalize `input`, tokenize it, weigh the distinct tokens and
    /// sketch them.
    ///
    /// # Errors
    /// - the configuration's own errors first (as MinHash);
    /// - [`Error::InvalidInput`]`("empty document")` if `input` yields no
    ///   token, as [`MinHashFingerprinter`](crate::MinHashFingerprinter);
    /// - [`Error::InvalidInput`]`("every token weighs zero")` if the IDF
    ///   table gives every token weight 0.
    fn fingerprint(&self, input: &str) -> Result<WeightedMinHashSig> {
        let mut buf = String::with_capacity(input.len());
        self.fingerprint_with_buffer(input, &mut buf)
    }
}

fn empty_document() -> Error {
    Error::InvalidInput(String::from("empty document"))
}
