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
//! shared with the word segmenter (`crate::utf8_x86_64`).

use core::arch::x86_64::*;

use super::pipeline::Core;
use super::quick::SureTables;
use crate::utf8_x86_64::{self as utf8, low};

/// `(end, last)` of the run of plain code points at `b[i..]`, exactly as
/// the scalar `Core::plain_prefix`: ASCII and code points passing
/// `core.is_plain` (the exact test) belong to the run; `last` is the start
/// of its last code point, `i` if the run is empty. `t` must hold only code
/// points that pass `core.is_plain`; `b` must be UTF-8 and `i` a boundary.
/// (The test is a method, not a closure, so that it is inlined: a call
/// would make every table register spill around it.)
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn plain_run(b: &[u8], mut i: usize, t: &SureTables, core: Core) -> (usize, usize) {
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
