//! A blocked Bloom filter over a segment's `(tag, key)` pairs: most
//! lookups are of keys a segment does not hold (a new document's keys are
//! new), and the filter answers those from one cache line instead of a
//! directory search and a block decoded in the segment.
//!
//! Layout: 64-byte blocks of eight little-endian words; a pair sets
//! [`PROBES`] bits of the one block its hash picks. About [`BITS_PER_KEY`]
//! bits per distinct pair: about 3 % of absent pairs pass.

/// Bits per distinct pair.
pub(crate) const BITS_PER_KEY: usize = 8;
/// Bits set per pair, all in one block.
const PROBES: u32 = 4;
/// Bytes per block.
pub(crate) const BLOCK_BYTES: usize = 64;

/// A pair's hash (splitmix64's finalizer over tag and key).
fn hash(tag: usize, key: u32) -> u64 {
    let mut z = ((tag as u64) << 32 | u64::from(key)).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The block of `blocks` a hash picks, and the bits it sets there (bit
/// `i` of word `w` is `w * 64 + i`).
fn place(h: u64, blocks: usize) -> (usize, [u16; PROBES as usize]) {
    let block = ((u128::from(h) * blocks as u128) >> 64) as usize;
    let mut bits = [0u16; PROBES as usize];
    for (i, b) in bits.iter_mut().enumerate() {
        *b = ((h >> (9 * i)) & 511) as u16;
    }
    (block, bits)
}

/// Blocks for `pairs` distinct pairs (none for none).
pub(crate) fn blocks_for(pairs: usize) -> usize {
    (pairs * BITS_PER_KEY).div_ceil(BLOCK_BYTES * 8)
}

/// A filter being built.
pub(crate) struct Filter {
    blocks: usize,
    words: Vec<u64>,
}

impl Filter {
    /// An empty filter of `blocks` blocks.
    pub(crate) fn new(blocks: usize) -> Self {
        Self {
            blocks,
            words: vec![0; blocks * 8],
        }
    }

    /// Adds `(tag, key)` (a no-op on a filter of no blocks).
    pub(crate) fn insert(&mut self, tag: usize, key: u32) {
        if self.blocks == 0 {
            return;
        }
        let (block, bits) = place(hash(tag, key), self.blocks);
        for b in bits {
            self.words[block * 8 + usize::from(b / 64)] |= 1 << (b % 64);
        }
    }

    /// The words, block after block.
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }
}

/// The filter's words for `pairs` (repeats allowed), in `blocks` blocks.
#[cfg(test)]
pub(crate) fn build(pairs: impl Iterator<Item = (usize, u32)>, blocks: usize) -> Vec<u64> {
    let mut f = Filter::new(blocks);
    for (tag, key) in pairs {
        f.insert(tag, key);
    }
    f.words
}

/// Whether the filter of `blocks` blocks may hold `(tag, key)`; `word`
/// reads word `i` of the filter. Never false for a pair it was built with.
pub(crate) fn may_hold(blocks: usize, tag: usize, key: u32, word: impl Fn(usize) -> u64) -> bool {
    if blocks == 0 {
        return false;
    }
    let (block, bits) = place(hash(tag, key), blocks);
    bits.iter()
        .all(|&b| word(block * 8 + usize::from(b / 64)) & (1 << (b % 64)) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_built_is_held_and_few_others_pass() {
        let pairs: Vec<(usize, u32)> = (0..20_000u32)
            .map(|i| ((i % 7) as usize, i.wrapping_mul(2_654_435_761)))
            .collect();
        let blocks = blocks_for(pairs.len());
        let words = build(pairs.iter().copied(), blocks);
        let word = |i: usize| words[i];
        assert!(pairs.iter().all(|&(t, k)| may_hold(blocks, t, k, word)));
        let passed = (0..100_000u32)
            .filter(|&i| may_hold(blocks, 3, i.wrapping_mul(40_503) ^ 0x5555_0000, word))
            .count();
        // About 3 % by design; a broken hash or placement shows far more.
        assert!(passed < 5_000, "{passed} of 100,000 absent pairs passed");
        assert!(!may_hold(0, 0, 1, |_| u64::MAX));
    }
}
