//! The pool of real-text pieces every document is drawn from: the source
//! corpus cut into sentence-sized pieces, exact repeats dropped, grouped by
//! source and language so that one document reads as one language.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use sha2::{Digest, Sha256};
use txtfp::HashFamily;

use crate::rng::Rng;

/// Pieces shorter than this are joined to the next sentence: a lone heading
/// or "See also." would otherwise be reused across the whole corpus.
const MIN_PIECE: usize = 40;
/// Longer runs without a sentence end (code, tables, unpunctuated CJK) are
/// cut at a space near this length, so pieces stay sentence-sized.
const MAX_PIECE: usize = 600;
/// A substitute word longer than this is redrawn: URLs and code paths make
/// unlikely replacements for an ordinary word.
const MAX_WORD: usize = 24;
/// Pieces a document draws from: consecutive pieces of one source stream,
/// so a document reads as one kind of text (kernel docs, a dictionary, one
/// language), while the window is wide enough that two documents drawing
/// from it rarely pick the same pieces.
pub const WINDOW: u64 = 4096;

/// One source stream (one `lang`/`src` value pair of the input).
pub struct Part {
    pub key: String,
    text: String,
    /// End offset of each piece in `text`; piece `i` starts at `ends[i - 1]`.
    ends: Vec<u32>,
}

impl Part {
    pub fn len(&self) -> u64 {
        self.ends.len() as u64
    }

    fn push(&mut self, piece: &str) -> bool {
        if self.text.len() + piece.len() > u32::MAX as usize {
            return false;
        }
        self.text.push_str(piece);
        self.ends.push(self.text.len() as u32);
        true
    }
}

/// What was read, for the manifest.
pub struct SourceInfo {
    pub bytes: u64,
    pub sha256: String,
    pub docs: u64,
    pub docs_used: u64,
}

pub struct Pool {
    pub parts: Vec<Part>,
    /// Cumulative piece counts: a part is drawn in proportion to its size.
    cum: Vec<u64>,
    pub pieces: u64,
    pub bytes: u64,
}

/// Where one document draws its pieces and substitute words from.
#[derive(Clone, Copy)]
pub struct Window<'p> {
    part: &'p Part,
    start: u64,
    len: u64,
}

impl<'p> Window<'p> {
    fn bounds(&self, i: u64) -> (usize, usize) {
        let i = i as usize;
        let start = if i == 0 {
            0
        } else {
            self.part.ends[i - 1] as usize
        };
        (start, self.part.ends[i] as usize)
    }

    fn index(&self, rng: &mut Rng) -> u64 {
        (self.start + rng.below(self.len)) % self.part.len()
    }

    /// One random piece of the window.
    pub fn piece(&self, rng: &mut Rng) -> &'p str {
        let (a, b) = self.bounds(self.index(rng));
        &self.part.text[a..b]
    }

    /// [`BATCH`] random pieces of the window. The pool is far larger than
    /// the caches and every piece is a cache (and TLB) miss: touching all of
    /// them before any is used lets the misses overlap instead of queueing
    /// one behind the other.
    pub fn pieces(&self, rng: &mut Rng, out: &mut [&'p str; BATCH]) {
        let index: [u64; BATCH] = std::array::from_fn(|_| self.index(rng));
        let bounds = index.map(|i| self.bounds(i));
        let text = self.part.text.as_bytes();
        let touched = bounds
            .iter()
            .fold(0u8, |acc, &(a, b)| acc ^ text[a] ^ text[b - 1]);
        std::hint::black_box(touched);
        for (o, (a, b)) in out.iter_mut().zip(bounds) {
            *o = &self.part.text[a..b];
        }
    }

    /// A word drawn in proportion to its frequency in the window (a random
    /// word of a random piece), so substitutes look like the text around them.
    pub fn word(&self, rng: &mut Rng) -> &'p str {
        pick_word(|rng| self.piece(rng), rng)
    }
}

/// Pieces drawn together by [`Window::pieces`].
pub const BATCH: usize = 8;

/// A random word of a random piece of `pieces`.
pub fn word_of<'p>(pieces: &[&'p str], rng: &mut Rng) -> &'p str {
    pick_word(|rng| pieces[rng.below(pieces.len() as u64) as usize], rng)
}

/// A random word of a piece from `piece`, redrawn a few times while longer
/// than [`MAX_WORD`]; empty only if no drawn piece has a word.
fn pick_word<'p>(mut piece: impl FnMut(&mut Rng) -> &'p str, rng: &mut Rng) -> &'p str {
    let mut last = "";
    for _ in 0..8 {
        let piece = piece(rng);
        let n = piece.split_ascii_whitespace().count() as u64;
        if n == 0 {
            continue;
        }
        last = piece
            .split_ascii_whitespace()
            .nth(rng.below(n) as usize)
            .unwrap_or("");
        if last.len() <= MAX_WORD {
            return last;
        }
    }
    last
}

