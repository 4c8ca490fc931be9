//! The TLSH 128/1 byte statistics: six Pearson-hashed byte triplets per
//! position counted into 256 buckets, and a one-byte rolling checksum.
//!
//! At each byte `b0` with four bytes `b1..b4` before it (most recent
//! first), the triplets `(b0, bi, bj)` for the six pairs `i < j` of
//! `1..=4` are hashed with salts 2, 3, 5, 7, 11, 13 and counted; the
//! checksum becomes the hash of `(b0, b1, checksum)` with salt 0. A hash
//! with salt `s` is four chained Pearson steps `T[T[T[T[s] ^ x] ^ y] ^ z]`;
//! the first is a constant and the middle two are one [`JOINT`] lookup.
//!
//! [`Histogram::update`] runs the AVX-512 VBMI kernel
//! (`crate::arch::x86_64::avx512::tlsh`) over the bulk of each chunk when
//! the CPU has it, and the scalar steps here elsewhere; the tests compare
//! both with the tlsh2 crate.

use super::tables::{JOINT, PEARSON};
#[cfg(all(feature = "std", target_arch = "x86_64"))]
use crate::arch::x86_64::{Avx512Vbmi2, avx512};

/// `T[salt]` of the triplet hashes, with the positions `(i, j)` of the two
/// older bytes (1 = the byte before `b0`).
pub(crate) const TRIPLETS: [(u8, usize, usize); 6] = [
    (PEARSON[2], 1, 2),
    (PEARSON[3], 1, 3),
    (PEARSON[11], 1, 4),
    (PEARSON[5], 2, 3),
    (PEARSON[7], 2, 4),
    (PEARSON[13], 3, 4),
];

/// `T[0]`: the first step of the checksum hash.
pub(crate) const CHECKSUM_SALT: u8 = PEARSON[0];

/// Bucket counts, checksum and the last four bytes of a byte stream.
#[derive(Clone)]
pub(crate) struct Histogram {
    /// Triplet counts per bucket. Only `0..128` reach the digest; the
    /// kernel leaves the others alone, so they are partial.
    pub(crate) counts: [u32; 256],
    pub(crate) checksum: u8,
    /// The last four bytes, most recent first (`b1, b2, b3, b4` of the next
    /// byte); valid once four bytes were seen.
    window: [u8; 4],
    pub(super) len: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self {
            counts: [0; 256],
            checksum: 0,
            window: [0; 4],
            len: 0,
        }
    }
}

/// `T[J[y][salt ^ x] ^ z]`: the triplet hash with `salt` = `T[s]`.
#[inline(always)]
fn hash3(salt: u8, x: u8, y: u8, z: u8) -> u8 {
    PEARSON[usize::from(JOINT[usize::from(y)][usize::from(salt ^ x)] ^ z)]
}

impl Histogram {
    /// Feeds `data`.
    pub(crate) fn update(&mut self, data: &[u8]) {
        // The first bytes of a chunk may need the window of the previous
        // one: the scalar steps take them (and everything on CPUs without
        // the kernel); the kernel takes whole blocks whose four preceding
        // bytes lie inside `data`.
        let head = data.len().min(4);
        self.scalar(&data[..head]);
        #[cfg(all(feature = "std", target_arch = "x86_64"))]
        let done = if data.len() >= head + avx512::tlsh::BLOCK
            && let Some(t) = Avx512Vbmi2::detect()
        {
            avx512::tlsh::run(t, self, data, head)
        } else {
            head
        };
        #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
        let done = head;
        self.scalar(&data[done..]);
    }

    /// One byte at a time, the plain definition.
    pub(super) fn scalar(&mut self, data: &[u8]) {
        for &b0 in data {
            if self.len >= 4 {
                let [b1, b2, b3, b4] = self.window;
                let w = [b0, b1, b2, b3, b4];
                self.checksum = hash3(CHECKSUM_SALT, b0, b1, self.checksum);
                for (salt, i, j) in TRIPLETS {
                    let r = hash3(salt, b0, w[i], w[j]);
                    let c = &mut self.counts[usize::from(r)];
                    *c = c.wrapping_add(1);
                }
            }
            self.window = [b0, self.window[0], self.window[1], self.window[2]];
            self.len += 1;
        }
    }

    #[cfg_attr(not(all(feature = "std", target_arch = "x86_64")), allow(dead_code))]
    /// After a kernel consumed `data[..end]` (with `end >= 4`): the new
    /// window and length.
    pub(crate) fn advance(&mut self, data: &[u8], start: usize, end: usize) {
        self.window = [data[end - 1], data[end - 2], data[end - 3], data[end - 4]];
        self.len += (end - start) as u64;
    }
}
