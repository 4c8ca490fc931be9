//! Stage 1c: full default case folding (statuses C + F of CaseFolding.txt,
//! as tabulated by `caseless`), one code point at a time.
//!
//! Despite the public name `CaseFold::Simple`, this is *full* folding:
//! `ß` → `ss`, `İ` → `i` U+0307, `ﬁ` → `fi`. That is what txtfp 0.3.2 does
//! and what stored signatures depend on.

use alloc::string::String;

mod data;

pub(super) use data::UNICODE_VERSION;

/// False for code points that certainly have no case folding, so the table
/// search can be skipped. Only a speed filter: a `true` answer still goes to
/// `caseless`. The ranges are proven by `no_fold_outside_may_fold`, which
/// checks every code point against `caseless`.
#[inline]
const fn may_fold(u: u32) -> bool {
    !matches!(
        u,
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

/// Bit `u % 64` of word `u / 64` is set iff U+0000 + `u` has a folding.
/// Covers Latin, Greek, Cyrillic and Armenian, where lowercase letters (no
/// folding) and capitals alternate, so that the common lowercase letter skips
/// the table search. Generated from `caseless`; `bitmaps_equal_caseless`
/// checks every bit.
const FOLDS_0000: [u64; 24] = [
    0x0000000000000000,
    0x0000000007FFFFFE,
    0x0020000000000000,
    0x00000000FF7FFFFF,
    0xAA55555555555555,
    0xAB555555555556AA,
    0x11AED2D5B1DBCED6,
    0x55D755554AAAADB0,
    0x6C05555555555555,
    0x000000000000557A,
    0x0000000000000000,
    0x0000000000000000,
    0x0000000000000000,
    0x8045000000000020,
    0x00010FFBFFFFD740,
    0xE6B3555555638004,
    0x0000FFFFFFFFFFFF,
    0x5555555500000000,
    0x5555555555555401,
    0x5555555555552AAB,
    0xFFFE555555555555,
    0x00000000007FFFFF,
    0x0000000000000080,
    0x0000000000000000,
];

/// The same for U+1000..U+2000 (Georgian, Cherokee, Cyrillic extended C,
/// Latin extended additional, Greek extended).
const FOLDS_1000: [u64; 64] = {
    let mut t = [0u64; 64];
    t[2] = 0xFFFFFFFF00000000;
    t[3] = 0x00000000000020BF;
    t[15] = 0x3F00000000000000;
    t[50] = 0xE7FFFFFFFFFF03FF;
    t[56] = 0x5555555555555555;
    t[57] = 0x5555555555555555;
    t[58] = 0x555555554FD55555;
    t[59] = 0x5555555555555555;
    t[60] = 0xFF00FF003F00FF00;
    t[61] = 0x0000FF00AA553F00;
    t[62] = 0x5FDCFFFFFFFFFFFF;
    t[63] = 0x1FDC1FDC0FCC1FDC;
    t
};

#[inline]
const fn bit(table: &[u64], u: u32) -> bool {
    let i = (u / 64) as usize;
    i < table.len() && table[i] >> (u % 64) & 1 != 0
}

/// Whether `c` may have a folding (exact below U+2000, a range filter above).
#[inline]
pub(super) fn has_folding(c: char) -> bool {
    has_folding_u32(c as u32)
}

/// [`has_folding`] of the code point `u`, usable in constants.
pub(super) const fn has_folding_u32(u: u32) -> bool {
    match u {
        0..0x600 => bit(&FOLDS_0000, u),
        0x1000..0x2000 => bit(&FOLDS_1000, u - 0x1000),
        _ => may_fold(u),
    }
}

/// Appends the folding of `c` to `out` and reports whether it differs from
/// `c` itself (the caller then has to re-check normalization, as 0.3.2 does).
#[inline]
pub(super) fn push_folded(out: &mut String, c: char) -> bool {
    if c.is_ascii() {
        let lower = c.to_ascii_lowercase();
        out.push(lower);
        return lower != c;
    }
    if !has_folding(c) {
        out.push(c);
        return false;
    }
    match data::FOLDS.binary_search_by_key(&c, |&(k, _)| k) {
        Ok(i) => {
            for &f in data::FOLDS[i].1.iter().take_while(|&&f| f != '\0') {
                out.push(f);
            }
            true
        }
        Err(_) => {
            out.push(c);
            false
        }
    }
}

#[cfg(all(test, feature = "std"))]
mod generate {
    extern crate std;
    use alloc::string::String;
    use core::fmt::Write;

    /// Writes src/canonical/fold/data.rs from `caseless` (run with
    /// `cargo test --lib generate_fold_table -- --ignored`).
    #[test]
    #[ignore]
    fn generate_fold_table() {
        let mut out = String::new();
        out.push_str(
            "//! Full case folding (CaseFolding.txt statuses C + F), generated from the\n\
             //! pinned `caseless` crate by `canonical::fold::generate` and checked against it\n\
             //! for every code point by `push_folded_matches_caseless_for_every_code_point`. Do not edit by hand.\n\n",
        );
        let v = caseless::UNICODE_VERSION;
        writeln!(out, "/// Unicode version of the table.").unwrap();
        writeln!(
            out,
            "pub(crate) const UNICODE_VERSION: (u8, u8, u8) = ({}, {}, {});\n",
            v.0, v.1, v.2
        )
        .unwrap();
        writeln!(out, "/// `(code point, folding)` for every code point whose folding is not itself,\n/// ascending; unused trailing slots of a folding are `'\\0'`.").unwrap();
        out.push_str("pub(crate) static FOLDS: &[(char, [char; 3])] = &[\n");
        let mut n = 0;
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let f = caseless::default_case_fold_str(c.encode_utf8(&mut [0; 4]));
            let fc: alloc::vec::Vec<char> = f.chars().collect();
            if fc.len() == 1 && fc[0] == c {
                continue;
            }
            assert!(fc.len() <= 3, "{c:?} folds to {} chars", fc.len());
            let slot = |i: usize| {
                fc.get(i).map_or("'\\0'".into(), |x| {
                    alloc::format!("'\\u{{{:x}}}'", *x as u32)
                })
            };
            writeln!(
                out,
                "    ('\\u{{{:x}}}', [{}, {}, {}]),",
                c as u32,
                slot(0),
                slot(1),
                slot(2)
            )
            .unwrap();
            n += 1;
        }
        out.push_str("];\n");
        std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/src/canonical/fold/data.rs"),
            out,
        )
        .unwrap();
        std::eprintln!("{n} foldings written");
    }
}

#[cfg(test)]
mod tests;
