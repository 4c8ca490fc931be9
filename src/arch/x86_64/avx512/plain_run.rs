//! `Core::plain_prefix` 64 bytes at a time with AVX-512 (F, BW, VBMI).
//!
//! The scalar scan decodes one code point after the other, and each
//! code point's length must be known before the next can be found: about
//! ten dependent instructions per CJK or Cyrillic letter. Here a block is
//! classed as a whole. Two loads give every byte with the byte after it,
//! which is all it takes to find the bitmap bit of a 2-byte code point
//! (`u >> 3` and `u & 7` come from those two bytes) and the page of a
//! 3-byte one (`u >> 8`). Two-register byte permutes look both up in
//! [`SureTables`]. Only the code points the tables leave open (3-byte code
//! points of mixed pages such as kana, 2-byte ones that are not plain
//! under every configuration) take the exact per-code-point test, in
//! order, and the first one that fails ends the run. The lookups are
//! shared with the word segmenter ([`super::utf8`]).

use core::arch::x86_64::*;

use super::utf8::{self, low};
use crate::arch::x86_64::Avx512Vbmi;
use crate::canonical::pipeline::Core;
use crate::canonical::quick::SureTables;

/// [`plain_run_vbmi`] on a CPU proven to have AVX-512 F, BW and VBMI.
#[inline(always)]
pub(crate) fn plain_run(
    _: Avx512Vbmi,
    b: &[u8],
    i: usize,
    t: &SureTables,
    core: Core,
) -> (usize, usize) {
    // SAFETY: an `Avx512Vbmi` proof exists only if the CPU has AVX-512F,
    // BW and VBMI, the features the kernel is compiled for.
    unsafe { plain_run_vbmi(b, i, t, core) }
}

/// `(end, last)` of the run of plain code points at `b[i..]`, exactly as
/// the scalar `Core::plain_prefix`: ASCII and code points passing
/// `core.is_plain` (the exact test) belong to the run; `last` is the start
/// of its last code point, `i` if the run is empty. `t` must hold only code
/// points that pass `core.is_plain`; `b` must be UTF-8 and `i` a boundary.
/// (The test is a method, not a closure, so that it is inlined: a call
/// would make every table register spill around it.)
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn plain_run_vbmi(b: &[u8], mut i: usize, t: &SureTables, core: Core) -> (usize, usize) {
    // Most calls that find no run at all start at the code point that
    // ended the previous run: one exact test spares them a block.
    if b.get(i).is_some_and(|&b0| b0 >= 0x80) && !exact(b, i, core) {
        return (i, i);
    }
    let mut last = i;
    while i < b.len() {
        // Whole ASCII blocks, the bulk of most text, need no classing.
        let from = i;
        while i + 64 <= b.len()
            // SAFETY: `b[i..i + 64]` is inside `b` (checked just before).
            && _mm512_movepi8_mask(unsafe { _mm512_loadu_si512(b.as_ptr().add(i).cast()) }) == 0
        {
            i += 64;
        }
        if i > from {
            last = i - 1;
            if i == b.len() {
                break;
            }
        }
        let x = utf8::load(b, i);
        let lead2 = utf8::bytes_like(&x, 0xE0, 0xC0);
        let lead3 = utf8::bytes_like(&x, 0xF0, 0xE0);
        let lead4 = utf8::bytes_like(&x, 0xF8, 0xF0);
        let leads = x.valid & !utf8::bytes_like(&x, 0xC0, 0x80);
        let sure2 = utf8::two_byte_bits(&x, &t.two) & lead2;
        let sure3 = utf8::page_bits(&x, &t.pages, 0) & lead3;
        // A 4-byte code point is never plain; the open ones are tested.
        let mut stop = if lead4 == 0 {
            64
        } else {
            lead4.trailing_zeros() as usize
        };
        let mut open = ((lead2 & !sure2) | (lead3 & !sure3)) & low(stop);
        while open != 0 {
            let j = open.trailing_zeros() as usize;
            if !exact(b, i + j, core) {
                stop = j;
                break;
            }
            open &= open - 1;
        }
        let kept = leads & low(stop);
        if kept != 0 {
            last = i + 63 - kept.leading_zeros() as usize;
        }
        if stop < 64 {
            return (i + stop, last);
        }
        // The whole block is plain. The next block starts 64 bytes on,
        // perhaps inside a code point; its continuation bytes are no lead,
        // and the code point was classed here (`b1` reaches one byte past
        // the block). Stepping by 64 rather than to the next boundary keeps
        // the classification off the loop's dependency chain.
        i += 64;
    }
    (b.len(), last)
}

/// Whether the code point starting at `b[p]` (2 or 3 bytes) is plain.
#[inline(always)]
fn exact(b: &[u8], p: usize, core: Core) -> bool {
    match decode(b, p) {
        Some(c) => core.is_plain(c),
        None => false,
    }
}

/// The 2- or 3-byte code point starting at `b[p]` (`None` for a 4-byte
/// one, never plain).
#[inline(always)]
fn decode(b: &[u8], p: usize) -> Option<char> {
    let cont = |k: usize| b.get(p + k).map(|&x| u32::from(x & 0x3F));
    let b0 = u32::from(*b.get(p)?);
    if b0 >= 0xF0 {
        return None;
    }
    let u = if b0 < 0xE0 {
        ((b0 & 0x1F) << 6) | cont(1)?
    } else {
        ((b0 & 0x0F) << 12) | (cont(1)? << 6) | cont(2)?
    };
    char::from_u32(u)
}

#[cfg(test)]
mod tests;
