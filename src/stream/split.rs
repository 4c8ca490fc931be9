//! Where a stream may be cut so that each piece can be canonicalized and
//! tokenized on its own.
//!
//! A *split point* is a byte position `j` of the raw stream with
//!
//! 1. `raw[j-1]` ASCII whitespace and `raw[j]` printable non-space ASCII, a
//!    pair the canonicalizer accepts ([`split_safe`]); then
//!    `canon(x ++ y) == canon(x) ++ canon(y)` for the text before and after;
//! 2. the canonical form of `raw[j-1]` is itself and that of `raw[j]` is one
//!    printable non-space ASCII byte, and `raw[j+1]` is ASCII (or `j` is the
//!    last byte of the stream). ASCII characters are normalization
//!    boundaries and fold on their own, so then `canon(y)` starts with that
//!    canonical byte and `canon(x)` ends with the whitespace: exactly the
//!    situation in which a [`StreamPlan::Splittable`] tokenizer gives
//!    `tokens(X ++ Y) == tokens(X) ++ tokens(Y)`.
//!
//! Condition 2 is checked rather than assumed: the tokenizer's promise is
//! about its own (canonical) input, and a combining mark after `raw[j]` could
//! compose it into a non-ASCII letter (`A` + U+030A → `å`). Both conditions
//! depend on bytes only, so a stream's split points do not depend on how it
//! is chunked.
//!
//! [`StreamPlan::Splittable`]: crate::tokenize::StreamPlan::Splittable

use alloc::string::String;

use crate::canonical::{Canonicalizer, CanonicalizerBuilder, split_safe};

/// The ASCII whitespace bytes (as `u8::is_ascii_whitespace`) that may end
/// the text before a split, in the order of `SplitRules::pairs`.
const SPLIT_WS: [u8; 5] = [b'\t', b'\n', 0x0C, b'\r', b' '];

/// Bits 0x21..=0x7E: every printable non-space ASCII byte.
const PRINTABLE: u128 = (1 << 0x7F) - (1 << 0x21);

fn ws_slot(b: u8) -> Option<usize> {
    SPLIT_WS.iter().position(|&w| w == b)
}

/// Split-point test for one canonicalizer configuration.
pub(crate) struct SplitRules {
    /// Bit `n` of `pairs[i]`: a split may fall between `SPLIT_WS[i]` and the
    /// ASCII byte `n` (conditions 1 and 2 above, without the look at
    /// `raw[j+1]`).
    pairs: [u128; 5],
}

impl SplitRules {
    /// Rules for `canon`, or `None` when that configuration never allows a
    /// split (the stream is then buffered whole). Runs once per stream
    /// (`reset` keeps the result): free for the default configuration,
    /// about a microsecond for others.
    pub(crate) fn new(canon: &Canonicalizer) -> Option<Self> {
        if !canon.supports_split() {
            return None;
        }
        if *canon.config() == CanonicalizerBuilder::default() {
            // Precomputed: the per-stream derivation below costs about a
            // microsecond. `default_rules_are_derived` recomputes them.
            return Some(SplitRules {
                pairs: [PRINTABLE; 5],
            });
        }
        Some(Self::derive(canon)).filter(|r| r.pairs.iter().any(|&b| b != 0))
    }

    /// The rules worked out from what `canon` does to each ASCII byte.
    fn derive(canon: &Canonicalizer) -> Self {
        let image = ascii_images(canon);
        // Printable bytes whose canonical form is one printable byte.
        let mut landing = 0u128;
        for n in 0x21u8..0x7F {
            if image[usize::from(n)].is_some_and(|c| (0x21..0x7F).contains(&c)) {
                landing |= 1 << n;
            }
        }
        let mut pairs = [0u128; 5];
        for (bits, &p) in pairs.iter_mut().zip(&SPLIT_WS) {
            if image[usize::from(p)] != Some(p) {
                continue;
            }
            for n in 0x21u8..0x7F {
                if split_safe(p, n) {
                    *bits |= 1 << n;
                }
            }
            *bits &= landing;
        }
        SplitRules { pairs }
    }

    /// Whether a split between `prev` and `next` is possible, whatever
    /// follows `next`.
    #[inline]
    pub(crate) fn pair(&self, prev: u8, next: u8) -> bool {
        match ws_slot(prev) {
            Some(i) => next < 0x80 && self.pairs[i] >> next & 1 == 1,
            None => false,
        }
    }

    /// The split points `j` with `from <= j` and `j + 1 < text.len()`, in
    /// increasing order. (A pair ending at the last byte is undecided until
    /// the next byte arrives; see [`SplitRules::pair`].)
    pub(crate) fn splits<'r, 'a>(&'r self, text: Joined<'a>, from: usize) -> Splits<'r, 'a> {
        Splits {
            rules: self,
            text,
            // `prev` is the byte before the candidate split.
            prev: from.max(1) - 1,
        }
    }
}