impl Pool {
    /// Reads the JSONL `source` (`{"text": ..., "lang"?: ..., "src"?: ...}`
    /// per line) into a pool of at most about `max_bytes` of text. The whole
    /// file is hashed even when the pool fills early.
    pub fn load(source: &Path, max_bytes: u64) -> Result<(Pool, SourceInfo), String> {
        let shown = source.display();
        let file = File::open(source).map_err(|e| format!("{shown}: {e}"))?;
        let mut reader = BufReader::with_capacity(1 << 20, file);
        let mut sha = Sha256::new();
        let mut parts: BTreeMap<String, Part> = BTreeMap::new();
        let mut seen: HashSet<u64> = HashSet::new();
        let (mut bytes, mut docs, mut docs_used, mut pool_bytes) = (0u64, 0u64, 0u64, 0u64);
        let mut line = Vec::new();
        let mut lineno = 0u64;
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| format!("{shown}: {e}"))?;
            if n == 0 {
                break;
            }
            lineno += 1;
            bytes += n as u64;
            sha.update(&line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            docs += 1;
            if pool_bytes >= max_bytes {
                continue;
            }
            let v: serde_json::Value = serde_json::from_slice(&line)
                .map_err(|e| format!("{shown}:{lineno}: not a JSON object: {e}"))?;
            let Some(text) = v.get("text").and_then(|t| t.as_str()) else {
                return Err(format!("{shown}:{lineno}: no string field \"text\""));
            };
            let field = |name: &str| v.get(name).and_then(|f| f.as_str()).unwrap_or("");
            let key = format!("{}/{}", field("lang"), field("src"));
            let part = parts.entry(key.clone()).or_insert_with(|| Part {
                key,
                text: String::new(),
                ends: Vec::new(),
            });
            docs_used += 1;
            split_pieces(text, |piece| {
                // The source plants near-duplicates of its own; exact repeats
                // of a piece would only raise the reuse of that text.
                let h = HashFamily::Xxh3_64.hash128(piece.as_bytes(), 0).0;
                if seen.insert(h) && part.push(piece) {
                    pool_bytes += piece.len() as u64;
                }
            });
        }
        let parts: Vec<Part> = parts.into_values().filter(|p| p.len() > 0).collect();
        if parts.is_empty() {
            return Err(format!("{shown}: no usable text"));
        }
        let mut cum = Vec::with_capacity(parts.len());
        let mut total = 0;
        for p in &parts {
            total += p.len();
            cum.push(total);
        }
        let digest = sha.finalize();
        let sha256 = digest.iter().map(|b| format!("{b:02x}")).collect();
        let pool = Pool {
            parts,
            cum,
            pieces: total,
            bytes: pool_bytes,
        };
        let info = SourceInfo {
            bytes,
            sha256,
            docs,
            docs_used,
        };
        Ok((pool, info))
    }

    /// A window around a random piece of a part drawn by size.
    pub fn window(&self, rng: &mut Rng) -> Window<'_> {
        let r = rng.below(self.pieces);
        let part = &self.parts[self.cum.partition_point(|&c| c <= r)];
        Window {
            part,
            start: rng.below(part.len()),
            len: part.len().min(WINDOW),
        }
    }
}

/// Calls `emit` with the sentence-sized pieces of `text`, trimmed: paragraphs
/// split at sentence ends (`.!?` before whitespace, or a CJK full stop),
/// short sentences joined to the next, long ones cut at a space.
fn split_pieces(text: &str, mut emit: impl FnMut(&str)) {
    for para in text.split("\n\n") {
        let para = para.trim();
        let b = para.as_bytes();
        let mut start = 0;
        // Last whitespace since `start`: where an overlong run is cut.
        let mut space = None;
        for i in 0..b.len() {
            let end = i + 1;
            let stop = match b[i] {
                b'.' | b'!' | b'?' => b.get(end).is_none_or(u8::is_ascii_whitespace),
                // The last bytes of 。 (E3 80 82), ！ (EF BC 81) and ？ (EF BC 9F).
                0x82 => i >= 2 && b[i - 2..i] == [0xE3, 0x80],
                0x81 | 0x9F => i >= 2 && b[i - 2..i] == [0xEF, 0xBC],
                c => {
                    if c.is_ascii_whitespace() {
                        space = Some(i);
                    }
                    false
                }
            };
            if stop && end - start >= MIN_PIECE {
                emit_trimmed(&para[start..end], &mut emit);
                (start, space) = (end, None);
            } else if end - start >= MAX_PIECE && para.is_char_boundary(end) {
                let cut = space.filter(|&s| s - start >= MIN_PIECE).unwrap_or(end);
                emit_trimmed(&para[start..cut], &mut emit);
                (start, space) = (cut, None);
            }
        }
        if para.len() - start >= MIN_PIECE {
            emit_trimmed(&para[start..], &mut emit);
        }
    }
}

fn emit_trimmed(piece: &str, emit: &mut impl FnMut(&str)) {
    let piece = piece.trim();
    if !piece.is_empty() {
        emit(piece);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<String> {
        let mut v = Vec::new();
        split_pieces(text, |p| v.push(p.to_string()));
        v
    }

    #[test]
    fn sentences_are_cut_at_their_ends_and_short_ones_joined() {
        let text = "Short one. This sentence is long enough to stand on its own. \
                    And so is this one, which ends the paragraph here.\n\nTiny.";
        assert_eq!(
            pieces(text),
            [
                "Short one. This sentence is long enough to stand on its own.",
                "And so is this one, which ends the paragraph here."
            ]
        );
    }

    #[test]
    fn long_runs_are_cut_at_a_space_and_cjk_at_full_stops() {
        let long = "word ".repeat(300);
        let p = pieces(&long);
        assert!(p.len() > 1 && p.iter().all(|s| s.len() <= MAX_PIECE));
        assert_eq!(p.concat().replace(' ', ""), long.replace(' ', ""));
        let cjk =
            "这是一个足够长的中文句子，用来测试切分。这是第二个足够长的中文句子，也用来测试。";
        assert_eq!(pieces(cjk).len(), 2);
    }
}
