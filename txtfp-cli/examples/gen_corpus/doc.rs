//! What each document slot holds and how its text is made. Everything here
//! is a pure function of the seed and the slot index, which is what lets a
//! shard rebuild a base document that lives in another shard instead of
//! keeping the corpus in memory.

use crate::pool::{BATCH, Pool, Window, word_of};
use crate::rng::{Rng, stream};

/// Base document lengths are log-normal: median 1.5 KB and σ = 1 give a mean
/// near 2.5 KB with about 3 % of documents above 10 KB.
pub const LEN_MEDIAN: f64 = 1500.0;
pub const LEN_SIGMA: f64 = 1.0;
pub const LEN_MIN: f64 = 200.0;
pub const LEN_MAX: f64 = 64_000.0;
/// Chance of a paragraph break between two fragments (~4 to a paragraph).
pub const PARAGRAPH: f64 = 0.25;
/// A document is made of fragments of pieces, 40 to 160 bytes (about 7 to
/// 30 words) cut at random word boundaries. Whole sentences would not do:
/// from the 50,000-document corpus-large, a 20 GB corpus uses every piece
/// of the pool ~200 times, and two short documents that share one whole
/// sentence are near-duplicates nobody planted. Fragments of one piece
/// rarely line up, so they share few shingles; and the longest fragment is
/// shorter than the shortest document, so no document is a single one.
pub const FRAGMENT_MIN: usize = 40;
pub const FRAGMENT_MAX: usize = 160;
/// How far a fragment end moves to reach a word boundary; spaceless text
/// (Chinese, Japanese) is cut at a character boundary instead.
const SNAP: usize = 24;
/// A boilerplate page is a base document with at least this target length:
/// a few changed words should leave such a page recognisably the same.
pub const PAGE_MIN_LEN: usize = 1000;

/// The parameters that decide the corpus, besides the pool.
pub struct Plan<'p> {
    pub pool: &'p Pool,
    pub seed: u64,
    /// Document slots in the whole corpus.
    pub docs: u64,
    /// Share of slots that are planted duplicates...
    pub dup_frac: f64,
    /// ...and, among those, the shares of exact copies and boilerplate
    /// members; the rest are edited near-duplicates.
    pub exact_share: f64,
    pub boilerplate_share: f64,
    pub groups: u64,
    /// Word edit rate inside base documents.
    pub base_edit: EditRate,
    /// Lowest target Jaccard of an edited near-duplicate.
    pub min_jaccard: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Role {
    Base,
    /// A verbatim copy of base slot `source`.
    Exact {
        source: u64,
    },
    /// Base slot `source` with word edits at `rate` per word.
    Near {
        source: u64,
        rate: f64,
    },
    /// Member of boilerplate group `group`, whose page is base slot `page`.
    Boilerplate {
        group: u64,
        page: u64,
    },
}

impl Role {
    pub fn relation(self) -> &'static str {
        match self {
            Role::Base => "base",
            Role::Exact { .. } => "exact-copy",
            Role::Near { .. } => "near-duplicate",
            Role::Boilerplate { .. } => "boilerplate",
        }
    }

    /// The base slot this document was made from.
    pub fn source(self) -> Option<u64> {
        match self {
            Role::Base => None,
            Role::Exact { source } | Role::Near { source, .. } => Some(source),
            Role::Boilerplate { page, .. } => Some(page),
        }
    }
}

