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
//! order, and the first one that fails ends the run.

use core::arch::x86_64::*;

use super::pipeline::Core;
use super::quick::SureTables;

/// `(end, last)` of the run of plain code points at `b[i..]`, exactly as
/// the scalar `Core::plain_prefix`: ASCII and code points passing
/// `core.is_plain` (the exact test) belong to the run; `last` is the start
/// of its last code point, `i` if the run is empty. `t` must hold only code
/// points that pass `core.is_plain`; `b` must be UTF-8 and `i` a boundary.
/// (The test is a method, not a closure, so that it is inlined: a call
/// would make every table register spill around it.)
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn plain_run(b: &[u8], mut i: usize, t: &SureTables, core: Core) -> (usize, usize) {
    // SAFETY: each load reads 64 bytes inside the 256-byte and 64-byte
    // arrays of `t`; loadu has no alignment requirement.
    let (two0, two1, two2, two3, pages) = unsafe {
        let p = t.two.as_ptr();
        (
            _mm512_loadu_si512(p.cast()),
            _mm512_loadu_si512(p.add(64).cast()),
            _mm512_loadu_si512(p.add(128).cast()),
            _mm512_loadu_si512(p.add(192).cast()),
            _mm512_loadu_si512(t.pages.as_ptr().cast()),
        )
    };
    let byte = |x: u8| _mm512_set1_epi8(x as i8);
    // Bytes 1, 2, 4, …, 128 in every 8: `shuffle_epi8` by `u & 7` gives
    // the bit of `u` within its bitmap byte.
    let bit = _mm512_set1_epi64(0x8040_2010_0804_0201u64 as i64);
    // Most calls that find no run at all start at the code point that
    // ended the previous run: one exact test spares them a block.
    if b.get(i).is_some_and(|&b0| b0 >= 0x80) && !exact(b, i, core) {
        return (i, i);
    }
    let mut last = i;
    while i < b.len() {
        // Whole ASCII blocks, the bulk of most text, need no classing.
        let from = i;
        // SAFETY: `b[i..i + 64]` is inside `b`.
        while i + 64 <= b.len()
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
        let rem = b.len() - i;
        let valid = low(rem);
        // SAFETY: masked loads touch only the bytes whose mask bit is set:
        // `b[i..i + min(rem, 64)]` and `b[i + 1..i + 1 + min(rem - 1, 64)]`,
        // all inside `b` (`i < b.len()`, so `i + 1` is at most one past
        // the end, a valid base for an empty access).
        let (v0, v1) = unsafe {
            let p = b.as_ptr().add(i);
            (
                _mm512_maskz_loadu_epi8(valid, p.cast()),
                _mm512_maskz_loadu_epi8(low(rem - 1), p.add(1).cast()),
            )
        };
        let is = |mask: u8, value: u8| {
            _mm512_cmpeq_epi8_mask(_mm512_and_si512(v0, byte(mask)), byte(value)) & valid
        };
        let lead2 = is(0xE0, 0xC0);
        let lead3 = is(0xF0, 0xE0);
        let lead4 = is(0xF8, 0xF0);
        let leads = valid & !is(0xC0, 0x80);
        // 2-byte: bitmap byte `u >> 3` = (b0 & 0x1F) << 3 | (b1 & 0x3F) >> 3.
        let idx2 = _mm512_or_si512(
            _mm512_and_si512(_mm512_slli_epi16(v0, 3), byte(0xF8)),
            _mm512_and_si512(_mm512_srli_epi16(v1, 3), byte(0x07)),
        );
        let byte2 = _mm512_mask_blend_epi8(
            _mm512_movepi8_mask(idx2),
            _mm512_permutex2var_epi8(two0, idx2, two1),
            _mm512_permutex2var_epi8(two2, idx2, two3),
        );
        let bit2 = _mm512_shuffle_epi8(bit, _mm512_and_si512(v1, byte(7)));
        let sure2 = _mm512_test_epi8_mask(byte2, bit2) & lead2;
        // 3-byte: page `u >> 8`; its byte (b0 & 0x0F) << 1 | b1 >> 5 & 1,
        // its bit b1 >> 2 & 7.
        let idx3 = _mm512_or_si512(
            _mm512_and_si512(_mm512_slli_epi16(v0, 1), byte(0x1E)),
            _mm512_and_si512(_mm512_srli_epi16(v1, 5), byte(0x01)),
        );
        let byte3 = _mm512_permutexvar_epi8(idx3, pages);
        let bit3 = _mm512_shuffle_epi8(bit, _mm512_and_si512(_mm512_srli_epi16(v1, 2), byte(7)));
        let sure3 = _mm512_test_epi8_mask(byte3, bit3) & lead3;
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
        // and the code point was classed here (`v1` reaches one byte past
        // the block). Stepping by 64 rather than to the next boundary keeps
        // the classification off the loop's dependency chain.
        i += 64;
    }
    (b.len(), last)
}