/// The bytes whose canonical images [`ascii_images`] computes: the split
/// whitespace, then every printable ASCII character.
const IMAGED: [u8; 99] = {
    let mut all = [0u8; 99];
    let mut i = 0;
    while i < SPLIT_WS.len() {
        all[i] = SPLIT_WS[i];
        i += 1;
    }
    let mut b = 0x21u8;
    while b < 0x7F {
        all[i] = b;
        i += 1;
        b += 1;
    }
    all
};

/// The canonical form of each ASCII whitespace and printable character,
/// when it is a single byte.
///
/// One call over all of them at once: on ASCII every stage is per code point
/// (nothing is stripped, normalization is the identity, folding and the
/// skeleton map characters one by one), so an all-ASCII output of the same
/// length maps them position by position. Any other output (a stage that
/// maps a character to several, or to non-ASCII) falls back to one call per
/// character, which is ~100 times slower but assumes nothing.
fn ascii_images(canon: &Canonicalizer) -> [Option<u8>; 128] {
    let mut image = [None::<u8>; 128];
    let bytes = IMAGED;
    let all = core::str::from_utf8(&bytes).unwrap_or_default();
    let mut out = String::new();
    canon.canonicalize_into(all, &mut out);
    if out.len() == all.len() && out.is_ascii() {
        for (&from, &to) in all.as_bytes().iter().zip(out.as_bytes()) {
            image[usize::from(from)] = Some(to);
        }
        return image;
    }
    for &b in all.as_bytes() {
        let mut one = [0u8; 4];
        canon.canonicalize_into(char::from(b).encode_utf8(&mut one), &mut out);
        if let [c] = out.as_bytes() {
            image[usize::from(b)] = Some(*c);
        }
    }
    image
}

/// Two byte slices read as one: the retained text and the new chunk.
#[derive(Clone, Copy)]
pub(crate) struct Joined<'a> {
    pub(crate) a: &'a [u8],
    pub(crate) b: &'a [u8],
}

impl Joined<'_> {
    pub(crate) fn len(&self) -> usize {
        self.a.len() + self.b.len()
    }

    /// The byte at `i`, `0xFF` (never part of a split) past the end.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> u8 {
        match self.a.get(i) {
            Some(&b) => b,
            None => self.b.get(i - self.a.len()).copied().unwrap_or(0xFF),
        }
    }
}

/// Iterator returned by [`SplitRules::splits`].
pub(crate) struct Splits<'r, 'a> {
    rules: &'r SplitRules,
    text: Joined<'a>,
    prev: usize,
}

impl Iterator for Splits<'_, '_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let limit = self.text.len().saturating_sub(2);
        while self.prev < limit {
            // `p` is almost never whitespace: jump to the next byte that can
            // be, eight bytes at a time.
            let i = next_low(self.text, self.prev, limit);
            if i >= limit {
                break;
            }
            self.prev = i + 1;
            let p = self.text.get(i);
            if self.rules.pair(p, self.text.get(i + 1)) && self.text.get(i + 2) < 0x80 {
                return Some(i + 1);
            }
        }
        self.prev = self.prev.max(limit);
        None
    }
}

/// The first `j` in `from..limit` with `text.get(j) <= b' '` (every split
/// whitespace is), or `limit`.
fn next_low(text: Joined<'_>, from: usize, limit: usize) -> usize {
    let mut j = from;
    while j < limit {
        let (seg, base) = if j < text.a.len() {
            (text.a, 0)
        } else {
            (text.b, text.a.len())
        };
        let end = seg.len().min(limit - base);
        if let Some(k) = seg.get(j - base..end).and_then(first_low) {
            return j + k;
        }
        j = base + end;
    }
    limit
}

/// Index of the first byte `<= b' '` in `s`. Per 8-byte word, the classic
/// "has a byte less than n" test: `(x − 0x21…21) & !x & 0x80…80` flags
/// every byte below `0x21`, and the lowest flag is exact (a borrow only
/// starts at such a byte and only moves up).
#[inline]
fn first_low(s: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut words = s.chunks_exact(8);
    for (n, w) in words.by_ref().enumerate() {
        let mut le = [0u8; 8];
        le.copy_from_slice(w);
        let x = u64::from_le_bytes(le);
        let flags = x.wrapping_sub(ONES * 0x21) & !x & HIGHS;
        if flags != 0 {
            return Some(8 * n + (flags.trailing_zeros() / 8) as usize);
        }
    }
    let done = s.len() - words.remainder().len();
    words
        .remainder()
        .iter()
        .position(|&b| b <= b' ')
        .map(|k| done + k)
}

#[cfg(test)]
mod tests;
