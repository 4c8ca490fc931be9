//! Stage 4: banded locality-sensitive hashing over [`MinHashSig`]s.
//!
//! A signature of `H = bands × rows` slots is cut into `bands` runs of `rows`
//! consecutive slots. Two documents with Jaccard similarity `s` agree on a
//! whole band with probability `s^rows`, so they share at least one band
//! bucket with probability `1 − (1 − s^rows)^bands`: an S-curve that is steep
//! around the threshold [`LshIndexBuilder::for_threshold`] tunes it to. A query
//! only looks at the documents it shares a bucket with.
//!
//! ```
//! use txtfp::{LshIndex, LshIndexBuilder, MinHashSig};
//! let mut idx: LshIndex<8> = LshIndexBuilder::new(4, 2).try_build()?;
//! let mut a = MinHashSig::<8>::empty();
//! a.hashes = [1, 2, 3, 4, 5, 6, 7, 8];
//! let mut b = a;
//! b.hashes[7] = 99; // differs from `a` in the last band only
//! idx.insert(10, a);
//! idx.insert(20, b);
//! assert_eq!(idx.query(&a), [10, 20]);
//! assert_eq!(idx.query_with_threshold(&a, 0.9), [10]); // jaccard(a, b) = 7/8
//! # Ok::<(), txtfp::Error>(())
//! ```
//!
//! # Band keys (frozen)
//!
//! The key of band `j` is the unseeded XXH3-64 of the little-endian bytes of
//! slots `j·rows .. (j+1)·rows`, as in txtfp 0.3.2. The band number is not
//! mixed in: every band has its own table.
//!
//! # Layout
//!
//! - ids map to dense slots; signatures live in a `Vec<MinHashSig<H>>` by
//!   slot ([`LshCandidateIndex`] keeps none);
//! - each band owns a key table: a sorted run of 12-byte `(key, slot)`
//!   entries with a directory over the key prefixes, plus a small hash table
//!   that takes single inserts until it is merged into the run;
//! - removal is lazy: a removed slot is skipped at once and dropped from the
//!   tables at the next merge ([`LshIndex::compact`] forces one).
//!
//! About 220 bytes a document for ids and band tables at 16 × 8 banding.
//! Indexes are saved to a versioned, checksummed file
//! ([`LshIndex::save`]) that `MappedLshIndex` can
//! query in place (`mmap` feature). An index holds at most 2³¹ − 1
//! signatures at once. BENCHMARKS.md ("Indexes") has the figures.
//!
//! [`MinHashSig`]: crate::MinHashSig

mod batch;
mod builder;
mod bulk;
mod candidates;
mod core;
// Tuning integrates with `ln`/`exp`, which core lacks.
#[cfg(feature = "std")]
pub mod ensemble;
pub mod forest;
mod index;
#[cfg(feature = "mmap")]
mod map_file;
#[cfg(feature = "mmap")]
mod mapped;
#[cfg(feature = "parallel")]
mod parallel;
mod persist;
mod prefetch;
mod query_batch;
mod run;
mod save;
mod scheme_file;
mod scurve;
#[cfg(feature = "simhash")]
mod simhash;
mod table;
#[cfg(test)]
mod tests;

pub use builder::{LshIndexBuilder, MAX_AUTO_TUNE_H};
pub use candidates::LshCandidateIndex;
pub use index::LshIndex;
#[cfg(feature = "mmap")]
pub use mapped::MappedLshIndex;
pub use persist::INDEX_FORMAT_VERSION;
#[cfg(all(feature = "simhash", feature = "mmap"))]
pub use simhash::MappedSimHashIndex;
#[cfg(feature = "simhash")]
pub use simhash::{
    MAX_128_DISTANCE, MAX_AUTO_DISTANCE, MAX_TABLES, MAX_VERIFIED_DISTANCE, SimHash128Index,
    SimHashIndex, SimHashLayout, SimHashWidth,
};

/// Key of each band of `hashes` cut into runs of `rows` slots, in band order.
///
/// `rows` must be non-zero and divide `hashes.len()`; the index guarantees
/// both, which is why exactly `bands` keys come out.
pub(crate) fn band_keys(hashes: &[u64], rows: usize) -> impl Iterator<Item = u64> + '_ {
    hashes.chunks_exact(rows).map(band_key)
}

/// Key of band `band` of `hashes` cut into runs of `rows` slots (`rows`
/// non-zero and `(band + 1) · rows ≤ hashes.len()`, as the index
/// guarantees).
#[inline]
pub(crate) fn band_key_at(hashes: &[u64], rows: usize, band: usize) -> u64 {
    let slots = &hashes[band * rows..(band + 1) * rows];
    match <&[u64; 8]>::try_from(slots) {
        Ok(eight) => xxh3_64_of_8_words(eight),
        Err(_) => band_key(slots),
    }
}

/// XXH3-64 of the concatenated little-endian bytes of `slots`.
fn band_key(slots: &[u64]) -> u64 {
    if let Ok(eight) = <&[u64; 8]>::try_from(slots) {
        // The common banding (rows = 8, e.g. 16 × 8 of H = 128).
        return xxh3_64_of_8_words(eight);
    }
    #[cfg(target_endian = "little")]
    {
        // In memory the slots already are their little-endian bytes.
        crate::classical::xxh3_64(bytemuck::cast_slice(slots))
    }
    #[cfg(not(target_endian = "little"))]
    {
        let bytes: alloc::vec::Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();
        crate::classical::xxh3_64(&bytes)
    }
}

/// The default XXH3 secret (a seed-0 "custom" secret is the default one).
const XXH3_SECRET: [u8; 192] = xxhash_rust::const_xxh3::const_custom_default_secret(0);

/// Word `i` of [`XXH3_SECRET`], little endian.
const fn secret_word(i: usize) -> u64 {
    let mut w = 0u64;
    let mut b = 0;
    while b < 8 {
        w |= (XXH3_SECRET[8 * i + b] as u64) << (8 * b);
        b += 1;
    }
    w
}

/// Unseeded XXH3-64 of a 64-byte input given as eight little-endian words:
/// the 17–128-byte path of the XXH3 specification unrolled for length 64
/// (four 16-byte mixes, then the avalanche), equal to `xxh3_64` byte for
/// byte (property-tested) without its length dispatch and call.
#[inline(always)]
fn xxh3_64_of_8_words(w: &[u64; 8]) -> u64 {
    const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
    const K: [u64; 8] = {
        let mut k = [0u64; 8];
        let mut i = 0;
        while i < 8 {
            k[i] = secret_word(i);
            i += 1;
        }
        k
    };
    #[inline(always)]
    fn mix16(lo: u64, hi: u64, s0: u64, s1: u64) -> u64 {
        let p = u128::from(lo ^ s0) * u128::from(hi ^ s1);
        (p as u64) ^ ((p >> 64) as u64)
    }
    let acc = 64u64
        .wrapping_mul(PRIME64_1)
        .wrapping_add(mix16(w[0], w[1], K[0], K[1]))
        .wrapping_add(mix16(w[6], w[7], K[2], K[3]))
        .wrapping_add(mix16(w[2], w[3], K[4], K[5]))
        .wrapping_add(mix16(w[4], w[5], K[6], K[7]));
    let h = acc ^ (acc >> 37);
    let h = h.wrapping_mul(0x1656_6791_9E37_79F9);
    h ^ (h >> 32)
}
