//! Splitting long text into model-sized chunks: [`chunk_for_model`].
//!
//! Token counts are estimated as `ceil(words × 1.3)` (UAX #29 words), the
//! English BPE ratio txtfp 0.3.2 uses, so `max_tokens` means the same thing
//! here. Differences from 0.3.2 (COMPAT.md W16), each a fix:
//! - no chunk consists only of the overlap carried from the previous one
//!   (0.3.2 emitted such a trailing chunk, twice in `Recursive` mode);
//! - the overlap is shortened when it would push a chunk over `max_tokens`;
//! - chunks are slices of the input, so punctuation and spacing survive
//!   (0.3.2's `FixedTokens` and overlaps re-joined bare words with spaces);
//! - paragraphs are separated by any blank line, whatever the line ending
//!   (0.3.2 split on a literal `"\n\n"`, so CRLF text had one paragraph).

mod split;
#[cfg(test)]
mod tests;

use alloc::string::String;
use alloc::vec::Vec;

use split::{approx_tokens, paragraphs, sentences, word_starts};

/// How [`chunk_for_model`] cuts text.
///
/// ```
/// use txtfp::{ChunkMode, ChunkingStrategy};
/// let s = ChunkingStrategy::default();
/// assert_eq!((s.max_tokens, s.overlap, s.mode), (256, 32, ChunkMode::SentenceBounded));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkingStrategy {
    /// Upper bound on a chunk's estimated token count (`ceil(words × 1.3)`).
    /// Only a single word can exceed it (a window is at least one word).
    pub max_tokens: usize,
    /// Estimated tokens repeated from the end of one chunk at the start of the
    /// next (capped below `max_tokens`).
    pub overlap: usize,
    /// Where chunks may end.
    pub mode: ChunkMode,
}

impl Default for ChunkingStrategy {
    fn default() -> Self {
        Self {
            max_tokens: 256,
            overlap: 32,
            mode: ChunkMode::SentenceBounded,
        }
    }
}

/// Where chunk boundaries may fall.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ChunkMode {
    /// Sliding windows of words, ignoring sentence structure.
    FixedTokens,
    /// Whole sentences packed up to `max_tokens`; a longer sentence is cut
    /// into word windows.
    #[default]
    SentenceBounded,
    /// Whole paragraphs (blank-line separated) packed up to `max_tokens`; a
    /// longer paragraph falls back to sentences, then to word windows.
    Recursive,
}

/// Split `input` into chunks of at most `strategy.max_tokens` estimated tokens.
///
/// Empty input, input without words, or `max_tokens == 0` give no chunks.
/// Sentences in a chunk are joined by one space, paragraphs by a blank line.
///
/// ```
/// use txtfp::{ChunkMode, ChunkingStrategy, chunk_for_model};
/// let s = ChunkingStrategy { max_tokens: 8, overlap: 0, mode: ChunkMode::SentenceBounded };
/// let chunks = chunk_for_model("One two three. Four five six! Seven eight? Nine.", &s);
/// assert_eq!(chunks, ["One two three. Four five six!", "Seven eight? Nine."]);
///
/// let r = ChunkingStrategy { max_tokens: 6, overlap: 0, mode: ChunkMode::Recursive };
/// let paras = chunk_for_model("First part here.\r\n\r\nSecond part.", &r);
/// assert_eq!(paras, ["First part here.", "Second part."]);
/// ```
pub fn chunk_for_model(input: &str, strategy: &ChunkingStrategy) -> Vec<String> {
    if input.is_empty() || strategy.max_tokens == 0 {
        return Vec::new();
    }
    let w = Windows::new(strategy);
    match strategy.mode {
        ChunkMode::FixedTokens => w.fixed(input),
        ChunkMode::SentenceBounded => w.sentence_bounded(input),
        ChunkMode::Recursive => w.pack(paragraphs(input), "\n\n", |p| w.sentence_bounded(p)),
    }
}

