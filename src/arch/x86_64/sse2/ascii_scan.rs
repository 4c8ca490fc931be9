//! The ASCII class masks of a 64-byte block with SSE2, for the word
//! scanners of [`crate::tokenize`] (`ascii_scan`, `block_words`) on CPUs
//! without AVX-512BW.

use core::arch::x86_64::*;

use crate::arch::x86_64::Sse2;
use crate::tokenize::ascii_scan::Masks;

/// The class masks of 64 bytes, as [`crate::arch::scalar::ascii_scan::class_masks`]
/// computes them.
#[inline(always)]
pub(crate) fn class_masks(_: Sse2, b: &[u8; 64]) -> Masks {
    // SAFETY: an `Sse2` proof exists only if the CPU has SSE2 (every
    // x86_64 CPU does), the feature the kernel is compiled for.
    unsafe { class_masks_sse2(b) }
}

/// [`class_masks`] behind the proof, 16 bytes per step.
#[target_feature(enable = "sse2")]
#[inline]
fn class_masks_sse2(b: &[u8; 64]) -> Masks {
    // Unsigned `v - base < n` as a signed compare after moving `base` to
    // -128 (SSE2 has no unsigned byte compare). Bytes >= 0x80 never land in
    // the range of an ASCII class.
    let in_range = |v: __m128i, base: u8, n: u8| {
        let shifted = _mm_add_epi8(v, _mm_set1_epi8(0x80u8.wrapping_sub(base) as i8));
        _mm_cmplt_epi8(shifted, _mm_set1_epi8(0x80u8.wrapping_add(n) as i8))
    };
    let eq = |v: __m128i, c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
    let bits = |v: __m128i| u64::from(_mm_movemask_epi8(v) as u16);
    let mut m = Masks::default();
    for (i, c) in b.chunks_exact(16).enumerate() {
        // SAFETY: `c` is exactly 16 readable bytes; loadu has no alignment
        // requirement.
        let x = unsafe { _mm_loadu_si128(c.as_ptr().cast()) };
        // `| 0x20` lower-cases ASCII letters and moves no other byte into a..z.
        let letter = in_range(_mm_or_si128(x, _mm_set1_epi8(0x20)), b'a', 26);
        let digit = in_range(x, b'0', 10);
        let word = _mm_or_si128(_mm_or_si128(letter, digit), eq(x, b'_'));
        let both = _mm_or_si128(eq(x, b'.'), eq(x, b'\''));
        let ml = _mm_or_si128(both, eq(x, b':'));
        let md = _mm_or_si128(both, _mm_or_si128(eq(x, b','), eq(x, b';')));
        let s = 16 * i;
        m.word |= bits(word) << s;
        m.letter |= bits(letter) << s;
        m.digit |= bits(digit) << s;
        m.mid_letters |= bits(ml) << s;
        m.mid_digits |= bits(md) << s;
        m.high |= bits(x) << s;
        // Signed, 0xC0..=0xFF is -64..=-1: greater than 0xBF (-65), as is
        // all of ASCII, which `high` excludes.
        let gt = _mm_cmpgt_epi8(x, _mm_set1_epi8(0xBFu8 as i8));
        m.lead |= (bits(gt) & bits(x)) << s;
    }
    m
}
