//! Double-double arithmetic: a value is `hi + lo` with `|lo| <= ulp(hi) / 2`,
//! about 106 significant bits, from plain `f64` operations (no FMA, so it
//! works in `core`).
//!
//! The S-curve needs it because `(1 − s^r)^b` multiplies the relative error
//! of the base by `b`: a base rounded to `f64` leaves `b · 2⁻⁵³` of noise
//! (about `1e-12` for `b = 10⁴`), more than the quadrature tolerance. In
//! double-double that noise is `b · 2⁻¹⁰⁶`, below one ulp of the result for
//! every `b` up to `2⁵⁰`.

use core::ops::{Add, Mul, Sub};

/// `hi + lo`, normalised so that `hi` is the rounded value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Dd {
    pub(super) hi: f64,
    pub(super) lo: f64,
}

impl Dd {
    pub(super) const ZERO: Self = Self { hi: 0.0, lo: 0.0 };
    pub(super) const ONE: Self = Self { hi: 1.0, lo: 0.0 };
    const TWO: Self = Self { hi: 2.0, lo: 0.0 };

    pub(super) const fn from_f64(x: f64) -> Self {
        Self { hi: x, lo: 0.0 }
    }

    /// `1 − x`, exactly.
    pub(super) fn one_minus(x: f64) -> Self {
        let (hi, lo) = two_sum(1.0, -x);
        Self { hi, lo }
    }

    /// The nearest `f64`, clamped to `[0, 1]` (the only range used here).
    pub(super) fn to_unit_f64(self) -> f64 {
        // `+ 0.0` turns a `-0.0` (from `s = -0.0`) into `0.0`.
        (self.hi + self.lo).clamp(0.0, 1.0) + 0.0
    }
}

/// `a + b = s + e` exactly (Knuth).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `a + b = s + e` exactly, given `|a| >= |b|` or `a == 0` (Dekker).
fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

/// `a = hi + lo` with both halves on 26 bits, so their products are exact.
fn split(a: f64) -> (f64, f64) {
    const SPLITTER: f64 = 134_217_729.0; // 2^27 + 1
    let c = SPLITTER * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// `a · b = p + e` exactly (Dekker), barring under- or overflow.
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

impl Add for Dd {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        let (s, e) = two_sum(self.hi, o.hi);
        let (t, f) = two_sum(self.lo, o.lo);
        let (s, e) = quick_two_sum(s, e + t);
        let (hi, lo) = quick_two_sum(s, e + f);
        Self { hi, lo }
    }
}

impl Sub for Dd {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        self + Self {
            hi: -o.hi,
            lo: -o.lo,
        }
    }
}

impl Mul for Dd {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        let (p, e) = two_prod(self.hi, o.hi);
        let (hi, lo) = quick_two_sum(p, e + (self.hi * o.lo + self.lo * o.hi));
        Self { hi, lo }
    }
}

/// `x^n` by binary exponentiation (`powi` is not in `core`, and `n` may
/// exceed `i32::MAX`).
pub(super) fn pow(mut base: Dd, mut exp: usize) -> Dd {
    let mut acc = Dd::ONE;
    loop {
        if exp & 1 != 0 {
            acc = acc * base;
        }
        exp >>= 1;
        if exp == 0 {
            return acc;
        }
        base = base * base;
    }
}

/// `1 − (1 − c)^n` for `c` in `[0, 1]`, keeping its relative accuracy even when
/// it is far below `1e-32`, where `1 − (1 − c)^n` would cancel even in
/// double-double.
///
/// Binary exponentiation runs on the complements: with `a = 1 − u^j` and
/// `d = 1 − u^k`, `1 − u^(j+k) = a + d·(1 − a)` and `1 − u^(2j) = a·(2 − a)`.
/// Every term is non-negative, so nothing cancels.
pub(super) fn complement_pow(c: Dd, mut exp: usize) -> Dd {
    let mut acc = Dd::ZERO; // 1 − u^0
    let mut base = c;
    loop {
        if exp & 1 != 0 {
            acc = acc + base * (Dd::ONE - acc);
        }
        exp >>= 1;
        if exp == 0 {
            return acc;
        }
        base = base * (Dd::TWO - base);
    }
}
