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
mod tests {
    use super::*;
    use crate::canonical::Normalization;
    use alloc::vec::Vec;

    /// The byte-at-a-time definition of [`Splits`].
    fn naive(rules: &SplitRules, text: Joined<'_>, from: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut i = from.max(1) - 1;
        while i + 2 < text.len() {
            let p = text.get(i);
            if p <= b' ' && rules.pair(p, text.get(i + 1)) && text.get(i + 2) < 0x80 {
                out.push(i + 1);
            }
            i += 1;
        }
        out
    }

    proptest::proptest! {
        /// The word-at-a-time search against the definition, for every cut
        /// of the text into the two slices and every starting point.
        #[test]
        fn splits_equal_the_byte_loop(
            text in "[a-c \\t\\n\\r.\\u{1}\\u{20}\\u{21}\\u{7F}é\\u{80}\\u{A0}]{0,40}",
            cut in 0usize..41,
            from in 0usize..42,
        ) {
            let rules = SplitRules::new(&Canonicalizer::default()).expect("default splits");
            let b = text.as_bytes();
            let cut = cut.min(b.len());
            let joined = Joined { a: &b[..cut], b: &b[cut..] };
            let got: Vec<usize> = rules.splits(joined, from).collect();
            proptest::prop_assert_eq!(got, naive(&rules, joined, from));
        }
    }

    #[test]
    fn first_low_finds_every_low_byte() {
        for len in 0..20 {
            for at in 0..len {
                for low in [0u8, 1, b'\t', b' '] {
                    let mut s: Vec<u8> =
                        (0..len).map(|i| [b'!', 0x80, 0xFF, b'a'][i % 4]).collect();
                    s[at] = low;
                    assert_eq!(first_low(&s), Some(at), "len {len} at {at} byte {low}");
                }
            }
            let none: Vec<u8> = (0..len).map(|i| [b'!', 0x80, 0xFF, 0x21][i % 4]).collect();
            assert_eq!(first_low(&none), None);
        }
    }

    fn splits(rules: &SplitRules, a: &str, b: &str, from: usize) -> Vec<usize> {
        let text = Joined {
            a: a.as_bytes(),
            b: b.as_bytes(),
        };
        rules.splits(text, from).collect()
    }

    #[test]
    fn default_config_splits_before_ascii_words() {
        let rules = SplitRules::new(&Canonicalizer::default()).expect("default splits");
        // "ab cd\tEf\n.x  y": splits before c (3), E (6), '.' (9), y (13).
        assert_eq!(splits(&rules, "ab cd\tEf\n.x  y", "", 0), [3, 6, 9]);
        // y is the last byte: undecided until the next byte arrives.
        assert!(rules.pair(b' ', b'y'));
        assert_eq!(splits(&rules, "ab cd\tEf\n.x  y", "z", 0), [3, 6, 9, 13]);
        // The same text cut anywhere gives the same points.
        let whole = "ab cd\tEf\n.x  yz";
        for cut in 0..=whole.len() {
            let (a, b) = whole.split_at(cut);
            assert_eq!(splits(&rules, a, b, 0), [3, 6, 9, 13], "cut {cut}");
        }
        assert_eq!(splits(&rules, whole, "", 7), [9, 13]);
    }

    #[test]
    fn no_split_where_composition_or_whitespace_could_reach_across() {
        let rules = SplitRules::new(&Canonicalizer::default()).expect("default splits");
        // A + combining ring composes into a non-ASCII letter.
        assert!(splits(&rules, "x A\u{30A}b", "", 0).is_empty());
        // Whitespace after whitespace (CR LF stays one grapheme).
        assert!(splits(&rules, "x\r\ny", "", 0).is_empty());
        assert_eq!(splits(&rules, "x\r\nyz", "", 0), [3]);
        // Non-ASCII after the space.
        assert!(splits(&rules, "x \u{E9}t\u{E9}", "", 0).is_empty());
        // Control characters and DEL are not split targets.
        assert!(splits(&rules, "x \u{1}ab \u{7F}ab", "", 0).is_empty());
        // Past the end reads as 0xFF.
        let t = Joined { a: b"a", b: b"b" };
        assert_eq!((t.get(0), t.get(1), t.get(2)), (b'a', b'b', 0xFF));
    }

    #[test]
    fn default_rules_are_derived() {
        let canon = Canonicalizer::default();
        let fast = SplitRules::new(&canon).expect("default splits");
        assert_eq!(fast.pairs, SplitRules::derive(&canon).pairs);
        assert_eq!(PRINTABLE.count_ones(), 94);
        assert_eq!(PRINTABLE.trailing_zeros(), 0x21);
    }

    /// The one-call shortcut gives the same images as one call per byte.
    #[test]
    fn ascii_images_match_per_character_canonicalization() {
        let configs = [
            CanonicalizerBuilder::default(),
            CanonicalizerBuilder {
                normalization: Normalization::None,
                ..CanonicalizerBuilder::default()
            },
            CanonicalizerBuilder {
                apply_confusable: true,
                ..CanonicalizerBuilder::default()
            },
        ];
        for cfg in configs {
            let canon = Canonicalizer::new(cfg);
            let images = ascii_images(&canon);
            for b in 0u8..0x80 {
                let one = canon.canonicalize(char::from(b).encode_utf8(&mut [0; 4]));
                let want = match one.as_bytes() {
                    [c] if b.is_ascii_whitespace() || (0x21..0x7F).contains(&b) => Some(*c),
                    _ => None,
                };
                assert_eq!(
                    images[usize::from(b)],
                    want,
                    "byte {b:#x} under {:?}",
                    canon.config()
                );
            }
        }
    }

    #[test]
    fn case_folding_keeps_letters_splittable() {
        let cfg = CanonicalizerBuilder {
            normalization: Normalization::None,
            ..CanonicalizerBuilder::default()
        };
        let rules = SplitRules::new(&Canonicalizer::new(cfg)).expect("splits");
        assert_eq!(splits(&rules, "x YZ", "", 0), [2]);
    }
}
