//! [`LshEnsembleBuilder`]: parameters and the signatures to index.

use alloc::format;
use alloc::vec::Vec;
use core::marker::PhantomData;

use super::LshEnsemble;
use super::partition::Partitioning;
use super::tune::Tuner;
use crate::classical::minhash::{Classic, Scheme};
use crate::{Error, MinHashSig, Result};

/// Default number of size partitions (as in the LSH Ensemble paper's
/// experiments and datasketch's `num_part`).
pub const DEFAULT_PARTITIONS: usize = 16;

/// Default largest band width: rows `1..=8` are indexed.
pub const DEFAULT_MAX_ROWS: usize = 8;

/// Most partitions a builder accepts.
pub const MAX_PARTITIONS: usize = 1 << 12;

/// Most signatures one ensemble holds (slots are `u32`).
pub const MAX_ENTRIES: usize = (1 << 31) - 1;

/// Collects `(id, signature, set size)` entries and the parameters of an
/// [`LshEnsemble`], which [`build`](Self::build) makes in one pass. The
/// ensemble is immutable once built: its partitions are cut by the sizes of
/// all the sets, so adding one would move them.
///
/// ```
/// use txtfp::MinHashSig;
/// use txtfp::lsh::ensemble::LshEnsembleBuilder;
/// let mut b = LshEnsembleBuilder::<16>::new().partitions(4).max_rows(4);
/// let sig = MinHashSig::<16> { hashes: [7; 16], ..MinHashSig::empty() };
/// b.insert(1, &sig, 30)?;
/// assert!(b.insert(2, &sig, 0).is_err()); // an empty set has no containment
/// let idx = b.build()?;
/// assert_eq!((idx.len(), idx.num_perm(), idx.max_rows()), (1, 16, 4));
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct LshEnsembleBuilder<const H: usize, S: Scheme = Classic> {
    pub(crate) num_perm: usize,
    pub(crate) partitions: usize,
    pub(crate) partitioning: Partitioning,
    pub(crate) max_rows: usize,
    pub(crate) fp_weight: f64,
    pub(crate) fn_weight: f64,
    pub(crate) entries: Vec<(u64, u64, MinHashSig<H, S>)>,
    _scheme: PhantomData<S>,
}

impl<const H: usize, S: Scheme> Default for LshEnsembleBuilder<H, S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const H: usize, S: Scheme> LshEnsembleBuilder<H, S> {
    /// All `H` slots, up to [`DEFAULT_PARTITIONS`] partitions cut by
    /// [`Partitioning::Optimal`], rows up to
    /// [`DEFAULT_MAX_ROWS`], false positives and false negatives weighed
    /// equally.
    pub fn new() -> Self {
        Self {
            num_perm: H,
            partitions: DEFAULT_PARTITIONS,
            partitioning: Partitioning::Optimal,
            max_rows: DEFAULT_MAX_ROWS,
            fp_weight: 0.5,
            fn_weight: 0.5,
            entries: Vec::new(),
            _scheme: PhantomData,
        }
    }

    /// Use only the first `num_perm` slots of each signature (`1..=H`;
    /// checked by [`build`](Self::build)).
    pub fn num_perm(mut self, num_perm: usize) -> Self {
        self.num_perm = num_perm;
        self
    }

    /// Most size partitions (`1..=`[`MAX_PARTITIONS`]); fewer are made
    /// when there are fewer sets (or, with [`Partitioning::Optimal`],
    /// fewer distinct sizes).
    pub fn partitions(mut self, partitions: usize) -> Self {
        self.partitions = partitions;
        self
    }

