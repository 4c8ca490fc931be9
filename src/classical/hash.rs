//! Token hashing: the two 128-bit hash families MinHash and SimHash draw from.
//!
//! Both return a `(lo, hi)` pair of u64 halves. MinHash derives its `H` slot
//! hashes by double hashing (`lo + i·hi`); SimHash reads the bits of `lo`.

/// The seed every fingerprinter uses unless told otherwise (`0x00C0_FFEE_5EED`).
///
/// txtfp 0.3.2 documents this constant but keeps it private; here it is public.
///
/// ```
/// assert_eq!(txtfp::classical::DEFAULT_SEED, 0x00C0_FFEE_5EED);
/// ```
pub const DEFAULT_SEED: u64 = 0x00C0_FFEE_5EED;

/// Which 128-bit hash turns a token's UTF-8 bytes into `(lo, hi)`.
///
/// ```
/// use txtfp::HashFamily;
/// assert_eq!(HashFamily::default(), HashFamily::Xxh3_64);
/// assert_eq!(HashFamily::Xxh3_64.as_str(), "xxh3-64");
/// assert_eq!(HashFamily::MurmurHash3_x64_128.as_str(), "mmh3-x64-128");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum HashFamily {
    /// Reference MurmurHash3 x64-128, with the 64-bit seed loaded into both
    /// state words (equal to the reference for seeds below 2^32).
    #[allow(non_camel_case_types)] // the 0.3.2 name, kept for drop-in use
    MurmurHash3_x64_128,
    /// XXH3. Despite the name (kept for wire compatibility) this is the
    /// 128-bit XXH3 variant, split into its low and high halves.
    #[default]
    Xxh3_64,
}

impl HashFamily {
    /// Stable label used in config hashes: `"xxh3-64"` or `"mmh3-x64-128"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            HashFamily::MurmurHash3_x64_128 => "mmh3-x64-128",
            HashFamily::Xxh3_64 => "xxh3-64",
        }
    }

    /// Hash `bytes` with `seed` into `(lo, hi)`.
    ///
    /// ```
    /// use txtfp::HashFamily;
    /// use txtfp::classical::DEFAULT_SEED;
    /// let (lo, hi) = HashFamily::Xxh3_64.hash128(b"hello", DEFAULT_SEED);
    /// assert_eq!((lo, hi), (0x9c165db7b53c9009, 0x219496be4117f77a));
    /// ```
    #[inline]
    pub fn hash128(self, bytes: &[u8], seed: u64) -> (u64, u64) {
        match self {
            HashFamily::Xxh3_64 => {
                let v = xxhash_rust::xxh3::xxh3_128_with_seed(bytes, seed);
                (v as u64, (v >> 64) as u64)
            }
            HashFamily::MurmurHash3_x64_128 => murmur3_x64_128(bytes, seed),
        }
    }
}

/// MurmurHash3 x64-128 (Austin Appleby's public-domain design), with a 64-bit
/// seed in both lanes. Returns `(h1, h2)`.
///
/// ```
/// assert_eq!(
///     txtfp::classical::murmur3_x64_128(b"hello", 0),
///     (0xcbd8a7b341bd9b02, 0x5b1e906a48ae1d19)
/// );
/// ```
pub fn murmur3_x64_128(data: &[u8], seed: u64) -> (u64, u64) {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;
    let mut h1 = seed;
    let mut h2 = seed;
    let mut blocks = data.chunks_exact(16);
    for b in &mut blocks {
        let mut k1 = u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8]));
        let mut k2 = u64::from_le_bytes(b[8..].try_into().unwrap_or([0; 8]));
        k1 = k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
        h1 ^= k1;
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);
        k2 = k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
        h2 ^= k2;
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    // The tail is read as two little-endian words, zero padded.
    let mut buf = [0u8; 16];
    buf[..tail.len()].copy_from_slice(tail);
    let t1 = u64::from_le_bytes(buf[..8].try_into().unwrap_or([0; 8]));
    let t2 = u64::from_le_bytes(buf[8..].try_into().unwrap_or([0; 8]));
    if tail.len() > 8 {
        h2 ^= t2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
    }
    if !tail.is_empty() {
        h1 ^= t1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
    }
    let len = data.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

/// MurmurHash3's 64-bit finaliser: xor-shifts and odd multiplications, each
/// invertible, so the whole map is a bijection (which the SimHash index's
/// table keys rely on).
#[inline]
pub(crate) fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^= k >> 33;
    k
}

/// `XXH3_64` of `bytes`, unseeded: the hash behind config hashes and LSH band keys.
#[inline]
pub(crate) fn xxh3_64(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Lower-case, zero-padded 16-digit hex of a u64 (the seed's form in config strings).
pub(crate) fn hex16(v: u64) -> alloc::string::String {
    alloc::format!("{v:016x}")
}

/// The indices of a batch of byte ranges `starts[i]..ends[i]`
/// (`i < min(starts.len(), ends.len(), N)`, `N ≤ 256`) sorted into three
/// length classes: class 0 holds lengths `first.0..first.0 + first.1`,
/// class 1 `second.0..second.0 + second.1`, class 2 all others. Writes the
/// lists to the front of `lists` and returns their lengths. No branch per range: each index is written to
/// all three lists and only its own class's count advances, so that batch
/// hashers can run each class in a loop of its own (the length of a
/// token changes from one to the next, and a branch on it mispredicts).
#[cfg(any(feature = "minhash", feature = "simhash"))]
#[inline(always)]
pub(crate) fn by_length_class<const N: usize>(
    starts: &[usize],
    ends: &[usize],
    first: (usize, usize),
    second: (usize, usize),
    lists: &mut [[u8; N]; 3],
) -> [usize; 3] {
    let n = starts.len().min(ends.len()).min(N);
    let mut counts = [0usize; 3];
    for i in 0..n {
        let len = ends[i].wrapping_sub(starts[i]);
        let c0 = len.wrapping_sub(first.0) < first.1;
        let c1 = len.wrapping_sub(second.0) < second.1;
        for (c, hit) in [c0, c1, !(c0 | c1)].into_iter().enumerate() {
            // `counts[c] ≤ i < N ≤ 256`: the modulo changes no index, and
            // `i` fits a byte.
            lists[c][counts[c] % N] = i as u8;
            counts[c] += usize::from(hit);
        }
    }
    counts
}

/// The little-endian u64 at `b[at..at + 8]` (the batch hashers' loads).
#[cfg(any(feature = "minhash", feature = "simhash"))]
#[inline(always)]
pub(crate) fn le64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The 128-bit product of `a` and `b` with its halves xored (XXH3's
/// `mul128_fold64`).
#[cfg(any(feature = "minhash", feature = "simhash"))]
#[inline(always)]
pub(crate) fn fold64(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}
