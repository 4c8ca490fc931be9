//! Bob Jenkins' `lookup3` `hashlittle2` (May 2006), the token hash of
//! `simhash-doc-v1`.
//!
//! `hashlittle2` reads the key as little-endian 32-bit words, twelve bytes
//! (three words) per round, and returns two 32-bit results: `c`, the primary
//! one, and `b`, the secondary one. The result is a function of the bytes,
//! not of the host: a big-endian machine gets the same values. Written here
//! from the algorithm description; the vectors in `tests/data` were made by
//! the reference `lookup3.c` (see `docs/simhash-doc-v1.md`).

/// The three-word state after the key's length and the two seeds are folded in.
#[inline]
fn init(len: usize, pc: u32, pb: u32) -> (u32, u32, u32) {
    // The reference folds the length in as a `uint32_t`: keys of 4 GiB or
    // more wrap, and so does this.
    let v = 0xdead_beef_u32.wrapping_add(len as u32).wrapping_add(pc);
    (v, v, v.wrapping_add(pb))
}

/// `mix(a, b, c)`: the reversible round between two 12-byte blocks.
#[inline(always)]
fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *a = a.wrapping_sub(*c) ^ c.rotate_left(4);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(6);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(8);
    *b = b.wrapping_add(*a);
    *a = a.wrapping_sub(*c) ^ c.rotate_left(16);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(19);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(4);
    *b = b.wrapping_add(*a);
}

/// `final(a, b, c)`: the last, non-reversible avalanche.
#[inline(always)]
fn finish(a: &mut u32, b: &mut u32, c: &mut u32) {
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(14));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(11));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(25));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(16));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(4));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(14));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(24));
}

/// Little-endian word `i` of a 12-byte block.
#[inline(always)]
fn word(block: &[u8; 12], i: usize) -> u32 {
    u32::from_le_bytes([
        block[4 * i],
        block[4 * i + 1],
        block[4 * i + 2],
        block[4 * i + 3],
    ])
}

/// `hashlittle2(key, length, &pc, &pb)` of Bob Jenkins' `lookup3.c`:
/// `pc` and `pb` go in as the primary and secondary seeds and the result is
/// `(c, b)`, the primary and secondary hashes.
///
/// With both seeds 0, `c` equals `hashlittle(key, length, 0)`. The vectors
/// below are the ones `lookup3.c`'s own self test (`driver5`) prints.
///
/// ```
/// use txtfp::classical::simhash::hashlittle2;
/// assert_eq!(hashlittle2(b"", 0, 0), (0xdeadbeef, 0xdeadbeef));
/// assert_eq!(hashlittle2(b"", 0, 0xdeadbeef), (0xbd5b7dde, 0xdeadbeef));
/// let key = b"Four score and seven years ago";
/// assert_eq!(hashlittle2(key, 0, 0), (0x17770551, 0xce7226e6));
/// assert_eq!(hashlittle2(key, 0, 1), (0xe3607cae, 0xbd371de4));
/// assert_eq!(hashlittle2(key, 1, 0), (0xcd628161, 0x6cbea4b3));
/// ```
pub fn hashlittle2(key: &[u8], pc: u32, pb: u32) -> (u32, u32) {
    let (mut a, mut b, mut c) = init(key.len(), pc, pb);
    if key.is_empty() {
        // The reference returns the seeded state unmixed.
        return (c, b);
    }
    // Every block but the last goes through `mix`; the last one (1 to 12
    // bytes, zero padded) goes through `final`.
    let mut rest = key;
    while rest.len() > 12 {
        let (block, tail) = rest.split_at(12);
        let block: &[u8; 12] = block.try_into().unwrap_or(&[0; 12]);
        a = a.wrapping_add(word(block, 0));
        b = b.wrapping_add(word(block, 1));
        c = c.wrapping_add(word(block, 2));
        mix(&mut a, &mut b, &mut c);
        rest = tail;
    }
    let mut last = [0u8; 12];
    last[..rest.len()].copy_from_slice(rest);
    a = a.wrapping_add(word(&last, 0));
    b = b.wrapping_add(word(&last, 1));
    c = c.wrapping_add(word(&last, 2));
    finish(&mut a, &mut b, &mut c);
    (c, b)
}

/// The 64-bit Jenkins hash of `simhash-doc-v1`: [`hashlittle2`] with both
/// seeds 0, packed as `c + (b << 32)` — the packing `lookup3.c` recommends
/// ("use `*pc` first"): the primary hash is the low half.
///
/// ```
/// use txtfp::classical::simhash::jenkins64;
/// assert_eq!(jenkins64(b""), 0xdeadbeef_deadbeef);
/// assert_eq!(jenkins64(b"Four score and seven years ago"), 0xce7226e6_17770551);
/// ```
#[inline]
pub fn jenkins64(key: &[u8]) -> u64 {
    let (c, b) = hashlittle2(key, 0, 0);
    u64::from(c) | (u64::from(b) << 32)
}

#[cfg(test)]
mod tests;
