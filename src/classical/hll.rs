//! HyperLogLog and HyperLogLog++: mergeable estimates of the number of
//! distinct items (e.g. distinct 5-word shingles per source) in a few
//! kilobytes.
//!
//! One register core, [`Hll<V>`], serves both sketches; the [`Variant`]
//! decides the representation and the estimator:
//!
//! * [`HyperLogLog`] (Flajolet et al. 2007): `m = 2^p` dense 8-bit registers
//!   from the start, the classic harmonic-mean estimate with the small-range
//!   linear-counting correction. With 64-bit hashes no large-range correction
//!   is needed.
//! * [`HyperLogLogPlusPlus`] (the improvements of Heule, Nunkesser and Hall
//!   2013): 64-bit hashes; while few items have been seen, a *sparse* list of
//!   `(index, rank)` pairs at precision 25, counted by linear counting over
//!   `2^25` virtual registers (nearly exact for small sets); converted to the
//!   dense registers once the list would take more bytes than they do. The
//!   dense estimate is **not** Heule et al.'s empirically bias-corrected one
//!   (that needs measured tables, which this crate does not carry): it is
//!   Otmar Ertl's *improved raw estimator* ("New cardinality estimation
//!   algorithms for HyperLogLog sketches", 2017), which needs no tables and
//!   has no bias bump in the transition range where the classic estimator
//!   switches to linear counting.
//!
//! Items are hashed with `XXH3_64` (unseeded), so sketches made anywhere by
//! this crate merge with each other. [`Hll::insert_hash`] takes a hash made
//! elsewhere; it must be a well-mixed 64-bit hash.
//!
//! The standard error of either estimate is about `1.04 / sqrt(m)`
//! ([`Hll::relative_error`]): 1.6 % at `p = 12` (4 KiB of registers),
//! 0.8 % at `p = 14` (16 KiB).
//!
//! ```
//! use txtfp::classical::hll::{HyperLogLog, HyperLogLogPlusPlus};
//!
//! let mut a = HyperLogLogPlusPlus::new(12)?;
//! let mut b = HyperLogLogPlusPlus::new(12)?;
//! for i in 0..30_000u32 {
//!     a.insert(&i.to_le_bytes());
//! }
//! for i in 20_000..50_000u32 {
//!     b.insert(&i.to_le_bytes());
//! }
//! a.merge(&b)?; // the union: 50,000 distinct items
//! let err = (a.count() - 50_000.0).abs() / 50_000.0;
//! assert!(err < 3.0 * a.relative_error());
//!
//! // Precisions must match; the variants are different types.
//! assert!(a.merge(&HyperLogLogPlusPlus::new(14)?).is_err());
//! assert!(HyperLogLog::new(3).is_err());
//! # Ok::<(), txtfp::Error>(())
//! ```

use alloc::borrow::Cow;
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use crate::canonical::Canonicalizer;
use crate::tokenize::Tokenizer;
use crate::{Error, Result};

mod bytes;
mod estimate;
#[cfg(feature = "serde")]
mod serde_impl;
mod sparse;
#[cfg(test)]
mod tests;

pub use bytes::{FORMAT_VERSION, MAGIC};

use sparse::Sparse;

/// The smallest precision [`Hll::new`] accepts (16 registers).
pub const MIN_PRECISION: u8 = 4;
/// The largest precision [`Hll::new`] accepts (262,144 registers).
pub const MAX_PRECISION: u8 = 18;

mod sealed {
    pub trait Sealed {}
}

/// Which of the two sketches an [`Hll`] is: [`Classic`] or [`PlusPlus`].
/// Sealed: the estimators and the byte tags belong to this crate.
pub trait Variant: sealed::Sealed + Copy + Default + fmt::Debug + Send + Sync + 'static {
    /// `"HyperLogLog"` or `"HyperLogLog++"`, for messages.
    const NAME: &'static str;
    /// The variant byte of the byte format.
    #[doc(hidden)]
    const TAG: u8;
    /// Whether small sketches start sparse.
    #[doc(hidden)]
    const SPARSE: bool;
    /// The estimate from a histogram of the dense registers
    /// (`hist[k]` = number of registers equal to `k`, `k` in `0..=65 - p`).
    #[doc(hidden)]
    fn estimate_dense(hist: &[u32], p: u8) -> f64;
}

