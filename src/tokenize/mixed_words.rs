//! Word-break classes of the characters of real text, for the UAX #29 word
//! scanners, and the general rules for the stretches they do not model.
//!
//! Most letters of the scripts in real text (Latin with diacritics, Greek,
//! Cyrillic, Arabic, Hangul syllables) have the same word-break behaviour as
//! ASCII letters, Arabic-Indic digits that of ASCII digits, and Han
//! ideographs and kana-less CJK punctuation that of an ASCII symbol. This
//! module gives such characters the [`ascii_words`](super::ascii_words)
//! class bits, plus bits for Katakana and for the non-ASCII mid characters,
//! which [`block_words`](super::block_words) turns into bit masks. Every
//! other character (combining marks, format characters, Hebrew, emoji,
//! unassigned code points...) is *complex*: the stretch around it goes to
//! `unicode-segmentation` ([`stretch_words`]), cut at *split points* —
//! positions where UAX #29 always breaks and where no rule looks across.
//!
//! A split point sits before a non-complex, non-whitespace character that
//! follows either ASCII whitespace, or a character of word-break class
//! `Other` that is neither whitespace nor `"` (`PLAIN`). Whitespace and
//! `Other` never join what follows except through WB3 (CR LF), WB3d
//! (space space) and WB4 (extend and format characters, which are complex),
//! and no rule looks back across them (WB6/7, WB7b/c and WB11/12 need a
//! letter, digit or `"` there; WB15/16 a regional indicator).
//!
//! The tests check the class of every non-complex code point against
//! `unicode-segmentation`, through the word tokenizer, and compare whole
//! texts on random strings.

use unicode_segmentation::UnicodeSegmentation;

use super::ascii_words::{self, CLASS};

/// The [`ascii_words`] bits, plus the three below.
pub(crate) type Class = u16;

pub(super) const WORD: Class = ascii_words::WORD as Class;
pub(crate) const ALNUM: Class = ascii_words::ALNUM as Class;
pub(super) const LETTER: Class = ascii_words::LETTER as Class;
pub(super) const DIGIT: Class = ascii_words::DIGIT as Class;
pub(super) const MID_LETTERS: Class = ascii_words::MID_LETTERS as Class;
pub(super) const MID_DIGITS: Class = ascii_words::MID_DIGITS as Class;

/// Word-break class `Other`, not whitespace and not `"`: breaks on both
/// sides and is invisible to every context rule. With `ALNUM` it is a word
/// on its own (a Han ideograph).
pub(crate) const PLAIN: Class = 1 << 8;
/// ASCII whitespace.
const SPACE: Class = 1 << 9;
/// Anything this module does not model: handled by `unicode-segmentation`.
pub(super) const COMPLEX: Class = 1 << 10;
/// Katakana (with `WORD`): joins Katakana and `_`-like characters, but not
/// letters or digits (WB13, WB13a/b).
pub(super) const KATAKANA: Class = 1 << 11;

const L: Class = WORD | ALNUM | LETTER;
const N: Class = WORD | ALNUM | DIGIT;
const P: Class = PLAIN;
const PA: Class = PLAIN | ALNUM;
const ML: Class = MID_LETTERS;
const MN: Class = MID_DIGITS;
const MNL: Class = MID_LETTERS | MID_DIGITS;
const K: Class = WORD | ALNUM | KATAKANA;

/// Classes of the ASCII bytes.
const ASCII: [Class; 128] = {
    let mut t = [0; 128];
    let mut c = 0;
    while c < 128 {
        let extra = match c as u8 {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => SPACE,
            b'"' => 0,
            _ if CLASS[c] == 0 => PLAIN,
            _ => 0,
        };
        t[c] = CLASS[c] as Class | extra;
        c += 1;
    }
    t
};

