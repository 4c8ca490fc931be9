//! The low 64 bits of seeded XXH3-128, specialized for word tokens.
//!
//! SimHash's Tf votes read only `lo`, the low half of a token's XXH3-128
//! hash, and words are short: on the large corpus 43 % fall in XXH3's
//! 1–3 byte class, 45 % in the 4–8 and 11 % in the 9–16 one. The general
//! routine computes both halves and branches on the class, which changes
//! from word to word, so that branch mispredicts often. [`TokenHasher`]
//!
//! * precomputes, once per sketch, every value that depends only on the
//!   seed (the secret words with the seed folded in);
//! * computes only the low half, which drops about half the multiplies;
//! * hashes a batch of words at once ([`TokenHasher::hash_spans`]): where
//!   the CPU has AVX-512F and DQ, the words of 1–8 bytes go eight at a
//!   time through one kernel (`crate::arch::x86_64::avx512::token_hash`)
//!   that computes both classes on every lane and keeps each lane's own;
//!   otherwise the words are first sorted by length class without
//!   branching, then each class runs a loop of its own, whose only branch
//!   is the loop's.
//!
//! Inputs longer than 16 bytes take the 17–128 byte routine (low half only),
//! and inputs longer than 128 bytes the `xxhash-rust` implementation. Every
//! path equals `xxh3_128_with_seed(bytes, seed) as u64`; the tests check it
//! for every length up to 300 and many seeds.

#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{Avx512Dq, avx512};
use crate::classical::hash::{fold64, le64};

/// Most spans [`TokenHasher::hash_spans`] takes at once.
pub(crate) const SPAN_BATCH: usize = 64;

const PRIME32_2: u64 = 0x85eb_ca77;
pub(crate) const PRIME64_1: u64 = 0x9e37_79b1_85eb_ca87;
pub(crate) const PRIME64_2: u64 = 0xc2b2_ae3d_27d4_eb4f;
pub(crate) const PRIME64_3: u64 = 0x1656_67b1_9e37_79f9;
const PRIME_MX1: u64 = 0x1656_6791_9e37_79f9;
pub(crate) const PRIME_MX2: u64 = 0x9fb2_1c65_1e98_df25;

/// The first 128 bytes of XXH3's default secret, as little-endian words.
/// Inputs up to 128 bytes read nothing past them.
const SECRET: [u64; 16] = [
    0xbe4b_a423_396c_feb8,
    0x1cad_21f7_2c81_017c,
    0xdb97_9083_e96d_d4de,
    0x1f67_b3b7_a4a4_4072,
    0x78e5_c0cc_4ee6_79cb,
    0x2172_ffcc_7dd0_5a82,
    0x8e24_43f7_7446_08b8,
    0x4c26_3a81_e690_35e0,
    0xcb00_c391_bb52_283c,
    0xa32e_531b_8b65_d088,
    0x4ef9_0da2_9748_6471,
    0xd8ac_dea9_46ef_1938,
    0x3f34_9ce3_3f76_faa8,
    0x1d4f_0bc7_c7bb_dcf9,
    0x3159_b4cd_4be0_518a,
    0x6473_78d9_c97e_9fc8,
];

#[inline(always)]
fn mul128(a: u64, b: u64) -> (u64, u64) {
    let p = u128::from(a) * u128::from(b);
    (p as u64, (p >> 64) as u64)
}

/// XXH64's final mix, which XXH3 uses for 0–3 byte inputs.
#[inline(always)]
fn xxh64_avalanche(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(PRIME64_2);
    h ^= h >> 29;
    h = h.wrapping_mul(PRIME64_3);
    h ^ (h >> 32)
}

/// XXH3's own final mix.
#[inline(always)]
fn xxh3_avalanche(mut h: u64) -> u64 {
    h ^= h >> 37;
    h = h.wrapping_mul(PRIME_MX1);
    h ^ (h >> 32)
}

#[inline(always)]
fn le32(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u64::from(u32::from_le_bytes(w))
}

/// `xxh3_128_with_seed(_, seed) as u64` with the seed's constants folded in.
#[derive(Clone, Debug)]
pub(crate) struct TokenHasher {
    seed: u64,
    /// The hash of the empty input.
    empty: u64,
    /// 1–3 bytes: key of the low half.
    flip_1to3: u64,
    /// 4–8 bytes: key, with the seed's low word mirrored into its high word.
    flip_4to8: u64,
    /// 9–16 bytes: keys of the two input words.
    flip_9to16_lo: u64,
    flip_9to16_hi: u64,
    /// 17–128 bytes: `SECRET[i] + seed` at even `i`, `SECRET[i] − seed` at odd.
    keys: [u64; 16],
    /// The proof that the CPU runs the eight-word kernel (AVX-512F and DQ),
    /// if it does.
    #[cfg(target_arch = "x86_64")]
    wide: Option<Avx512Dq>,
}

