//! Words, sentences and paragraphs for the chunker.

use alloc::vec::Vec;
use unicode_segmentation::UnicodeSegmentation;

/// `ceil(words × 1.3)` in f32, the 0.3.2 estimate.
pub(super) fn approx(words: usize) -> usize {
    (words as f32 * 1.3).ceil() as usize
}

/// Estimated tokens of `text`.
pub(super) fn approx_tokens(text: &str) -> usize {
    approx(text.unicode_words().count())
}

/// Byte offset of every UAX #29 word in `text`.
pub(super) fn word_starts(text: &str) -> Vec<usize> {
    text.unicode_word_indices().map(|(i, _)| i).collect()
}

/// UAX #29 sentences that contain a letter or digit, trimmed.
pub(super) fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.unicode_sentences()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Paragraphs: runs of non-blank lines, separated by lines that are empty or
/// whitespace only, with `\n`, `\r\n` (or a mix) as line ends. Each paragraph
/// is the trimmed input slice, so its inner line breaks are kept as written.
pub(super) fn paragraphs(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    let mut offset = 0usize;
    core::iter::from_fn(move || {
        // Skip blank lines, then take lines until the next blank one.
        let mut start = None;
        let mut end = offset;
        while !rest.is_empty() {
            let (line, next) = match rest.find('\n') {
                Some(i) => (&rest[..i], &rest[i + 1..]),
                None => (rest, ""),
            };
            let line_start = offset;
            offset += rest.len() - next.len();
            rest = next;
            if line.trim().is_empty() {
                if start.is_some() {
                    break;
                }
            } else {
                start.get_or_insert(line_start);
                end = line_start + line.len();
            }
        }
        start.map(|s| text[s..end].trim())
    })
}