/// Classes of U+0080..=U+07FF (the two-byte UTF-8 range), from these ranges;
/// code points not listed are complex.
const TWO_BYTE_RANGES: &[(u32, u32, Class)] = &[
    // Latin-1 punctuation and symbols, ª º µ, Latin letters and IPA.
    (0x00A0, 0x00A9, P),
    (0x00AA, 0x00AA, L),
    (0x00AB, 0x00AC, P),
    (0x00AE, 0x00B1, P),
    (0x00B2, 0x00B3, PA),
    (0x00B4, 0x00B4, P),
    (0x00B5, 0x00B5, L),
    (0x00B6, 0x00B6, P),
    (0x00B7, 0x00B7, ML),
    (0x00B9, 0x00B9, PA),
    (0x00BA, 0x00BA, L),
    (0x00BB, 0x00BB, P),
    (0x00BC, 0x00BE, PA),
    (0x00BF, 0x00BF, P),
    (0x00C0, 0x00D6, L),
    (0x00D7, 0x00D7, P),
    (0x00D8, 0x00F6, L),
    (0x00F7, 0x00F7, P),
    (0x00F8, 0x02AF, L),
    // Greek and Cyrillic.
    (0x0386, 0x0386, L),
    (0x0387, 0x0387, ML),
    (0x0388, 0x038A, L),
    (0x038C, 0x038C, L),
    (0x038E, 0x03A1, L),
    (0x03A3, 0x03F5, L),
    (0x03F6, 0x03F6, P),
    (0x03F7, 0x0481, L),
    (0x0482, 0x0482, P),
    (0x048A, 0x052F, L),
    // Arabic letters, digits and punctuation (not the marks).
    (0x060C, 0x060D, MN),
    (0x061B, 0x061B, P),
    (0x061E, 0x061F, P),
    (0x0620, 0x064A, L),
    (0x0660, 0x0669, N),
    (0x066A, 0x066A, P),
    (0x066C, 0x066C, MN),
    (0x066D, 0x066D, P),
    (0x066E, 0x066F, L),
    (0x0671, 0x06D3, L),
    (0x06D4, 0x06D4, P),
    (0x06D5, 0x06D5, L),
    (0x06EE, 0x06EF, L),
    (0x06F0, 0x06F9, N),
    (0x06FA, 0x06FC, L),
    (0x06FD, 0x06FE, P),
    (0x06FF, 0x06FF, L),
];

const TWO_BYTE: [Class; 0x780] = {
    let mut t = [COMPLEX; 0x780];
    let mut r = 0;
    while r < TWO_BYTE_RANGES.len() {
        let (lo, hi, class) = TWO_BYTE_RANGES[r];
        let mut c = lo;
        while c <= hi {
            t[(c - 0x80) as usize] = class;
            c += 1;
        }
        r += 1;
    }
    t
};

/// Whether `class` is a plain letter: its bytes join the `word` and
/// `letter` masks and nothing else (what most letters of most scripts are).
pub(crate) const fn is_plain_letter(class: Class) -> bool {
    class & (COMPLEX | PLAIN | KATAKANA | MID_LETTERS | MID_DIGITS) == 0 && class & LETTER != 0
}

/// The classes the block kernel (`crate::arch::x86_64::avx512::block_words`)
/// looks up with byte permutes; every other character is classed one by one.
pub(crate) struct WideTables {
    /// One bit per code point below U+0800 that [`is_plain_letter`]: byte
    /// `u >> 3`, bit `u & 7`.
    pub(crate) letters2: [u8; 256],
    /// Bytes 0..32: one bit per 256-code-point page of the BMP all of whose
    /// code points are words on their own (`PLAIN | ALNUM`: Han); bytes
    /// 32..64: the pages of plain letters only (Hangul syllables). Byte
    /// `p >> 3` (plus 32), bit `p & 7`.
    pub(crate) pages: [u8; 64],
}

