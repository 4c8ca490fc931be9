use super::*;

#[test]
fn signature_hex_round_trips() {
    let sig = vec![0, 1, u64::MAX, 0x0123_4567_89ab_cdef];
    assert_eq!(parse_signature(&signature_hex(&sig)), Some(sig));
    assert_eq!(parse_signature("zz"), None);
}

#[test]
fn chunks_cover_every_word_once_without_overlap() {
    let text = "a b c d e f g";
    let c = chunk_hashes(text, 3, 3);
    assert_eq!(c.len(), 3);
    assert_eq!(c[0], chunk_hashes("a b c", 3, 3)[0]);
    assert_eq!(c[2], chunk_hashes("g", 3, 3)[0]);
    // With overlap the windows start every stride words; the last
    // window ends at the last word.
    let o = chunk_hashes(text, 4, 2);
    assert_eq!(o.len(), 3);
    assert_eq!(o[2], chunk_hashes("e f g", 4, 2)[0]);
    assert!(chunk_hashes("", 3, 3).is_empty());
}

proptest::proptest! {
    /// The store's candidate lookup is complete: a fingerprint within
    /// the radius of a stored one shares a table key with it, for every
    /// radius the config accepts.
    #[test]
    fn simhash_keys_find_every_neighbour(f in proptest::prelude::any::<u64>(),
                                         flips in proptest::collection::vec(0u32..64, 0..8),
                                         k in 0u32..=7) {
        let masks = SimHashLayout::for_distance(k).unwrap().masks().to_vec();
        let g = flips.iter().take(k as usize).fold(f, |g, b| g ^ (1u64 << b));
        let (a, b) = (simhash_keys(&masks, f), simhash_keys(&masks, g));
        proptest::prop_assert!(a.iter().zip(&b).any(|(x, y)| x == y));
    }
}

#[test]
fn bands_reach_the_partial_threshold() {
    assert_eq!(bands_for(1.0, 128), 1);
    let b = bands_for(0.5, 128);
    assert_eq!(128 % b, 0);
    let r = (128 / b) as i32;
    let p = 1.0 - (1.0 - 0.5f64.powi(r)).powi(b as i32);
    assert!(p >= 0.999, "bands {b}: {p}");
}

/// The signature parser as the plain standard-library reference reads it.
fn parse_signature_reference(value: &str) -> Option<Vec<u64>> {
    let b = value.as_bytes();
    if !b.len().is_multiple_of(16) {
        return None;
    }
    b.chunks_exact(16)
        .map(|c| {
            let s = core::str::from_utf8(c).ok()?;
            if s.starts_with('+') {
                return None;
            }
            u64::from_str_radix(s, 16).ok().map(u64::swap_bytes)
        })
        .collect()
}

proptest::proptest! {
    /// The table-driven parser equals the reference on valid signatures
    /// in either case, and on damaged ones (any byte replaced, cut).
    #[test]
    fn signature_parser_equals_the_reference(
        sig in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..40),
        upper in proptest::prelude::any::<bool>(),
        damage in proptest::collection::vec((0usize..800, proptest::prelude::any::<u8>()), 0..3),
        cut in 0usize..900,
    ) {
        let mut hex = signature_hex(&sig);
        if upper {
            hex = hex.to_uppercase();
        }
        proptest::prop_assert_eq!(parse_signature(&hex), Some(sig));
        let mut bytes = hex.into_bytes();
        for (at, b) in damage {
            if let Some(x) = bytes.get_mut(at) {
                *x = b;
            }
        }
        bytes.truncate(cut);
        let text = String::from_utf8_lossy(&bytes);
        proptest::prop_assert_eq!(parse_signature(&text), parse_signature_reference(&text));
    }
}

/// Chunk hashes by the definition: `unicode-segmentation`'s words, each
/// window joined by one space.
fn chunk_hashes_reference(canonical: &str, size: usize, stride: usize) -> Vec<[u8; 32]> {
    use unicode_segmentation::UnicodeSegmentation;
    let words: Vec<&str> = canonical.unicode_words().collect();
    let mut out = Vec::new();
    let mut start = 0;
    while start < words.len() {
        let end = (start + size).min(words.len());
        out.push(Sha256::digest(words[start..end].join(" ").as_bytes()).into());
        if end == words.len() {
            break;
        }
        start += stride;
    }
    out
}

proptest::proptest! {
    /// The chunks of mixed-script text (Latin with accents, CJK, kana,
    /// Devanagari with combining marks, emoji, digits with separators,
    /// spaces before combining marks) equal the definition's.
    #[test]
    fn chunk_hashes_equal_the_unicode_words_definition(
        parts in proptest::collection::vec(
            proptest::sample::select(vec![
                "word", " ", "  ", "Café", "naïve", "日本語", "かな", "カナ", "हिन्दी",
                " \u{93E}", "🙂", "1,000.5", "x_y", "don't", "\u{200d}", "٣٤", ".", ",",
                "\n", "Ελληνικά", "한국어", "a.b", "e\u{301}",
            ]),
            0..60,
        ),
        size in 1usize..6,
        stride in 1usize..6,
    ) {
        let text: String = parts.concat();
        let stride = stride.min(size);
        proptest::prop_assert_eq!(
            chunk_hashes(&text, size, stride),
            chunk_hashes_reference(&text, size, stride)
        );
    }
}