impl TokenHasher {
    pub(crate) fn new(seed: u64) -> Self {
        let mirrored = seed ^ (u64::from((seed as u32).swap_bytes()) << 32);
        Self {
            seed,
            empty: xxh64_avalanche(seed ^ SECRET[8] ^ SECRET[9]),
            flip_1to3: u64::from(SECRET[0] as u32 ^ (SECRET[0] >> 32) as u32).wrapping_add(seed),
            flip_4to8: (SECRET[2] ^ SECRET[3]).wrapping_add(mirrored),
            flip_9to16_lo: (SECRET[4] ^ SECRET[5]).wrapping_sub(seed),
            flip_9to16_hi: (SECRET[6] ^ SECRET[7]).wrapping_add(seed),
            keys: core::array::from_fn(|i| {
                if i % 2 == 0 {
                    SECRET[i].wrapping_add(seed)
                } else {
                    SECRET[i].wrapping_sub(seed)
                }
            }),
            #[cfg(target_arch = "x86_64")]
            wide: Avx512Dq::detect(),
        }
    }

    /// The low 64 bits of XXH3-128 of `bytes` with this hasher's seed.
    #[inline]
    pub(crate) fn hash(&self, b: &[u8]) -> u64 {
        let n = b.len();
        match n {
            0 => self.empty,
            1..=3 => self.len_1to3(b[0], b[n / 2], b[n - 1], n),
            4..=8 => self.len_4to8(le32(b, 0) | le32(b, n - 4) << 32, n),
            9..=16 => self.len_9to16(le64(b, 0), le64(b, n - 8), n),
            17..=128 => self.len_17to128(b),
            _ => xxhash_rust::xxh3::xxh3_128_with_seed(b, self.seed) as u64,
        }
    }

    /// [`TokenHasher::hash`] of `text[starts[i]..ends[i]]` (of nothing if
    /// that is not a range of `text`) for every
    /// `i < min(starts.len(), ends.len(), SPAN_BATCH)`, written to the front
    /// of `out` in an unspecified order; returns how many.
    ///
    /// The spans are first sorted by length class, branch-free, and each
    /// class is then hashed by a loop of its own: no per-token branch on the
    /// length (but for the rare spans outside 1–16 bytes), and each token
    /// costs only its own class's arithmetic.
    ///
    /// Where the CPU has AVX-512F and DQ, words of 1–8 bytes go eight at a
    /// time through the AVX-512 kernel instead, unsorted.
    pub(crate) fn hash_spans(
        &self,
        text: &[u8],
        starts: &[usize],
        ends: &[usize],
        out: &mut [u64; SPAN_BATCH],
    ) -> usize {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.wide {
            return self.hash_spans_wide(t, text, starts, ends, out);
        }
        self.hash_spans_sorted(text, starts, ends, out)
    }

    /// [`TokenHasher::hash_spans`] with the eight-span kernel; the spans it
    /// puts aside (other lengths, or too near the end of `text` for an
    /// 8-byte load) are hashed one by one.
    #[cfg(target_arch = "x86_64")]
    fn hash_spans_wide(
        &self,
        t: Avx512Dq,
        text: &[u8],
        starts: &[usize],
        ends: &[usize],
        out: &mut [u64; SPAN_BATCH],
    ) -> usize {
        let mut others = [0u8; SPAN_BATCH];
        let (mut k, no) = avx512::token_hash::short_spans(
            t,
            self.flip_1to3,
            self.flip_4to8,
            text,
            starts,
            ends,
            out,
            &mut others,
        );
        for &i in &others[..no.min(SPAN_BATCH)] {
            let w = text
                .get(starts[usize::from(i)]..ends[usize::from(i)])
                .unwrap_or_default();
            out[k % SPAN_BATCH] = self.hash_mostly_9to16(w);
            k += 1;
        }
        k
    }

