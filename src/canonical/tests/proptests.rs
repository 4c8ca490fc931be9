//! The fused pass against a plain staged implementation of 0.3.2's pipeline, and
//! the Unicode facts the fused pass and the streaming split rely on.

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::iter;

use proptest::prelude::*;
use unicode_normalization::char::{
    canonical_combining_class as ccc, decompose_canonical, decompose_compatible,
};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick, is_nfkc_quick};

use super::super::*;

/// Spec §2.2 written down stage by stage, one `String` per stage, the way
/// txtfp 0.3.2 does it.
fn reference(b: &CanonicalizerBuilder, input: &str) -> String {
    let bidi = |u: u32| matches!(u, 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069);
    let fmt = |u: u32| {
        matches!(u, 0x200B..=0x200F | 0x2060..=0x2064 | 0x061C | 0x180B..=0x180F | 0xFEFF
            | 0xFE00..=0xFE0F | 0xE0100..=0xE01EF | 0xE0001 | 0xE0020..=0xE007F
            | 0x202A..=0x202E | 0x2066..=0x2069)
    };
    let s1: String = input
        .chars()
        .filter(|&c| !((b.strip_bidi && bidi(c as u32)) || (b.strip_format && fmt(c as u32))))
        .collect();
    let nf = |s: &str| -> String {
        match b.normalization {
            Normalization::Nfkc => s.nfkc().collect(),
            Normalization::Nfc => s.nfc().collect(),
            Normalization::None => s.to_string(),
        }
    };
    let s2 = nf(&s1);
    let s3 = match b.case_fold {
        CaseFold::Simple => {
            let folded = caseless::default_case_fold_str(&s2);
            if folded.is_ascii() {
                folded
            } else {
                nf(&folded)
            }
        }
        CaseFold::None => s2,
    };
    #[cfg(feature = "security")]
    if b.apply_confusable {
        return unicode_security::confusable_detection::skeleton(&s3).collect();
    }
    s3
}

fn all_configs(with_skeleton: bool) -> Vec<CanonicalizerBuilder> {
    let mut v = Vec::new();
    for normalization in [Normalization::Nfkc, Normalization::Nfc, Normalization::None] {
        for case_fold in [CaseFold::Simple, CaseFold::None] {
            for bits in 0..8u8 {
                let apply_confusable = bits & 4 != 0;
                if apply_confusable && !with_skeleton {
                    continue;
                }
                v.push(CanonicalizerBuilder {
                    normalization,
                    case_fold,
                    strip_bidi: bits & 1 != 0,
                    strip_format: bits & 2 != 0,
                    apply_confusable,
                });
            }
        }
    }
    v
}

fn config() -> impl Strategy<Value = CanonicalizerBuilder> {
    let all = all_configs(cfg!(feature = "security"));
    (0..all.len()).prop_map(move |i| all[i].clone())
}

