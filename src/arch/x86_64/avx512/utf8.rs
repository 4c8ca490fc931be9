//! Code-point lookups over 64 bytes of UTF-8 at once, with AVX-512 (F, BW,
//! VBMI): the shared core of the canonicalizer's plain runs
//! ([`super::plain_run`]) and the word segmenter's classes
//! ([`super::block_words`]). Safe `#[target_feature]` functions: only the
//! kernels of this folder, compiled with the same features, call them.
//!
//! Two loads give every byte with the byte after it, and that is enough to
//! place a 2- or 3-byte code point without decoding it: a 2-byte code
//! point's bit in a 2048-bit table is byte `u >> 3` = `(b0 & 0x1F) << 3 |
//! (b1 & 0x3F) >> 3`, bit `u & 7` = `b1 & 7`; a 3-byte code point's page
//! `u >> 8` has its bit in a 256-bit table at byte `(b0 & 0x0F) << 1 |
//! b1 >> 5 & 1`, bit `b1 >> 2 & 7`. Byte permutes look the bytes up for
//! all 64 positions at once.

use core::arch::x86_64::*;

/// 64 bytes of text from some position, each lane with the byte after it.
#[derive(Clone, Copy)]
pub(super) struct Bytes {
    /// The bytes; zero past the text's end.
    pub(super) b0: __m512i,
    /// The byte after each (zero past the text's end).
    pub(super) b1: __m512i,
    /// Bit `j`: byte `j` lies inside the text.
    pub(super) valid: u64,
}

/// Bits `0..n` set (all of them for `n >= 64`).
#[inline(always)]
pub(super) fn low(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

/// The bytes `b[at..]` (up to 64). `at < b.len()`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(super) fn load(b: &[u8], at: usize) -> Bytes {
    let rem = b.len().saturating_sub(at);
    let valid = low(rem);
    // SAFETY: masked loads touch only the bytes whose mask bit is set:
    // `b[at..at + min(rem, 64)]` and `b[at + 1..at + 1 + min(rem - 1, 64)]`,
    // all inside `b`; with `rem = 0` both masks are empty and nothing is
    // read (`at + 1` may then be past the end, but no byte is accessed).
    unsafe {
        let p = b.as_ptr().wrapping_add(at);
        Bytes {
            b0: _mm512_maskz_loadu_epi8(valid, p.cast()),
            b1: _mm512_maskz_loadu_epi8(low(rem.saturating_sub(1)), p.wrapping_add(1).cast()),
            valid,
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn splat(x: u8) -> __m512i {
    _mm512_set1_epi8(x as i8)
}

/// Bit `j`: byte `j` is inside the text and `b0 & mask == value` (a lead
/// byte's pattern: `0xE0, 0xC0` for 2-byte leads, `0xF0, 0xE0` for 3-byte
/// ones, `0xC0, 0x80` for continuation bytes).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(super) fn bytes_like(x: &Bytes, mask: u8, value: u8) -> u64 {
    _mm512_cmpeq_epi8_mask(_mm512_and_si512(x.b0, splat(mask)), splat(value)) & x.valid
}

/// The selector of bit `k & 7` of a byte, for every lane: bytes 1, 2, 4,
/// …, 128 repeated, permuted by `k & 7`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn bit_of(k: __m512i) -> __m512i {
    let bits = _mm512_set1_epi64(0x8040_2010_0804_0201u64 as i64);
    _mm512_shuffle_epi8(bits, _mm512_and_si512(k, splat(7)))
}

/// Bit `j`: taken as a 2-byte code point, bytes `j` and `j + 1` have their
/// bit set in `table` (2048 bits, byte `u >> 3`, bit `u & 7`). Meaningful
/// only where byte `j` is a 2-byte lead.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(super) fn two_byte_bits(x: &Bytes, table: &[u8; 256]) -> u64 {
    // SAFETY: each load reads 64 bytes inside the 256-byte `table`.
    let (t0, t1, t2, t3) = unsafe {
        let p = table.as_ptr();
        (
            _mm512_loadu_si512(p.cast()),
            _mm512_loadu_si512(p.add(64).cast()),
            _mm512_loadu_si512(p.add(128).cast()),
            _mm512_loadu_si512(p.add(192).cast()),
        )
    };
    let idx = _mm512_or_si512(
        _mm512_and_si512(_mm512_slli_epi16(x.b0, 3), splat(0xF8)),
        _mm512_and_si512(_mm512_srli_epi16(x.b1, 3), splat(0x07)),
    );
    // Index bit 7 picks the table half; each permute uses bits 0–6.
    let byte = _mm512_mask_blend_epi8(
        _mm512_movepi8_mask(idx),
        _mm512_permutex2var_epi8(t0, idx, t1),
        _mm512_permutex2var_epi8(t2, idx, t3),
    );
    _mm512_test_epi8_mask(byte, bit_of(x.b1))
}

/// Bit `j`: taken as a 3-byte code point, bytes `j` and `j + 1` give a page
/// whose bit is set in `pages[at..at + 32]` (`at` is 0 or 32; byte
/// `p >> 3`, bit `p & 7`). Meaningful only where byte `j` is a 3-byte lead.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(super) fn page_bits(x: &Bytes, pages: &[u8; 64], at: u8) -> u64 {
    // SAFETY: the load reads the 64 bytes of `pages`.
    let table = unsafe { _mm512_loadu_si512(pages.as_ptr().cast()) };
    let idx = _mm512_or_si512(
        _mm512_or_si512(
            _mm512_and_si512(_mm512_slli_epi16(x.b0, 1), splat(0x1E)),
            _mm512_and_si512(_mm512_srli_epi16(x.b1, 5), splat(0x01)),
        ),
        splat(at & 32),
    );
    let byte = _mm512_permutexvar_epi8(idx, table);
    _mm512_test_epi8_mask(byte, bit_of(_mm512_srli_epi16(x.b1, 2)))
}
