//! The S-curve of a banding, and choosing `(bands, rows)` by recall or cost.
//!
//! A pair of documents with Jaccard similarity `s` shares at least one band
//! bucket of a `bands × rows` index with probability
//!
//! ```text
//! P(s) = 1 − (1 − s^rows)^bands
//! ```
//!
//! For a similarity threshold `t`, pairs below `t` that still become
//! candidates are false positives and pairs at or above `t` that do not are
//! false negatives. With similarities spread uniformly over `[0, 1]`, their
//! expected shares are the *false-positive mass* `∫₀ᵗ P(s) ds` and the
//! *false-negative mass* `∫ₜ¹ (1 − P(s)) ds`.
//!
//! The accuracy of each piece is documented on
//! [`LshIndexBuilder::false_positive_mass`], where users read it.
//!
//! [`LshIndexBuilder::for_threshold`] is not built on this module: it keeps
//! txtfp 0.3.2's 200-step `f32` trapezoid rule so that its choices stay
//! identical to 0.3.2's.

mod curve;
mod dd;
mod quad;
#[cfg(test)]
mod tests;

use alloc::format;
use alloc::vec::Vec;

use self::curve::Curve;
use super::builder::divisors_ascending;
use super::{LshIndex, LshIndexBuilder, MAX_AUTO_TUNE_H};
use crate::{Error, Result};