impl Plan<'_> {
    /// Slot 0 is always a base document, so every duplicate has a source
    /// to fall back on however small the corpus.
    fn is_base(&self, slot: u64) -> bool {
        slot == 0
            || self.docs < 2
            || Rng::new(self.seed, stream::ROLE, slot).unit() >= self.dup_frac
    }

    /// A base slot drawn uniformly (not `except`): a duplicate's source sits
    /// anywhere, before or after it, in any shard.
    fn base_slot(&self, rng: &mut Rng, except: u64) -> u64 {
        for _ in 0..1000 {
            let j = rng.below(self.docs);
            if j != except && self.is_base(j) {
                return j;
            }
        }
        0
    }

    /// The page of boilerplate group `group`: a base slot long enough to be
    /// a page (any base slot if a thousand draws find none).
    pub fn group_page(&self, group: u64) -> u64 {
        let mut rng = Rng::new(self.seed, stream::GROUP, group);
        let mut page = self.base_slot(&mut rng, u64::MAX);
        for _ in 0..1000 {
            if self.target_len(page) >= PAGE_MIN_LEN {
                break;
            }
            page = self.base_slot(&mut rng, u64::MAX);
        }
        page
    }

    pub fn role(&self, slot: u64) -> Role {
        if self.is_base(slot) {
            return Role::Base;
        }
        let mut rng = Rng::new(self.seed, stream::ROLE, slot);
        rng.unit(); // the draw `is_base` made
        let kind = rng.unit();
        if kind < self.exact_share {
            Role::Exact {
                source: self.base_slot(&mut rng, slot),
            }
        } else if kind < self.exact_share + self.boilerplate_share {
            let group = rng.below(self.groups);
            Role::Boilerplate {
                group,
                page: self.group_page(group),
            }
        } else {
            // Each edit changes about five 5-shingles, so keeping a share s
            // of them takes (1 - rate)^5 = s, and J = s / (2 - s) when the
            // variant gains as many shingles as it lost.
            let target = self.min_jaccard + (1.0 - self.min_jaccard) * rng.unit();
            let kept = 2.0 * target / (1.0 + target);
            Role::Near {
                source: self.base_slot(&mut rng, slot),
                rate: 1.0 - kept.powf(0.2),
            }
        }
    }

    /// The first draws of a base document: its target length and window.
    fn base_start(&self, key: u64) -> (Rng, usize) {
        let mut rng = Rng::new(self.seed, stream::BASE, key);
        let len = (LEN_MEDIAN * (LEN_SIGMA * rng.normal()).exp()).clamp(LEN_MIN, LEN_MAX);
        (rng, len as usize)
    }

    fn target_len(&self, key: u64) -> usize {
        self.base_start(key).1
    }

    /// The window base document `key` draws from; its variants draw their
    /// substitute words there too, so they stay in its language.
    fn base_window(&self, key: u64) -> (Rng, usize, Window<'_>) {
        let (mut rng, len) = self.base_start(key);
        let window = self.pool.window(&mut rng);
        (rng, len, window)
    }

    /// Base document `key` into `out`: fragments of pieces of one window,
    /// each with word edits, until the target length. A document is thus a
    /// mix no other document shares, while its words and phrases stay real
    /// text of one source.
    pub fn base_text(&self, key: u64, out: &mut String) {
        let (mut rng, len, window) = self.base_window(key);
        out.clear();
        let mut batch = [""; BATCH];
        loop {
            window.pieces(&mut rng, &mut batch);
            for piece in batch {
                if out.len() >= len {
                    return;
                }
                if !out.is_empty() {
                    out.push_str(if rng.unit() < PARAGRAPH { "\n\n" } else { " " });
                }
                // Substitutes come from the batch: real words of the window,
                // already in cache.
                let mut word = |rng: &mut Rng| word_of(&batch, rng);
                let part = fragment(piece, &mut rng);
                edit_words(part, self.base_edit, &mut rng, &mut word, out);
            }
        }
    }

    /// The text of duplicate `slot` (role `role`) made from its source's
    /// text `source`.
    pub fn variant_text(&self, slot: u64, role: Role, source: &str, out: &mut String) {
        out.clear();
        let mut rng = Rng::new(self.seed, stream::VARIANT, slot);
        match role {
            Role::Base => unreachable!("a base document is no variant"),
            Role::Exact { .. } => out.push_str(source),
            Role::Near { source: s, rate } => {
                let (_, _, window) = self.base_window(s);
                let mut word = |rng: &mut Rng| window.word(rng);
                edit_words(source, EditRate::new(rate), &mut rng, &mut word, out);
                // At the low rates of J near 1, a short document can come
                // through untouched; a near-duplicate should not be a copy.
                if out == source {
                    out.clear();
                    tweak_words(source, 1, &mut rng, &window, out);
                }
            }
            Role::Boilerplate { page, .. } => {
                let (_, _, window) = self.base_window(page);
                let changes = 1 + rng.below(3) as usize;
                tweak_words(source, changes, &mut rng, &window, out);
            }
        }
    }
}

