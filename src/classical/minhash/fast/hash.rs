//! The hashes of the fast scheme: words, shingles, rounds.
//!
//! A token is hashed as the space-separated pieces it is made of: each
//! piece gets a 64-bit word hash, the piece hashes are combined as a
//! polynomial `Σ wᵢ·Bⁿ⁻¹⁻ⁱ (mod 2⁶⁴)` (Horner order, so position matters),
//! and the sum is finished with a seeded folded multiply. Shingles join
//! words with exactly one space, so when no word contains U+0020 a word
//! k-shingle's hash is a function of its k word hashes, which the fused
//! path rolls forward with two multiplies per word instead of hashing k
//! words per shingle. A UAX #29 word can contain U+0020 (spaces before an
//! alphabetic combining mark); the fused path checks for it in non-ASCII
//! text and then hashes the document by the definition.

/// Odd multipliers (well-known mixing constants; any odd values with many
/// set bits would do).
const P0: u64 = 0x9e37_79b9_7f4a_7c15;
const P1: u64 = 0xa076_1d64_78bd_642f;
const P2: u64 = 0xe703_7ed1_a0b4_28db;
const P3: u64 = 0x8ebc_6af0_9c88_c6e3;
/// The polynomial base of the shingle combination.
pub(super) const BASE: u64 = 0x2545_f491_4f6c_dd1d;

/// Bits of a slot value that come from the element's hash; the bits above
/// hold the round that placed it (see [`super::sketch`]).
pub(super) const VALUE_BITS: u32 = 40;
pub(super) const VALUE_MASK: u64 = (1 << VALUE_BITS) - 1;

/// Folded multiply: the 128-bit product's halves xored. Cheap (one
/// `mul`) and, unlike a plain 64-bit multiply, it lets high input bits
/// reach low output bits.
#[inline(always)]
pub(super) fn mum(a: u64, b: u64) -> u64 {
    let r = u128::from(a) * u128::from(b);
    (r as u64) ^ ((r >> 64) as u64)
}

/// Per-seed constants, derived once per document.
#[derive(Clone, Copy, Debug)]
pub(super) struct Keys {
    pub(super) word: u64,
    pub(super) finish: u64,
    pub(super) round: u64,
}

impl Keys {
    pub(super) fn new(seed: u64) -> Self {
        // Three unrelated values from one seed; mum of distinct odd
        // constants keeps them apart even for seed 0.
        Keys {
            word: mum(seed ^ P0, P1),
            finish: mum(seed ^ P2, P3),
            round: mum(seed ^ P1, P2),
        }
    }
}

/// Word hash of `w`: the length and then each 8-byte little-endian chunk
/// (the last one zero-padded) folded in with [`mum`].
#[inline]
pub(super) fn word_hash(w: &[u8], key: u64) -> u64 {
    let mut h = key ^ (w.len() as u64).wrapping_mul(P0);
    let mut chunks = w.chunks_exact(8);
    for c in &mut chunks {
        let mut le = [0u8; 8];
        le.copy_from_slice(c);
        h = mum(h ^ u64::from_le_bytes(le), P1);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        h = mum(h ^ load_partial(rest), P1);
    }
    h
}

/// The 1–7 bytes of `b` as a little-endian word, zero-padded: two
/// overlapping loads instead of a variable-length copy (which compiles to a
/// `memcpy` call). Bytes both loads cover are equal, so `|` merges them.
#[inline(always)]
fn load_partial(b: &[u8]) -> u64 {
    let n = b.len();
    let byte = |i: usize| u64::from(b.get(i).copied().unwrap_or(0));
    if n >= 4 {
        let four = |i: usize| {
            let mut le = [0u8; 4];
            le.copy_from_slice(&b[i..i + 4]);
            u64::from(u32::from_le_bytes(le))
        };
        four(0) | four(n - 4) << (8 * (n - 4))
    } else if n > 0 {
        byte(0) | byte(n / 2) << (8 * (n / 2)) | byte(n - 1) << (8 * (n - 1))
    } else {
        0
    }
}

/// [`word_hash`] of `w`, a word found at byte `s` of `text` (`s` is only a
/// hint: it is used when `text[s..]` really holds `w`). A word of at most
/// 16 bytes with 16 bytes of text from its start is two unaligned loads,
/// masked: no copy, no call, and small enough to inline into the word
/// scanner's loop. Anything else takes [`word_hash_long`].
#[inline(always)]
pub(super) fn word_hash_at(text: &[u8], s: usize, w: &[u8], key: u64) -> u64 {
    let len = w.len();
    // `s + 16 <= text.len()` and `w` starting at `text[s]`: the 16 bytes
    // read are `w` and then text after it, masked off. Words of 1–8 bytes
    // take one chunk, of 9–16 two; both are computed and one is picked,
    // so the length costs no branch.
    if len.wrapping_sub(1) < 16
        && text.as_ptr().wrapping_add(s) == w.as_ptr()
        && let Some(c) = text.get(s..s.wrapping_add(16))
    {
        let row = &SHORT[len];
        let w0 = load8(c) & row.first;
        let w1 = load8(&c[8..]) & row.second;
        let one = mum(key ^ row.len_mul ^ w0, P1);
        let two = mum(one ^ w1, P1);
        return if len > 8 { two } else { one };
    }
    word_hash_long(text, s, w, key)
}

