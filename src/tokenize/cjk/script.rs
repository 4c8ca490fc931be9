//! Which code points belong to a CJK run, and splitting text into runs.
//!
//! Kept as plain range tests (no tables): the sets are small and the checks
//! sit on the per-character path of every mixed-script document.

// Only `is_han` serves jieba; the run splitting serves lindera (feature `japanese`).
#![cfg_attr(not(feature = "japanese"), allow(dead_code))]

/// Han ideographs, exactly the blocks jieba's dictionary path treats as
/// Chinese: CJK Unified Ideographs, Extensions A to F and both
/// compatibility blocks.
#[inline]
pub(crate) fn is_han(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF
        | 0x2_0000..=0x2_A6DF
        | 0x2_A700..=0x2_B73F
        | 0x2_B740..=0x2_B81F
        | 0x2_B820..=0x2_CEAF
        | 0x2_CEB0..=0x2_EBEF
        | 0x2_F800..=0x2_FA1F)
}

/// Kana, including the marks that live inside Japanese words: the prolonged
/// sound mark `ー`, the kana iteration marks and the (semi-)voiced sound marks.
/// The katakana middle dot `・` and the double hyphen `゠` are punctuation and
/// stay out.
#[inline]
fn is_kana(c: char) -> bool {
    matches!(c as u32,
        0x3041..=0x309F      // Hiragana (+ ゛゜ゝゞゟ)
        | 0x30A1..=0x30FA    // Katakana letters
        | 0x30FC..=0x30FF    // ー ヽ ヾ ヿ
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0xFF66..=0xFF9F    // Half-width katakana (NFKC folds them, raw text may not)
        | 0x1_B000..=0x1_B16F) // Kana supplement / extended-A / small kana
}

/// Hangul syllables and jamo.
#[inline]
fn is_hangul(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x3131..=0x318E | 0xA960..=0xA97F | 0xAC00..=0xD7A3 | 0xD7B0..=0xD7FF)
}

/// A letter a CJK morphological analyser should see: Han (plus the
/// ideographic iteration / closing marks `々 〆 〇 〻`), kana or Hangul.
#[inline]
pub(crate) fn is_cjk_letter(c: char) -> bool {
    is_han(c) || is_kana(c) || is_hangul(c) || matches!(c, '\u{3005}'..='\u{3007}' | '\u{303B}')
}

/// Splits `text` into maximal stretches that are all `is_run` characters
/// (`true`) or all other characters (`false`), in order, borrowing from
/// `text`. Empty stretches are never produced.
pub(crate) fn for_each_stretch(
    text: &str,
    is_run: fn(char) -> bool,
    mut f: impl FnMut(&str, bool),
) {
    let mut start = 0;
    let mut current: Option<bool> = None;
    for (i, c) in text.char_indices() {
        // ASCII is never CJK: skip the range tests for the common case.
        let kind = !c.is_ascii() && is_run(c);
        match current {
            Some(k) if k == kind => {}
            Some(k) => {
                f(&text[start..i], k);
                start = i;
                current = Some(kind);
            }
            None => current = Some(kind),
        }
    }
    if let Some(k) = current {
        f(&text[start..], k);
    }
}

#[cfg(test)]
mod tests;
