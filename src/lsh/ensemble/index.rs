//! [`LshEnsemble`]: partitions, band tables and containment queries.

use alloc::format;
use alloc::vec::Vec;
use core::fmt;

use super::partition::{Partitioning, partition_ends};
use super::tune::{Tuner, bucket_ratio, ratio_bucket};
use crate::classical::minhash::{Classic, Scheme};
use crate::lsh::band_key_at;
use crate::lsh::prefetch::prefetch;
use crate::lsh::run::{Entry, Run};
use crate::{Error, MinHashSig, Result};

/// One size partition: a run of slots (sets sorted by size) and its band
/// tables, `num_perm / r` tables for each `r` in `1..=max_rows`.
#[derive(Clone)]
pub(crate) struct Partition {
    pub(crate) start: u32,
    pub(crate) end: u32,
    pub(crate) lower: u64,
    pub(crate) upper: u64,
    pub(crate) tables: Vec<Run>,
}

/// An LSH Ensemble (Zhu et al., VLDB 2016): containment search over MinHash
/// signatures of sets with known sizes.
///
/// Sets are sorted by size and cut into partitions (by default where the
/// expected false positives are smallest; see [`Partitioning`]). Each
/// partition indexes every band width `r ≤ max_rows` (the first
/// `num_perm / r` bands of `r` slots), so a query picks, per partition, the
/// `(bands, rows)` that minimise the expected false positives plus false
/// negatives for *its* threshold and size against the partition's largest
/// set (see [`bandings`](Self::bandings)). Built by [`LshEnsembleBuilder`],
/// immutable afterwards; queries take `&self`.
///
/// [`LshEnsembleBuilder`]: super::LshEnsembleBuilder
pub struct LshEnsemble<const H: usize, S: Scheme = Classic> {
    pub(crate) tuner: Tuner,
    pub(crate) partitions_requested: usize,
    pub(crate) partitioning: Partitioning,
    /// By slot: sets sorted by `(size, id)`.
    pub(crate) ids: Vec<u64>,
    pub(crate) sizes: Vec<u64>,
    pub(crate) sigs: Vec<MinHashSig<H, S>>,
    /// Slots sorted by id, for [`get`](Self::get).
    pub(crate) by_id: Vec<u32>,
    pub(crate) parts: Vec<Partition>,
    /// `offsets[r - 1]` is the first table of band width `r`.
    pub(crate) offsets: Vec<usize>,
    #[cfg(feature = "std")]
    cache: std::sync::Mutex<hashbrown::HashMap<(u64, i32), (u16, u16)>>,
}

/// Cached bandings before the cache is cleared (distinct thresholds times
/// size ratios; a few hundred in practice).
#[cfg(feature = "std")]
const CACHE_CAP: usize = 1 << 14;

impl<const H: usize, S: Scheme> Clone for LshEnsemble<H, S> {
    fn clone(&self) -> Self {
        Self {
            tuner: self.tuner,
            partitions_requested: self.partitions_requested,
            partitioning: self.partitioning,
            ids: self.ids.clone(),
            sizes: self.sizes.clone(),
            sigs: self.sigs.clone(),
            by_id: self.by_id.clone(),
            parts: self.parts.clone(),
            offsets: self.offsets.clone(),
            #[cfg(feature = "std")]
            cache: Default::default(),
        }
    }
}

impl<const H: usize, S: Scheme> fmt::Debug for LshEnsemble<H, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LshEnsemble")
            .field("len", &self.ids.len())
            .field("num_perm", &self.tuner.num_perm)
            .field("max_rows", &self.tuner.max_rows)
            .field("partitions", &self.partition_bounds())
            .finish()
    }
}

/// Checks a query's size and threshold.
fn check_query(size: u64, threshold: f64) -> Result<()> {
    if size == 0 {
        return Err(Error::InvalidInput(
            "query set size must be positive: an empty set has no containment".into(),
        ));
    }
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(Error::Config(format!(
            "containment threshold must be in (0.0, 1.0]; got {threshold}"
        )));
    }
    Ok(())
}

