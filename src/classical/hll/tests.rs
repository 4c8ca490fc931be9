//! Tests of the HyperLogLog sketches against a plain reference.

mod accuracy;
mod format;
mod props;
#[cfg(feature = "serde")]
mod serde;

/// SplitMix64: well-mixed 64-bit values from a counter, standing in for
/// item hashes.
pub(super) fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The plain reference: registers straight from the definition, bit by
/// bit (register = top `p` bits; value = position of the first one bit
/// after them, counted from 1, or `65 - p` when there is none).
pub(super) fn reference_registers(hashes: &[u64], p: u8) -> Vec<u8> {
    let mut regs = vec![0u8; 1 << p];
    for &h in hashes {
        let mut j = 0usize;
        for b in 0..p {
            j = (j << 1) | ((h >> (63 - b)) & 1) as usize;
        }
        let mut rank = 65 - p;
        for (pos, b) in (p..64).enumerate() {
            if (h >> (63 - b)) & 1 == 1 {
                rank = pos as u8 + 1;
                break;
            }
        }
        regs[j] = regs[j].max(rank);
    }
    regs
}