impl LshIndexBuilder {
    /// Probability that a pair with Jaccard similarity `similarity` becomes a
    /// candidate: `1 − (1 − s^rows)^bands`, within a few ulps even for tiny
    /// probabilities (see *Accuracy* under
    /// [`false_positive_mass`](Self::false_positive_mass)).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `bands` or `rows` is zero, or `similarity` is
    /// not in `[0, 1]` (NaN included).
    ///
    /// ```
    /// use txtfp::LshIndexBuilder;
    /// let b = LshIndexBuilder::new(16, 8);
    /// let p = b.candidate_probability(0.5)?; // 1 − (1 − 2⁻⁸)¹⁶
    /// assert!((p - 0.0607).abs() < 1e-4);
    /// assert!(b.candidate_probability(0.9)? > 0.999);
    /// assert!(b.candidate_probability(1.5).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn candidate_probability(&self, similarity: f64) -> Result<f64> {
        check_closed("similarity", similarity)?;
        Ok(self.curve()?.hit(similarity))
    }

    /// Expected false-positive mass at `threshold`: `∫₀ᵗ P(s) ds`, the share
    /// of all pairs that have similarity below `t` and still become
    /// candidates when similarities are uniform on `[0, 1]`.
    ///
    /// # Accuracy
    ///
    /// - `P(s)` and `1 − P(s)` are each computed in double-double arithmetic
    ///   by binary exponentiation on complements, so nothing cancels: both
    ///   are within 4 ulps (relative) of 150-digit references, also where the
    ///   textbook `f64` formula rounds to 0 (`P(1e-9)` is `4e-18` for `4 × 2`)
    ///   or loses digits to the power (`1 − P` for `10920 × 66`).
    /// - The masses use adaptive 15-point Gauss–Kronrod quadrature, started
    ///   on panels cut where `P` crosses `1e-16`, `1e-8` and `1/2` and where
    ///   `1 − P` crosses `1e-8` and `1e-16`, so a steep curve cannot slip
    ///   between nodes; the half `s > 1/2` is integrated in `1 − s`, which
    ///   resolves curves steeper than the spacing of doubles near 1. The
    ///   estimated absolute error is below `1e-13` for every banding up to
    ///   [`MAX_AUTO_TUNE_H`]. The tests check `1e-13` against exact
    ///   150-digit values, `1e-12` against closed forms (`bands = 1`,
    ///   `rows = 1`, few bands, and `FP − FN = t − ∏ₖ₌₁ᵇ kr/(kr + 1)`) and a
    ///   100 000-panel midpoint sum to within its own error bound.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `bands` or `rows` is zero, or `threshold` is
    /// not in `[0, 1]` (NaN included).
    ///
    /// ```
    /// use txtfp::LshIndexBuilder;
    /// // One band of one row: P(s) = s, so the mass below 0.5 is 0.5² / 2.
    /// let fp = LshIndexBuilder::new(1, 1).false_positive_mass(0.5)?;
    /// assert!((fp - 0.125).abs() < 1e-13);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn false_positive_mass(&self, threshold: f64) -> Result<f64> {
        check_closed("threshold", threshold)?;
        let curve = self.curve()?;
        Ok(curve
            .false_positive_mass(threshold, &curve.breakpoints())
            .value)
    }

    /// Expected false-negative mass at `threshold`: `∫ₜ¹ (1 − P(s)) ds`, the
    /// share of all pairs that have similarity at least `t` and are missed.
    /// Absolute error below `1e-13`; see *Accuracy* under
    /// [`false_positive_mass`](Self::false_positive_mass).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `bands` or `rows` is zero, or `threshold` is
    /// not in `[0, 1]` (NaN included).
    ///
    /// ```
    /// use txtfp::LshIndexBuilder;
    /// let (wide, narrow) = (LshIndexBuilder::new(32, 4), LshIndexBuilder::new(4, 32));
    /// // More bands of fewer rows miss less and admit more.
    /// assert!(wide.false_negative_mass(0.8)? < narrow.false_negative_mass(0.8)?);
    /// assert!(wide.false_positive_mass(0.8)? > narrow.false_positive_mass(0.8)?);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn false_negative_mass(&self, threshold: f64) -> Result<f64> {
        check_closed("threshold", threshold)?;
        let curve = self.curve()?;
        Ok(curve
            .false_negative_mass(threshold, &curve.breakpoints())
            .value)
    }

    /// Every banding an `LshIndex<h>` accepts, by ascending `bands`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `h` is zero or above [`MAX_AUTO_TUNE_H`].
    ///
    /// ```
    /// use txtfp::LshIndexBuilder;
    /// let all = LshIndexBuilder::bandings(12)?;
    /// let pairs: Vec<_> = all.iter().map(|b| (b.bands, b.rows)).collect();
    /// assert_eq!(pairs, [(1, 12), (2, 6), (3, 4), (4, 3), (6, 2), (12, 1)]);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn bandings(h: usize) -> Result<Vec<Self>> {
        check_h(h)?;
        Ok(divisors_ascending(h)
            .map(|bands| Self::new(bands, h / bands))
            .collect())
    }

    /// The banding of `h` slots with the smallest false-positive mass among
    /// those that make a pair of similarity exactly `threshold` a candidate
    /// with probability at least `recall`.
    ///
    /// `P` rises with similarity, so the same guarantee holds for *every*
    /// pair at or above the threshold: `recall` is the worst-case recall over
    /// `[t, 1]` (the average over that range, `1 − FN / (1 − t)`, is higher).
    /// Ties keep the smaller `bands`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `threshold` or `recall` is not strictly between
    /// 0 and 1 (NaN included), when `h` is zero or above
    /// [`MAX_AUTO_TUNE_H`], or when no banding reaches `recall`; that message
    /// names the best recall available (always from `h` bands of one row).
    ///
    /// ```
    /// use txtfp::{LshIndex, LshIndexBuilder};
    /// let b = LshIndexBuilder::for_recall(0.8, 128, 0.99)?;
    /// assert_eq!((b.bands, b.rows), (32, 4));
    /// assert!(b.candidate_probability(0.8)? >= 0.99);
    /// // The 0.3.2 heuristic balances both errors and misses more at t:
    /// let balanced = LshIndexBuilder::for_threshold(0.8, 128)?;
    /// assert!(balanced.candidate_probability(0.8)? < 0.99);
    /// let idx: LshIndex<128> = b.try_build()?;
    /// assert_eq!(idx.bands(), 32);
    ///
    /// let err = LshIndexBuilder::for_recall(0.1, 4, 0.9).unwrap_err();
    /// assert!(err.to_string().starts_with(
    ///     "config error: no banding of H = 4 reaches recall 0.9 at threshold 0.1"
    /// ));
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn for_recall(threshold: f64, h: usize, recall: f64) -> Result<Self> {
        check_open("threshold", threshold)?;
        check_open("target recall", recall)?;
        check_h(h)?;
        let mut best: Option<(Self, f64)> = None;
        let mut most_sensitive = (Self::new(h, 1), 0.0f64);
        for bands in divisors_ascending(h) {
            let curve = Curve {
                bands,
                rows: h / bands,
            };
            let hit = curve.hit(threshold);
            if hit > most_sensitive.1 {
                most_sensitive = (Self::new(curve.bands, curve.rows), hit);
            }
            if hit < recall {
                continue;
            }
            let fp = curve
                .false_positive_mass(threshold, &curve.breakpoints())
                .value;
            // Strict improvement: on a tie the smaller band count stays.
            if best.is_none_or(|(_, best_fp)| fp < best_fp) {
                best = Some((Self::new(curve.bands, curve.rows), fp));
            }
        }
        best.map(|(b, _)| b).ok_or_else(|| {
            let (b, p) = most_sensitive;
            Error::Config(format!(
                "no banding of H = {h} reaches recall {recall} at threshold {threshold}; \
                 the best is bands = {}, rows = {} with recall {p}",
                b.bands, b.rows
            ))
        })
    }

    /// The banding of `h` slots minimising
    /// `fp_weight · FP + fn_weight · FN`, the weighted false-positive and
    /// false-negative masses at `threshold` (the objective of datasketch's
    /// `MinHashLSH`, restricted to exact factorizations of `h`).
    ///
    /// Raise `fn_weight` when a missed duplicate costs more than verifying a
    /// spurious candidate. With equal weights this is the objective of
    /// [`for_threshold`](Self::for_threshold), integrated accurately in `f64`
    /// instead of 0.3.2's `f32` trapezoid rule. The two agree on every
    /// threshold `k/1000` for `H` in 16, 32, 64, 100, 128 and 256, and differ
    /// only within about `1e-4` of a crossover (for `H = 256`, on
    /// `0.99043 < t < 0.99051`), where this one is right by the accurate
    /// objective. Ties keep the smaller `bands`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `threshold` is not strictly between 0 and 1
    /// (NaN included), when a weight is negative or not finite, when both
    /// weights are zero, or when `h` is zero or above [`MAX_AUTO_TUNE_H`].
    ///
    /// ```
    /// use txtfp::LshIndexBuilder;
    /// let even = LshIndexBuilder::for_weights(0.8, 128, 1.0, 1.0)?;
    /// assert_eq!((even.bands, even.rows), (8, 16));
    /// // Misses ten times as costly: more bands, fewer rows.
    /// let eager = LshIndexBuilder::for_weights(0.8, 128, 1.0, 10.0)?;
    /// assert!(eager.bands > even.bands);
    /// assert!(LshIndexBuilder::for_weights(0.8, 128, 0.0, 0.0).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn for_weights(threshold: f64, h: usize, fp_weight: f64, fn_weight: f64) -> Result<Self> {
        check_open("threshold", threshold)?;
        let weight_ok = |w: f64| w.is_finite() && w >= 0.0;
        if !weight_ok(fp_weight) || !weight_ok(fn_weight) || fp_weight + fn_weight == 0.0 {
            return Err(Error::Config(format!(
                "weights must be finite, >= 0 and not both 0; \
                 got fp_weight = {fp_weight}, fn_weight = {fn_weight}"
            )));
        }
        check_h(h)?;
        // Scaled so the larger weight is 1: with subnormal weights the costs
        // would round to a few values and tie.
        let scale = fp_weight.max(fn_weight);
        let (fp_weight, fn_weight) = (fp_weight / scale, fn_weight / scale);
        let mut best = Self::new(h, 1);
        let mut best_cost = f64::INFINITY;
        for bands in divisors_ascending(h) {
            let curve = Curve {
                bands,
                rows: h / bands,
            };
            let breaks = curve.breakpoints();
            let fp = curve.false_positive_mass(threshold, &breaks).value;
            let fn_ = curve.false_negative_mass(threshold, &breaks).value;
            let cost = fp_weight * fp + fn_weight * fn_;
            if cost < best_cost {
                best_cost = cost;
                best = Self::new(curve.bands, curve.rows);
            }
        }
        Ok(best)
    }

    fn curve(&self) -> Result<Curve> {
        if self.bands == 0 || self.rows == 0 {
            return Err(Error::Config(format!(
                "bands and rows must be > 0; got bands = {}, rows = {}",
                self.bands, self.rows
            )));
        }
        Ok(Curve {
            bands: self.bands,
            rows: self.rows,
        })
    }
}