/// Code points that exercise every path: ASCII, strip-list members,
/// combining marks (reordering and composition), Hangul jamo, ligatures and
/// other compatibility characters, cased scripts with odd foldings, and
/// code points with unusual decompositions.
fn interesting_char() -> impl Strategy<Value = char> {
    use proptest::char::range;
    prop_oneof![
        4 => range(' ', '~'),
        1 => prop::sample::select(alloc::vec![' ', '\t', '\n', '\r', '\x0b', '\x0c', '\0']),
        2 => prop::sample::select(alloc::vec![
            '\u{200B}', '\u{200C}', '\u{200D}', '\u{200E}', '\u{200F}', '\u{202A}', '\u{202E}',
            '\u{2060}', '\u{2064}', '\u{2065}', '\u{2066}', '\u{2069}', '\u{FEFF}', '\u{FE00}',
            '\u{FE0F}', '\u{E0100}', '\u{E01EF}', '\u{E0001}', '\u{E0020}', '\u{E007F}',
            '\u{180B}', '\u{180E}', '\u{180F}', '\u{061C}', '\u{00AD}', '\u{034F}',
        ]),
        3 => range('\u{0300}', '\u{036F}'),
        1 => prop::sample::select(alloc::vec![
            '\u{0327}', '\u{0329}', '\u{0307}', '\u{0345}', '\u{0344}', '\u{0323}', '\u{031B}',
            '\u{093C}', '\u{3099}', '\u{309A}', '\u{0BBE}', '\u{0BC6}', '\u{0DCF}', '\u{0DD9}',
            '\u{0DCA}', '\u{0F71}', '\u{0F72}', '\u{0F73}', '\u{0F80}', '\u{0F81}', '\u{05B0}',
            '\u{1D165}', '\u{1D16E}', '\u{0F75}', '\u{0FB5}', '\u{1B35}', '\u{110BA}',
        ]),
        1 => range('\u{1100}', '\u{1112}'),
        1 => range('\u{1161}', '\u{1175}'),
        1 => range('\u{11A8}', '\u{11C2}'),
        1 => range('\u{AC00}', '\u{AC40}'),
        1 => range('\u{FB00}', '\u{FB06}'),
        1 => range('\u{FF01}', '\u{FF9F}'),
        // Mapped to ASCII by NFKC (`quick::nfkc_ascii`), and safe punctuation.
        2 => prop::sample::select(alloc::vec![
            '\u{00A0}', '\u{2000}', '\u{2007}', '\u{200A}', '\u{202F}', '\u{205F}', '\u{3000}',
            '\u{2024}', '\u{2025}', '\u{2026}', '\u{FF0C}', '\u{FF21}', '\u{FF41}', '\u{FF5E}',
            '\u{2011}', '\u{2017}', '\u{203C}', '\u{2033}', '\u{00A8}', '\u{00B4}',
        ]),
        1 => range('\u{00A0}', '\u{00BF}'),
        1 => range('\u{2010}', '\u{2060}'),
        1 => range('\u{2190}', '\u{2235}'),
        1 => range('\u{2260}', '\u{2262}'),
        1 => range('\u{2300}', '\u{232C}'),
        1 => range('\u{0600}', '\u{0612}'),
        2 => range('\u{00C0}', '\u{024F}'),
        2 => range('\u{0370}', '\u{03FF}'),
        2 => range('\u{1F00}', '\u{1FFF}'),
        2 => range('\u{0400}', '\u{04FF}'),
        1 => range('\u{13A0}', '\u{13FD}'),
        1 => range('\u{AB70}', '\u{ABBF}'),
        1 => range('\u{1E00}', '\u{1EFF}'),
        1 => range('\u{2100}', '\u{218B}'),
        1 => range('\u{2460}', '\u{24FF}'),
        1 => range('\u{3300}', '\u{33FF}'),
        1 => range('\u{3040}', '\u{30FF}'),
        1 => range('\u{FDF0}', '\u{FDFD}'),
        1 => range('\u{1D400}', '\u{1D4FF}'),
        1 => prop::sample::select(alloc::vec![
            'İ', 'ẞ', 'ß', 'ǅ', 'Ǆ', 'ΐ', 'ΰ', 'ǰ', 'ẖ', 'ẘ', 'ẙ', 'ẚ', 'ſ', 'ẛ', 'K', 'Ω', 'Å',
            'ŉ', 'µ', 'ς', 'ͅ', '\u{1F88}', '\u{1FB3}', '\u{1FBC}', '\u{0130}', '\u{4E00}',
            '\u{1F600}', '\u{FFFD}', '\u{10400}', '\u{1E900}',
        ]),
    ]
}

fn interesting_string() -> impl Strategy<Value = String> {
    prop::collection::vec(interesting_char(), 0..48).prop_map(|v| v.into_iter().collect())
}

fn check_against_reference(b: &CanonicalizerBuilder, input: &str) -> Result<(), TestCaseError> {
    let c = b.clone().build();
    let want = reference(b, input);
    prop_assert_eq!(
        &c.canonicalize(input),
        &want,
        "config {:?} input {:?}",
        b,
        input
    );
    let mut buf = String::from("x\u{0301}");
    c.canonicalize_into(input, &mut buf);
    prop_assert_eq!(&buf, &want, "canonicalize_into, config {:?}", b);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn matches_reference_on_arbitrary_text(b in config(), s in any::<String>()) {
        check_against_reference(&b, &s)?;
    }

    #[test]
    fn matches_reference_on_mixed_text(b in config(), s in interesting_string()) {
        check_against_reference(&b, &s)?;
    }

    #[test]
    fn matches_reference_on_long_ascii_with_islands(
        b in config(),
        parts in prop::collection::vec(("[ -~]{0,40}", interesting_string()), 1..6),
    ) {
        let s: String = parts.iter().flat_map(|(a, x)| [a.as_str(), x.as_str()]).collect();
        check_against_reference(&b, &s)?;
    }

    /// The streaming engine's cut rule ([`split_safe`]), for every
    /// configuration including the skeleton.
    #[test]
    fn split_at_ascii_whitespace(
        b in config(),
        a in interesting_string(),
        ws in prop::sample::select(alloc::vec![' ', '\t', '\n', '\r', '\x0b', '\x0c']),
        head in proptest::char::range('!', '~'),
        rest in interesting_string(),
    ) {
        let mut left = a;
        left.push(ws);
        let mut right = String::new();
        right.push(head);
        right.push_str(&rest);
        let (l, r) = (left.as_bytes(), right.as_bytes());
        prop_assert!(split_safe(l[l.len() - 1], r[0]));
        let c = b.clone().build();
        prop_assert!(c.supports_split());
        let whole = c.canonicalize(&(left.clone() + &right));
        prop_assert_eq!(whole, c.canonicalize(&left) + &c.canonicalize(&right), "config {:?}", b);
    }

    /// `pipeline::quick_str` is UAX #15's quick check with a shortcut.
    #[test]
    fn quick_check_shortcut_is_exact(s in interesting_string()) {
        use super::super::quick::{Nfc, Nfkc, quick_str};
        prop_assert_eq!(quick_str::<Nfc>(&s), is_nfc_quick(s.chars()) == IsNormalized::Yes);
        prop_assert_eq!(quick_str::<Nfkc>(&s), is_nfkc_quick(s.chars()) == IsNormalized::Yes);
    }

    #[test]
    fn idempotent_default(s in interesting_string()) {
        let once = canonicalize(&s);
        prop_assert_eq!(canonicalize(&once), once.clone(), "input {:?}", s);
    }

    #[test]
    fn idempotent_default_arbitrary(s in any::<String>()) {
        let once = canonicalize(&s);
        prop_assert_eq!(canonicalize(&once), once.clone(), "input {:?}", s);
    }
}

