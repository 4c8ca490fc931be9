//! Property tests: registers, representation, merge and estimates against
//! the plain reference.

use std::collections::HashSet;

use proptest::prelude::*;

use super::super::sparse::{SPARSE_P, limit};
use super::super::{HyperLogLog, HyperLogLogPlusPlus};
use super::{reference_registers, splitmix};

/// Hashes that exercise every path: uniform ones, few distinct ones (many
/// repeats), and ones whose bits after the top 25 are all zero (the rank
/// caps at precision 25 and at the dense precision).
fn hash() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => any::<u64>(),
        2 => (0u64..40).prop_map(splitmix),
        1 => any::<u64>().prop_map(|x| x & !((1u64 << (64 - SPARSE_P)) - 1)),
        1 => (0u32..64).prop_map(|s| 1u64 << s),
    ]
}

fn hashes() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec(hash(), 0..1500)
}

fn precision() -> impl Strategy<Value = u8> {
    4u8..=11
}

fn classic_of(hs: &[u64], p: u8) -> HyperLogLog {
    let mut h = HyperLogLog::new(p).unwrap();
    hs.iter().for_each(|&x| h.insert_hash(x));
    h
}

fn plus_of(hs: &[u64], p: u8) -> HyperLogLogPlusPlus {
    let mut h = HyperLogLogPlusPlus::new(p).unwrap();
    hs.iter().for_each(|&x| h.insert_hash(x));
    h
}

/// Distinct precision-25 indices: what decides the representation.
fn sparse_indices(hs: &[u64]) -> usize {
    hs.iter()
        .map(|h| h >> (64 - SPARSE_P))
        .collect::<HashSet<_>>()
        .len()
}