/// The classic HyperLogLog: dense registers, harmonic-mean estimate with
/// linear counting for small cardinalities.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Classic;

/// HyperLogLog++: sparse at first, Ertl's table-free improved estimator once
/// dense.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PlusPlus;

impl sealed::Sealed for Classic {}
impl sealed::Sealed for PlusPlus {}

impl Variant for Classic {
    const NAME: &'static str = "HyperLogLog";
    const TAG: u8 = 1;
    const SPARSE: bool = false;
    fn estimate_dense(hist: &[u32], p: u8) -> f64 {
        estimate::classic(hist, p)
    }
}

impl Variant for PlusPlus {
    const NAME: &'static str = "HyperLogLog++";
    const TAG: u8 = 2;
    const SPARSE: bool = true;
    fn estimate_dense(hist: &[u32], p: u8) -> f64 {
        estimate::ertl_improved(hist, p)
    }
}

/// The classic HyperLogLog sketch (see the [module docs](self)).
///
/// ```
/// use txtfp::classical::hll::HyperLogLog;
/// let mut h = HyperLogLog::new(10)?;
/// assert!(h.is_empty());
/// for w in ["a", "b", "c", "a"] {
///     h.insert_str(w);
/// }
/// assert_eq!(h.len(), 3);
/// # Ok::<(), txtfp::Error>(())
/// ```
pub type HyperLogLog = Hll<Classic>;

/// The HyperLogLog++ sketch (see the [module docs](self)).
///
/// ```
/// use txtfp::classical::hll::HyperLogLogPlusPlus;
/// let mut h = HyperLogLogPlusPlus::new(14)?;
/// h.insert_tokens("to be or not to be".split(' '));
/// assert_eq!(h.len(), 4);
/// assert!(h.is_sparse());
/// # Ok::<(), txtfp::Error>(())
/// ```
pub type HyperLogLogPlusPlus = Hll<PlusPlus>;

/// The registers: dense from the start for [`Classic`], sparse until it
/// outgrows the dense size for [`PlusPlus`].
#[derive(Clone)]
enum Repr {
    Dense(Vec<u8>),
    Sparse(Sparse),
}

/// A HyperLogLog register sketch of precision `p` (`m = 2^p` registers);
/// use it as [`HyperLogLog`] or [`HyperLogLogPlusPlus`].
///
/// Equality is equality of the sketched state: two sketches are equal when
/// they have the same precision and the same registers (and, while sparse,
/// the same sparse entries), whatever the order and repetition of the
/// inserts that made them.
#[derive(Clone)]
pub struct Hll<V: Variant> {
    p: u8,
    repr: Repr,
    _variant: PhantomData<V>,
}

impl<V: Variant> fmt::Debug for Hll<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(V::NAME)
            .field("p", &self.p)
            .field("sparse", &self.is_sparse())
            .field("count", &self.count())
            .finish()
    }
}

impl<V: Variant> PartialEq for Hll<V> {
    fn eq(&self, other: &Self) -> bool {
        if self.p != other.p {
            return false;
        }
        match (&self.repr, &other.repr) {
            (Repr::Dense(a), Repr::Dense(b)) => a == b,
            (Repr::Sparse(a), Repr::Sparse(b)) => a.normalized() == b.normalized(),
            _ => false,
        }
    }
}

impl<V: Variant> Eq for Hll<V> {}

/// The register index and rank of `hash` at precision `p`: the top `p` bits
/// pick the register, the rank is one plus the number of leading zeros of
/// the remaining `64 - p` bits (at most `65 - p`).
#[inline(always)]
fn index_rank(hash: u64, p: u8) -> (usize, u8) {
    let idx = (hash >> (64 - u32::from(p))) as usize;
    let rest = hash << p;
    let rank = (rest.leading_zeros() + 1).min(65 - u32::from(p));
    (idx, rank as u8)
}

