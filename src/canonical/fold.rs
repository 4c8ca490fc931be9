//! Stage 1c: full default case folding (statuses C + F of CaseFolding.txt,
//! as tabulated by `caseless`), one code point at a time.
//!
//! Despite the public name `CaseFold::Simple`, this is *full* folding:
//! `ß` → `ss`, `İ` → `i` U+0307, `ﬁ` → `fi`. That is what txtfp 0.3.2 does
//! and what stored signatures depend on.

use alloc::string::String;
use core::iter;

use caseless::Caseless;

/// False for code points that certainly have no case folding, so the table
/// search can be skipped. Only a speed filter: a `true` answer still goes to
/// `caseless`. The ranges are proven by `no_fold_outside_may_fold`, which
/// checks every code point against `caseless`.
#[inline]
fn may_fold(c: char) -> bool {
    !matches!(
        c as u32,
        // Hebrew, Arabic, Syriac, Thaana, N'Ko, Indic, Thai, Lao, Tibetan, Myanmar.
        0x0590..=0x109F
            // CJK punctuation, kana, Bopomofo, Hangul compatibility jamo,
            // CJK ideographs, Yi, Lisu, Vai.
            | 0x3000..=0xA63F
            // Hangul syllables and jamo extensions, private use, CJK
            // compatibility ideographs.
            | 0xAC00..=0xFAFF
            // Symbols, emoji, CJK extensions B and later, tags, private use.
            | 0x1F000..
    )
}

/// Appends the folding of `c` to `out` and reports whether it differs from
/// `c` itself (the caller then has to re-check normalization, spec §2.2).
#[inline]
pub(super) fn push_folded(out: &mut String, c: char) -> bool {
    if c.is_ascii() {
        let lower = c.to_ascii_lowercase();
        out.push(lower);
        return lower != c;
    }
    if !may_fold(c) {
        out.push(c);
        return false;
    }
    let mut changed = false;
    let mut count = 0usize;
    for f in iter::once(c).default_case_fold() {
        changed |= f != c;
        count += 1;
        out.push(f);
    }
    changed || count != 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn no_fold_outside_may_fold() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            if !may_fold(c) {
                let folded = caseless::default_case_fold_str(c.encode_utf8(&mut [0; 4]));
                assert_eq!(
                    folded,
                    c.to_string(),
                    "U+{:04X} folds but is skipped",
                    c as u32
                );
            }
        }
    }

    #[test]
    fn push_folded_matches_caseless_for_every_code_point() {
        let mut out = String::new();
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            out.clear();
            let changed = push_folded(&mut out, c);
            let want = caseless::default_case_fold_str(c.encode_utf8(&mut [0; 4]));
            assert_eq!(out, want, "U+{:04X}", c as u32);
            assert_eq!(
                changed,
                want != c.to_string(),
                "U+{:04X} change flag",
                c as u32
            );
        }
    }

    #[test]
    fn full_folding_examples() {
        let fold = |s: &str| {
            let mut out = String::new();
            s.chars().for_each(|c| {
                push_folded(&mut out, c);
            });
            out
        };
        assert_eq!(fold("Straße ẞ"), "strasse ss");
        assert_eq!(fold("İ"), "i\u{307}");
        assert_eq!(fold("\u{FB01}\u{FB05}"), "fist");
        assert_eq!(fold("\u{1F88}"), "\u{1F00}\u{3B9}");
        assert_eq!(fold("\u{AB70}"), "\u{13A0}"); // Cherokee small folds to capital
        assert_eq!(fold("ς\u{B5}\0"), "σ\u{3BC}\0");
    }
}