/// Words (maximal runs of non-ASCII-whitespace) with the whitespace after
/// each; the text's leading whitespace comes first with an empty word.
struct Words<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Words<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let b = self.rest.as_bytes();
        let w = b
            .iter()
            .position(u8::is_ascii_whitespace)
            .unwrap_or(b.len());
        let s = b[w..]
            .iter()
            .position(|c| !c.is_ascii_whitespace())
            .map_or(b.len(), |n| w + n);
        // Cutting at ASCII bytes keeps both halves valid UTF-8.
        let (word, sep) = (&self.rest[..w], &self.rest[w..s]);
        self.rest = &self.rest[s..];
        Some((word, sep))
    }
}

/// A random span of `piece` of `FRAGMENT_MIN..=FRAGMENT_MAX` bytes, moved
/// inward to word boundaries; the whole piece when it is no longer.
fn fragment<'a>(piece: &'a str, rng: &mut Rng) -> &'a str {
    let want = FRAGMENT_MIN + rng.below((FRAGMENT_MAX - FRAGMENT_MIN + 1) as u64) as usize;
    if piece.len() <= want {
        return piece;
    }
    let b = piece.as_bytes();
    let mut start = rng.below((b.len() - want + 1) as u64) as usize;
    let mut end = start + want;
    if start > 0 && !b[start - 1].is_ascii_whitespace() {
        let space = b[start..b.len().min(start + SNAP)]
            .iter()
            .position(u8::is_ascii_whitespace);
        start = match space {
            Some(n) => start + n + 1,
            None => (start..b.len())
                .find(|&i| piece.is_char_boundary(i))
                .unwrap_or(b.len()),
        };
    }
    if end < b.len() && !b[end].is_ascii_whitespace() {
        let space = b[end.saturating_sub(SNAP).max(start)..end]
            .iter()
            .rposition(u8::is_ascii_whitespace);
        end = match space {
            Some(n) => end.saturating_sub(SNAP).max(start) + n,
            None => (start..=end)
                .rev()
                .find(|&i| piece.is_char_boundary(i))
                .unwrap_or(start),
        };
    }
    let span = piece[start..end.max(start)].trim();
    if span.is_empty() { piece } else { span }
}

/// A per-word edit probability, kept as `ln(1 - rate)` to draw the gaps
/// between edits.
#[derive(Clone, Copy, Debug)]
pub struct EditRate {
    ln_keep: f64,
}

impl EditRate {
    pub fn new(rate: f64) -> Self {
        EditRate {
            ln_keep: (1.0 - rate.clamp(0.0, 1.0)).ln(),
        }
    }

    /// Unedited words before the next edit: geometric, so one draw per edit
    /// stands for one draw per word.
    fn gap(self, rng: &mut Rng) -> usize {
        // 1 - unit() is in (0, 1]; the cast saturates an infinite gap.
        ((1.0 - rng.unit()).ln() / self.ln_keep) as usize
    }
}

/// Byte length of the first `n` words of `s` (which starts with a word) and
/// the whitespace after each.
fn skip_words(s: &[u8], n: usize) -> usize {
    let mut i = 0;
    for _ in 0..n {
        if i == s.len() {
            break;
        }
        while i < s.len() && !s[i].is_ascii_whitespace() {
            i += 1;
        }
        while i < s.len() && s[i].is_ascii_whitespace() {
            i += 1;
        }
    }
    i
}

/// The first word of `s` (which starts with a word), the whitespace after
/// it and the rest.
fn split_word(s: &str) -> (&str, &str, &str) {
    let w = skip_words(s.as_bytes(), 1);
    let word_end = s[..w]
        .trim_end_matches(|c: char| c.is_ascii_whitespace())
        .len();
    (&s[..word_end], &s[word_end..w], &s[w..])
}