/// The classic estimate straight from its definition.
fn reference_classic(regs: &[u8]) -> f64 {
    let m = regs.len() as f64;
    let alpha = match regs.len() {
        16 => 0.673,
        32 => 0.697,
        64 => 0.709,
        _ => 0.7213 / (1.0 + 1.079 / m),
    };
    let z: f64 = regs.iter().map(|&r| 0.5f64.powi(i32::from(r))).sum();
    let e = alpha * m * m / z;
    let zeros = regs.iter().filter(|&&r| r == 0).count() as f64;
    if e <= 2.5 * m && zeros > 0.0 {
        m * (m / zeros).ln()
    } else {
        e
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn registers_match_reference(hs in hashes(), p in precision()) {
        let reference = reference_registers(&hs, p);
        let c = classic_of(&hs, p);
        prop_assert_eq!(&*c.registers(), &reference[..]);
        // Sparse or dense, HyperLogLog++ has the same registers: converting
        // sparse to dense equals dense from the start.
        let plus = plus_of(&hs, p);
        prop_assert_eq!(&*plus.registers(), &reference[..]);
        prop_assert_eq!(plus.is_sparse(), sparse_indices(&hs) <= limit(p));
    }

    #[test]
    fn estimates_match_reference(hs in hashes(), p in precision()) {
        let c = classic_of(&hs, p);
        let want = reference_classic(&reference_registers(&hs, p));
        prop_assert!((c.count() - want).abs() <= 1e-9 * want.max(1.0), "{} vs {}", c.count(), want);
        let plus = plus_of(&hs, p);
        if plus.is_sparse() {
            let n = sparse_indices(&hs) as f64;
            let m = (1u64 << SPARSE_P) as f64;
            let lc = m * (m / (m - n)).ln();
            prop_assert!((plus.count() - lc).abs() <= 1e-9 * lc.max(1.0));
        }
        prop_assert_eq!(c.is_empty(), hs.is_empty());
        prop_assert_eq!(plus.is_empty(), hs.is_empty());
        prop_assert_eq!(plus.count() == 0.0, hs.is_empty());
    }

    #[test]
    fn merge_is_the_sketch_of_the_union(a in hashes(), b in hashes(), p in precision()) {
        let union: Vec<u64> = a.iter().chain(&b).copied().collect();
        let mut c = classic_of(&a, p);
        c.merge(&classic_of(&b, p)).unwrap();
        prop_assert_eq!(&c, &classic_of(&union, p));
        let mut plus = plus_of(&a, p);
        plus.merge(&plus_of(&b, p)).unwrap();
        let whole = plus_of(&union, p);
        prop_assert_eq!(plus.is_sparse(), whole.is_sparse());
        prop_assert_eq!(&plus, &whole);
        prop_assert_eq!(plus.count(), whole.count());
        prop_assert_eq!(plus.to_bytes(), whole.to_bytes());
    }

    #[test]
    fn order_and_repeats_do_not_matter(hs in hashes(), p in precision(), seed in any::<u64>()) {
        let mut shuffled = hs.clone();
        shuffled.extend(hs.iter().step_by(3));
        // Fisher-Yates with a fixed generator.
        let mut s = seed;
        for i in (1..shuffled.len()).rev() {
            s = splitmix(s);
            shuffled.swap(i, (s % (i as u64 + 1)) as usize);
        }
        prop_assert_eq!(classic_of(&hs, p), classic_of(&shuffled, p));
        let (x, y) = (plus_of(&hs, p), plus_of(&shuffled, p));
        prop_assert_eq!(x.count(), y.count());
        prop_assert_eq!(x, y);
    }

    #[test]
    fn bytes_round_trip(hs in hashes(), p in precision()) {
        let c = classic_of(&hs, p);
        prop_assert_eq!(HyperLogLog::from_bytes(&c.to_bytes()).unwrap(), c);
        let plus = plus_of(&hs, p);
        let back = HyperLogLogPlusPlus::from_bytes(&plus.to_bytes()).unwrap();
        prop_assert_eq!(back.count(), plus.count());
        prop_assert_eq!(back, plus);
    }
}

#[test]
fn merge_rejects_other_precision_and_keeps_self() {
    let mut a = plus_of(&[1, 2, 3], 10);
    let before = a.clone();
    let err = a.merge(&HyperLogLogPlusPlus::new(11).unwrap()).unwrap_err();
    assert!(matches!(err, crate::Error::Config(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "config error: cannot merge HyperLogLog++ sketches of precision 10 and 11"
    );
    assert_eq!(a, before);
}

#[test]
fn bad_precisions_are_config_errors() {
    for p in [0u8, 1, 3, 19, 25, 64, 255] {
        let e = HyperLogLog::new(p).unwrap_err();
        assert!(matches!(e, crate::Error::Config(_)), "{e}");
        assert!(HyperLogLogPlusPlus::new(p).is_err());
    }
    for p in 4..=18 {
        assert_eq!(HyperLogLog::new(p).unwrap().num_registers(), 1 << p);
        assert!(HyperLogLogPlusPlus::new(p).unwrap().is_sparse());
    }
}

#[test]
fn clear_returns_to_empty() {
    let hs: Vec<u64> = (0..10_000).map(splitmix).collect();
    let mut c = classic_of(&hs, 8);
    let mut plus = plus_of(&hs, 8);
    assert!(!plus.is_sparse());
    c.clear();
    plus.clear();
    assert_eq!(c, HyperLogLog::new(8).unwrap());
    assert_eq!(plus, HyperLogLogPlusPlus::new(8).unwrap());
    assert!(c.is_empty() && plus.is_empty() && plus.is_sparse());
    assert_eq!((c.len(), plus.len()), (0, 0));
}

#[test]
fn text_helpers_hash_the_token_bytes() {
    use crate::{Canonicalizer, ShingleTokenizer, Tokenizer, WordTokenizer};
    let text = "The cat sat on the mat. The cat sat on the MAT!";
    let canon = Canonicalizer::default();
    let tok = ShingleTokenizer::new(3, WordTokenizer).unwrap();
    let mut via_text = HyperLogLogPlusPlus::new(12).unwrap();
    via_text.insert_text(&canon, &tok, text);
    let canonical = canon.canonicalize(text);
    let mut via_hash = HyperLogLogPlusPlus::new(12).unwrap();
    let mut exact = HashSet::new();
    tok.for_each_token(&canonical, &mut |t| {
        via_hash.insert_hash(xxhash_rust::xxh3::xxh3_64(t.as_bytes()));
        exact.insert(t.to_string());
    });
    assert_eq!(via_text, via_hash);
    let mut via_tokens = HyperLogLogPlusPlus::new(12).unwrap();
    via_tokens.insert_tokens(tok.tokens(&canonical).into_string_iter());
    assert_eq!(via_tokens, via_hash);
    assert_eq!(via_text.len(), exact.len() as u64);
}