impl<V: Variant> Hll<V> {
    /// An empty sketch with `2^p` registers; `p` must be in
    /// [`MIN_PRECISION`]`..=`[`MAX_PRECISION`] (`4..=18`), else
    /// [`Error::Config`].
    ///
    /// ```
    /// use txtfp::classical::hll::HyperLogLogPlusPlus;
    /// assert_eq!(HyperLogLogPlusPlus::new(12)?.num_registers(), 4096);
    /// let err = HyperLogLogPlusPlus::new(19).unwrap_err();
    /// assert_eq!(err.to_string(), "config error: HyperLogLog++ precision must be in 4..=18, got 19");
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn new(p: u8) -> Result<Self> {
        if !(MIN_PRECISION..=MAX_PRECISION).contains(&p) {
            return Err(Error::Config(format!(
                "{} precision must be in {MIN_PRECISION}..={MAX_PRECISION}, got {p}",
                V::NAME
            )));
        }
        let repr = if V::SPARSE {
            Repr::Sparse(Sparse::new(p))
        } else {
            Repr::Dense(vec![0; 1 << p])
        };
        Ok(Self {
            p,
            repr,
            _variant: PhantomData,
        })
    }

    /// The precision `p`.
    pub fn precision(&self) -> u8 {
        self.p
    }

    /// The number of dense registers, `m = 2^p`.
    pub fn num_registers(&self) -> usize {
        1 << self.p
    }

