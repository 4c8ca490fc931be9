use alloc::string::String;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::*;
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
    if Avx512Vbmi::detect().is_none() {
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
    if Avx512Vbmi::detect().is_none() {
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
