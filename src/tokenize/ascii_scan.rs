//! UAX #29 word spans over ASCII text from per-block bit masks.
//!
//! [`AsciiWords`](super::ascii_words::AsciiWords) finds each word with a
//! short loop and a table lookup per mid character. This module computes,
//! for each 64-byte block, one bit mask per character class (letters,
//! digits, `_`, the two kinds of mid characters), applies the mid rules to
//! whole masks with shifts (a mid character joins when both neighbours are
//! letters, or both digits), and then walks word starts and ends with
//! `trailing_zeros`: a handful of branch-free operations per block and two
//! bit scans per word, however the word lengths vary.
//!
//! The masks come from [`scalar::class_masks`] (the definition, one table
//! lookup per byte) or, on x86_64, from AVX-512BW compares into mask
//! registers where the CPU has them, else SSE2 compares 16 bytes at a time
//! (the kernels are in [`crate::arch`]); the tests hold each kernel to the
//! definition and the spans to
//! `unicode_words`. [`pair_spans`] turns a block's word starts and ends
//! into spans for both word scanners (this one and `block_words`).

use super::ascii_words::{ALNUM, CLASS};
use crate::arch::scalar::ascii_scan as scalar;
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{Avx512Bw, Sse2, avx512, sse2};

/// Bit `j` of each field describes byte `j` of a block of at most 64 bytes
/// (bits past the end of the block are clear).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Masks {
    /// Letters, digits and `_`.
    pub(crate) word: u64,
    /// ASCII letters.
    pub(crate) letter: u64,
    /// ASCII digits.
    pub(crate) digit: u64,
    /// `:` `.` `'`.
    pub(crate) mid_letters: u64,
    /// `,` `;` `.` `'`.
    pub(crate) mid_digits: u64,
    /// Bytes >= 0x80 (they have no ASCII class; see `block_words`).
    pub(crate) high: u64,
    /// Bytes >= 0xC0: the first bytes of the non-ASCII characters.
    pub(crate) lead: u64,
}

/// The class masks of a block of at most 64 bytes (see
/// [`scalar::class_masks`], the definition).
#[inline(always)]
pub(super) fn class_masks(b: &[u8]) -> Masks {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = Sse2::detect() {
        if let Ok(full) = <&[u8; 64]>::try_from(b) {
            return class_masks_64(t, full);
        }
        // The last, partial block: zero bytes have no class.
        let mut padded = [0u8; 64];
        padded[..b.len()].copy_from_slice(b);
        return class_masks_64(t, &padded);
    }
    scalar::class_masks(b)
}

/// The class masks of 64 bytes by the widest kernel the CPU has.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn class_masks_64(baseline: Sse2, b: &[u8; 64]) -> Masks {
    if let Some(t) = Avx512Bw::detect() {
        return avx512::ascii_scan::class_masks(t, b);
    }
    sse2::ascii_scan::class_masks(baseline, b)
}

/// Calls `f(start, end)` for the byte range of every UAX #29 word of the
/// ASCII text `s`, in order (the words of `unicode_words`, which drops
/// segments without a letter or digit).
#[inline(always)]
pub(crate) fn for_each_ascii_word<F: FnMut(usize, usize)>(s: &[u8], mut f: F) {
    // Start of a word that runs past the end of the previous block.
    let mut open: Option<usize> = None;
    for_each_block(s, |base, starts, ends, m| {
        // Runs starting in this block with `_`, the only word character
        // that is not alphanumeric: nearly always none, and then only a
        // word carried over from an earlier block needs the check.
        let underscores = starts & !(m.letter | m.digit);
        pair_spans(base, starts, ends, &mut open, |ws, e| {
            if ws < base || underscores != 0 {
                emit(s, ws, e, &mut f)
            } else {
                f(ws, e)
            }
        });
    });
    if let Some(ws) = open {
        emit(s, ws, s.len(), &mut f);
    }
}

/// Calls `f(base, starts, ends, masks)` for each 64-byte block of the
/// ASCII text `s`, in order: bit `j` of `starts` (`ends`) is set if a joined
/// run of word characters starts at (ends before) byte `base + j`, and
/// `masks` are the block's class masks. A run still open at the end of the
/// text has no end bit.
#[inline(always)]
pub(super) fn for_each_block<F: FnMut(usize, u64, u64, &Masks)>(s: &[u8], mut f: F) {
    debug_assert!(s.is_ascii());
    let n = s.len();
    if n == 0 {
        return;
    }
    let mut cur = class_masks(&s[..n.min(64)]);
    // Bit 63 of the previous block's letter / digit / joined masks.
    let (mut prev_l, mut prev_d, mut prev_j) = (0u64, 0u64, 0u64);
    let mut base = 0;
    while base < n {
        let next_base = base + 64;
        let next = if next_base < n {
            class_masks(&s[next_base..n.min(next_base + 64)])
        } else {
            Masks::default()
        };
        // Bit j: the byte before / after byte j is a letter (digit).
        let l_before = (cur.letter << 1) | prev_l;
        let l_after = (cur.letter >> 1) | (next.letter << 63);
        let d_before = (cur.digit << 1) | prev_d;
        let d_after = (cur.digit >> 1) | (next.digit << 63);
        let joined = cur.word
            | (cur.mid_letters & l_before & l_after)
            | (cur.mid_digits & d_before & d_after);
        let before = (joined << 1) | prev_j;
        // The first byte after each word; bits past the end of the text are
        // clear in `joined`, so a word ending there ends inside the block
        // unless the block is full.
        f(base, joined & !before, !joined & before, &cur);
        prev_l = cur.letter >> 63;
        prev_d = cur.digit >> 63;
        prev_j = joined >> 63;
        cur = next;
        base = next_base;
    }
}

/// Hands the words of one block to `emit` in order: `starts` and `ends` have
/// bit `j` for byte `base + j`, the `k`-th end closes the `k`-th start (an
/// `open` word from an earlier block first), and a start without an end in
/// the block is left `open`. Words do not overlap, so the two sets pair up
/// in order; shared by both word scanners.
#[inline(always)]
pub(super) fn pair_spans(
    base: usize,
    mut starts: u64,
    mut ends: u64,
    open: &mut Option<usize>,
    mut emit: impl FnMut(usize, usize),
) {
    if let Some(ws) = *open
        && ends != 0
    {
        emit(ws, base + ends.trailing_zeros() as usize);
        ends &= ends - 1;
        *open = None;
    }
    while starts != 0 {
        let ws = base + starts.trailing_zeros() as usize;
        starts &= starts - 1;
        if ends == 0 {
            *open = Some(ws);
            return;
        }
        emit(ws, base + ends.trailing_zeros() as usize);
        ends &= ends - 1;
    }
}

/// Hands out the joined run `s[start..end]` if it is a word. A run starts
/// with a letter, digit or `_` (a mid character joins only between two
/// letters or digits), so only a run starting with `_` can lack a letter
/// or digit.
#[inline(always)]
fn emit<F: FnMut(usize, usize)>(s: &[u8], start: usize, end: usize, f: &mut F) {
    if s[start] == b'_'
        && !s[start..end]
            .iter()
            .any(|&x| CLASS[x as usize] & ALNUM != 0)
    {
        return;
    }
    f(start, end);
}

#[cfg(test)]
mod tests;
