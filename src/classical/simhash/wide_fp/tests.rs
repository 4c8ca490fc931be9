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
