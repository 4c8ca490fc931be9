//! [`LshIndexBuilder`]: choosing `(bands, rows)` and validating them.

use alloc::format;

use super::LshIndex;
use crate::{Error, Result};

/// Number of trapezoid steps used by [`LshIndexBuilder::for_threshold`]. Part
/// of the observable behaviour: a different step count picks different
/// `(bands, rows)` near the crossover thresholds.
const STEPS: usize = 200;

/// Largest `h` accepted by [`LshIndexBuilder::for_threshold`].
///
/// The band and row counts are used as `i32` exponents (`powi`), so any `h`
/// above `i32::MAX` would have to truncate them, as 0.3.2 did silently. No real
/// signature is that wide (it would be 16 GiB per signature).
pub const MAX_AUTO_TUNE_H: usize = i32::MAX as usize;

/// The banding of an [`LshIndex`]: `bands` bands of `rows` signature slots
/// each, with `bands * rows == H`.
///
/// Build one directly with [`new`](Self::new), or let
/// [`for_threshold`](Self::for_threshold) pick the factorization of `H` whose
/// S-curve best separates pairs above and below a target Jaccard similarity.
/// The fields are public, so nothing is checked until
/// [`try_build`](Self::try_build).
///
/// ```
/// use txtfp::{LshIndex, LshIndexBuilder};
/// let b = LshIndexBuilder::for_threshold(0.8, 128)?;
/// assert_eq!((b.bands, b.rows), (8, 16));
/// let idx: LshIndex<128> = b.try_build()?;
/// assert_eq!((idx.bands(), idx.rows()), (8, 16));
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LshIndexBuilder {
    /// Number of bands (hash tables).
    pub bands: usize,
    /// Signature slots per band.
    pub rows: usize,
}

impl LshIndexBuilder {
    /// A builder with the given banding; validated later by
    /// [`try_build`](Self::try_build).
    pub const fn new(bands: usize, rows: usize) -> Self {
        Self { bands, rows }
    }

    /// Picks the `(bands, rows)` factorization of `h` that minimises the sum
    /// of the false-positive area (collision probability integrated over
    /// Jaccard `[0, t]`) and the false-negative area (miss probability over
    /// `[t, 1]`).
    ///
    /// The collision probability of a pair with Jaccard `s` is
    /// `1 − (1 − s^r)^b`; both areas are integrated with a 200-step trapezoid
    /// rule in `f32`, exactly as txtfp 0.3.2 does, so the choice is identical
    /// to 0.3.2 for every input it accepts. Ties keep the smaller `bands`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `threshold` is not strictly between 0 and 1
    /// (NaN included), when `h` is zero, or when `h` exceeds
    /// [`MAX_AUTO_TUNE_H`] (0.3.2 looped over every integer up to `h` and
    /// truncated exponents above `i32::MAX`; divisors are now enumerated in
    /// `O(√h)`).
    ///
    /// ```
    /// use txtfp::LshIndexBuilder;
    /// assert_eq!(LshIndexBuilder::for_threshold(0.5, 128)?, LshIndexBuilder::new(32, 4));
    /// let err = LshIndexBuilder::for_threshold(1.0, 128).unwrap_err();
    /// assert_eq!(err.to_string(), "config error: threshold must be in (0.0, 1.0); got 1");
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn for_threshold(threshold: f32, h: usize) -> Result<Self> {
        // `!(0 < t < 1)` rather than `t <= 0 || t >= 1` so that NaN is refused.
        if !(threshold > 0.0 && threshold < 1.0) {
            return Err(Error::Config(format!(
                "threshold must be in (0.0, 1.0); got {threshold}"
            )));
        }
        if h == 0 {
            return Err(Error::Config("H cannot be zero".into()));
        }
        if h > MAX_AUTO_TUNE_H {
            return Err(Error::Config(format!(
                "H = {h} is too large to auto-tune (at most {MAX_AUTO_TUNE_H})"
            )));
        }
        let mut best = Self::new(h, 1);
        let mut best_err = f32::INFINITY;
        for bands in divisors_ascending(h) {
            let rows = h / bands;
            // Both fit in i32 (they divide h <= i32::MAX), the exponent type
            // of the `powi` that 0.3.2 used.
            let err = banding_error(threshold, bands as u32, rows as u32);
            // Strict improvement: on a tie the earlier (smaller) band count stays.
            if err < best_err {
                best_err = err;
                best = Self::new(bands, rows);
            }
        }
        Ok(best)
    }

    /// Builds an empty index with this banding.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `bands` or `rows` is zero, when `bands * rows`
    /// overflows, or when `bands * rows != H`; see
    /// [`LshIndex::with_bands_rows`].
    pub fn try_build<const H: usize>(self) -> Result<LshIndex<H>> {
        LshIndex::with_bands_rows(self.bands, self.rows)
    }

