//! [`WeightedMinHasher`]: Ioffe's improved consistent weighted sampling
//! (ICWS, 2010) over sparse weighted sets keyed by `u64`, a fast path and a
//! plain reference that computes the paper's formulas as written.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::WeightedMinHashSig;
use crate::classical::hash::fmix64;
use crate::{Error, Result};

/// Largest slot count (65,536): beyond it the estimate gains nothing a
/// caller could use, and a hostile count would allocate without bound.
pub const MAX_NUM_PERM: usize = 1 << 16;

const ELEM_SALT: u64 = 0x243f_6a88_85a3_08d3;
const SLOT_SALT: u64 = 0x1319_8a2e_0370_7344;
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;
const C_SALT: u64 = 0xa409_3822_299f_31d0;
const BETA_SALT: u64 = 0x082e_fa98_ec4e_6c89;
const T_SALT: u64 = 0x4528_21e6_38d0_1377;

/// Relative slack on the pruning test: the bound is exact in real
/// arithmetic, and this keeps rounding (a few ulps) from ever rejecting a
/// candidate that the full computation would accept.
const PRUNE_SLACK: f64 = 1.0 + 1e-9;

/// Consistent weighted sampling of sparse weighted sets: `num_perm` slots,
/// each an ICWS sample `(element, t)` folded into a `u64`. Two signatures
/// agree on a slot with probability equal to the weighted (Ruzicka) Jaccard
/// similarity `Σ min(wᵢ, vᵢ) / Σ max(wᵢ, vᵢ)` of their sets.
///
/// Elements are `u64` keys (e.g. token hashes): the random variables of a
/// `(slot, key)` pair (`r, c ~ Gamma(2, 1)`, `β ~ U(0, 1)`) are derived by
/// hashing the slot's seed with the key, so there is no vocabulary and no
/// dense matrix; memory is `O(num_perm)`.
///
/// ```
/// use txtfp::classical::weighted::{WeightedMinHasher, weighted_jaccard, weighted_jaccard_exact};
/// let wmh = WeightedMinHasher::new(256, 42)?;
/// let a = [(1, 3.0), (2, 1.0), (3, 0.5)];
/// let b = [(1, 2.0), (2, 1.0), (4, 1.0)];
/// let exact = weighted_jaccard_exact(&a, &b)?; // (2 + 1) / (3 + 1 + 0.5 + 1)
/// assert!((exact - 3.0 / 5.5).abs() < 1e-12);
/// let est = weighted_jaccard(&wmh.sketch(&a)?, &wmh.sketch(&b)?)?;
/// assert!((est - exact).abs() < 0.15);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct WeightedMinHasher {
    seed: u64,
    slot_seeds: Vec<u64>,
}

impl core::fmt::Debug for WeightedMinHasher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WeightedMinHasher")
            .field("num_perm", &self.slot_seeds.len())
            .field("seed", &self.seed)
            .finish()
    }
}

/// The five uniforms of one `(slot, element)` pair, as the two products the
/// gamma variables are logarithms of, plus `β`.
#[inline(always)]
fn products(elem: u64, slot_seed: u64) -> (u64, f64, f64) {
    let h1 = fmix64(elem ^ slot_seed);
    let h2 = fmix64(h1.wrapping_add(C_SALT));
    (
        h1,
        unit32(h1 >> 32) * unit32(h1 & 0xffff_ffff),
        unit32(h2 >> 32) * unit32(h2 & 0xffff_ffff),
    )
}

/// `β ~ U[0, 1)` of the pair whose first hash is `h1`.
#[inline(always)]
fn beta(h1: u64) -> f64 {
    (fmix64(h1.wrapping_add(BETA_SALT)) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A 32-bit value mapped to the open interval `(0, 1)`.
#[inline(always)]
fn unit32(x: u64) -> f64 {
    (x as f64 + 0.5) * (1.0 / 4_294_967_296.0)
}

/// The element's mixed key: spreads sequential keys before the per-slot
/// xor, so that no two `(slot, key)` pairs share a hash input by accident.
#[inline(always)]
fn elem_mix(key: u64) -> u64 {
    fmix64(key.wrapping_add(ELEM_SALT))
}

/// The slot value of sample `(key, t)`.
#[inline]
fn sample_hash(elem: u64, t: f64) -> u64 {
    // `as` saturates: |t| stays below 2^43 for every finite positive weight.
    fmix64(elem ^ fmix64((t as i64 as u64) ^ T_SALT))
}

/// Checks every weight and keeps the positive ones.
fn positive(items: &[(u64, f64)]) -> Result<Vec<(u64, f64)>> {
    let mut out = Vec::with_capacity(items.len());
    for &(key, w) in items {
        check_weight(key, w)?;
        if w > 0.0 {
            out.push((key, w));
        }
    }
    if out.is_empty() {
        return Err(no_weight());
    }
    Ok(out)
}

pub(super) fn check_weight(key: u64, w: f64) -> Result<()> {
    if w.is_finite() && w >= 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "weight of element {key:#018x} must be finite and non-negative, got {w}"
        )))
    }
}

pub(super) fn no_weight() -> Error {
    Error::InvalidInput(String::from("weighted set has no positive weight"))
}

