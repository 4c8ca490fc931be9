//! [`SimHashFingerprinter`] at 16, 32 and 128 bits.
//!
//! Bit `b` of a SimHash depends only on bit `b` of the token hashes, so the
//! 16- and 32-bit signatures are the 64-bit one truncated (computed by the
//! same frozen path), and the 128-bit one adds a second set of 64 counters
//! fed by the high half of each token's 128-bit hash.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use hashbrown::{HashMap, HashSet};

use super::kernel::{BitCounter, weighted_signature};
use super::{IdfTable, SimHash128, SimHashBits, SimHashFingerprinter, Weighting};
use crate::classical::{Fingerprinter, HashFamily};
use crate::tokenize::Tokenizer;
use crate::{Error, Result};

impl<T: Tokenizer> SimHashFingerprinter<T> {
    /// The SimHash of `input` at the width of `S`
    /// ([`SimHash16`](super::SimHash16), [`SimHash32`](super::SimHash32),
    /// [`SimHash64`](super::SimHash64) or [`SimHash128`]), with this
    /// fingerprinter's canonicalizer, tokenizer, hash family, seed and
    /// weighting.
    ///
    /// Narrower signatures are the low bits of the 64-bit one, and the low
    /// half of the 128-bit one is the 64-bit one (see [`SimHash128`]).
    ///
    /// ```
    /// use txtfp::{Canonicalizer, Fingerprinter, SimHash128, SimHashFingerprinter, WordTokenizer};
    /// use txtfp::classical::simhash::{SimHash16, SimHashBits};
    /// let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
    /// let text = "the quick brown fox jumps over the lazy dog";
    /// let s64 = fp.fingerprint(text)?;
    /// let s16: SimHash16 = fp.fingerprint_bits(text)?;
    /// let s128: SimHash128 = fp.fingerprint_bits(text)?;
    /// assert_eq!(u64::from(s16.bits()), s64.bits() & 0xffff);
    /// assert_eq!(s128.low64(), s64);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Fingerprinter::fingerprint`].
    pub fn fingerprint_bits<S: SimHashBits>(&self, input: &str) -> Result<S> {
        if S::BITS <= 64 {
            let s = self.fingerprint(input)?;
            return Ok(S::from_halves(s.bits(), 0));
        }
        let s = self.fingerprint128(input)?;
        Ok(S::from_halves(s.low64().bits(), s.high64().bits()))
    }

    /// The 128-bit SimHash of `input` (the same as
    /// [`fingerprint_bits::<SimHash128>`](Self::fingerprint_bits)).
    ///
    /// # Errors
    /// As [`Fingerprinter::fingerprint`].
    pub fn fingerprint128(&self, input: &str) -> Result<SimHash128> {
        self.canonicalizer().check()?;
        self.tokenizer().validate()?;
        if input.is_empty() {
            return Err(Error::InvalidInput("empty document".into()));
        }
        let text = self.canonicalizer().canonicalize(input);
        let mut sketch = WideSketch::new(self.hasher(), self.seed(), self.weighting());
        crate::tokenize::fused::for_each_token(self.tokenizer(), &text, |t| sketch.push(t));
        sketch.finish()
    }

    /// The config hash of this configuration at `bits` bits (16, 32, 64 or
    /// 128): [`config_hash`](Self::config_hash) with `simhash-b{bits}-` in
    /// place of `simhash-b64-`, so it equals `config_hash()` at 64 bits.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, SimHashFingerprinter, WordTokenizer};
    /// let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
    /// assert_eq!(fp.config_hash_bits(64)?, fp.config_hash());
    /// assert_ne!(fp.config_hash_bits(128)?, fp.config_hash());
    /// assert!(fp.config_hash_bits(48).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidInput`] for any other width.
    pub fn config_hash_bits(&self, bits: u32) -> Result<u64> {
        if !matches!(bits, 16 | 32 | 64 | 128) {
            return Err(Error::InvalidInput(format!(
                "SimHash width must be 16, 32, 64 or 128 bits, got {bits}"
            )));
        }
        let algorithm = match self.weighting() {
            Weighting::IdfWeighted(table) => {
                format!("simhash-b{bits}-idf-weighted-{:016x}", table.content_hash())
            }
            w => format!("simhash-b{bits}-{}", w.as_str()),
        };
        Ok(crate::config_hash_classical(
            self.canonicalizer(),
            &self.tokenizer().name(),
            &algorithm,
            self.hasher(),
            self.seed(),
        ))
    }
}

/// A distinct token of an IDF-weighted document, in first-occurrence order.
struct WideEntry {
    lo: u64,
    hi: u64,
    idf: f32,
    tf: u64,
}

/// The 128-bit sketch: the 64-bit sketch's three weightings, each with a
/// second set of counters for the high hash half.
enum WideState {
    Tf([BitCounter; 2]),
    Uniform {
        seen: HashSet<(u64, u64)>,
        counters: [BitCounter; 2],
    },
    Idf {
        table: IdfTable,
        index: HashMap<(u64, u64), usize>,
        entries: Vec<WideEntry>,
    },
}

struct WideSketch {
    family: HashFamily,
    seed: u64,
    state: WideState,
}

impl WideSketch {
    fn new(family: HashFamily, seed: u64, weighting: &Weighting) -> Self {
        let pair = || [BitCounter::new(), BitCounter::new()];
        let state = match weighting {
            Weighting::Tf => WideState::Tf(pair()),
            Weighting::Uniform => WideState::Uniform {
                seen: HashSet::new(),
                counters: pair(),
            },
            Weighting::IdfWeighted(table) => WideState::Idf {
                table: table.clone(),
                index: HashMap::new(),
                entries: Vec::new(),
            },
        };
        Self {
            family,
            seed,
            state,
        }
    }

    fn push(&mut self, token: &str) {
        let (lo, hi) = self.family.hash128(token.as_bytes(), self.seed);
        match &mut self.state {
            WideState::Tf([a, b]) => {
                a.add(lo);
                b.add(hi);
            }
            WideState::Uniform { seen, counters } => {
                if seen.insert((lo, hi)) {
                    counters[0].add(lo);
                    counters[1].add(hi);
                }
            }
            WideState::Idf {
                table,
                index,
                entries,
            } => match index.get(&(lo, hi)) {
                Some(&i) => entries[i].tf += 1,
                None => {
                    index.insert((lo, hi), entries.len());
                    entries.push(WideEntry {
                        lo,
                        hi,
                        idf: table.get(token),
                        tf: 1,
                    });
                }
            },
        }
    }

    fn finish(self) -> Result<SimHash128> {
        let empty = || Error::InvalidInput(String::from("empty document"));
        let (lo, hi) = match &self.state {
            WideState::Tf(c) | WideState::Uniform { counters: c, .. } => {
                if c[0].votes() == 0 {
                    return Err(empty());
                }
                (c[0].signature(), c[1].signature())
            }
            WideState::Idf { entries, .. } => {
                if entries.is_empty() {
                    return Err(empty());
                }
                // The weights of the 64-bit sketch, in the same order, so the
                // low half is bit-identical to it.
                let w = |e: &WideEntry| e.tf as f64 * f64::from(e.idf);
                (
                    weighted_signature(entries.iter().map(|e| (e.lo, w(e)))),
                    weighted_signature(entries.iter().map(|e| (e.hi, w(e)))),
                )
            }
        };
        Ok(SimHash128::from_halves(lo, hi))
    }
}

#[cfg(test)]
mod tests;
