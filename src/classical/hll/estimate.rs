//! Cardinality estimates from a histogram of the dense registers.

/// `hist[k]` = number of registers holding `k`; registers never exceed
/// `65 - p ≤ 61`, so 64 slots cover every precision.
pub(super) fn histogram(regs: &[u8], p: u8) -> [u32; 64] {
    let top = 65 - usize::from(p);
    // Four interleaved tables: consecutive registers usually hold the same
    // value, and one table would chain every increment on the last.
    let mut parts = [[0u32; 64]; 4];
    let mut words = regs.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        if u64::from_ne_bytes(b) == 0 {
            // Mostly-empty sketches (a short document at a high precision)
            // are counted a word at a time.
            parts[0][0] += 8;
            continue;
        }
        for (i, &r) in b.iter().enumerate() {
            parts[i & 3][usize::from(r).min(top)] += 1;
        }
    }
    for &r in words.remainder() {
        parts[0][usize::from(r).min(top)] += 1;
    }
    let mut hist = [0u32; 64];
    for part in &parts {
        for (h, &c) in hist.iter_mut().zip(part) {
            *h += c;
        }
    }
    hist
}

/// The classic estimate: `alpha_m m^2 / sum 2^-M[j]`, replaced by linear
/// counting `m ln(m / V)` while it is at most `5m / 2` and `V` registers are
/// still zero.
pub(super) fn classic(hist: &[u32], p: u8) -> f64 {
    let m = f64::from(1u32 << p);
    let top = 65 - usize::from(p);
    let sum: f64 = hist[..=top]
        .iter()
        .enumerate()
        .map(|(k, &c)| f64::from(c) * (-(k as f64)).exp2())
        .sum();
    let alpha = match p {
        4 => 0.673,
        5 => 0.697,
        6 => 0.709,
        _ => 0.7213 / (1.0 + 1.079 / m),
    };
    let raw = alpha * m * m / sum;
    let zeros = f64::from(hist[0]);
    if raw <= 2.5 * m && zeros > 0.0 {
        m * (m / zeros).ln()
    } else {
        raw
    }
}

/// Ertl's improved raw estimator (2017, algorithm 6 of the paper) for
/// `q = 64 - p` hash bits after the index: the registers at 0 and at the
/// maximum `q + 1` are treated as censored observations through `sigma`
/// and `tau`, which removes the small- and large-range bias without
/// empirical tables.
pub(super) fn ertl_improved(hist: &[u32], p: u8) -> f64 {
    let m = f64::from(1u32 << p);
    let q = 64 - usize::from(p);
    let mut z = m * tau((m - f64::from(hist[q + 1])) / m);
    for k in (1..=q).rev() {
        z = 0.5 * (z + f64::from(hist[k]));
    }
    z += m * sigma(f64::from(hist[0]) / m);
    // alpha_inf = 1 / (2 ln 2)
    m * m / (2.0 * core::f64::consts::LN_2 * z)
}

/// `sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1)`, infinite at `x = 1` (all
/// registers zero: the estimate is then 0).
fn sigma(x: f64) -> f64 {
    if x >= 1.0 {
        return f64::INFINITY;
    }
    let (mut x, mut y, mut z) = (x, 1.0, x);
    loop {
        x *= x;
        let before = z;
        z += x * y;
        y += y;
        if z == before {
            return z;
        }
    }
}

/// `tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3`, zero at the
/// ends `x = 0` and `x = 1`.
fn tau(x: f64) -> f64 {
    if x <= 0.0 || x >= 1.0 {
        return 0.0;
    }
    let (mut x, mut y, mut z) = (x, 1.0, 1.0 - x);
    loop {
        x = x.sqrt();
        let before = z;
        y *= 0.5;
        let d = 1.0 - x;
        z -= d * d * y;
        if z == before {
            return z / 3.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigma_and_tau_match_their_series() {
        for x in [0.0f64, 0.1, 0.5, 0.9, 0.999] {
            let mut s = x;
            for k in 1..=30 {
                s += x.powi(1 << k) * f64::powi(2.0, k - 1);
            }
            assert!((sigma(x) - s).abs() <= 1e-9 * s.max(1.0), "sigma({x})");
        }
        for x in [0.1f64, 0.5, 0.9] {
            let mut s = 1.0 - x;
            for k in 1..60 {
                let r = x.powf(f64::powi(2.0, -k));
                s -= (1.0 - r) * (1.0 - r) * f64::powi(2.0, -k);
            }
            assert!((tau(x) - s / 3.0).abs() < 1e-12, "tau({x})");
        }
        assert_eq!(tau(0.0), 0.0);
        assert_eq!(tau(1.0), 0.0);
        assert!(sigma(1.0).is_infinite());
    }

    #[test]
    fn empty_registers_estimate_zero() {
        for p in 4..=18u8 {
            let mut hist = [0u32; 64];
            hist[0] = 1 << p;
            assert_eq!(ertl_improved(&hist, p), 0.0);
            assert_eq!(classic(&hist, p), 0.0);
        }
    }
}
