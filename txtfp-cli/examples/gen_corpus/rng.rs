//! Counter-based randomness: every document draws from a generator keyed by
//! `(seed, stream, index)`, so any document can be rebuilt on its own, in any
//! shard, on any thread, without replaying the ones before it.

/// The SplitMix64 output function: a bijective 64-bit mixer.
fn fmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A key that differs whenever any of its inputs does (up to 64-bit
/// collisions): nesting the mixer keeps `(1, 2)` and `(2, 1)` apart.
pub fn key(seed: u64, stream: u64, index: u64) -> u64 {
    fmix(fmix(fmix(seed) ^ stream).wrapping_add(index))
}

/// Streams, one per kind of decision, so that adding draws to one kind never
/// shifts another's.
pub mod stream {
    pub const ROLE: u64 = 1;
    pub const BASE: u64 = 2;
    pub const VARIANT: u64 = 3;
    pub const GROUP: u64 = 4;
    pub const ESTIMATE: u64 = 5;
}

/// SplitMix64: one add and one mix per draw, and its state is a plain
/// counter, which is all a per-document generator needs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64, stream: u64, index: u64) -> Self {
        Rng(key(seed, stream, index))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        fmix(self.0)
    }

    /// Uniform in `0..n` (`n > 0`), by the high half of a 128-bit product:
    /// no division, and a bias below `n / 2^64`.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Standard normal (Box–Muller, one of the pair).
    pub fn normal(&mut self) -> f64 {
        // 1 - unit() is in (0, 1]: the logarithm stays finite.
        let r = (-2.0 * (1.0 - self.unit()).ln()).sqrt();
        r * (core::f64::consts::TAU * self.unit()).cos()
    }
}
