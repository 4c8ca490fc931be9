//! The offline SimHash fingerprinter, its builder and the weighting modes.

use alloc::format;
use alloc::string::String;

use super::{IdfTable, SimHash64, SimHashSketch, SimHashStreaming};
use crate::canonical::Canonicalizer;
use crate::classical::{DEFAULT_SEED, Fingerprinter, HashFamily, TokenSketch};
use crate::tokenize::Tokenizer;
use crate::{Error, Result};

/// How much each token votes on the 64 signature bits.
///
/// ```
/// use txtfp::{IdfTable, Weighting};
/// assert_eq!(Weighting::default(), Weighting::Tf);
/// assert_eq!(Weighting::Uniform.as_str(), "uniform");
/// assert_eq!(Weighting::IdfWeighted(IdfTable::default()).as_str(), "idf-weighted");
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Weighting {
    /// Every distinct token votes once, however often it occurs.
    Uniform,
    /// Every occurrence votes once (term frequency). The default.
    #[default]
    Tf,
    /// Every distinct token votes `tf × idf`, with `idf` from the table
    /// (`1.0` for tokens it does not list).
    ///
    /// The weight is a real number (accumulated in `f64`). txtfp 0.3.2
    /// truncated it to an integer, so fractional weights below 1 voted
    /// nothing and the rest were quantized (COMPAT.md W11); signatures therefore
    /// differ from 0.3.2 for tables with non-integer products.
    IdfWeighted(IdfTable),
}

impl Weighting {
    /// Label used in config hashes: `"uniform"`, `"tf"` or `"idf-weighted"`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Weighting::Uniform => "uniform",
            Weighting::Tf => "tf",
            Weighting::IdfWeighted(_) => "idf-weighted",
        }
    }
}

/// 64-bit SimHash (Charikar) of a document's tokens, estimating cosine
/// similarity between weighted token bags.
///
/// Each token is hashed to 128 bits with the configured [`HashFamily`] and
/// seed; its low 64 bits vote `±weight` on the 64 output bits (the high half
/// is unused, as in 0.3.2, so that signatures stay byte-identical — COMPAT.md W12).
/// Bit `b` is set iff the votes on `b` sum to more than zero.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, SimHashFingerprinter, WordTokenizer, hamming};
/// let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
/// let a = fp.fingerprint("the quick brown fox jumps over the lazy dog")?;
/// assert_eq!(a.bits(), 0xce0e315a6cc6f940);
/// let b = fp.fingerprint("The quick brown fox jumped over the lazy dog")?;
/// assert!(hamming(a, b) < 16);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct SimHashFingerprinter<T: Tokenizer> {
    canonicalizer: Canonicalizer,
    tokenizer: T,
    seed: u64,
    hasher: HashFamily,
    weighting: Weighting,
}

impl<T: Tokenizer> SimHashFingerprinter<T> {
    /// A fingerprinter with [`DEFAULT_SEED`], [`HashFamily::Xxh3_64`] and
    /// [`Weighting::Tf`].
    pub fn new(canonicalizer: Canonicalizer, tokenizer: T) -> Self {
        Self {
            canonicalizer,
            tokenizer,
            seed: DEFAULT_SEED,
            hasher: HashFamily::Xxh3_64,
            weighting: Weighting::Tf,
        }
    }

    /// The same fingerprinter with another hash seed.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The same fingerprinter with another hash family
    /// ([`HashFamily::MurmurHash3_x64_128`] reproduces txtfp 0.1.x).
    #[must_use]
    pub fn with_hasher(mut self, hasher: HashFamily) -> Self {
        self.hasher = hasher;
        self
    }

    /// The same fingerprinter with another [`Weighting`].
    #[must_use]
    pub fn with_weighting(mut self, weighting: Weighting) -> Self {
        self.weighting = weighting;
        self
    }

