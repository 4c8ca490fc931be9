//! The fast sampler against the paper's formulas, estimator accuracy, the
//! byte format, serde, the fingerprinter and bad input.

use alloc::format;
use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::{Canonicalizer, Error, Fingerprinter, ShingleTokenizer, WordTokenizer};

/// A splitmix64 stream: deterministic test data without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        crate::classical::hash::fmix64(self.0)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn weight_strategy() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => (-7.0f64..14.0).prop_map(f64::exp),
        1 => Just(0.0),
        1 => (1u32..5).prop_map(f64::from),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn fast_equals_reference(
        items in proptest::collection::vec((any::<u64>(), weight_strategy()), 1..60),
        num_perm in 1usize..80,
        seed in any::<u64>(),
    ) {
        let wmh = WeightedMinHasher::new(num_perm, seed).unwrap();
        let fast = wmh.sketch(&items);
        let reference = wmh.sketch_reference(&items);
        match (fast, reference) {
            (Ok(f), Ok(r)) => prop_assert_eq!(f, r),
            (Err(f), Err(r)) => prop_assert_eq!(f.to_string(), r.to_string()),
            (f, r) => prop_assert!(false, "fast {:?} vs reference {:?}", f, r),
        }
    }

    #[test]
    fn order_and_repeats_do_not_matter(
        items in proptest::collection::vec((0u64..40, weight_strategy()), 1..40),
        seed in any::<u64>(),
    ) {
        let wmh = WeightedMinHasher::new(32, seed).unwrap();
        // A repeated key acts as one element with its largest weight.
        let mut dedup: Vec<(u64, f64)> = Vec::new();
        for &(k, w) in &items {
            match dedup.iter_mut().find(|(x, _)| *x == k) {
                Some(e) => e.1 = e.1.max(w),
                None => dedup.push((k, w)),
            }
        }
        let mut rev = items.clone();
        rev.reverse();
        let a = wmh.sketch(&items);
        prop_assert_eq!(format!("{a:?}"), format!("{:?}", wmh.sketch(&rev)));
        prop_assert_eq!(format!("{a:?}"), format!("{:?}", wmh.sketch(&dedup)));
    }

    #[test]
    fn bytes_round_trip(slots in proptest::collection::vec(any::<u64>(), 1..50), seed in any::<u64>()) {
        let sig = WeightedMinHashSig::from_parts(seed, slots).unwrap();
        prop_assert_eq!(WeightedMinHashSig::from_bytes(&sig.to_bytes()).unwrap(), sig);
    }

    #[test]
    fn from_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        let _ = WeightedMinHashSig::from_bytes(&bytes);
    }
}

type Set = Vec<(u64, f64)>;

/// Pairs of random weighted sets with a chosen overlap.
fn random_pair(rng: &mut Rng, n: usize) -> (Set, Set) {
    let share = rng.unit();
    let mut a = Vec::new();
    let mut b = Vec::new();
    for _ in 0..n {
        let key = rng.next();
        let w = (rng.unit() * 6.0 - 2.0).exp();
        let x = rng.unit();
        if x < share {
            a.push((key, w));
            // Shared keys get a perturbed weight on the other side.
            b.push((key, w * (0.5 + rng.unit())));
        } else if x < share + (1.0 - share) / 2.0 {
            a.push((key, w));
        } else {
            b.push((key, w));
        }
    }
    if a.is_empty() {
        a.push((1, 1.0));
    }
    if b.is_empty() {
        b.push((1, 1.0));
    }
    (a, b)
}

#[test]
fn estimate_is_unbiased_and_close() {
    let wmh = WeightedMinHasher::new(256, 11).unwrap();
    let mut rng = Rng(5);
    let (mut signed, mut abs) = (0.0, 0.0);
    let pairs = 120;
    for _ in 0..pairs {
        let (a, b) = random_pair(&mut rng, 80);
        let exact = weighted_jaccard_exact(&a, &b).unwrap();
        let est = weighted_jaccard(&wmh.sketch(&a).unwrap(), &wmh.sketch(&b).unwrap()).unwrap();
        signed += est - exact;
        abs += (est - exact).abs();
    }
    let (signed, abs) = (signed / f64::from(pairs), abs / f64::from(pairs));
    // One pair's standard error is at most 0.5 / 16 = 0.031.
    assert!(signed.abs() < 0.01, "mean signed error {signed}");
    assert!(abs < 0.035, "mean absolute error {abs}");
}

#[test]
fn weights_matter_not_just_membership() {
    // Same keys, very different weights: unweighted Jaccard 1, weighted 0.1.
    let a: Vec<(u64, f64)> = (0..50).map(|k| (k, 1.0)).collect();
    let b: Vec<(u64, f64)> = (0..50).map(|k| (k, 10.0)).collect();
    assert!((weighted_jaccard_exact(&a, &b).unwrap() - 0.1).abs() < 1e-12);
    let wmh = WeightedMinHasher::new(512, 3).unwrap();
    let est = weighted_jaccard(&wmh.sketch(&a).unwrap(), &wmh.sketch(&b).unwrap()).unwrap();
    assert!((est - 0.1).abs() < 0.05, "{est}");
}