impl<const H: usize, S: Scheme> LshEnsemble<H, S> {
    /// Sorts, partitions and indexes `entries` (`(id, size, sig)`, sizes
    /// already checked positive).
    pub(crate) fn from_entries(
        tuner: Tuner,
        partitions: usize,
        partitioning: Partitioning,
        mut entries: Vec<(u64, u64, MinHashSig<H, S>)>,
    ) -> Result<Self> {
        let n = entries.len();
        if n > super::MAX_ENTRIES {
            return Err(Error::InvalidInput(format!(
                "an LSH Ensemble holds at most {} sets; got {n}",
                super::MAX_ENTRIES
            )));
        }
        entries.sort_unstable_by_key(|e| (e.1, e.0));
        let ids: Vec<u64> = entries.iter().map(|e| e.0).collect();
        let sizes: Vec<u64> = entries.iter().map(|e| e.1).collect();
        let sigs: Vec<MinHashSig<H, S>> = entries.into_iter().map(|e| e.2).collect();
        let mut by_id: Vec<u32> = (0..n as u32).collect();
        by_id.sort_unstable_by_key(|&s| ids[s as usize]);
        if let Some(w) = by_id
            .windows(2)
            .find(|w| ids[w[0] as usize] == ids[w[1] as usize])
        {
            return Err(Error::InvalidInput(format!(
                "id {} was inserted twice",
                ids[w[0] as usize]
            )));
        }
        let mut offsets = Vec::with_capacity(tuner.max_rows + 1);
        let mut total = 0;
        for r in 1..=tuner.max_rows {
            offsets.push(total);
            total += tuner.num_perm / r;
        }
        offsets.push(total);
        let ends = partition_ends(&sizes, partitions, partitioning);
        let mut parts = Vec::with_capacity(ends.len());
        let mut start = 0;
        for end in ends {
            let mut tables = Vec::with_capacity(total);
            for r in 1..=tuner.max_rows {
                for band in 0..tuner.num_perm / r {
                    let mut run: Vec<Entry> = (start..end)
                        .map(|s| Entry::new(band_key_at(&sigs[s].hashes, r, band), s as u32))
                        .collect();
                    run.sort_unstable_by_key(Entry::key);
                    tables.push(Run::from_sorted(run));
                }
            }
            parts.push(Partition {
                start: start as u32,
                end: end as u32,
                lower: sizes[start],
                upper: sizes[end - 1],
                tables,
            });
            start = end;
        }
        Ok(Self {
            tuner,
            partitions_requested: partitions,
            partitioning,
            ids,
            sizes,
            sigs,
            by_id,
            parts,
            offsets,
            #[cfg(feature = "std")]
            cache: Default::default(),
        })
    }

    /// Number of indexed sets.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// `true` when no set is indexed.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Slots of each signature in use (the first `num_perm` of `H`).
    pub fn num_perm(&self) -> usize {
        self.tuner.num_perm
    }

    /// Largest band width a query may use.
    pub fn max_rows(&self) -> usize {
        self.tuner.max_rows
    }

    /// The partition count asked of the builder (at most this many are
    /// made; see [`partition_bounds`](Self::partition_bounds)).
    pub fn partitions_requested(&self) -> usize {
        self.partitions_requested
    }

    /// How the partitions were cut.
    pub fn partitioning(&self) -> Partitioning {
        self.partitioning
    }

    /// Each partition's `(smallest size, largest size, number of sets)`, in
    /// ascending size order.
    pub fn partition_bounds(&self) -> Vec<(u64, u64, usize)> {
        self.parts
            .iter()
            .map(|p| (p.lower, p.upper, (p.end - p.start) as usize))
            .collect()
    }

    /// The signature and set size stored under `id`.
    pub fn get(&self, id: u64) -> Option<(&MinHashSig<H, S>, u64)> {
        let i = self
            .by_id
            .binary_search_by_key(&id, |&s| self.ids[s as usize])
            .ok()?;
        let s = self.by_id[i] as usize;
        Some((&self.sigs[s], self.sizes[s]))
    }

    /// The banding a query of `size` elements at containment `threshold`
    /// uses in each partition (in [`partition_bounds`](Self::partition_bounds)
    /// order): `Some((bands, rows))`, or `None` for a partition whose largest
    /// set is smaller than `threshold · size` and so cannot contain enough
    /// of the query (it is not probed).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `size` is zero; [`Error::Config`] when
    /// `threshold` is not in `(0, 1]` (NaN included).
    pub fn bandings(&self, size: u64, threshold: f64) -> Result<Vec<Option<(usize, usize)>>> {
        check_query(size, threshold)?;
        Ok(self
            .parts
            .iter()
            .map(|p| self.banding(p.upper, size, threshold))
            .collect())
    }

    /// The banding of one partition with largest set `upper` (thresholds
    /// and sizes already checked).
    fn banding(&self, upper: u64, size: u64, threshold: f64) -> Option<(usize, usize)> {
        if (upper as f64) < threshold * size as f64 {
            return None;
        }
        let bucket = ratio_bucket(upper, size);
        #[cfg(feature = "std")]
        {
            let key = (threshold.to_bits(), bucket);
            if let Ok(cache) = self.cache.lock()
                && let Some(&(b, r)) = cache.get(&key)
            {
                return Some((usize::from(b), usize::from(r)));
            }
            let (b, r) = self.tuner.optimal(threshold, bucket_ratio(bucket));
            if let Ok(mut cache) = self.cache.lock() {
                if cache.len() >= CACHE_CAP {
                    cache.clear();
                }
                // b, r ≤ num_perm ≤ H, which is far below u16::MAX in
                // practice; an H beyond it is simply not cached.
                if let (Ok(b16), Ok(r16)) = (u16::try_from(b), u16::try_from(r)) {
                    cache.insert(key, (b16, r16));
                }
            }
            Some((b, r))
        }
        #[cfg(not(feature = "std"))]
        {
            Some(self.tuner.optimal(threshold, bucket_ratio(bucket)))
        }
    }

