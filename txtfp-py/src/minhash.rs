//! `txtfp.MinHashFingerprinter`: MinHash signatures as rows of `uint64`.
//!
//! The Rust fingerprinters fix the slot count at compile time; Python picks
//! it at run time, so each supported count is built once and held behind
//! the [`Slots`] trait.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use txtfp::classical::minhash::FastMinHashFingerprinter;
use txtfp::classical::{DEFAULT_SEED, HashFamily};
use txtfp::{Canonicalizer, MinHashFingerprinter, Tokenizer};

use crate::canon::{PyCanonicalizer, or_default};
use crate::errors::{bad_value, to_py};
use crate::run::{Policy, Threads, batch};
use crate::settings::{WithTokenizer, hash_family, hasher_name, word_tokens};
use crate::texts::{one_text, utf8};

/// The slot counts a `MinHashFingerprinter` can have.
pub const NUM_PERMS: [usize; 6] = [16, 32, 64, 128, 256, 512];

/// A MinHash fingerprinter of any slot count and scheme.
trait Slots: Send + Sync {
    /// Writes the signature of `text` into `row` (`num_perm` slots).
    fn sign(&self, text: &str, scratch: &mut String, row: &mut [u64]) -> txtfp::Result<()>;
    fn config_hash(&self) -> u64;
}

impl<T: Tokenizer + Send + Sync, const H: usize> Slots for MinHashFingerprinter<T, H> {
    fn sign(&self, text: &str, scratch: &mut String, row: &mut [u64]) -> txtfp::Result<()> {
        row.copy_from_slice(&self.fingerprint_with_buffer(text, scratch)?.hashes);
        Ok(())
    }
    fn config_hash(&self) -> u64 {
        MinHashFingerprinter::config_hash(self)
    }
}

impl<T: Tokenizer + Send + Sync, const H: usize> Slots for FastMinHashFingerprinter<T, H> {
    fn sign(&self, text: &str, scratch: &mut String, row: &mut [u64]) -> txtfp::Result<()> {
        row.copy_from_slice(&self.fingerprint_with_buffer(text, scratch)?.hashes);
        Ok(())
    }
    fn config_hash(&self) -> u64 {
        FastMinHashFingerprinter::config_hash(self)
    }
}

/// The fingerprinter of one configuration, for [`word_tokens`].
struct Build {
    num_perm: usize,
    fast: bool,
    seed: u64,
    family: HashFamily,
    canon: Canonicalizer,
}

impl WithTokenizer for Build {
    type Out = Option<Box<dyn Slots>>;

    fn with<T: Tokenizer + Clone + Send + Sync + 'static>(self, tok: T) -> Self::Out {
        let Build {
            num_perm,
            fast,
            seed,
            family,
            canon,
        } = self;
        macro_rules! pick {
            ($($h:literal)*) => {
                match (num_perm, fast) {
                    $(
                        ($h, false) => Some(Box::new(
                            MinHashFingerprinter::<T, $h>::new(canon, tok)
                                .with_seed(seed)
                                .with_hasher(family),
                        ) as Box<dyn Slots>),
                        ($h, true) => Some(Box::new(
                            FastMinHashFingerprinter::<T, $h>::new(canon, tok).with_seed(seed),
                        ) as Box<dyn Slots>),
                    )*
                    _ => None,
                }
            };
        }
        pick!(16 32 64 128 256 512)
    }
}

/// MinHash signatures of word `k`-shingles.
///
/// `fingerprint(text)` returns a `uint64` array of `num_perm` slots and
/// `fingerprint_batch(texts)` an array of shape `(len(texts), num_perm)`:
/// the same values, slot for slot, as the Rust crate's `MinHashSig::hashes`
/// (or `FastMinHashSig::hashes` with `fast=True`).
#[pyclass(module = "txtfp", frozen, name = "MinHashFingerprinter")]
pub struct PyMinHash {
    inner: Box<dyn Slots>,
    k: usize,
    num_perm: usize,
    fast: bool,
    seed: u64,
    hasher: &'static str,
    canon: String,
}

