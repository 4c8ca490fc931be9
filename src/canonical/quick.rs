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
    /// The form's image of `c` when that is ASCII (see [`nfkc_ascii`]).
    fn ascii_image(c: char) -> Option<&'static str>;
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
    #[inline]
    fn ascii_image(_: char) -> Option<&'static str> {
        // NFC maps no non-ASCII code point to ASCII.
        None
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
    #[inline]
    fn ascii_image(c: char) -> Option<&'static str> {
        nfkc_ascii(c)
    }
}

/// The NFKC image of the compatibility characters of real text that NFKC
/// maps to ASCII: the no-break and typographic spaces, the dot leaders and
/// the fullwidth forms of printable ASCII.
///
/// Each is a starter whose image starts with an ASCII code point, which is
/// never the second half of a composition, so nothing before it reaches
/// across it; followed by a safe code point (or nothing), it normalizes to
/// its image on its own. None is in a strip list. The pass uses this to
/// skip the normalizer for them; `ascii_images_are_nfkc` checks every entry.
#[inline]
pub(super) fn nfkc_ascii(c: char) -> Option<&'static str> {
    const PRINTABLE: &str = "!\"#$%&'()*+,-./0123456789:;<=>?@\
        ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";
    match c as u32 {
        0x00A0 | 0x2000..=0x200A | 0x202F | 0x205F | 0x3000 => Some(" "),
        0x2024 => Some("."),
        0x2025 => Some(".."),
        0x2026 => Some("..."),
        u @ 0xFF01..=0xFF5E => {
            let k = (u - 0xFF01) as usize;
            PRINTABLE.get(k..k + 1)
        }
        _ => None,
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
static KNOWN_SAFE: [u64; 1024] = bitmap(false, false);
static PLAIN_FOLDING: [u64; 1024] = bitmap(true, true);

/// Bitmap of [`known_safe_u32`], without the code points of either strip
/// list if `unstripped`, and without those that have a folding if `fold`.
const fn bitmap(unstripped: bool, fold: bool) -> [u64; 1024] {
    let mut t = [0u64; 1024];
    let mut u = 0u32;
    while u < 0x10000 {
        let keep = known_safe_u32(u)
            && !(unstripped && super::strip::is_format_u32(u))
            && !(fold && super::fold::has_folding_u32(u));
        if keep {
            t[(u / 64) as usize] |= 1 << (u % 64);
        }
        u += 1;
    }
    t
}

/// The code points that are plain (see `Core::plain_prefix`) under every
/// strip configuration, in the two shapes the 64-byte block kernel looks
/// up with byte permutes (`crate::arch::x86_64::avx512::plain_run`).
/// Everything else is left to the exact per-code-point test.
pub(crate) struct SureTables {
    /// One bit per code point below U+0800 (the 2-byte sequences): byte
    /// `u >> 3`, bit `u & 7`.
    pub(crate) two: [u8; 256],
    /// One bit per 256-code-point page of the BMP all of whose code points
    /// are sure (byte `p >> 3`, bit `p & 7`); the 32 bytes are padded to
    /// a register.
    pub(crate) pages: [u8; 64],
}

/// [`SureTables`] when folding: [`plain_when_folding`].
pub(super) static SURE_FOLDING: SureTables = sure_tables(&bitmap(true, true));
/// [`SureTables`] without folding: [`known_safe`] and on neither strip
/// list (a superset of the bidi list is the format list).
pub(super) static SURE_KEPT: SureTables = sure_tables(&bitmap(true, false));

const fn sure_tables(bits: &[u64; 1024]) -> SureTables {
    let mut two = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        two[i] = (bits[i / 8] >> (8 * (i % 8))) as u8;
        i += 1;
    }
    let mut pages = [0u8; 64];
    let mut p = 0;
    while p < 256 {
        let w = 4 * p;
        if bits[w] & bits[w + 1] & bits[w + 2] & bits[w + 3] == u64::MAX {
            pages[p / 8] |= 1 << (p % 8);
        }
        p += 1;
    }
    SureTables { two, pages }
}

/// The definition of [`known_safe`].
const fn known_safe_u32(u: u32) -> bool {
    matches!(
        u,
        // Latin-1 punctuation and symbols without a compatibility mapping.
        0x00A1..=0x00A7
            | 0x00A9
            | 0x00AB..=0x00AC
            | 0x00AE
            | 0x00B0..=0x00B1
            | 0x00B6..=0x00B7
            | 0x00BB
            | 0x00BF
            // Latin-1 letters, Latin extended A and B (parts), IPA.
            | 0x00C0..=0x0131
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
            | 0x0606..=0x060F
            | 0x061B..=0x064A
            | 0x0679..=0x06D5
            // Devanagari letters, Thai.
            | 0x0900..=0x093B
            | 0x0E01..=0x0E32
            // Latin extended additional, Greek extended (parts).
            | 0x1E00..=0x1E99
            | 0x1E9C..=0x1F70
            // Dashes, quotes, bullets, per mille, primes; arrows, the first
            // mathematical operators, technical symbols; box drawing,
            // shapes, miscellaneous symbols and dingbats.
            | 0x2010
            | 0x2012..=0x2016
            | 0x2018..=0x2023
            | 0x2027
            | 0x2030..=0x2032
            | 0x2035
            | 0x2038..=0x203B
            | 0x203D
            | 0x2190..=0x222B
            | 0x2300..=0x2328
            | 0x2500..=0x27BF
            // CJK punctuation, kana, CJK ideographs, Yi ... Hangul syllables.
            | 0x3001..=0x3029
            | 0x303B..=0x3098
            | 0x30A0..=0x30FE
            | 0x3400..=0xA66E
            | 0xABEE..=0xD7FF
    )
}

#[cfg(test)]
mod tests;
