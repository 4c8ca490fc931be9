//! The word-character mask of a block with SSE2, for the ASCII word
//! iterator of [`crate::tokenize`] (`ascii_words`).

use core::arch::x86_64::*;

use crate::arch::scalar;
use crate::arch::x86_64::Sse2;

/// Bit `j` set iff `b[j]` is a word character, as
/// [`scalar::ascii_words::word_mask`] computes it; `b` holds at most 64
/// bytes. Four compares and a `movemask` per 16 bytes replace sixteen table
/// lookups.
#[inline(always)]
pub(crate) fn word_mask(_: Sse2, b: &[u8]) -> u64 {
    // SAFETY: an `Sse2` proof exists only if the CPU has SSE2 (every
    // x86_64 CPU does), the feature the kernel is compiled for.
    unsafe { word_mask_sse2(b) }
}

/// [`word_mask`] behind the proof.
#[target_feature(enable = "sse2")]
#[inline]
fn word_mask_sse2(b: &[u8]) -> u64 {
    debug_assert!(b.len() <= 64);
    // Unsigned `v - base < n`, as a signed compare after moving `base` to
    // -128 (SSE2 has no unsigned byte compare).
    let in_range = |v: __m128i, base: u8, n: u8| {
        let shifted = _mm_add_epi8(v, _mm_set1_epi8(0x80u8.wrapping_sub(base) as i8));
        _mm_cmplt_epi8(shifted, _mm_set1_epi8(0x80u8.wrapping_add(n) as i8))
    };
    let mut chunks = b.chunks_exact(16);
    let mut m = 0u64;
    let mut shift = 0;
    for c in &mut chunks {
        // SAFETY: `c` is exactly 16 readable bytes; loadu has no alignment
        // requirement.
        let x = unsafe { _mm_loadu_si128(c.as_ptr().cast()) };
        // `| 0x20` lower-cases ASCII letters and moves no other byte into a..z.
        let letter = in_range(_mm_or_si128(x, _mm_set1_epi8(0x20)), b'a', 26);
        let digit = in_range(x, b'0', 10);
        let under = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'_' as i8));
        let word = _mm_or_si128(_mm_or_si128(letter, digit), under);
        m |= u64::from(_mm_movemask_epi8(word) as u16) << shift;
        shift += 16;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        m |= scalar::ascii_words::word_mask(rest) << shift;
    }
    m
}
