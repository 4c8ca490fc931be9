//! From bucket counts to the TLSH 128/1 digest string.
//!
//! Only buckets `0..128` count. Their quartiles `q1 ≤ q2 ≤ q3` (the 32nd,
//! 64th and 96th smallest) turn each bucket into a two-bit code (0: ≤ q1,
//! 1: ≤ q2, 2: ≤ q3, 3: above), four per byte, lowest bucket in the lowest
//! bits. The digest is `T1`, then in upper-case hex: the checksum, the
//! length code and the byte `q1·100/q3 mod 16 | (q2·100/q3 mod 16) << 4`
//! (ratios in single precision, as the reference), each with its nibbles
//! swapped, then the 32 code bytes from the last bucket group to the first.
//! A digest needs `q3 > 0` and more than 64 non-empty buckets.

use super::histogram::Histogram;
use super::tables::length_code;

/// Buckets the digest uses.
const EFF_BUCKETS: usize = 128;

fn swap_nibbles(b: u8) -> u8 {
    b.rotate_left(4)
}

/// The reference's quartile ratio: `(q·100) / q3` in `f32` (the product
/// wraps in 32 bits, as in the reference), truncated, mod 16.
fn ratio(q: u32, q3: u32) -> u8 {
    ((q.wrapping_mul(100) as f32 / q3 as f32) as u32 % 16) as u8
}

/// The 72 ASCII characters of the digest, or `None` when the statistics
/// are too flat (`q3 == 0` or at most 64 non-empty buckets). The caller
/// checks the length bounds.
pub(super) fn digest(h: &Histogram) -> Option<[u8; 72]> {
    let buckets: &[u32] = &h.counts[..EFF_BUCKETS];
    // The 32nd, 64th and 96th smallest: the middle one splits the rest.
    let mut work = [0u32; EFF_BUCKETS];
    work.copy_from_slice(buckets);
    let (below, &mut q2, above) = work.select_nth_unstable(63);
    let q1 = *below.select_nth_unstable(31).1;
    let q3 = *above.select_nth_unstable(95 - 64).1;
    let nonzero = buckets.iter().filter(|&&n| n > 0).count();
    if q3 == 0 || nonzero <= EFF_BUCKETS / 2 {
        return None;
    }
    let mut raw = [0u8; 35];
    raw[0] = swap_nibbles(h.checksum);
    raw[1] = swap_nibbles(length_code(h.len.min(u64::from(u32::MAX)) as u32));
    raw[2] = swap_nibbles(ratio(q1, q3) | ratio(q2, q3) << 4);
    for (group, out) in buckets.chunks_exact(4).zip(raw[3..].iter_mut().rev()) {
        *out = group.iter().enumerate().fold(0u8, |acc, (j, &n)| {
            // q1 <= q2 <= q3, so this counts the quartiles below n: 0..=3.
            let level = u8::from(n > q1) + u8::from(n > q2) + u8::from(n > q3);
            acc | level << (2 * j)
        });
    }
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut text = [0u8; 72];
    text[0] = b'T';
    text[1] = b'1';
    for (pair, b) in text[2..].chunks_exact_mut(2).zip(raw) {
        pair[0] = HEX[usize::from(b >> 4)];
        pair[1] = HEX[usize::from(b & 15)];
    }
    Some(text)
}