    /// Builds an empty index with this banding, panicking on an invalid one.
    ///
    /// Kept for source compatibility with txtfp 0.3.2. A mismatched banding
    /// is a programming error in the same sense as an out-of-range slice
    /// index; code that takes `bands`/`rows` from configuration or user input
    /// should call [`try_build`](Self::try_build) instead.
    ///
    /// # Panics
    ///
    /// On every condition for which [`try_build`](Self::try_build) returns an
    /// error; the message includes that error.
    ///
    /// ```
    /// use txtfp::{LshIndex, LshIndexBuilder};
    /// let idx: LshIndex<64> = LshIndexBuilder::new(16, 4).build();
    /// assert!(idx.is_empty());
    /// ```
    #[track_caller]
    pub fn build<const H: usize>(self) -> LshIndex<H> {
        match self.try_build() {
            Ok(index) => index,
            Err(e) => panic!("LshIndexBuilder::build: {e} (use try_build to handle this)"),
        }
    }
}

/// Validates a banding for signatures of `h` slots, with 0.3.2's messages.
pub(crate) fn check_banding(bands: usize, rows: usize, h: usize) -> Result<()> {
    if bands == 0 || rows == 0 {
        return Err(Error::Config("bands and rows must be > 0".into()));
    }
    let Some(product) = bands.checked_mul(rows) else {
        return Err(Error::Config(format!(
            "bands * rows overflow: {bands} * {rows}"
        )));
    };
    if product != h {
        return Err(Error::Config(format!(
            "bands * rows ({bands} * {rows} = {product}) must equal H = {h}"
        )));
    }
    Ok(())
}

/// All divisors of `h` (> 0) in ascending order, found in `O(√h)` steps: the
/// same sequence 0.3.2's `1..=h` scan visited, so tie-breaking is unchanged.
pub(super) fn divisors_ascending(h: usize) -> impl Iterator<Item = usize> {
    let mut small = alloc::vec::Vec::new();
    let mut large = alloc::vec::Vec::new();
    let mut d = 1usize;
    // `d <= h / d` is `d * d <= h` without overflow.
    while d <= h / d {
        if h.is_multiple_of(d) {
            small.push(d);
            if d != h / d {
                large.push(h / d);
            }
        }
        d += 1;
    }
    // `large` was collected in descending order.
    small.into_iter().chain(large.into_iter().rev())
}

/// False-positive plus false-negative area of the `(bands, rows)` S-curve at
/// `threshold`. The evaluation order is 0.3.2's, so ties and near-ties break
/// identically.
fn banding_error(threshold: f32, bands: u32, rows: u32) -> f32 {
    let collide = |s: f32| 1.0 - powi((1.0 - powi(s, rows)).clamp(0.0, 1.0), bands);
    let false_pos = trapezoid(0.0, threshold, collide);
    let false_neg = trapezoid(threshold, 1.0, |s| 1.0 - collide(s));
    false_pos + false_neg
}

/// `base^exp` by binary exponentiation, multiplying in the order of
/// compiler-rt's `__powisf2`, which is what `f32::powi` (used by 0.3.2) runs.
/// Written out because `powi` is not in `core`; same bits on every build.
fn powi(mut base: f32, mut exp: u32) -> f32 {
    let mut acc = 1.0f32;
    loop {
        if exp & 1 != 0 {
            acc *= base;
        }
        exp >>= 1;
        if exp == 0 {
            return acc;
        }
        base *= base;
    }
}

fn trapezoid(lo: f32, hi: f32, f: impl Fn(f32) -> f32) -> f32 {
    if hi <= lo {
        return 0.0;
    }
    let dx = (hi - lo) / STEPS as f32;
    let mut sum = 0.5 * (f(lo) + f(hi));
    for i in 1..STEPS {
        sum += f(lo + i as f32 * dx);
    }
    sum * dx
}

#[cfg(test)]
mod tests;

/// `bands` and `rows` of an index type with `bands` and `rows` fields.
macro_rules! banding_accessors {
    () => {
        /// Number of bands.
        pub fn bands(&self) -> usize {
            self.bands
        }

        /// Signature slots per band.
        pub fn rows(&self) -> usize {
            self.rows
        }
    };
}
pub(crate) use banding_accessors;

/// The `Debug` summary of a banded index named `name` holding `len`
/// documents: its `(H, bands, rows)` and size (the signatures themselves
/// would be pages of hex).
pub(crate) fn debug_banded(
    f: &mut core::fmt::Formatter<'_>,
    name: &str,
    (h, bands, rows): (usize, usize, usize),
    len: usize,
) -> core::fmt::Result {
    f.debug_struct(name)
        .field("h", &h)
        .field("bands", &bands)
        .field("rows", &rows)
        .field("len", &len)
        .finish()
}