impl WeightedMinHasher {
    /// A sampler with `num_perm` slots; `seed` decides every random variable
    /// (signatures of different seeds are not comparable).
    ///
    /// # Errors
    /// [`Error::Config`] if `num_perm` is 0 or above [`MAX_NUM_PERM`].
    ///
    /// ```
    /// use txtfp::classical::weighted::WeightedMinHasher;
    /// let err = WeightedMinHasher::new(0, 1).unwrap_err();
    /// assert_eq!(err.to_string(), "config error: num_perm must be between 1 and 65536, got 0");
    /// ```
    pub fn new(num_perm: usize, seed: u64) -> Result<Self> {
        if num_perm == 0 || num_perm > MAX_NUM_PERM {
            return Err(Error::Config(format!(
                "num_perm must be between 1 and {MAX_NUM_PERM}, got {num_perm}"
            )));
        }
        let base = fmix64(seed ^ SLOT_SALT);
        let slot_seeds = (0..num_perm as u64)
            .map(|k| fmix64(base.wrapping_add(k.wrapping_add(1).wrapping_mul(GOLDEN))))
            .collect();
        Ok(Self { seed, slot_seeds })
    }

    /// The number of slots.
    pub fn num_perm(&self) -> usize {
        self.slot_seeds.len()
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The signature of the weighted set `items`, `(key, weight)` pairs.
    ///
    /// Keys are meant to be distinct; a repeated key acts as one element
    /// with the largest of its weights (a sample's `a` never grows with the
    /// weight). Zero weights are skipped.
    ///
    /// Computed in the log domain (`ln a = ln c − r(t − β + 1)`), with a
    /// bound that skips most `(slot, element)` pairs before any logarithm:
    /// `a ≥ c·e^{−r}/w` and `c ≥ 2(1 − q)/(1 + q)` where `c = −ln q`, and
    /// `e^{−r}` is the product of the two uniforms `r` is made of. It
    /// returns the same samples as [`Self::sketch_reference`] (up to exact
    /// floating-point ties between two elements' `a`, which have
    /// probability near 2⁻⁵⁰ per slot).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] if a weight is negative, NaN or infinite, or
    /// no weight is positive (the empty set).
    pub fn sketch(&self, items: &[(u64, f64)]) -> Result<WeightedMinHashSig> {
        let n = self.slot_seeds.len();
        let mut best = vec![f64::INFINITY; n];
        let mut bound = vec![f64::INFINITY; n];
        let mut slots = vec![0u64; n];
        let mut any = false;
        for &(key, w) in items {
            check_weight(key, w)?;
            if w == 0.0 {
                continue;
            }
            any = true;
            let ln_w = w.ln();
            let elem = elem_mix(key);
            for k in 0..n {
                let (h1, p, q) = products(elem, self.slot_seeds[k]);
                // a ≥ c·p / w ≥ 2(1 − q)·p / ((1 + q)·w): skip the pair
                // when even that lower bound is not below the slot's best.
                if 2.0 * (1.0 - q) * p >= bound[k] * w * (1.0 + q) {
                    continue;
                }
                let r = -p.ln();
                let c = -q.ln();
                let b = beta(h1);
                let t = (ln_w / r + b).floor();
                let ln_a = c.ln() - r * (t - b + 1.0);
                if ln_a < best[k] {
                    best[k] = ln_a;
                    bound[k] = ln_a.exp() * PRUNE_SLACK;
                    slots[k] = sample_hash(elem, t);
                }
            }
        }
        if !any {
            return Err(no_weight());
        }
        Ok(WeightedMinHashSig::new_unchecked(self.seed, slots))
    }

    /// The same signature as [`Self::sketch`], computed as Ioffe's paper
    /// writes it, slot by slot: `t = ⌊ln w / r + β⌋`, `y = e^{r(t − β)}`,
    /// `a = c / (y·e^r)`, and the sample of least `a`. Slow (three
    /// logarithms and two exponentials per pair, no pruning); kept as the
    /// reference the fast path is tested against. `e^r` and `y` overflow for
    /// weights beyond about `1e250` (or below `1e-250`), where the two
    /// paths may then differ; [`Self::sketch`] has no such limit.
    ///
    /// # Errors
    /// As [`Self::sketch`].
    ///
    /// ```
    /// use txtfp::classical::weighted::WeightedMinHasher;
    /// let wmh = WeightedMinHasher::new(64, 7)?;
    /// let set = [(10, 0.25), (11, 4.0), (12, 1.5)];
    /// assert_eq!(wmh.sketch_reference(&set)?, wmh.sketch(&set)?);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn sketch_reference(&self, items: &[(u64, f64)]) -> Result<WeightedMinHashSig> {
        let items = positive(items)?;
        let mut slots = Vec::with_capacity(self.slot_seeds.len());
        for &slot_seed in &self.slot_seeds {
            let mut best_a = f64::INFINITY;
            let mut best = 0u64;
            for &(key, w) in &items {
                let elem = elem_mix(key);
                let (h1, p, q) = products(elem, slot_seed);
                let r = -p.ln(); // Gamma(2, 1): −ln(u₁u₂)
                let c = -q.ln(); // Gamma(2, 1): −ln(u₃u₄)
                let b = beta(h1);
                let t = (w.ln() / r + b).floor();
                let y = (r * (t - b)).exp();
                let a = c / (y * r.exp());
                if a < best_a {
                    best_a = a;
                    best = sample_hash(elem, t);
                }
            }
            slots.push(best);
        }
        Ok(WeightedMinHashSig::new_unchecked(self.seed, slots))
    }
}
