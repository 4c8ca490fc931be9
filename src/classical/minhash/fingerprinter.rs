//! [`MinHashFingerprinter`], its builder, and the token sketch it shares with
//! the streaming path.

use alloc::format;
use alloc::string::String;

use super::MinHashSig;
use super::MinHashSketch;
use super::MinHashStreaming;
use super::scheme::{Classic, StreamSource};
use crate::canonical::Canonicalizer;
use crate::classical::{DEFAULT_SEED, Fingerprinter, HashFamily, TokenSketch};
use crate::tokenize::Tokenizer;
use crate::{Error, Result};

/// MinHash over the tokens of canonicalized text: `H` slots, each the
/// minimum over the distinct tokens of `lo + i·hi` (double hashing of the
/// token's 128-bit hash). Two signatures agree on a slot with probability
/// close to the Jaccard similarity of the two token sets; see [`jaccard`](super::jaccard).
///
/// `&self` methods only: one instance can be shared across threads.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, ShingleTokenizer, WordTokenizer};
/// let fp = MinHashFingerprinter::<_, 8>::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 3, inner: WordTokenizer },
/// );
/// let sig = fp.fingerprint("hello")?;
/// assert_eq!(sig.hashes[0], 0x9c165db7b53c9009);
/// assert_eq!(fp.config_hash(), 0x472609a324414e7c);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct MinHashFingerprinter<T: Tokenizer, const H: usize> {
    canon: Canonicalizer,
    tok: T,
    seed: u64,
    family: HashFamily,
}

impl<T: Tokenizer, const H: usize> MinHashFingerprinter<T, H> {
    /// A fingerprinter with [`DEFAULT_SEED`] and [`HashFamily::Xxh3_64`],
    /// the configuration whose signatures the golden files freeze.
    pub fn new(canon: Canonicalizer, tok: T) -> Self {
        Self {
            canon,
            tok,
            seed: DEFAULT_SEED,
            family: HashFamily::Xxh3_64,
        }
    }

