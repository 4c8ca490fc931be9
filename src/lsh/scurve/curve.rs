//! The S-curve `P(s) = 1 − (1 − s^r)^b` and its complement `1 − P(s)`, both
//! to about one ulp, plus its integrals.
//!
//! Near `s = 1` doubles are `2⁻⁵³` apart, and for `rows` around `2³⁰` the
//! curve moves by `10⁻⁷` between two of them: sampled at doubles it is a
//! staircase that no quadrature can converge on. So the upper half of `[0, 1]`
//! is integrated in the variable `u = 1 − s`, which is exact there and fine
//! near 0, and each evaluation receives both `s` and `1 − s` exactly, in
//! double-double.

use super::dd::{Dd, complement_pow, pow};
use super::quad::{Estimate, integrate};

/// Levels at which [`Curve::breakpoints`] cuts the domain: where `P` crosses
/// `1e-16`, `1e-8` and `1/2`, and where `1 − P` crosses `1e-8` and `1e-16`.
/// The quadrature then starts with panels aligned to the steep part of the
/// curve, wherever it sits and however narrow it is.
const HIT_LEVELS: [f64; 3] = [1e-16, 1e-8, 0.5];
const MISS_LEVELS: [f64; 2] = [1e-8, 1e-16];

/// Which half of `[0, 1]` a quadrature variable `x ∈ [0, 1/2]` covers.
#[derive(Clone, Copy, Debug)]
enum Half {
    /// `s = x`.
    Lower,
    /// `s = 1 − x`.
    Upper,
}

impl Half {
    /// `(s, 1 − s)` at `x`, both exact.
    fn point(self, x: f64) -> (Dd, Dd) {
        match self {
            Half::Lower => (Dd::from_f64(x), Dd::one_minus(x)),
            Half::Upper => (Dd::one_minus(x), Dd::from_f64(x)),
        }
    }
}

/// Cut points of each half, in that half's variable; unused slots hold 0.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Breakpoints {
    lower: [f64; 5],
    upper: [f64; 5],
}

/// A validated banding (`bands`, `rows` ≥ 1).
#[derive(Clone, Copy, Debug)]
pub(super) struct Curve {
    pub(super) bands: usize,
    pub(super) rows: usize,
}

impl Curve {
    /// Probability that a pair of Jaccard similarity `s` shares a band.
    pub(super) fn hit(self, s: f64) -> f64 {
        self.hit_at(Dd::from_f64(s))
    }

    /// `1 − hit(s)`, with its own small relative error.
    #[cfg(test)]
    pub(super) fn miss(self, s: f64) -> f64 {
        self.miss_at(Dd::one_minus(s))
    }

    /// The complement power of `s^r`, so a tiny result keeps its digits.
    fn hit_at(self, s: Dd) -> f64 {
        complement_pow(pow(s, self.rows), self.bands).to_unit_f64()
    }

    /// `(1 − s^r)^b` from `u = 1 − s`: `1 − s^r` is the complement power of
    /// `u`, so nothing cancels even for `s` next to 1.
    fn miss_at(self, u: Dd) -> f64 {
        pow(complement_pow(u, self.rows), self.bands).to_unit_f64()
    }

    /// Where the curve crosses the levels, found by bisection in each half.
    pub(super) fn breakpoints(self) -> Breakpoints {
        let mut out = Breakpoints::default();
        for (half, slots) in [(Half::Lower, &mut out.lower), (Half::Upper, &mut out.upper)] {
            let at = |x: f64| half.point(x);
            let hits = HIT_LEVELS
                .iter()
                .map(|&level| crossing(|x| self.hit_at(at(x).0) >= level));
            let misses = MISS_LEVELS
                .iter()
                .map(|&level| crossing(|x| self.miss_at(at(x).1) <= level));
            for (slot, x) in slots.iter_mut().zip(hits.chain(misses)) {
                *slot = x.unwrap_or(0.0);
            }
        }
        out
    }

    /// `∫₀ᵗ P(s) ds`.
    pub(super) fn false_positive_mass(self, t: f64, breaks: &Breakpoints) -> Estimate {
        self.integrate(0.0, t, breaks, |s, _| self.hit_at(s))
    }

    /// `∫ₜ¹ (1 − P(s)) ds`.
    pub(super) fn false_negative_mass(self, t: f64, breaks: &Breakpoints) -> Estimate {
        self.integrate(t, 1.0, breaks, |_, u| self.miss_at(u))
    }

    /// `∫ f(s, 1 − s) ds` over `[lo, hi] ⊆ [0, 1]`, each half in its own
    /// variable (`1 − hi` and `1 − max(lo, 1/2)` are exact for those inputs).
    fn integrate(
        self,
        lo: f64,
        hi: f64,
        breaks: &Breakpoints,
        f: impl Fn(Dd, Dd) -> f64,
    ) -> Estimate {
        let lower = integrate(
            |x| {
                let (s, u) = Half::Lower.point(x);
                f(s, u)
            },
            lo,
            hi.min(0.5),
            &breaks.lower,
        );
        let upper = integrate(
            |x| {
                let (s, u) = Half::Upper.point(x);
                f(s, u)
            },
            1.0 - hi,
            1.0 - lo.max(0.5),
            &breaks.upper,
        );
        lower.merge(upper)
    }
}

/// Bisection stops when the bracket spans at most this many ulps: `2⁴²` ulps
/// is a relative width of `2⁻¹⁰`, plenty for a panel boundary, and takes
/// about 21 steps instead of 63.
const BRACKET_ULPS: u64 = 1 << 42;

/// The point of `[0, 1/2]` where a predicate that is monotone there changes
/// value (to a relative `2⁻¹⁰`), or `None` if it does not change. Bisects on
/// the bit patterns, which order non-negative doubles, so the precision is
/// relative even at `1e-30`.
fn crossing(pred: impl Fn(f64) -> bool) -> Option<f64> {
    let (mut lo, mut hi) = (0.0f64.to_bits(), 0.5f64.to_bits());
    let at_lo = pred(0.0);
    if pred(0.5) == at_lo {
        return None;
    }
    while hi - lo > BRACKET_ULPS {
        let mid = lo + (hi - lo) / 2;
        if pred(f64::from_bits(mid)) == at_lo {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(f64::from_bits(hi))
}