    /// Slots of the candidates, ascending and without repeats.
    fn candidate_slots(&self, sig: &MinHashSig<H, S>, size: u64, threshold: f64) -> Vec<u32> {
        let mut out = Vec::new();
        let (mut keys, mut probes) = (Vec::new(), Vec::new());
        for p in &self.parts {
            let Some((bands, rows)) = self.banding(p.upper, size, threshold) else {
                continue;
            };
            let tables = &p.tables[self.offsets[rows - 1]..][..bands];
            // Three passes over the bands, so the cache misses of the
            // directory words and then of the entries overlap instead of
            // queueing one lookup behind the other.
            keys.clear();
            keys.extend((0..bands).map(|band| band_key_at(&sig.hashes, rows, band)));
            for (run, &key) in tables.iter().zip(&keys) {
                if let Some(w) = run.as_ref().dir_word(key) {
                    prefetch(w);
                }
            }
            probes.clear();
            probes.extend(tables.iter().zip(&keys).map(|(run, &key)| {
                let run = run.as_ref();
                let probe = run.locate(key);
                if let Some(e) = run.guessed(probe) {
                    prefetch(e);
                }
                probe
            }));
            for ((run, &key), &probe) in tables.iter().zip(&keys).zip(&probes) {
                out.extend(run.as_ref().find(key, probe).iter().map(Entry::slot));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Ids of the sets that share, in their partition, at least one band of
    /// the chosen banding with the query: candidates for containment
    /// `|Q ∩ X| / |Q| ≥ threshold`, unverified. Ascending, no repeats.
    ///
    /// `size` is the number of distinct elements of the query set `Q`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `size` is zero; [`Error::Config`] when
    /// `threshold` is not in `(0, 1]`.
    pub fn query(&self, sig: &MinHashSig<H, S>, size: u64, threshold: f64) -> Result<Vec<u64>> {
        check_query(size, threshold)?;
        let mut ids: Vec<u64> = self
            .candidate_slots(sig, size, threshold)
            .into_iter()
            .map(|s| self.ids[s as usize])
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    /// The candidates of [`query`](Self::query) whose containment estimated
    /// from the signatures reaches `threshold`, with that estimate, by
    /// ascending id. Cheap (one signature comparison a candidate); the
    /// estimate has the Jaccard estimate's noise, about `±1/(2√num_perm)`
    /// in Jaccard terms.
    ///
    /// # Errors
    ///
    /// As [`query`](Self::query).
    pub fn query_estimated(
        &self,
        sig: &MinHashSig<H, S>,
        size: u64,
        threshold: f64,
    ) -> Result<Vec<(u64, f64)>> {
        check_query(size, threshold)?;
        let k = self.tuner.num_perm;
        let mut out: Vec<(u64, f64)> = self
            .candidate_slots(sig, size, threshold)
            .into_iter()
            .filter_map(|s| {
                let s = s as usize;
                let same = sig.hashes[..k]
                    .iter()
                    .zip(&self.sigs[s].hashes[..k])
                    .filter(|(a, b)| a == b)
                    .count();
                let c = containment_from_jaccard(same as f64 / k as f64, size, self.sizes[s]);
                (c >= threshold).then_some((self.ids[s], c))
            })
            .collect();
        out.sort_unstable_by_key(|e| e.0);
        Ok(out)
    }

    /// The candidates of [`query`](Self::query) whose exact containment
    /// reaches `threshold`, with it, by ascending id. `intersection(id)`
    /// returns `|Q ∩ X|` for the stored set `id` (from wherever the sets
    /// are kept); the containment is that over `size`.
    ///
    /// # Errors
    ///
    /// As [`query`](Self::query).
    pub fn query_verified<F: FnMut(u64) -> u64>(
        &self,
        sig: &MinHashSig<H, S>,
        size: u64,
        threshold: f64,
        mut intersection: F,
    ) -> Result<Vec<(u64, f64)>> {
        let mut out = Vec::new();
        for id in self.query(sig, size, threshold)? {
            let c = intersection(id) as f64 / size as f64;
            if c >= threshold {
                out.push((id, c));
            }
        }
        Ok(out)
    }
}

/// Containment `|Q ∩ X| / |Q|` implied by a Jaccard similarity `jaccard`
/// between `Q` (`q` elements) and `X` (`x` elements):
/// `|Q ∩ X| = J · (q + x) / (1 + J)`, clamped to `[0, min(1, x / q)]`.
///
/// ```
/// use txtfp::lsh::ensemble::containment_from_jaccard;
/// // Q = {1..10} inside X = {1..20}: J = 10 / 20.
/// assert!((containment_from_jaccard(0.5, 10, 20) - 1.0).abs() < 1e-12);
/// assert_eq!(containment_from_jaccard(0.0, 10, 20), 0.0);
/// ```
pub fn containment_from_jaccard(jaccard: f64, q: u64, x: u64) -> f64 {
    if q == 0 || !jaccard.is_finite() {
        return 0.0;
    }
    let (q, x) = (q as f64, x as f64);
    let j = jaccard.clamp(0.0, 1.0);
    let inter = j * (q + x) / (1.0 + j);
    (inter / q).clamp(0.0, 1.0_f64.min(x / q))
}