#[test]
fn bad_input_is_typed() {
    let wmh = WeightedMinHasher::new(8, 0).unwrap();
    for w in [-1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let err = wmh.sketch(&[(1, 1.0), (2, w)]).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)), "{w}: {err}");
        assert!(matches!(
            wmh.sketch_reference(&[(2, w)]),
            Err(Error::InvalidInput(_))
        ));
        assert!(matches!(
            weighted_jaccard_exact(&[(2, w)], &[(1, 1.0)]),
            Err(Error::InvalidInput(_))
        ));
    }
    let err = wmh.sketch(&[(1, -1.0)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: weight of element 0x0000000000000001 must be finite and non-negative, got -1"
    );
    for empty in [&[][..], &[(1, 0.0), (2, -0.0)][..]] {
        let err = wmh.sketch(empty).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid input: weighted set has no positive weight"
        );
        assert!(wmh.sketch_reference(empty).is_err());
    }
    assert!(weighted_jaccard_exact(&[], &[(1, 0.0)]).is_err());
    // Zero weights are skipped.
    assert_eq!(
        wmh.sketch(&[(1, 2.0), (2, 0.0)]).unwrap(),
        wmh.sketch(&[(1, 2.0)]).unwrap()
    );
    assert!(matches!(
        WeightedMinHasher::new(0, 0),
        Err(Error::Config(_))
    ));
    assert!(matches!(
        WeightedMinHashSig::from_parts(0, vec![]),
        Err(Error::InvalidInput(_))
    ));
}

#[test]
fn tiny_and_huge_weights_are_fine() {
    let wmh = WeightedMinHasher::new(64, 9).unwrap();
    let set = [
        (1, f64::MIN_POSITIVE / 4.0),
        (2, 1e300),
        (3, f64::MAX),
        (4, 1.0),
    ];
    let sig = wmh.sketch(&set).unwrap();
    assert_eq!(sig, wmh.sketch(&set).unwrap());
    // The largest weight dominates: the signature is almost all element 3's.
    let alone = wmh.sketch(&[(3, f64::MAX)]).unwrap();
    assert!(weighted_jaccard(&sig, &alone).unwrap() > 0.5);
}

#[test]
fn estimator_errors() {
    let a = WeightedMinHasher::new(16, 1)
        .unwrap()
        .sketch(&[(1, 1.0)])
        .unwrap();
    let b = WeightedMinHasher::new(8, 1)
        .unwrap()
        .sketch(&[(1, 1.0)])
        .unwrap();
    let c = WeightedMinHasher::new(16, 2)
        .unwrap()
        .sketch(&[(1, 1.0)])
        .unwrap();
    assert!(matches!(
        weighted_jaccard(&a, &b),
        Err(Error::DimensionMismatch { a: 16, b: 8 })
    ));
    assert!(matches!(
        weighted_jaccard(&a, &c),
        Err(Error::InvalidInput(_))
    ));
    assert_eq!(weighted_jaccard(&a, &a).unwrap(), 1.0);
}

/// Freezes the sampler: any change to the random variables, the pruning or
/// the slot hash changes these bytes.
#[test]
fn golden_bytes() {
    let sig = WeightedMinHasher::new(3, 42)
        .unwrap()
        .sketch(&[(1, 1.0), (2, 2.5), (3, 0.5)])
        .unwrap();
    let hex: alloc::string::String = sig.to_bytes().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, GOLDEN_HEX);
    let reference =
        WeightedMinHasher::new(3, 42)
            .unwrap()
            .sketch_reference(&[(3, 0.5), (2, 2.5), (1, 1.0)]);
    assert_eq!(reference.unwrap(), sig);
    assert_eq!(
        sig.to_string().len(),
        "WeightedMinHashSig<3>[".len() + 3 * 16 + 2 * 2 + 1
    );
}

const GOLDEN_HEX: &str =
    "01570000030000002a0000000000000044e7912a29172b25658947a9a5e216da658947a9a5e216da";

