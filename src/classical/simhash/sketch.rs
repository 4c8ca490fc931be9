//! The SimHash sketch: one document's tokens hashed and voted according to
//! the weighting. The offline fingerprinter and the streaming one both drive
//! it, so they agree.

use alloc::vec::Vec;

use hashbrown::{HashMap, HashSet};

use super::kernel::{BitCounter, weighted_signature};
use super::token_hash::TokenHasher;
use super::votes::TfVotes;
use super::{IdfTable, SimHash64};
use crate::classical::{HashFamily, TokenSketch};
use crate::tokenize::Tokenizer;
use crate::tokenize::fused::{for_each_token, for_each_token_bytes};
use crate::{Error, Result};

/// A distinct token of an IDF-weighted document, in first-occurrence order.
struct IdfEntry {
    lo: u64,
    idf: f32,
    tf: u64,
}

// Tf's counters and queue (~1.1 KiB) live inline: a sketch is built once
// per document and Tf is the default, so boxing them would add an
// allocation to every document for the sake of the rarer modes.
#[allow(clippy::large_enum_variant)]
enum State {
    /// Every occurrence votes once, by the low half of its hash alone.
    Tf(TfVotes),
    /// Every distinct token votes once; tokens are told apart by their
    /// 128-bit hash (a collision has probability ~2^-128 per pair).
    Uniform {
        seen: HashSet<(u64, u64)>,
        counter: BitCounter,
    },
    /// Every distinct token votes `tf × idf`, summed at the end in
    /// first-occurrence order so that offline and streaming agree bit for bit.
    Idf {
        table: IdfTable,
        index: HashMap<(u64, u64), usize>,
        entries: Vec<IdfEntry>,
    },
}

/// A SimHash under construction, fed one token at a time. The offline
/// fingerprinter and the streaming one both drive it, so they agree.
pub(crate) struct SimHashSketch {
    family: HashFamily,
    seed: u64,
    /// The low half of [`HashFamily::Xxh3_64`] with `seed`, for Tf votes.
    xxh3_lo: Option<TokenHasher>,
    state: State,
}

impl SimHashSketch {
    pub(crate) fn new(family: HashFamily, seed: u64, weighting: &super::Weighting) -> Self {
        use super::Weighting;
        let state = match weighting {
            Weighting::Tf => State::Tf(TfVotes::new()),
            Weighting::Uniform => State::Uniform {
                seen: HashSet::new(),
                counter: BitCounter::new(),
            },
            Weighting::IdfWeighted(table) => State::Idf {
                table: table.clone(),
                index: HashMap::new(),
                entries: Vec::new(),
            },
        };
        let xxh3_lo = match (&state, family) {
            (State::Tf(_), HashFamily::Xxh3_64) => Some(TokenHasher::new(seed)),
            _ => None,
        };
        Self {
            family,
            seed,
            xxh3_lo,
            state,
        }
    }

    /// [`TokenSketch::push`] of every token `tok` yields from `text`.
    pub(crate) fn push_text<T: Tokenizer + ?Sized>(&mut self, tok: &T, text: &str) {
        match (&mut self.state, &self.xxh3_lo) {
            (State::Tf(votes), Some(hasher)) => {
                super::word_batch::vote_tokens(tok, text, hasher, votes);
            }
            // Tf votes need no `&str` (IDF looks tokens up in its table).
            (State::Tf(_), None) => {
                for_each_token_bytes(tok, text, |w| self.push_word(w));
            }
            _ => for_each_token(tok, text, |t| self.push(t)),
        }
    }

    /// The low half of `word`'s hash: what a Tf vote reads.
    #[inline(always)]
    fn lo_hash(&self, word: &[u8]) -> u64 {
        match &self.xxh3_lo {
            Some(h) => h.hash(word),
            None => self.family.hash128(word, self.seed).0,
        }
    }

    /// [`TokenSketch::push`] of a token given as its bytes. Only Tf
    /// sketches vote; the others ignore it.
    #[inline(always)]
    fn push_word(&mut self, word: &[u8]) {
        let lo = self.lo_hash(word);
        if let State::Tf(votes) = &mut self.state {
            votes.push(lo);
        }
    }
}

impl TokenSketch for SimHashSketch {
    type Output = SimHash64;

    #[inline]
    fn push(&mut self, token: &str) {
        if let State::Tf(_) = self.state {
            return self.push_word(token.as_bytes());
        }
        let (lo, hi) = self.family.hash128(token.as_bytes(), self.seed);
        match &mut self.state {
            State::Tf(votes) => votes.push(lo),
            State::Uniform { seen, counter } => {
                if seen.insert((lo, hi)) {
                    counter.add(lo);
                }
            }
            State::Idf {
                table,
                index,
                entries,
            } => match index.get(&(lo, hi)) {
                Some(&i) => entries[i].tf += 1,
                None => {
                    index.insert((lo, hi), entries.len());
                    entries.push(IdfEntry {
                        lo,
                        idf: table.get(token),
                        tf: 1,
                    });
                }
            },
        }
    }

    fn finish(mut self) -> Result<SimHash64> {
        let empty = || Error::InvalidInput("empty document".into());
        let bits = match &mut self.state {
            State::Tf(votes) => {
                if votes.votes() == 0 {
                    return Err(empty());
                }
                votes.signature()
            }
            State::Uniform { counter, .. } => {
                if counter.votes() == 0 {
                    return Err(empty());
                }
                counter.signature()
            }
            State::Idf { entries, .. } => {
                if entries.is_empty() {
                    return Err(empty());
                }
                // tf < 2^53 in any real document, so `tf as f64` is exact;
                // idf is finite and ≥ 0 (IdfTable guarantees it), so every
                // weight and every sum stays finite.
                weighted_signature(
                    entries
                        .iter()
                        .map(|e| (e.lo, e.tf as f64 * f64::from(e.idf))),
                )
            }
        };
        Ok(SimHash64(bits))
    }
}