fn chars() -> impl Iterator<Item = char> {
    (0..=0x10FFFFu32).filter_map(char::from_u32)
}

fn first_decomposed(c: char, compat: bool) -> char {
    let mut first = None;
    let mut take = |d: char| {
        first.get_or_insert(d);
    };
    if compat {
        decompose_compatible(c, &mut take);
    } else {
        decompose_canonical(c, &mut take);
    }
    first.unwrap_or(c)
}

fn safe(c: char, compat: bool) -> bool {
    let qc = if compat {
        is_nfkc_quick(iter::once(c))
    } else {
        is_nfc_quick(iter::once(c))
    };
    ccc(c) == 0 && qc == IsNormalized::Yes
}

/// The premise of the split rule (pipeline.rs): the decomposition of every
/// safe code point starts with a starter that can never be the second half
/// of a composition (quick-check `Maybe` is exactly that set).
#[test]
fn split_rule_premise_holds() {
    for c in chars() {
        for compat in [false, true] {
            if !safe(c, compat) {
                continue;
            }
            let s = first_decomposed(c, compat);
            assert_eq!(
                ccc(s),
                0,
                "U+{:04X}: decomposition starts with a non-starter",
                c as u32
            );
            assert_ne!(
                is_nfc_quick(iter::once(s)),
                IsNormalized::Maybe,
                "U+{:04X}",
                c as u32
            );
            assert_ne!(
                is_nfkc_quick(iter::once(s)),
                IsNormalized::Maybe,
                "U+{:04X}",
                c as u32
            );
        }
    }
}

/// Can `x` come out of a composition (be part of normalized text)?
/// Singletons such as U+037E → `;` or U+212A → `K` cannot.
fn composable(x: char) -> bool {
    is_nfc_quick(iter::once(x)) != IsNormalized::No
}

/// Why [`split_safe`] holds without the skeleton: the canonical text of a
/// piece that starts with an ASCII character starts with the folding of a
/// composition of that character, and every such folding starts with a safe
/// code point — so the second normalization can be cut there too.
#[test]
fn ascii_split_premises_hold() {
    let mut seen = 0;
    for x in chars().filter(|&x| composable(x)) {
        if !first_decomposed(x, false).is_ascii() {
            continue;
        }
        seen += 1;
        let folded = caseless::default_case_fold_str(x.encode_utf8(&mut [0; 4]));
        let Some(f) = folded.chars().next() else {
            panic!("U+{:04X} folds to nothing", x as u32);
        };
        assert!(
            safe(f, false) && safe(f, true),
            "U+{:04X} folds to unsafe U+{:04X}",
            x as u32,
            f as u32
        );
        assert!(
            safe(x, false) || !x.is_ascii(),
            "ASCII U+{:04X} must be safe",
            x as u32
        );
    }
    assert_eq!(seen, 619, "composites of ASCII + marks in Unicode 18");
}