impl<const H: usize> LshIndex<H> {
    /// [`LshIndexBuilder::candidate_probability`] for this index's banding.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `similarity` is not in `[0, 1]` (NaN included).
    ///
    /// ```
    /// use txtfp::LshIndex;
    /// let idx = LshIndex::<128>::with_bands_rows(32, 4)?;
    /// assert!(idx.candidate_probability(0.8)? > 0.9999);
    /// assert!(idx.candidate_probability(0.2)? < 0.05);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn candidate_probability(&self, similarity: f64) -> Result<f64> {
        self.builder().candidate_probability(similarity)
    }

    /// [`LshIndexBuilder::false_positive_mass`] for this index's banding.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `threshold` is not in `[0, 1]` (NaN included).
    pub fn false_positive_mass(&self, threshold: f64) -> Result<f64> {
        self.builder().false_positive_mass(threshold)
    }

    /// [`LshIndexBuilder::false_negative_mass`] for this index's banding.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `threshold` is not in `[0, 1]` (NaN included).
    pub fn false_negative_mass(&self, threshold: f64) -> Result<f64> {
        self.builder().false_negative_mass(threshold)
    }

    fn builder(&self) -> LshIndexBuilder {
        LshIndexBuilder::new(self.bands(), self.rows())
    }
}

/// `value` in `[0, 1]`; NaN fails the range test.
fn check_closed(name: &str, value: f64) -> Result<()> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(Error::Config(format!(
            "{name} must be in [0.0, 1.0]; got {value}"
        )))
    }
}

/// `value` in `(0, 1)`; NaN fails the comparisons.
fn check_open(name: &str, value: f64) -> Result<()> {
    if value > 0.0 && value < 1.0 {
        Ok(())
    } else {
        Err(Error::Config(format!(
            "{name} must be in (0.0, 1.0); got {value}"
        )))
    }
}

/// The limits of [`LshIndexBuilder::for_threshold`], with its messages.
fn check_h(h: usize) -> Result<()> {
    if h == 0 {
        return Err(Error::Config("H cannot be zero".into()));
    }
    if h > MAX_AUTO_TUNE_H {
        return Err(Error::Config(format!(
            "H = {h} is too large to auto-tune (at most {MAX_AUTO_TUNE_H})"
        )));
    }
    Ok(())
}