pub(crate) static WIDE_TABLES: WideTables = {
    let mut letters2 = [0u8; 256];
    let mut u = 0x80u32;
    while u < 0x800 {
        if is_plain_letter(TWO_BYTE[(u - 0x80) as usize]) {
            letters2[(u >> 3) as usize] |= 1 << (u & 7);
        }
        u += 1;
    }
    let mut pages = [0u8; 64];
    let mut p = 8u32;
    while p < 256 {
        let (mut single, mut letter) = (true, true);
        let mut u = p << 8;
        while u < (p + 1) << 8 {
            let c = three_byte_class(u);
            single &= c == PLAIN | ALNUM;
            letter &= is_plain_letter(c);
            u += 1;
        }
        if single {
            pages[(p >> 3) as usize] |= 1 << (p & 7);
        }
        if letter {
            pages[32 + (p >> 3) as usize] |= 1 << (p & 7);
        }
        p += 1;
    }
    WideTables { letters2, pages }
};

/// Classes of U+0800..=U+FFFF: Latin extended additional (Vietnamese),
/// general punctuation, arrows and box drawing, CJK punctuation, kana, Han
/// and Hangul syllables.
#[inline]
const fn three_byte_class(cp: u32) -> Class {
    match cp {
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x3041..=0x3096 | 0x309D..=0x309F => PA,
        0xAC00..=0xD7A3 | 0x3005 | 0x1E00..=0x1EFF => L,
        0x2010..=0x2017 | 0x201A..=0x2023 | 0x2025..=0x2026 | 0x2030..=0x203E => P,
        0x2018..=0x2019 | 0x2024 => MNL,
        0x2027 => ML,
        0x3001..=0x3004 | 0x3008..=0x3020 => P,
        0x3006..=0x3007 | 0x3021..=0x3029 => PA,
        0x30A1..=0x30FA | 0x30FC..=0x30FF => K,
        0x30FB | 0x2190..=0x21FF | 0x2500..=0x25FF => P,
        _ => COMPLEX,
    }
}

/// Class and UTF-8 length of the character starting at `b[i]` (a character
/// boundary of a `str`).
#[inline(always)]
pub(crate) fn class_at(b: &[u8], i: usize) -> (Class, usize) {
    let b0 = b[i];
    if b0 < 0x80 {
        return (ASCII[b0 as usize], 1);
    }
    if b0 < 0xE0 {
        let cp = (u32::from(b0 & 0x1F) << 6) | u32::from(b[i + 1] & 0x3F);
        // Two-byte sequences encode U+0080..=U+07FF.
        return (TWO_BYTE[(cp - 0x80) as usize], 2);
    }
    if b0 < 0xF0 {
        let cp = (u32::from(b0 & 0x0F) << 12)
            | (u32::from(b[i + 1] & 0x3F) << 6)
            | u32::from(b[i + 2] & 0x3F);
        return (three_byte_class(cp), 3);
    }
    (COMPLEX, 4)
}

/// Is there a split point between a character of class `prev` and one of
/// class `next`?
#[inline]
fn is_split(prev: Class, next: Class) -> bool {
    next & COMPLEX == 0 && (prev & PLAIN != 0 || (prev & SPACE != 0 && next & SPACE == 0))
}

/// The split point at or before `from` nearest to it (or the start).
pub(super) fn stretch_start(b: &[u8], from: usize) -> usize {
    let mut start = from;
    let mut next = class_at(b, start).0;
    while start > 0 {
        let mut p = start - 1;
        while b[p] & 0xC0 == 0x80 {
            p -= 1;
        }
        let prev = class_at(b, p).0;
        if is_split(prev, next) {
            break;
        }
        start = p;
        next = prev;
    }
    start
}

/// Hands out the words of the stretch from the split point `start` to the
/// first split point after the character at `at` through
/// `unicode-segmentation`, skipping those that start before `emitted`, and
/// returns the end of the stretch.
#[cold]
pub(super) fn stretch_words<F: FnMut(&str)>(
    s: &str,
    start: usize,
    at: usize,
    emitted: usize,
    f: &mut F,
) -> usize {
    let b = s.as_bytes();
    let (mut prev, len) = class_at(b, at);
    let mut end = at + len;
    while end < b.len() {
        let (next, len) = class_at(b, end);
        if is_split(prev, next) {
            break;
        }
        prev = next;
        end += len;
    }
    for (off, w) in s[start..end].unicode_word_indices() {
        if start + off >= emitted {
            f(w);
        }
    }
    end
}

#[cfg(test)]
mod tests;