/// Bits `0..n` set (all of them for `n >= 64`).
#[inline(always)]
fn low(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
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
mod tests {
    use alloc::string::String;
    use alloc::vec::Vec;

    use proptest::prelude::*;

    use super::super::pipeline::Core;
    use crate::canonical::{CanonicalizerBuilder, CaseFold};

    /// Every combination of folding and the two strip lists.
    fn cores() -> Vec<Core> {
        let mut v = Vec::new();
        for fold in [CaseFold::Simple, CaseFold::None] {
            for (bidi, format) in [(false, false), (true, false), (false, true), (true, true)] {
                v.push(Core::new(&CanonicalizerBuilder {
                    case_fold: fold,
                    strip_bidi: bidi,
                    strip_format: format,
                    ..Default::default()
                }));
            }
        }
        v
    }

    /// The kernel against the scalar scan at every boundary of `s`, under
    /// every configuration. False if the CPU cannot run the kernel.
    fn agrees_everywhere(s: &str) -> Result<bool, TestCaseError> {
        if !crate::cpu::has_avx512vbmi() {
            return Ok(false);
        }
        for core in cores() {
            for i in (0..=s.len()).filter(|&i| s.is_char_boundary(i)) {
                prop_assert_eq!(
                    core.plain_prefix(s, i),
                    core.plain_prefix_scalar(s, i),
                    "at {} of {:?}",
                    i,
                    s
                );
            }
        }
        Ok(true)
    }

    /// Pieces from every class the tables tell apart: ASCII, plain and
    /// folded 2-byte letters, combining marks, stripped format characters,
    /// whole-page 3-byte code points (Han, Hangul), mixed pages (kana with
    /// its combining voicing marks, CJK punctuation, fullwidth forms) and
    /// 4-byte code points.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                "[a-zA-Z0-9 .,]{0,70}",
                "[éÉßøØ\u{300}\u{301}\u{AD}]{0,5}",
                "[абвгдАБВГДёЁ ]{0,40}",
                "[\u{627}\u{628}\u{64B}\u{61C}\u{200C}\u{200E}\u{5D0}αΩ]{0,8}",
                "[中文字漢한국어\u{4DC0}\u{9FFF}]{0,40}",
                "[ひらカナ\u{3099}\u{309B}\u{3000}、。\u{FF0C}\u{FF21}\u{FB01}]{0,8}",
                "[😀\u{10000}\u{1D400}]{0,2}",
            ],
            0..12,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn kernel_equals_scalar(s in text()) {
            agrees_everywhere(&s)?;
        }
    }

    /// Every BMP code point and a few beyond, alone between plain letters
    /// and at every offset of a block boundary after long plain runs.
    #[test]
    fn every_code_point_and_block_edge() {
        let mut all = String::new();
        for u in (0x80..0x1_0000).chain([0x1_0000, 0x1_F600, 0x10_FFFF]) {
            if let Some(c) = char::from_u32(u) {
                all.push('a');
                all.push(c);
            }
        }
        if !crate::cpu::has_avx512vbmi() {
            #[cfg(feature = "std")]
            std::eprintln!("skipped: this CPU lacks AVX-512 VBMI, the kernel cannot run");
            return;
        }
        // Every code point once, at a scan start and in mid-run.
        for core in cores() {
            let mut i = 0;
            while i < all.len() {
                let got = core.plain_prefix(&all, i);
                assert_eq!(got, core.plain_prefix_scalar(&all, i), "at {i}");
                let next = all[i..].chars().next().map_or(1, char::len_utf8);
                i = if got.0 > i { got.0 } else { i + next };
            }
        }
        for stop in ["É", "\u{3000}", "😀", "\u{301}", "\u{FF21}"] {
            for lead in ["a", "é", "中", "д"] {
                for n in 0..70 {
                    let s = lead.repeat(n) + stop + &"中".repeat(30);
                    assert!(agrees_everywhere(&s).unwrap());
                }
            }
        }
    }
}