    /// The same fingerprinter with another hash seed. Signatures made with
    /// different seeds are not comparable (the seed is in [`Self::config_hash`]).
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The same fingerprinter with another hash family
    /// ([`HashFamily::MurmurHash3_x64_128`] matches 0.1-era signatures).
    #[must_use]
    pub fn with_hasher(mut self, family: HashFamily) -> Self {
        self.family = family;
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

    /// The hash seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash family.
    pub fn hasher(&self) -> HashFamily {
        self.family
    }

    /// A streaming fingerprinter that computes the same signature from
    /// byte chunks.
    pub fn into_streaming(self) -> MinHashStreaming<T, H> {
        MinHashStreaming::new(self)
    }

    /// `XXH3_64` of `canonicalizer | tokenizer | minhash-h{H} | family | seed`
    /// (see [`crate::config_hash_classical`]). Store it beside signatures and
    /// compare signatures only when it matches.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, MinHashFingerprinter, ShingleTokenizer, WordTokenizer};
    /// let fp = MinHashFingerprinter::<_, 128>::new(
    ///     Canonicalizer::default(),
    ///     ShingleTokenizer { k: 5, inner: WordTokenizer },
    /// );
    /// assert_eq!(fp.config_hash(), 0x1ffc8214c1e9e9db);
    /// ```
    pub fn config_hash(&self) -> u64 {
        crate::config_hash_classical(
            &self.canon,
            &self.tok.name(),
            &format!("minhash-h{H}"),
            self.family,
            self.seed,
        )
    }

    /// [`Fingerprinter::fingerprint`] with a caller-owned buffer for the
    /// canonical text, so a loop over many documents reuses one allocation.
    /// The buffer's previous contents are discarded.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, WordTokenizer};
    /// let fp = MinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer);
    /// let mut buf = String::new();
    /// for doc in ["one doc", "another doc"] {
    ///     assert_eq!(fp.fingerprint_with_buffer(doc, &mut buf)?, fp.fingerprint(doc)?);
    /// }
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Fingerprinter::fingerprint`].
    pub fn fingerprint_with_buffer(&self, input: &str, buf: &mut String) -> Result<MinHashSig<H>> {
        // Configuration errors come first: they hold for every input, and
        // hiding them behind "empty document" would only delay them.
        self.canon.check()?;
        self.tok.validate()?;
        if input.is_empty() {
            return Err(empty_document());
        }
        self.canon.canonicalize_into(input, buf);
        let mut sketch = self.sketch();
        crate::tokenize::fused::for_each_token_batch(&self.tok, buf, |text, starts, ends| {
            sketch.push_spans(text, starts, ends);
        });
        sketch.finish()
    }

    /// A fresh sketch with this fingerprinter's family and seed; the
    /// streaming path feeds it the same tokens.
    pub(crate) fn sketch(&self) -> MinHashSketch<H> {
        MinHashSketch::new(self.family, self.seed)
    }
}

impl<T: Tokenizer, const H: usize> Fingerprinter for MinHashFingerprinter<T, H> {
    type Output = MinHashSig<H>;

    /// Canonicalize `input`, tokenize it and sketch the tokens.
    ///
    /// # Errors
    /// - the configuration's own errors (a canonicalizer feature that is not
    ///   compiled in, an invalid tokenizer), before anything else;
    /// - [`Error::InvalidInput`]`("empty document")` if `input` is empty or
    ///   yields no token after canonicalization (e.g. `"   "`, `"!!!"`).
    fn fingerprint(&self, input: &str) -> Result<MinHashSig<H>> {
        let mut buf = String::with_capacity(input.len());
        self.fingerprint_with_buffer(input, &mut buf)
    }
}

/// The builder form of [`MinHashFingerprinter::new`] + `with_*`.
///
/// ```
/// use txtfp::{Canonicalizer, HashFamily, MinHashFingerprinterBuilder, WordTokenizer};
/// let fp = MinHashFingerprinterBuilder::default()
///     .seed(7)
///     .hasher(HashFamily::MurmurHash3_x64_128)
///     .build::<_, 64>(Canonicalizer::default(), WordTokenizer);
/// assert_eq!((fp.seed(), fp.hasher()), (7, HashFamily::MurmurHash3_x64_128));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinHashFingerprinterBuilder {
    seed: u64,
    family: HashFamily,
}

impl Default for MinHashFingerprinterBuilder {
    /// [`DEFAULT_SEED`] and [`HashFamily::Xxh3_64`], as [`MinHashFingerprinter::new`].
    fn default() -> Self {
        Self {
            seed: DEFAULT_SEED,
            family: HashFamily::Xxh3_64,
        }
    }
}

impl MinHashFingerprinterBuilder {
    /// Set the hash seed.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Set the hash family.
    #[must_use]
    pub fn hasher(mut self, family: HashFamily) -> Self {
        self.family = family;
        self
    }

    /// Build a fingerprinter with `H` slots.
    pub fn build<T: Tokenizer, const H: usize>(
        self,
        canon: Canonicalizer,
        tok: T,
    ) -> MinHashFingerprinter<T, H> {
        MinHashFingerprinter::new(canon, tok)
            .with_seed(self.seed)
            .with_hasher(self.family)
    }
}

impl<T: Tokenizer, const H: usize> StreamSource<T, H, Classic> for MinHashFingerprinter<T, H> {
    type Sketch = MinHashSketch<H>;

    fn into_fingerprinter(self) -> Self {
        self
    }

    fn stream_canonicalizer(&self) -> &Canonicalizer {
        &self.canon
    }

    fn stream_tokenizer(&self) -> &T {
        &self.tok
    }

    fn stream_sketch(&self, _max_bytes: usize) -> MinHashSketch<H> {
        self.sketch()
    }

    // The sketch holds `H` slots and nothing else: there is nothing to cap.
    fn set_sketch_cap(_sketch: &mut MinHashSketch<H>, _max_bytes: usize) {}

    fn restart_sketch(&self, _old: &MinHashSketch<H>) -> MinHashSketch<H> {
        self.sketch()
    }

    fn kept_hashes(_sketch: &MinHashSketch<H>) -> Option<usize> {
        None
    }
}

pub(super) fn empty_document() -> Error {
    Error::InvalidInput(String::from("empty document"))
}

#[cfg(test)]
mod tests;