    /// How the sets are cut into size partitions (default
    /// [`Partitioning::Optimal`]).
    ///
    /// ```
    /// use txtfp::MinHashSig;
    /// use txtfp::lsh::ensemble::{LshEnsembleBuilder, Partitioning};
    /// let sig = MinHashSig::<16> { hashes: [7; 16], ..MinHashSig::empty() };
    /// let sizes = [10, 11, 12, 13, 14, 15, 500, 900];
    /// let mut equi = LshEnsembleBuilder::<16>::new()
    ///     .partitions(2)
    ///     .partitioning(Partitioning::EquiDepth);
    /// let mut best = LshEnsembleBuilder::<16>::new().partitions(2);
    /// for (id, &size) in sizes.iter().enumerate() {
    ///     equi.insert(id as u64, &sig, size)?;
    ///     best.insert(id as u64, &sig, size)?;
    /// }
    /// let equi_bounds = equi.build()?.partition_bounds();
    /// assert_eq!(equi_bounds, [(10, 13, 4), (14, 900, 4)]);
    /// // The small sets stay together, away from the large ones.
    /// assert_eq!(best.build()?.partition_bounds(), [(10, 15, 6), (500, 900, 2)]);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn partitioning(mut self, partitioning: Partitioning) -> Self {
        self.partitioning = partitioning;
        self
    }

    /// Largest band width `r` a query may use (`1..=num_perm`). Every
    /// `r ≤ max_rows` gets `num_perm / r` band tables per partition, so
    /// memory grows with it: about `12 · Σᵣ num_perm / r` bytes a set
    /// (4.1 KiB at 128 slots and 8 rows).
    pub fn max_rows(mut self, max_rows: usize) -> Self {
        self.max_rows = max_rows;
        self
    }

    /// Relative costs of a false positive and a false negative when a
    /// banding is chosen (finite, non-negative, not both zero).
    pub fn weights(mut self, fp_weight: f64, fn_weight: f64) -> Self {
        self.fp_weight = fp_weight;
        self.fn_weight = fn_weight;
        self
    }

    /// Entries collected so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` when no entry was inserted.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Adds the set `id` with MinHash `sig` and `size` distinct elements
    /// (for text, the number of distinct shingles the fingerprinter saw).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `size` is zero or the builder already
    /// holds [`MAX_ENTRIES`] entries. Repeated ids are reported by
    /// [`build`](Self::build).
    pub fn insert(&mut self, id: u64, sig: &MinHashSig<H, S>, size: u64) -> Result<()> {
        if size == 0 {
            return Err(Error::InvalidInput(format!(
                "set {id} has size 0: an empty set has no containment"
            )));
        }
        if self.entries.len() >= MAX_ENTRIES {
            return Err(Error::InvalidInput(format!(
                "an LSH Ensemble holds at most {MAX_ENTRIES} sets"
            )));
        }
        self.entries.push((id, size, *sig));
        Ok(())
    }

    /// The checked tuning parameters.
    pub(crate) fn tuner(&self) -> Result<Tuner> {
        if self.num_perm == 0 || self.num_perm > H {
            return Err(Error::Config(format!(
                "num_perm must be in 1..={H} (the signature's slots); got {}",
                self.num_perm
            )));
        }
        if self.partitions == 0 || self.partitions > MAX_PARTITIONS {
            return Err(Error::Config(format!(
                "partitions must be in 1..={MAX_PARTITIONS}; got {}",
                self.partitions
            )));
        }
        if self.max_rows == 0 || self.max_rows > self.num_perm {
            return Err(Error::Config(format!(
                "max_rows must be in 1..={} (num_perm); got {}",
                self.num_perm, self.max_rows
            )));
        }
        let (fp, fnw) = (self.fp_weight, self.fn_weight);
        if !(fp.is_finite() && fnw.is_finite() && fp >= 0.0 && fnw >= 0.0 && fp + fnw > 0.0) {
            return Err(Error::Config(format!(
                "weights must be finite, non-negative and not both zero; got ({fp}, {fnw})"
            )));
        }
        Ok(Tuner {
            num_perm: self.num_perm,
            max_rows: self.max_rows,
            fp_weight: fp,
            fn_weight: fnw,
        })
    }

    /// Cuts the sets into size partitions and builds every
    /// partition's band tables.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for parameters out of range (see the setters);
    /// [`Error::InvalidInput`] when an id was inserted twice.
    pub fn build(self) -> Result<LshEnsemble<H, S>> {
        let tuner = self.tuner()?;
        LshEnsemble::from_entries(tuner, self.partitions, self.partitioning, self.entries)
    }
}