/// Copies `src` into `out` with each word edited at `rate`: substituted by
/// a word from `word`, deleted, followed by an inserted word, or swapped
/// with the next word, in equal shares. Whitespace is kept, so paragraph
/// breaks survive. Unedited runs are copied whole.
fn edit_words<'w>(
    src: &str,
    rate: EditRate,
    rng: &mut Rng,
    word: &mut dyn FnMut(&mut Rng) -> &'w str,
    out: &mut String,
) {
    if rate.ln_keep == 0.0 {
        out.push_str(src);
        return;
    }
    let lead = src.len()
        - src
            .trim_start_matches(|c: char| c.is_ascii_whitespace())
            .len();
    out.push_str(&src[..lead]);
    let mut rest = &src[lead..];
    loop {
        let keep = skip_words(rest.as_bytes(), rate.gap(rng));
        out.push_str(&rest[..keep]);
        rest = &rest[keep..];
        if rest.is_empty() {
            return;
        }
        let (w, sep, after) = split_word(rest);
        rest = after;
        match rng.below(4) {
            0 => {
                out.push_str(word(rng));
                out.push_str(sep);
            }
            1 => {
                // The word goes; a line or paragraph break after it stays.
                if sep.contains('\n') {
                    out.truncate(out.trim_end_matches([' ', '\t']).len());
                    if !out.is_empty() {
                        out.push_str(sep);
                    }
                }
            }
            2 => {
                out.push_str(w);
                out.push(' ');
                out.push_str(word(rng));
                out.push_str(sep);
            }
            _ if rest.is_empty() => {
                out.push_str(w);
                out.push_str(sep);
            }
            _ => {
                let (next, next_sep, after) = split_word(rest);
                rest = after;
                out.push_str(next);
                out.push_str(sep);
                out.push_str(w);
                out.push_str(next_sep);
            }
        }
    }
}

/// `src` with `changes` (at most 3) words replaced by a number or a window
/// word, as a counter, a date or a name changes between otherwise identical
/// pages.
fn tweak_words(src: &str, changes: usize, rng: &mut Rng, window: &Window<'_>, out: &mut String) {
    let n = Words { rest: src }.count() as u64;
    let mut at = [u64::MAX; 3];
    for a in at.iter_mut().take(changes) {
        *a = rng.below(n.max(1));
    }
    for (i, (word, sep)) in (Words { rest: src }).enumerate() {
        if at.contains(&(i as u64)) && !word.is_empty() {
            if rng.below(2) == 0 {
                let number = rng.below(100_000);
                out.push_str(&number.to_string());
            } else {
                out.push_str(window.word(rng));
            }
        } else {
            out.push_str(word);
        }
        out.push_str(sep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(src: &str, rate: f64) -> String {
        let mut out = String::new();
        let mut rng = Rng::new(1, 2, 3);
        let mut word = |_: &mut Rng| "X";
        edit_words(src, EditRate::new(rate), &mut rng, &mut word, &mut out);
        out
    }

    #[test]
    fn edits_keep_whitespace_and_touch_about_rate_of_the_words() {
        let src = "a b c d e f g h i j\n\n".repeat(1000);
        assert_eq!(edit(&src, 0.0), src);
        let out = edit(&src, 0.1);
        assert_eq!(out.matches("\n\n").count(), 1000);
        let (n, src_words) = (out.split_ascii_whitespace().count(), 10_000);
        // Deletions and insertions balance; swaps and substitutions keep the count.
        assert!(n.abs_diff(src_words) < 300, "{n}");
        let inserted = out.matches('X').count();
        assert!((400..650).contains(&inserted), "{inserted}");
        let all = edit("one two three", 1.0);
        assert!(!all.contains("one two three"), "{all}");
    }

    #[test]
    fn fragments_end_at_word_or_character_boundaries() {
        let mut rng = Rng::new(4, 5, 6);
        let words = "alpha beta gamma delta epsilon zeta eta theta iota kappa ".repeat(20);
        let cjk = "这是一个足够长的中文句子用来测试切分".repeat(20);
        for _ in 0..200 {
            let f = fragment(&words, &mut rng);
            assert!(words.contains(f) && f.len() <= FRAGMENT_MAX);
            for w in f.split(' ') {
                assert!(
                    words.contains(&format!(" {w} ")) || words.starts_with(w),
                    "{f:?}"
                );
            }
            let f = fragment(&cjk, &mut rng);
            assert!(cjk.contains(f) && f.len() >= FRAGMENT_MIN - 6 && f.len() <= FRAGMENT_MAX);
        }
        assert_eq!(fragment("short piece", &mut rng), "short piece");
    }

    #[test]
    fn words_keep_every_byte() {
        let text = "  one two\n\nthree\tfour  ";
        let parts: Vec<_> = Words { rest: text }.collect();
        assert_eq!(
            parts,
            [
                ("", "  "),
                ("one", " "),
                ("two", "\n\n"),
                ("three", "\t"),
                ("four", "  ")
            ]
        );
        let joined: String = parts.iter().flat_map(|(w, s)| [*w, *s]).collect();
        assert_eq!(joined, text);
    }
}