#[test]
fn damaged_bytes_are_rejected() {
    let sig = WeightedMinHasher::new(4, 7)
        .unwrap()
        .sketch(&[(5, 1.0), (6, 2.0)])
        .unwrap();
    let bytes = sig.to_bytes();
    assert_eq!(bytes.len(), 16 + 32);
    for len in 0..bytes.len() {
        let err = WeightedMinHashSig::from_bytes(&bytes[..len]).unwrap_err();
        assert!(
            matches!(err, Error::Corrupt(_) | Error::SchemaMismatch { .. }),
            "{len}: {err}"
        );
    }
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        WeightedMinHashSig::from_bytes(&long),
        Err(Error::Corrupt(_))
    ));
    // Every header byte but the seed's is checked.
    for i in 0..8 {
        let mut bad = bytes.clone();
        bad[i] ^= 0x10;
        let err = WeightedMinHashSig::from_bytes(&bad).unwrap_err();
        assert!(
            matches!(err, Error::Corrupt(_) | Error::SchemaMismatch { .. }),
            "{i}: {err}"
        );
    }
    // A MinHash signature's bytes are not a weighted one.
    let mh = crate::MinHashSig::<4>::empty().to_le_bytes();
    assert!(matches!(
        WeightedMinHashSig::from_bytes(&mh),
        Err(Error::SchemaMismatch {
            expected: 0x5701,
            actual: 1
        })
    ));
    // A huge slot count in a short buffer allocates nothing and fails.
    let mut huge = bytes[..16].to_vec();
    huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        WeightedMinHashSig::from_bytes(&huge),
        Err(Error::Corrupt(_))
    ));
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trip_and_checks() {
    let sig = WeightedMinHashSig::from_parts(7, vec![1, 2]).unwrap();
    let json = serde_json::to_string(&sig).unwrap();
    assert_eq!(json, r#"{"schema":22273,"seed":7,"slots":[1,2]}"#);
    assert_eq!(
        serde_json::from_str::<WeightedMinHashSig>(&json).unwrap(),
        sig
    );
    for bad in [
        r#"{"schema":1,"seed":7,"slots":[1,2]}"#,
        r#"{"schema":22273,"seed":7,"slots":[]}"#,
        r#"{"schema":22273,"seed":7,"slots":[1],"x":1}"#,
        r#"{"schema":22273,"slots":[1]}"#,
    ] {
        assert!(
            serde_json::from_str::<WeightedMinHashSig>(bad).is_err(),
            "{bad}"
        );
    }
}

fn fp(k: usize) -> WeightedMinHashFingerprinter<ShingleTokenizer<WordTokenizer>> {
    WeightedMinHashFingerprinter::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k,
            inner: WordTokenizer,
        },
        128,
    )
    .unwrap()
}

#[test]
fn fingerprinter_weights_and_errors() {
    let f = fp(1);
    let set = f.weighted_set("a b a c a b").unwrap();
    let mut w: Vec<f64> = set.iter().map(|&(_, w)| w).collect();
    w.sort_by(f64::total_cmp);
    assert_eq!(w, [1.0, 2.0, 3.0]);
    let log = f.clone().with_weighting(TermWeighting::SublinearTf);
    let mut w: Vec<f64> = log
        .weighted_set("a b a c a b")
        .unwrap()
        .iter()
        .map(|&(_, w)| w)
        .collect();
    w.sort_by(f64::total_cmp);
    assert_eq!(w, [1.0, 1.0 + 2f64.ln(), 1.0 + 3f64.ln()]);
    assert_eq!(
        f.fingerprint("a b a c a b").unwrap(),
        f.hasher().sketch(&set).unwrap()
    );
    for empty in ["", "   ", "!!!"] {
        assert_eq!(
            f.fingerprint(empty).unwrap_err().to_string(),
            "invalid input: empty document"
        );
    }
    assert_ne!(f.config_hash(), log.config_hash());
    assert_ne!(f.config_hash(), f.clone().with_seed(1).config_hash());
    assert_ne!(
        f.fingerprint("a b").unwrap(),
        f.clone().with_seed(1).fingerprint("a b").unwrap()
    );
    assert_eq!(
        fp(5)
            .fingerprint("one two three four five six")
            .unwrap()
            .num_perm(),
        128
    );
}

#[cfg(feature = "simhash")]
#[test]
fn fingerprinter_tf_idf() {
    use crate::IdfTable;
    let idf = IdfTable::from_pairs([("a", 0.0_f32), ("b", 2.0)]);
    let f = fp(1).with_weighting(TermWeighting::TfIdf(idf.clone()));
    let mut w: Vec<f64> = f
        .weighted_set("a b a c b")
        .unwrap()
        .iter()
        .map(|&(_, w)| w)
        .collect();
    w.sort_by(f64::total_cmp);
    assert_eq!(w, [1.0, 4.0]); // a weighs 0 and is dropped; c is unlisted
    assert_eq!(
        f.fingerprint("a a").unwrap_err().to_string(),
        "invalid input: every token weighs zero"
    );
    let g = fp(1).with_weighting(TermWeighting::SublinearTfIdf(idf));
    let mut w: Vec<f64> = g
        .weighted_set("b b c")
        .unwrap()
        .iter()
        .map(|&(_, w)| w)
        .collect();
    w.sort_by(f64::total_cmp);
    assert_eq!(w, [1.0, 2.0 * (1.0 + 2f64.ln())]);
    assert_ne!(f.config_hash(), g.config_hash());
}

#[test]
fn near_duplicate_texts_estimate_their_exact_similarity() {
    let f = fp(2);
    let base: Vec<alloc::string::String> = (0..300).map(|i| format!("w{}", i % 97)).collect();
    let a = base.join(" ");
    let b = base[..250].join(" ");
    let exact =
        weighted_jaccard_exact(&f.weighted_set(&a).unwrap(), &f.weighted_set(&b).unwrap()).unwrap();
    let est = weighted_jaccard(&f.fingerprint(&a).unwrap(), &f.fingerprint(&b).unwrap()).unwrap();
    assert!(exact > 0.5 && exact < 0.95, "{exact}");
    assert!((est - exact).abs() < 0.15, "{est} vs {exact}");
}