    /// The canonicalizer applied before tokenization.
    pub fn canonicalizer(&self) -> &Canonicalizer {
        &self.canonicalizer
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &T {
        &self.tokenizer
    }

    /// The hash seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash family.
    pub fn hasher(&self) -> HashFamily {
        self.hasher
    }

    /// The weighting mode.
    pub fn weighting(&self) -> &Weighting {
        &self.weighting
    }

    /// A streaming fingerprinter with this configuration.
    pub fn into_streaming(self) -> SimHashStreaming<T> {
        SimHashStreaming::new(self)
    }

    /// Hash of everything that determines the signature bits:
    /// [`config_hash_classical`](crate::config_hash_classical) of the
    /// canonicalizer, the tokenizer name, `"simhash-b64-" + weighting`, the
    /// family and the seed. Equal hashes ⇒ comparable signatures.
    ///
    /// For [`Weighting::IdfWeighted`] the algorithm part is
    /// `"simhash-b64-idf-weighted-" + hex16(table.content_hash())`: unlike
    /// txtfp 0.3.2, which left the table out (COMPAT.md W11), two different tables
    /// give different config hashes. Tf and Uniform hashes equal 0.3.2's.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, SimHashFingerprinter, Weighting, WordTokenizer};
    /// let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
    /// assert_eq!(fp.config_hash(), 0xcd2b56b620c8dd97);
    /// assert_eq!(fp.with_weighting(Weighting::Uniform).config_hash(), 0x60f3ec3a61b0cee4);
    /// ```
    pub fn config_hash(&self) -> u64 {
        let algorithm = match &self.weighting {
            Weighting::IdfWeighted(table) => {
                format!("simhash-b64-idf-weighted-{:016x}", table.content_hash())
            }
            w => format!("simhash-b64-{}", w.as_str()),
        };
        crate::config_hash_classical(
            &self.canonicalizer,
            &self.tokenizer.name(),
            &algorithm,
            self.hasher,
            self.seed,
        )
    }

    /// [`Fingerprinter::fingerprint`] with a caller-owned buffer for the
    /// canonical text, so a loop over many documents reuses one allocation.
    /// The buffer's previous contents are discarded.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, Fingerprinter, SimHashFingerprinter, WordTokenizer};
    /// let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
    /// let mut buf = String::new();
    /// for doc in ["one doc", "another doc"] {
    ///     assert_eq!(fp.fingerprint_with_buffer(doc, &mut buf)?, fp.fingerprint(doc)?);
    /// }
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Fingerprinter::fingerprint`].
    pub fn fingerprint_with_buffer(&self, input: &str, buf: &mut String) -> Result<SimHash64> {
        // Configuration errors come first: they hold for every input, and
        // hiding them behind "empty document" would only delay them.
        self.canonicalizer.check()?;
        self.tokenizer.validate()?;
        if input.is_empty() {
            return Err(Error::InvalidInput("empty document".into()));
        }
        self.canonicalizer.canonicalize_into(input, buf);
        let mut sketch = self.sketch();
        sketch.push_text(&self.tokenizer, buf);
        sketch.finish()
    }

    /// An empty sketch with this fingerprinter's hashing and weighting, fed
    /// canonical tokens by the offline and the streaming paths alike.
    pub(crate) fn sketch(&self) -> SimHashSketch {
        SimHashSketch::new(self.hasher, self.seed, &self.weighting)
    }
}

impl<T: Tokenizer> Fingerprinter for SimHashFingerprinter<T> {
    type Output = SimHash64;

    /// Canonicalize `input`, tokenize it and sketch the tokens.
    ///
    /// # Errors
    /// - the configuration's own errors (a canonicalizer feature that is not
    ///   compiled in, an invalid tokenizer), before anything else;
    /// - [`Error::InvalidInput`]`("empty document")` if `input` is empty or
    ///   yields no token after canonicalization (e.g. `"   "`, `"!!!"`).
    fn fingerprint(&self, input: &str) -> Result<SimHash64> {
        let mut buf = String::with_capacity(input.len());
        self.fingerprint_with_buffer(input, &mut buf)
    }
}

/// Builder for [`SimHashFingerprinter`], with the same defaults as
/// [`SimHashFingerprinter::new`].
///
/// ```
/// use txtfp::{Canonicalizer, HashFamily, SimHashFingerprinterBuilder, Weighting, WordTokenizer};
/// let fp = SimHashFingerprinterBuilder::default()
///     .seed(7)
///     .hasher(HashFamily::MurmurHash3_x64_128)
///     .weighting(Weighting::Uniform)
///     .build(Canonicalizer::default(), WordTokenizer);
/// assert_eq!((fp.seed(), fp.weighting()), (7, &Weighting::Uniform));
/// ```
#[derive(Clone, Debug)]
pub struct SimHashFingerprinterBuilder {
    seed: u64,
    hasher: HashFamily,
    weighting: Weighting,
}

impl Default for SimHashFingerprinterBuilder {
    fn default() -> Self {
        Self {
            seed: DEFAULT_SEED,
            hasher: HashFamily::Xxh3_64,
            weighting: Weighting::Tf,
        }
    }
}

impl SimHashFingerprinterBuilder {
    /// Sets the hash seed (default [`DEFAULT_SEED`]).
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets the hash family (default [`HashFamily::Xxh3_64`]).
    #[must_use]
    pub fn hasher(mut self, hasher: HashFamily) -> Self {
        self.hasher = hasher;
        self
    }

    /// Sets the weighting (default [`Weighting::Tf`]).
    #[must_use]
    pub fn weighting(mut self, weighting: Weighting) -> Self {
        self.weighting = weighting;
        self
    }

    /// The fingerprinter.
    pub fn build<T: Tokenizer>(
        self,
        canonicalizer: Canonicalizer,
        tokenizer: T,
    ) -> SimHashFingerprinter<T> {
        SimHashFingerprinter {
            canonicalizer,
            tokenizer,
            seed: self.seed,
            hasher: self.hasher,
            weighting: self.weighting,
        }
    }
}
