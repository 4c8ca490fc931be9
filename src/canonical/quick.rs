//! Normalization helpers of the fused pass: the two forms, and which code
//! points are *safe* — canonical combining class 0 and quick-check `Yes`,
//! so that normalization can be cut in front of them (see `pipeline.rs`).
//!
//! The quick-check tables of `unicode-normalization` are large `match`
//! statements and dominate the cost of a lookup-per-character loop, so
//! [`known_safe`] answers first for the letters of the common scripts.

use core::iter;

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick, is_nfkc_quick};

/// One normalization form, so the pass is compiled once per form.
pub(super) trait Form {
    /// The code point's quick-check value is `Yes`.
    fn quick_char(c: char) -> bool;
    /// Feeds the normalization of `chars` to `f`.
    fn normalize<I: Iterator<Item = char>>(chars: I, f: impl FnMut(char));
}

/// Canonical composition.
pub(super) struct Nfc;
/// Compatibility composition.
pub(super) struct Nfkc;

impl Form for Nfc {
    #[inline]
    fn quick_char(c: char) -> bool {
        is_nfc_quick(iter::once(c)) == IsNormalized::Yes
    }
    fn normalize<I: Iterator<Item = char>>(chars: I, f: impl FnMut(char)) {
        chars.nfc().for_each(f)
    }
}

impl Form for Nfkc {
    #[inline]
    fn quick_char(c: char) -> bool {
        is_nfkc_quick(iter::once(c)) == IsNormalized::Yes
    }
    fn normalize<I: Iterator<Item = char>>(chars: I, f: impl FnMut(char)) {
        chars.nfkc().for_each(f)
    }
}

/// Whether the first code point of `s` is safe.
pub(super) fn head_is_safe<F: Form>(s: &str) -> bool {
    match s.chars().next() {
        Some(c) if c.is_ascii() || known_safe(c) => true,
        Some(c) => canonical_combining_class(c) == 0 && F::quick_char(c),
        None => false,
    }
}

/// The quick check of UAX #15 over `s` answers `Yes` (the same algorithm as
/// `unicode_normalization::is_nf*_quick`, with the table lookups skipped for
/// code points that [`known_safe`] vouches for).
pub(super) fn quick_str<F: Form>(s: &str) -> bool {
    let mut last_ccc = 0;
    for c in s.chars() {
        if c.is_ascii() || known_safe(c) {
            last_ccc = 0;
            continue;
        }
        let ccc = canonical_combining_class(c);
        if (last_ccc > ccc && ccc != 0) || !F::quick_char(c) {
            return false;
        }
        last_ccc = ccc;
    }
    true
}

/// A speed filter in front of the quick-check tables (which are large
/// `match` statements, the most expensive part of the pass): true only for
/// code points that are safe for both NFC and NFKC — combining class 0 and
/// quick check `Yes`. Covers the letters of the common scripts; anything
/// else takes the table lookups. `known_safe_is_safe` checks every code
/// point of these ranges.
#[inline]
pub(super) fn known_safe(c: char) -> bool {
    bmp_bit(&KNOWN_SAFE, c)
}

/// [`known_safe`] without stripped code points and without foldings: the
/// code points that the default pipeline copies unchanged when a safe code
/// point follows (see `Core::plain_prefix`).
#[inline]
pub(super) fn plain_when_folding(c: char) -> bool {
    bmp_bit(&PLAIN_FOLDING, c)
}

/// Bit `u` of a bitmap over the BMP (false above it).
#[inline(always)]
fn bmp_bit(map: &[u64; 1024], c: char) -> bool {
    let u = c as u32;
    map.get((u / 64) as usize)
        .is_some_and(|w| w >> (u % 64) & 1 != 0)
}

/// One bit per BMP code point, so the lookup costs one load instead of a
/// chain of range compares (all ranges below are in the BMP).
static KNOWN_SAFE: [u64; 1024] = bitmap(false);
static PLAIN_FOLDING: [u64; 1024] = bitmap(true);

const fn bitmap(plain: bool) -> [u64; 1024] {
    let mut t = [0u64; 1024];
    let mut u = 0u32;
    while u < 0x10000 {
        let keep = known_safe_u32(u)
            && !(plain && (super::fold::has_folding_u32(u) || super::strip::is_format_u32(u)));
        if keep {
            t[(u / 64) as usize] |= 1 << (u % 64);
        }
        u += 1;
    }
    t
}

/// The definition of [`known_safe`].
const fn known_safe_u32(u: u32) -> bool {
    matches!(
        u,
        // Latin-1 letters, Latin extended A and B (parts), IPA.
        0x00C0..=0x0131
            | 0x014A..=0x017E
            | 0x0180..=0x01C3
            | 0x01F4..=0x02AF
            // Greek, Cyrillic, Armenian.
            | 0x0388..=0x03CF
            | 0x03FA..=0x0482
            | 0x048A..=0x0557
            | 0x0559..=0x0586
            // Hebrew letters, Arabic letters.
            | 0x05D0..=0x05EA
            | 0x061B..=0x064A
            | 0x0679..=0x06D5
            // Devanagari letters, Thai.
            | 0x0900..=0x093B
            | 0x0E01..=0x0E32
            // Latin extended additional, Greek extended (parts).
            | 0x1E00..=0x1E99
            | 0x1E9C..=0x1F70
            // CJK punctuation, kana, CJK ideographs, Yi ... Hangul syllables.
            | 0x3001..=0x3029
            | 0x303B..=0x3098
            | 0x30A0..=0x30FE
            | 0x3400..=0xA66E
            | 0xABEE..=0xD7FF
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_safe_is_safe() {
        let mut n = 0;
        for c in (0x80..=0x10FFFFu32).filter_map(char::from_u32) {
            if known_safe(c) {
                n += 1;
                assert_eq!(canonical_combining_class(c), 0, "U+{:04X}", c as u32);
                assert!(
                    Nfc::quick_char(c) && Nfkc::quick_char(c),
                    "U+{:04X}",
                    c as u32
                );
            }
        }
        assert!(n > 40_000, "{n}");
    }

    #[test]
    fn bitmaps_match_definitions() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let u = c as u32;
            assert_eq!(known_safe(c), known_safe_u32(u), "U+{u:04X}");
            let plain = known_safe_u32(u)
                && !super::super::fold::has_folding(c)
                && !super::super::strip::is_format(c)
                && !super::super::strip::is_bidi(c);
            assert_eq!(plain_when_folding(c), plain, "U+{u:04X}");
        }
    }
}