/// Why [`split_safe`] also holds with the skeleton: after an ASCII
/// non-whitespace start, the skeleton's inner NFD starts with an ASCII
/// starter that is not default-ignorable, and the NFD of its prototype
/// starts with a starter, so neither NFD of the skeleton reorders across
/// the cut.
#[cfg(feature = "security")]
#[test]
fn skeleton_split_premises_hold() {
    use unicode_security::confusable_detection::skeleton;
    for x in chars().filter(|&x| composable(x)) {
        let d0 = first_decomposed(x, false);
        if !d0.is_ascii() || d0.is_ascii_whitespace() || d0 == '\x0b' {
            continue;
        }
        let folded = caseless::default_case_fold_str(x.encode_utf8(&mut [0; 4]));
        for h in [x, folded.chars().next().unwrap_or(x)] {
            let d = first_decomposed(h, false);
            assert!(
                d.is_ascii() && ccc(d) == 0,
                "U+{:04X}: NFD head U+{:04X}",
                x as u32,
                d as u32
            );
            let skel: String = skeleton(d.encode_utf8(&mut [0; 4])).collect();
            let Some(p) = skel.chars().next() else {
                panic!("{d:?} is default-ignorable");
            };
            assert_eq!(ccc(p), 0, "prototype of {d:?} starts with a non-starter");
        }
    }
}

/// Every code point alone, and after an ASCII letter, and before a
/// combining mark, under the default and NFC configurations.
#[test]
fn every_code_point_matches_reference() {
    let configs = [
        CanonicalizerBuilder::default(),
        CanonicalizerBuilder {
            normalization: Normalization::Nfc,
            ..Default::default()
        },
    ];
    let mut s = String::new();
    for b in &configs {
        let c = b.clone().build();
        for x in chars() {
            for (pre, post) in [
                ("", ""),
                ("A", "\u{0301}\u{0327}"),
                // Between plain non-ASCII code points (the copied runs).
                ("\u{4E2D}", "\u{0436}\u{0301}"),
            ] {
                s.clear();
                s.push_str(pre);
                s.push(x);
                s.push_str(post);
                assert_eq!(c.canonicalize(&s), reference(b, &s), "{b:?} {s:?}");
            }
        }
    }
}

/// Idempotence (the 0.2.2 fix) for every code point alone and with a
/// combining mark after it.
#[test]
fn every_code_point_is_idempotent() {
    let mut s = String::new();
    for x in chars() {
        for post in ["", "\u{0301}", "\u{0345}"] {
            s.clear();
            s.push(x);
            s.push_str(post);
            let once = canonicalize(&s);
            assert_eq!(canonicalize(&once), once, "U+{:04X}{post:?}", x as u32);
        }
    }
}

/// Every code point of Latin-1 through Cyrillic (the capitals of the common
/// scripts among them), before the code points that decide how the pass
/// treats it (combining marks, stripped and format characters, other
/// capitals, ASCII, the end), under every configuration.
#[test]
fn capitals_before_every_kind_of_neighbour() {
    let after = [
        "",
        "a",
        " x",
        "\u{0301}",
        "\u{0308}a",
        "\u{00AD}\u{0301}",
        "\u{200B}\u{0308}",
        "\u{034F}\u{0301}",
        "\u{0416}",
        "\u{00C9}\u{0301}",
        "\u{0430}",
        "\u{FB00}",
        "\u{1F88}",
        "\u{0345}",
        "\u{E0001}\u{0301}",
    ];
    let configs = all_configs(false);
    for u in 0xC0u32..0x530 {
        let Some(c) = char::from_u32(u) else { continue };
        for a in after {
            let input = alloc::format!("x{c}{a}\u{0401}{c}");
            for b in &configs {
                check_against_reference(b, &input).unwrap();
            }
        }
    }
}

/// Runs of code points whose NFKC image is ASCII (fullwidth letters, no-break
/// spaces, `…`) take the image one by one when another such code point
/// follows: every way such a run can end (a combining mark, a stripped
/// character, a non-plain letter, the end of the text) against the staged
/// pipeline, under every configuration.
#[test]
fn runs_of_ascii_images() {
    let runs = [
        "ｅｔ",
        "ＡＢＣ",
        "\u{A0}ｅ\u{2026}",
        "ｅ\u{2026}",
        "\u{3000}ｘ",
    ];
    let ends = [
        "",
        "\u{301}",
        "\u{327}\u{301}",
        "\u{200B}\u{301}",
        "\u{200E}a",
        "É",
        "\u{FB01}",
        "a",
        "\u{3099}",
        "ｅ\u{301}",
        "\u{1100}\u{1161}",
    ];
    for b in all_configs(false) {
        for run in runs {
            for end in ends {
                for before in ["", "x", "e\u{301}", "\u{FF41}"] {
                    let s = alloc::format!("{before}{run}{end}");
                    check_against_reference(&b, &s).unwrap();
                }
            }
        }
    }
}