    /// [`TokenHasher::hash_spans`] sorted by length class (the portable
    /// path).
    fn hash_spans_sorted(
        &self,
        text: &[u8],
        starts: &[usize],
        ends: &[usize],
        out: &mut [u64; SPAN_BATCH],
    ) -> usize {
        // Class 0: 1–3 bytes, 1: 4–8, 2: any other length (mostly 9–16).
        let mut by_class = [[0u8; SPAN_BATCH]; 3];
        let counts =
            crate::classical::hash::by_length_class(starts, ends, (1, 3), (4, 5), &mut by_class);
        let mut k = 0;
        let mut class_loop = |class: usize, hash: &dyn Fn(&[u8]) -> u64| {
            for &i in &by_class[class][..counts[class]] {
                let i = usize::from(i);
                // A range of `text` has the length its class was chosen by.
                out[k % SPAN_BATCH] = match text.get(starts[i]..ends[i]) {
                    Some(w) => hash(w),
                    None => self.empty,
                };
                k += 1;
            }
        };
        class_loop(0, &|w| {
            let n = w.len();
            self.len_1to3(w[0], w[n / 2], w[n - 1], n)
        });
        class_loop(1, &|w| {
            let n = w.len();
            self.len_4to8(le32(w, 0) | le32(w, n - 4) << 32, n)
        });
        class_loop(2, &|w| self.hash_mostly_9to16(w));
        k
    }

    /// [`TokenHasher::hash`] for words that are mostly 9–16 bytes long:
    /// that class inline (a well-predicted branch), the rare others
    /// through the general routine.
    #[inline(always)]
    fn hash_mostly_9to16(&self, w: &[u8]) -> u64 {
        let n = w.len();
        if (9..=16).contains(&n) {
            self.len_9to16(le64(w, 0), le64(w, n - 8), n)
        } else {
            self.hash(w)
        }
    }

    #[inline(always)]
    fn len_1to3(&self, c1: u8, c2: u8, c3: u8, n: usize) -> u64 {
        let combined = u64::from(c1) << 16 | u64::from(c2) << 24 | u64::from(c3) | (n as u64) << 8;
        xxh64_avalanche(combined ^ self.flip_1to3)
    }

    /// `input` holds the first 4 bytes in its low half, the last 4 above.
    #[inline(always)]
    fn len_4to8(&self, input: u64, n: usize) -> u64 {
        let (lo, hi) = mul128(
            input ^ self.flip_4to8,
            PRIME64_1.wrapping_add((n as u64) << 2),
        );
        let hi = hi.wrapping_add(lo << 1);
        let mut lo = lo ^ (hi >> 3);
        lo ^= lo >> 35;
        lo = lo.wrapping_mul(PRIME_MX2);
        lo ^ (lo >> 28)
    }

    #[inline(always)]
    fn len_9to16(&self, first: u64, last: u64, n: usize) -> u64 {
        let (mut lo, hi) = mul128(first ^ last ^ self.flip_9to16_lo, PRIME64_1);
        lo = lo.wrapping_add(((n as u64).wrapping_sub(1)) << 54);
        let last = last ^ self.flip_9to16_hi;
        let hi = hi
            .wrapping_add(last)
            .wrapping_add((last & 0xffff_ffff).wrapping_mul(PRIME32_2 - 1));
        lo ^= hi.swap_bytes();
        xxh3_avalanche(lo.wrapping_mul(PRIME64_2))
    }

    /// One 16-byte input block against key pair `k`.
    #[inline(always)]
    fn mix16(&self, b: &[u8], at: usize, k: usize) -> u64 {
        fold64(
            le64(b, at) ^ self.keys[k],
            le64(b, at + 8) ^ self.keys[k + 1],
        )
    }

    /// 17–128 bytes: pairs of 16-byte blocks from both ends, innermost pair
    /// first, against successive 32-byte stretches of the secret.
    #[inline]
    fn len_17to128(&self, b: &[u8]) -> u64 {
        let n = b.len();
        let (mut lo, mut hi) = ((n as u64).wrapping_mul(PRIME64_1), 0u64);
        let pairs = (n - 1) / 32; // extra pairs beyond the outermost one
        for p in (0..=pairs).rev() {
            let (front, back) = (16 * p, n - 16 * (p + 1));
            lo = lo.wrapping_add(self.mix16(b, front, 4 * p));
            lo ^= le64(b, back).wrapping_add(le64(b, back + 8));
            hi = hi.wrapping_add(self.mix16(b, back, 4 * p + 2));
            hi ^= le64(b, front).wrapping_add(le64(b, front + 8));
        }
        xxh3_avalanche(lo.wrapping_add(hi))
    }
}

#[cfg(test)]
mod tests;