    /// The standard error of the estimate relative to the true count,
    /// `1.04 / sqrt(m)`.
    ///
    /// ```
    /// use txtfp::classical::hll::HyperLogLog;
    /// assert_eq!(HyperLogLog::new(12)?.relative_error(), 1.04 / 64.0);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn relative_error(&self) -> f64 {
        1.04 / (self.num_registers() as f64).sqrt()
    }

    /// Whether the sketch is still in the sparse representation (only ever
    /// for [`HyperLogLogPlusPlus`]).
    pub fn is_sparse(&self) -> bool {
        matches!(self.repr, Repr::Sparse(_))
    }

    /// Add an item by its 64-bit hash. The hash must be well mixed (every
    /// bit equally likely): the top `p` bits choose a register.
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) {
        match &mut self.repr {
            Repr::Dense(regs) => {
                let (idx, rank) = index_rank(hash, self.p);
                let r = &mut regs[idx];
                if rank > *r {
                    *r = rank;
                }
            }
            Repr::Sparse(s) => {
                if !s.insert(hash) {
                    self.densify();
                }
            }
        }
    }

    /// Add an item by its bytes (hashed with `XXH3_64`).
    #[inline]
    pub fn insert(&mut self, item: &[u8]) {
        self.insert_hash(crate::classical::xxh3_64(item));
    }

    /// Add a string item (its UTF-8 bytes, as [`Hll::insert`]).
    #[inline]
    pub fn insert_str(&mut self, item: &str) {
        self.insert(item.as_bytes());
    }

    /// Add every string of `tokens`, e.g. the shingles of a document
    /// (borrowed or owned strings).
    ///
    /// ```
    /// use txtfp::classical::hll::HyperLogLogPlusPlus;
    /// use txtfp::{ShingleTokenizer, Tokenizer, WordTokenizer};
    /// let tok = ShingleTokenizer::new(2, WordTokenizer)?;
    /// let mut h = HyperLogLogPlusPlus::new(12)?;
    /// h.insert_tokens(tok.tokens("a b a b a").into_string_iter());
    /// assert_eq!(h.len(), 2); // "a b", "b a"
    /// h.insert_tokens(["a b", "c d"]);
    /// assert_eq!(h.len(), 3);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn insert_tokens<I>(&mut self, tokens: I)
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        for t in tokens {
            self.insert_str(t.as_ref());
        }
    }

    /// Canonicalize `text`, cut it with `tokenizer` and add every token: the
    /// same tokens a fingerprinter with this canonicalizer and tokenizer
    /// sketches, so per-source counts of distinct shingles agree with the
    /// sets MinHash estimates Jaccard over.
    ///
    /// ```
    /// use txtfp::classical::hll::HyperLogLogPlusPlus;
    /// use txtfp::{Canonicalizer, ShingleTokenizer, WordTokenizer};
    /// let canon = Canonicalizer::default();
    /// let tok = ShingleTokenizer::new(5, WordTokenizer)?;
    /// let mut source = HyperLogLogPlusPlus::new(14)?;
    /// source.insert_text(&canon, &tok, "One two three four five six.");
    /// source.insert_text(&canon, &tok, "ONE two three four five six!");
    /// assert_eq!(source.len(), 2);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn insert_text<T: Tokenizer + ?Sized>(
        &mut self,
        canonicalizer: &Canonicalizer,
        tokenizer: &T,
        text: &str,
    ) {
        let canonical = canonicalizer.canonicalize(text);
        tokenizer.for_each_token(&canonical, &mut |t| self.insert_str(t));
    }

    /// The estimated number of distinct items inserted.
    pub fn count(&self) -> f64 {
        match &self.repr {
            Repr::Dense(regs) => V::estimate_dense(&estimate::histogram(regs, self.p), self.p),
            Repr::Sparse(s) => s.estimate(),
        }
    }

    /// [`Hll::count`] rounded to the nearest integer: an estimate, like
    /// `len()` of datasketch's sketches, not an exact size.
    pub fn len(&self) -> u64 {
        // `count` is finite and non-negative; `as` saturates regardless.
        self.count().round() as u64
    }

    /// `true` exactly when nothing has been inserted (or merged in).
    pub fn is_empty(&self) -> bool {
        match &self.repr {
            Repr::Dense(regs) => regs.iter().all(|&r| r == 0),
            Repr::Sparse(s) => s.is_empty(),
        }
    }

    /// Forget every item, back to the empty (for [`HyperLogLogPlusPlus`]:
    /// sparse) state.
    pub fn clear(&mut self) {
        if V::SPARSE {
            self.repr = Repr::Sparse(Sparse::new(self.p));
        } else if let Repr::Dense(regs) = &mut self.repr {
            regs.fill(0);
        }
    }

    /// The `m` dense registers (each in `0..=65 - p`); computed from the
    /// sparse entries while the sketch is sparse.
    pub fn registers(&self) -> Cow<'_, [u8]> {
        match &self.repr {
            Repr::Dense(regs) => Cow::Borrowed(regs),
            Repr::Sparse(s) => Cow::Owned(s.to_dense()),
        }
    }

    /// Fold `other` into `self`: afterwards `self` is the sketch of the union
    /// of both inputs, equal to a sketch that saw every item of both.
    /// [`Error::Config`] when the precisions differ (the registers would not
    /// line up).
    ///
    /// ```
    /// use txtfp::classical::hll::HyperLogLog;
    /// let mut a = HyperLogLog::new(8)?;
    /// let err = a.merge(&HyperLogLog::new(9)?).unwrap_err();
    /// assert_eq!(err.to_string(), "config error: cannot merge HyperLogLog sketches of precision 8 and 9");
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn merge(&mut self, other: &Self) -> Result<()> {
        if self.p != other.p {
            return Err(Error::Config(format!(
                "cannot merge {} sketches of precision {} and {}",
                V::NAME,
                self.p,
                other.p
            )));
        }
        match (&mut self.repr, &other.repr) {
            (Repr::Dense(a), Repr::Dense(b)) => max_into(a, b),
            (Repr::Dense(a), Repr::Sparse(b)) => b.apply_to_dense(a),
            (Repr::Sparse(a), Repr::Dense(b)) => {
                let mut regs = a.to_dense();
                max_into(&mut regs, b);
                self.repr = Repr::Dense(regs);
            }
            (Repr::Sparse(a), Repr::Sparse(b)) => {
                if !a.absorb(b) {
                    // Over the sparse limit part-way: everything of `a` is
                    // in its list; `b` is applied whole (max is idempotent).
                    let mut regs = a.to_dense();
                    b.apply_to_dense(&mut regs);
                    self.repr = Repr::Dense(regs);
                }
            }
        }
        Ok(())
    }

    /// Switch to the dense registers (no-op when already dense).
    fn densify(&mut self) {
        if let Repr::Sparse(s) = &self.repr {
            self.repr = Repr::Dense(s.to_dense());
        }
    }
}

/// Register-wise maximum: the union of two dense sketches.
fn max_into(a: &mut [u8], b: &[u8]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = (*x).max(y);
    }
}