#[pymethods]
impl PyMinHash {
    #[new]
    #[pyo3(signature = (k = 5, num_perm = 128, *, fast = false, seed = DEFAULT_SEED, hasher = "xxh3", canonicalizer = None))]
    fn new(
        k: usize,
        num_perm: usize,
        fast: bool,
        seed: u64,
        hasher: &str,
        canonicalizer: Option<&Bound<'_, PyCanonicalizer>>,
    ) -> PyResult<Self> {
        let family = hash_family(hasher)?;
        if fast && family != HashFamily::Xxh3_64 {
            return Err(bad_value(
                "the fast scheme has its own hash; leave hasher at \"xxh3\"",
            ));
        }
        let canon = or_default(canonicalizer);
        let label = canon.config_string();
        let build = Build {
            num_perm,
            fast,
            seed,
            family,
            canon,
        };
        let inner = word_tokens(k, build)?.ok_or_else(|| {
            bad_value(format!(
                "num_perm must be one of {NUM_PERMS:?}, not {num_perm}"
            ))
        })?;
        Ok(PyMinHash {
            inner,
            k,
            num_perm,
            fast,
            seed,
            hasher: hasher_name(family),
            canon: label,
        })
    }

    /// The signature of one text: `num_perm` `uint64` slots.
    ///
    /// Raises `TxtfpError` for a text with no tokens.
    fn fingerprint<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let bytes = one_text(text)?;
        let mut row = vec![0u64; self.num_perm];
        let s = utf8(bytes.as_bytes()).map_err(to_py)?;
        py.detach(|| self.inner.sign(s, &mut String::new(), &mut row))
            .map_err(to_py)?;
        Ok(row.into_pyarray(py))
    }

    /// The signatures of many texts, one row each, in input order.
    ///
    /// `texts` is an iterable of `str` (or UTF-8 `bytes`, or `None`) or an
    /// Arrow array of strings (read in place). The work runs without the GIL
    /// on every core, or on `threads` threads. A text with no tokens, `None`
    /// or invalid UTF-8 raises `TxtfpError` naming it (`errors="raise"`), or
    /// gets a row of `2**64 - 1` (`errors="empty"`).
    #[pyo3(signature = (texts, *, errors = "raise", threads = None))]
    fn fingerprint_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        errors: &str,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let policy = Policy::parse(errors)?;
        let threads = Threads::parse(threads)?;
        let rows = batch(
            py,
            texts,
            self.num_perm,
            u64::MAX,
            policy,
            &threads,
            |t, s, row| self.inner.sign(t, s, row),
        )?;
        let shape = (rows.n, self.num_perm);
        let array = Array2::from_shape_vec(shape, rows.values)
            .map_err(|e| bad_value(format!("internal shape error: {e}")))?;
        Ok(array.into_pyarray(py))
    }

    /// Shingle size in words.
    #[getter]
    fn k(&self) -> usize {
        self.k
    }

    /// Slots per signature.
    #[getter]
    fn num_perm(&self) -> usize {
        self.num_perm
    }

    /// Whether this is the fast scheme (one hash per token, binned).
    #[getter]
    fn fast(&self) -> bool {
        self.fast
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    #[getter]
    fn hasher(&self) -> &'static str {
        self.hasher
    }

    /// The configuration's hash, equal to the Rust fingerprinter's
    /// `config_hash()`: signatures are comparable only when it matches.
    #[getter]
    fn config_hash(&self) -> u64 {
        self.inner.config_hash()
    }

    fn __repr__(&self) -> String {
        format!(
            "MinHashFingerprinter(k={}, num_perm={}, fast={}, seed={:#x}, hasher={:?}, canonicalizer={:?})",
            self.k,
            self.num_perm,
            if self.fast { "True" } else { "False" },
            self.seed,
            self.hasher,
            self.canon
        )
    }
}