/// What [`word_hash_at`] needs of a length `0..=16`, looked up rather than
/// computed: variable shifts are three micro-ops each without BMI2.
struct ShortLen {
    /// The masks of the word's bytes in its first and second 8 bytes.
    first: u64,
    second: u64,
    /// `len · P0`.
    len_mul: u64,
}

static SHORT: [ShortLen; 17] = {
    const fn low_bytes(n: usize) -> u64 {
        if n >= 8 {
            u64::MAX
        } else {
            (1u64 << (8 * n)) - 1
        }
    }
    let mut t = [const {
        ShortLen {
            first: 0,
            second: 0,
            len_mul: 0,
        }
    }; 17];
    let mut len = 0;
    while len <= 16 {
        t[len] = ShortLen {
            first: low_bytes(if len < 8 { len } else { 8 }),
            second: low_bytes(len.saturating_sub(8)),
            len_mul: (len as u64).wrapping_mul(P0),
        };
        len += 1;
    }
    t
};

/// [`word_hash_at`] off its fast path: whole 8-byte loads while the text
/// extends far enough past the word, [`word_hash`] (which copies) near its
/// end or when `w` is not at `text[s]`.
#[cold]
#[inline(never)]
fn word_hash_long(text: &[u8], s: usize, w: &[u8], key: u64) -> u64 {
    let len = w.len();
    let full = len & !7;
    if len > 0
        && text.as_ptr().wrapping_add(s) == w.as_ptr()
        && let Some(padded) = text.get(s..s.saturating_add(full + 8))
    {
        let mut h = key ^ (len as u64).wrapping_mul(P0);
        let mut chunks = padded.chunks_exact(8);
        for c in chunks.by_ref().take(full / 8) {
            h = mum(h ^ load8(c), P1);
        }
        let rest = len - full;
        if rest > 0
            && let Some(c) = chunks.next()
        {
            h = mum(h ^ (load8(c) & (u64::MAX >> (64 - 8 * rest))), P1);
        }
        return h;
    }
    word_hash(w, key)
}

/// The first 8 bytes of `c` (which has at least 8) as a little-endian word.
#[inline(always)]
fn load8(c: &[u8]) -> u64 {
    let mut le = [0u8; 8];
    le.copy_from_slice(&c[..8]);
    u64::from_le_bytes(le)
}

/// The shingle hash of a combined polynomial value.
#[inline(always)]
pub(super) fn finish(acc: u64, key: u64) -> u64 {
    mum(acc ^ key, P2)
}

/// The hash of any token: its space-separated pieces combined as above.
/// This is the definition; the fused paths compute the same value.
// Only the tests call it: the library computes the same values faster
// (the fused loops, `spaced_words`, the roller), and the tests hold each
// of them to this.
#[cfg_attr(not(test), allow(dead_code))]
pub(super) fn token_hash(token: &[u8], keys: &Keys) -> u64 {
    let mut acc = 0u64;
    for piece in token.split(|&b| b == b' ') {
        acc = acc
            .wrapping_mul(BASE)
            .wrapping_add(word_hash(piece, keys.word));
    }
    finish(acc, keys.finish)
}

/// Bin of a 64-bit hash among `h` bins: the high 32 bits scaled to
/// `0..h` (a multiply, no division; exact for every `h <= 2³²`).
#[inline(always)]
pub(super) fn bin_of(x: u64, h: usize) -> usize {
    (((x >> 32) * h as u64) >> 32) as usize
}

/// The re-hash of element `x` for round pair `q`: [`bin_of`] its value
/// is the bin of round `2q + 1`, [`bin_of`] its low half shifted up the bin
/// of round `2q + 2`.
#[inline(always)]
pub(super) fn round_hash(x: u64, q: u64, key: u64) -> u64 {
    mum(x ^ key ^ q.wrapping_mul(P0), P3)
}

/// `BASE^e mod 2⁶⁴`.
pub(super) fn base_pow(e: usize) -> u64 {
    let mut p = 1u64;
    for _ in 0..e {
        p = p.wrapping_mul(BASE);
    }
    p
}

#[cfg(test)]
mod tests;
