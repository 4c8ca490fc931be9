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
                let mut s: Vec<u8> = (0..len).map(|i| [b'!', 0x80, 0xFF, b'a'][i % 4]).collect();
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
