//! The ASCII class masks of a 64-byte block with AVX-512BW, for the word
//! scanners of [`crate::tokenize`] (`ascii_scan`, `block_words`).

use core::arch::x86_64::*;

use crate::arch::x86_64::Avx512Bw;
use crate::tokenize::ascii_scan::Masks;

/// The class masks of 64 bytes, as [`crate::arch::scalar::ascii_scan::class_masks`]
/// computes them: one load, and each class is a compare straight into a
/// 64-bit mask register.
#[inline(always)]
pub(crate) fn class_masks(_: Avx512Bw, b: &[u8; 64]) -> Masks {
    // SAFETY: an `Avx512Bw` proof exists only if the CPU has AVX-512F and
    // AVX-512BW, the features the kernel is compiled for.
    unsafe { class_masks_avx512(b) }
}

/// [`class_masks`] behind the proof.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn class_masks_avx512(b: &[u8; 64]) -> Masks {
    // SAFETY: `b` is exactly 64 readable bytes; loadu has no alignment
    // requirement.
    let x = unsafe { _mm512_loadu_si512(b.as_ptr().cast()) };
    let splat = |c: u8| _mm512_set1_epi8(c as i8);
    let eq = |c: u8| _mm512_cmpeq_epi8_mask(x, splat(c));
    // Unsigned `v - base < n`; `| 0x20` lower-cases ASCII letters and moves
    // no other byte into a..z (bytes >= 0x80 stay >= 0xA0).
    let in_range = |v: __m512i, base: u8, n: u8| {
        _mm512_cmplt_epu8_mask(_mm512_sub_epi8(v, splat(base)), splat(n))
    };
    let letter = in_range(_mm512_or_si512(x, splat(0x20)), b'a', 26);
    let digit = in_range(x, b'0', 10);
    let both = eq(b'.') | eq(b'\'');
    Masks {
        word: letter | digit | eq(b'_'),
        letter,
        digit,
        mid_letters: both | eq(b':'),
        mid_digits: both | eq(b',') | eq(b';'),
        high: _mm512_movepi8_mask(x),
        lead: _mm512_cmpge_epu8_mask(x, splat(0xC0)),
    }
}