/// The word-level sizes derived from a strategy.
struct Windows {
    max_tokens: usize,
    /// Words per window: `max(1, floor(max_tokens / 1.3))`.
    window: usize,
    /// Words of overlap: `min(floor(overlap / 1.3), window - 1)`.
    overlap: usize,
}

impl Windows {
    fn new(s: &ChunkingStrategy) -> Self {
        let mut window = ((s.max_tokens as f32 / 1.3) as usize).max(1);
        // f32 rounding can make a full window's estimate one over the cap
        // (e.g. 10 words for 13 tokens); shrink it so windows respect the cap.
        while window > 1 && split::approx(window) > s.max_tokens {
            window -= 1;
        }
        let overlap = ((s.overlap as f32 / 1.3) as usize).min(window - 1);
        Self {
            max_tokens: s.max_tokens,
            window,
            overlap,
        }
    }

    /// Word windows of `self.window` words, each starting `window - overlap`
    /// words after the previous one, as slices of `text`.
    fn fixed(&self, text: &str) -> Vec<String> {
        let starts = word_starts(text);
        let n = starts.len();
        let stride = self.window - self.overlap;
        let mut out = Vec::with_capacity(n.div_ceil(stride));
        let mut s = 0;
        while s < n {
            let e = (s + self.window).min(n);
            // A window runs from its first word to the next window's first
            // word, so punctuation between words stays with the earlier one.
            let from = if s == 0 { 0 } else { starts[s] };
            let to = if e == n { text.len() } else { starts[e] };
            out.push(String::from(text[from..to].trim()));
            if e == n {
                break;
            }
            s += stride;
        }
        out
    }

    fn sentence_bounded(&self, text: &str) -> Vec<String> {
        self.pack(sentences(text), " ", |s| self.fixed(s))
    }

    /// Greedy packing of `units` joined by `joiner`; a unit over the cap is
    /// replaced by `split(unit)`. After every cut the next chunk starts with
    /// the last words of the previous one, as many as fit beside the next unit.
    fn pack<'a>(
        &self,
        units: impl Iterator<Item = &'a str>,
        joiner: &str,
        split: impl Fn(&str) -> Vec<String>,
    ) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut cur = String::new();
        let mut cur_tokens = 0usize;
        // Set after a cut; the overlap is only materialised when a unit
        // follows, so no chunk is ever overlap alone.
        let mut carry = false;
        for unit in units {
            let t = approx_tokens(unit);
            if t > self.max_tokens {
                if !cur.is_empty() {
                    out.push(core::mem::take(&mut cur));
                }
                cur_tokens = 0;
                out.extend(split(unit));
                carry = true;
                continue;
            }
            if !cur.is_empty() && cur_tokens + t > self.max_tokens {
                out.push(core::mem::take(&mut cur));
                cur_tokens = 0;
                carry = true;
            }
            if cur.is_empty()
                && carry
                && let Some(prev) = out.last()
            {
                let (tail, tokens) = self.tail(prev, self.max_tokens - t);
                cur.push_str(tail);
                cur_tokens = tokens;
            }
            carry = false;
            if !cur.is_empty() {
                cur.push_str(joiner);
            }
            cur.push_str(unit);
            cur_tokens += t;
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    /// The last `k` words of `chunk` (with their punctuation) for the largest
    /// `k <= self.overlap` whose estimate fits in `budget`, and that estimate.
    fn tail<'c>(&self, chunk: &'c str, budget: usize) -> (&'c str, usize) {
        if self.overlap == 0 {
            return ("", 0);
        }
        let starts = word_starts(chunk);
        let mut k = self.overlap.min(starts.len());
        while k > 0 && split::approx(k) > budget {
            k -= 1;
        }
        if k == 0 {
            return ("", 0);
        }
        (
            chunk[starts[starts.len() - k]..].trim_end(),
            split::approx(k),
        )
    }
}
