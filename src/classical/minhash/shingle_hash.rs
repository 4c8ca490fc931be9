//! Seeded XXH3-128 of a batch of shingles, sorted by length class.
//!
//! A word 5-shingle is 17–64 bytes long, which XXH3 splits at 32 bytes into
//! two classes with different work. The class changes from shingle to
//! shingle, so the general routine's length branch mispredicts often.
//! [`ShingleHasher::hash_spans`] sorts a batch by class without branching
//! and runs each class in a loop of its own, with the seed already folded
//! into the secret words. Where the CPU has AVX-512 F and DQ it hands the
//! batch to `crate::arch::x86_64::avx512::shingle_hash` instead, which
//! splits it by class the same way and hashes each class eight spans at a
//! time. Every length equals `xxh3_128_with_seed(bytes, seed)`; the tests
//! check lengths 0–300, and every span near a text's end through both paths.

#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{Avx512Dq, avx512};
use crate::classical::HashFamily;
use crate::classical::hash::{fold64, le64};

/// Most spans [`ShingleHasher::hash_spans`] takes at once.
pub(crate) const SPAN_BATCH: usize = 64;

pub(crate) const PRIME64_1: u64 = 0x9e37_79b1_85eb_ca87;
pub(crate) const PRIME64_2: u64 = 0xc2b2_ae3d_27d4_eb4f;
pub(crate) const PRIME64_4: u64 = 0x85eb_ca77_c2b2_ae63;
pub(crate) const PRIME_MX1: u64 = 0x1656_6791_9e37_79f9;

/// XXH3's default secret (the seed-0 secret is the default one).
const SECRET: [u8; 192] = xxhash_rust::const_xxh3::const_custom_default_secret(0);

#[inline(always)]
fn avalanche(mut h: u64) -> u64 {
    h ^= h >> 37;
    h = h.wrapping_mul(PRIME_MX1);
    h ^ (h >> 32)
}

/// Seeded XXH3-128 with the seed's constants computed once.
#[derive(Clone, Debug)]
pub(crate) struct ShingleHasher {
    pub(crate) seed: u64,
    /// The first 64 bytes of the secret as words: `+ seed` at even
    /// indices, `− seed` at odd ones (what 17–64 byte inputs read).
    pub(crate) keys: [u64; 8],
    /// The proof that the eight-lane kernel can run here, if it can.
    #[cfg(target_arch = "x86_64")]
    wide: Option<Avx512Dq>,
}

impl ShingleHasher {
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            seed,
            keys: core::array::from_fn(|i| {
                let s = le64(&SECRET, 8 * i);
                if i % 2 == 0 {
                    s.wrapping_add(seed)
                } else {
                    s.wrapping_sub(seed)
                }
            }),
            #[cfg(target_arch = "x86_64")]
            wide: Avx512Dq::detect(),
        }
    }

    /// XXH3's 16-byte mix of `b[at..at + 16]` against key pair `k`.
    #[inline(always)]
    fn mix16(&self, b: &[u8], at: usize, k: usize) -> u64 {
        fold64(
            le64(b, at) ^ self.keys[k],
            le64(b, at + 8) ^ self.keys[k + 1],
        )
    }

    /// One 32-byte round: `front` against key pair `k`, `back` against the
    /// next pair, each half crossed with the other's plain words.
    #[inline(always)]
    fn round(&self, acc: (u64, u64), b: &[u8], front: usize, back: usize, k: usize) -> (u64, u64) {
        let lo = acc.0.wrapping_add(self.mix16(b, front, k))
            ^ le64(b, back).wrapping_add(le64(b, back + 8));
        let hi = acc.1.wrapping_add(self.mix16(b, back, k + 2))
            ^ le64(b, front).wrapping_add(le64(b, front + 8));
        (lo, hi)
    }

    #[inline(always)]
    fn finish(&self, (lo, hi): (u64, u64), n: usize) -> (u64, u64) {
        let h = lo
            .wrapping_mul(PRIME64_1)
            .wrapping_add(hi.wrapping_mul(PRIME64_4))
            .wrapping_add((n as u64).wrapping_sub(self.seed).wrapping_mul(PRIME64_2));
        (
            avalanche(lo.wrapping_add(hi)),
            0u64.wrapping_sub(avalanche(h)),
        )
    }

    /// 17–32 bytes: one round over both ends.
    #[inline(always)]
    fn len_17to32(&self, b: &[u8]) -> (u64, u64) {
        let n = b.len();
        let acc = ((n as u64).wrapping_mul(PRIME64_1), 0);
        self.finish(self.round(acc, b, 0, n - 16, 0), n)
    }

    /// 33–64 bytes: the inner pair of 16-byte blocks, then the outer one.
    #[inline(always)]
    fn len_33to64(&self, b: &[u8]) -> (u64, u64) {
        let n = b.len();
        let acc = ((n as u64).wrapping_mul(PRIME64_1), 0);
        let acc = self.round(acc, b, 16, n - 32, 4);
        self.finish(self.round(acc, b, 0, n - 16, 0), n)
    }

    /// `xxh3_128_with_seed(bytes, seed)` as `(lo, hi)`.
    #[inline]
    pub(crate) fn hash(&self, b: &[u8]) -> (u64, u64) {
        match b.len() {
            17..=32 => self.len_17to32(b),
            33..=64 => self.len_33to64(b),
            _ => HashFamily::Xxh3_64.hash128(b, self.seed),
        }
    }

    /// [`ShingleHasher::hash`] of `text[starts[i]..ends[i]]` (of the empty
    /// input if that is not a range of `text`) for every
    /// `i < min(starts.len(), ends.len(), SPAN_BATCH)`, written to the front
    /// of `out` in an unspecified order; returns how many.
    pub(crate) fn hash_spans(
        &self,
        text: &[u8],
        starts: &[usize],
        ends: &[usize],
        out: &mut [[u64; 2]; SPAN_BATCH],
    ) -> usize {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.wide {
            return avx512::shingle_hash::hash_spans(t, self, text, starts, ends, out);
        }
        self.hash_spans_sorted(text, starts, ends, out)
    }

    /// [`ShingleHasher::hash_spans`] without the eight-lane kernel, in an
    /// unspecified order.
    fn hash_spans_sorted(
        &self,
        text: &[u8],
        starts: &[usize],
        ends: &[usize],
        out: &mut [[u64; 2]; SPAN_BATCH],
    ) -> usize {
        // Class 0: 17–32 bytes, 1: 33–64, 2: any other length.
        let mut by_class = [[0u8; SPAN_BATCH]; 3];
        let counts = crate::classical::hash::by_length_class(
            starts,
            ends,
            (17, 16),
            (33, 32),
            &mut by_class,
        );
        let mut k = 0;
        let mut class_loop = |class: usize, hash: &dyn Fn(&[u8]) -> (u64, u64)| {
            for &i in &by_class[class][..counts[class]] {
                let i = usize::from(i);
                let w = text.get(starts[i]..ends[i]).unwrap_or_default();
                let (lo, hi) = hash(w);
                out[k % SPAN_BATCH] = [lo, hi];
                k += 1;
            }
        };
        class_loop(0, &|w| {
            if w.len() >= 17 {
                self.len_17to32(w)
            } else {
                self.hash(w)
            }
        });
        class_loop(1, &|w| {
            if w.len() >= 33 {
                self.len_33to64(w)
            } else {
                self.hash(w)
            }
        });
        class_loop(2, &|w| self.hash(w));
        k
    }
}

#[cfg(test)]
mod tests;
