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
    /// use txtfp::{Canonicalizer, Fingerprinter, SimHash16, SimHash128, SimHashBits,
    ///             SimHashFingerprinter, WordTokenizer};
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
mod tests {
    use super::*;
    use crate::classical::simhash::{SimHash16, SimHash32, SimHash64};
    use crate::{Canonicalizer, GraphemeTokenizer, ShingleTokenizer, WordTokenizer};
    use proptest::prelude::*;

    /// The plain formulation: `BITS` signed counters, `±weight` per vote.
    fn reference<T: Tokenizer>(fp: &SimHashFingerprinter<T>, text: &str, bits: u32) -> u128 {
        let canon = fp.canonicalizer().canonicalize(text);
        let mut tokens: Vec<String> = Vec::new();
        fp.tokenizer()
            .for_each_token(&canon, &mut |t| tokens.push(t.into()));
        let mut votes: Vec<(String, f64)> = Vec::new();
        match fp.weighting() {
            Weighting::Tf => votes = tokens.into_iter().map(|t| (t, 1.0)).collect(),
            w => {
                for t in tokens {
                    match votes.iter_mut().find(|(s, _)| *s == t) {
                        Some(v) if matches!(w, Weighting::IdfWeighted(_)) => v.1 += 1.0,
                        Some(_) => {}
                        None => votes.push((t, 1.0)),
                    }
                }
                if let Weighting::IdfWeighted(table) = w {
                    for v in &mut votes {
                        v.1 *= f64::from(table.get(&v.0));
                    }
                }
            }
        }
        let mut acc = alloc::vec![0f64; bits as usize];
        for (t, w) in &votes {
            let (lo, hi) = fp.hasher().hash128(t.as_bytes(), fp.seed());
            let h = u128::from(lo) | (u128::from(hi) << 64);
            for (b, a) in acc.iter_mut().enumerate() {
                *a += if (h >> b) & 1 == 1 { *w } else { -*w };
            }
        }
        acc.iter()
            .enumerate()
            .fold(0u128, |o, (b, &a)| o | (u128::from(a > 0.0) << b))
    }

    fn weightings() -> [Weighting; 3] {
        [
            Weighting::Tf,
            Weighting::Uniform,
            Weighting::IdfWeighted(IdfTable::from_pairs([("the", 0.25_f32), ("fox", 3.5)])),
        ]
    }

    #[test]
    fn widths_match_the_plain_reference() {
        let text = "The quick brown fox jumps over the lazy dog; the fox naps. Ünïcödé fox!";
        for w in weightings() {
            let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer)
                .with_weighting(w.clone());
            let r = reference(&fp, text, 128);
            let s128 = fp.fingerprint128(text).unwrap();
            assert_eq!(s128.bits(), r, "{w:?}");
            assert_eq!(s128.low64(), fp.fingerprint(text).unwrap());
            let s16: SimHash16 = fp.fingerprint_bits(text).unwrap();
            let s32: SimHash32 = fp.fingerprint_bits(text).unwrap();
            let s64: SimHash64 = fp.fingerprint_bits(text).unwrap();
            assert_eq!(u128::from(s16.0), reference(&fp, text, 16));
            assert_eq!(u128::from(s32.0), reference(&fp, text, 32));
            assert_eq!(u128::from(s64.0), reference(&fp, text, 64));
        }
    }

    #[test]
    fn errors_are_those_of_the_64_bit_path() {
        let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
        for bad in ["", "   ", "!!!"] {
            let e = fp.fingerprint128(bad).unwrap_err().to_string();
            assert_eq!(e, "invalid input: empty document");
        }
        let shingles = SimHashFingerprinter::new(
            Canonicalizer::default(),
            ShingleTokenizer {
                k: 0,
                inner: WordTokenizer,
            },
        );
        assert_eq!(
            shingles.fingerprint128("a b c").unwrap_err().to_string(),
            shingles.fingerprint("a b c").unwrap_err().to_string()
        );
    }

    proptest! {
        #[test]
        fn wide_low_half_is_simhash64(text in "[a-e][a-e ]{0,59}", w in 0usize..3) {
            let fp = SimHashFingerprinter::new(Canonicalizer::default(), GraphemeTokenizer)
                .with_weighting(weightings()[w].clone());
            let s128 = fp.fingerprint128(&text).unwrap();
            prop_assert_eq!(s128.low64(), fp.fingerprint(&text).unwrap());
            prop_assert_eq!(s128.bits(), reference(&fp, &text, 128));
        }
    }
}
