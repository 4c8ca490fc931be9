use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::partition::{Costs, optimal_ends};
use super::tune::{Tuner, bucket_ratio, ratio_bucket};
use super::{LshEnsemble, LshEnsembleBuilder, Partitioning};
use crate::{Canonicalizer, Error, Fingerprinter, MinHashFingerprinter, MinHashSig, WordTokenizer};

fn sig16(hashes: [u64; 16]) -> MinHashSig<16> {
    MinHashSig {
        hashes,
        ..MinHashSig::empty()
    }
}

/// The candidates by a plain scan: every set of each partition (sets sorted
/// by size then id, cut by the published counts) that agrees with the query
/// on all slots of at least one of the first `b` bands of `r` slots.
fn naive_candidates(
    idx: &LshEnsemble<16>,
    entries: &[(u64, u64, MinHashSig<16>)],
    q: &MinHashSig<16>,
    size: u64,
    t: f64,
) -> Vec<u64> {
    let mut sorted = entries.to_vec();
    sorted.sort_by_key(|e| (e.1, e.0));
    let bounds = idx.partition_bounds();
    let bandings = idx.bandings(size, t).unwrap();
    let mut out = BTreeSet::new();
    let mut at = 0;
    for ((_, _, count), banding) in bounds.iter().zip(bandings) {
        let part = &sorted[at..at + count];
        at += count;
        let Some((b, r)) = banding else { continue };
        for (id, _, sig) in part {
            if (0..b).any(|j| sig.hashes[j * r..(j + 1) * r] == q.hashes[j * r..(j + 1) * r]) {
                out.insert(*id);
            }
        }
    }
    assert_eq!(at, sorted.len());
    out.into_iter().collect()
}

fn arb_sig() -> impl Strategy<Value = MinHashSig<16>> {
    // Three slot values make whole bands agree often, so every banding
    // finds something.
    proptest::array::uniform16(0u64..3).prop_map(sig16)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn candidates_equal_the_naive_scan(
        entries in proptest::collection::vec((0u64..1000, 1u64..60, arb_sig()), 0..40),
        parts in 1usize..6,
        equi in any::<bool>(),
        max_rows in 1usize..7,
        queries in proptest::collection::vec((arb_sig(), 1u64..80, 1u32..=100), 1..6),
    ) {
        let mut seen = BTreeSet::new();
        let entries: Vec<_> = entries.into_iter().filter(|e| seen.insert(e.0)).collect();
        let how = if equi { Partitioning::EquiDepth } else { Partitioning::Optimal };
        let mut b = LshEnsembleBuilder::<16>::new()
            .partitions(parts)
            .partitioning(how)
            .max_rows(max_rows);
        for (id, size, sig) in &entries {
            b.insert(*id, sig, *size).unwrap();
        }
        let idx = b.build().unwrap();
        for (q, size, t) in queries {
            let t = f64::from(t) / 100.0;
            prop_assert_eq!(idx.query(&q, size, t).unwrap(), naive_candidates(&idx, &entries, &q, size, t));
        }
    }

    #[test]
    fn partitions_follow_the_setting(
        sizes in proptest::collection::vec(1u64..200, 0..300),
        parts in 1usize..40,
        equi in any::<bool>(),
    ) {
        let how = if equi { Partitioning::EquiDepth } else { Partitioning::Optimal };
        let mut b = LshEnsembleBuilder::<16>::new().partitions(parts).partitioning(how).max_rows(2);
        for (i, &s) in sizes.iter().enumerate() {
            b.insert(i as u64, &sig16([i as u64; 16]), s).unwrap();
        }
        let idx = b.build().unwrap();
        prop_assert_eq!(idx.partitioning(), how);
        let bounds = idx.partition_bounds();
        let mut sorted = sizes.clone();
        sorted.sort_unstable();
        let counts: Vec<usize> = bounds.iter().map(|b| b.2).collect();
        prop_assert_eq!(counts.iter().sum::<usize>(), sizes.len());
        prop_assert!(counts.iter().all(|&c| c > 0));
        if equi {
            prop_assert_eq!(bounds.len(), parts.min(sizes.len()));
            if let (Some(lo), Some(hi)) = (counts.iter().min(), counts.iter().max()) {
                prop_assert!(hi - lo <= 1);
            }
        } else {
            let mut distinct = sorted.clone();
            distinct.dedup();
            prop_assert_eq!(bounds.len(), parts.min(distinct.len()));
            // No size is split between two partitions.
            prop_assert!(bounds.windows(2).all(|w| w[0].1 < w[1].0));
        }
        let mut at = 0;
        for (lower, upper, count) in bounds {
            prop_assert_eq!((lower, upper), (sorted[at], sorted[at + count - 1]));
            at += count;
        }
    }

    #[test]
    fn optimal_ends_match_a_brute_force_search(
        hist in proptest::collection::btree_map(1u64..300, 1u64..50, 1..11),
        parts in 1usize..12,
        cap in 1usize..12,
    ) {
        let hist: Vec<(u64, u64)> = hist.into_iter().collect();
        let m = hist.len();
        let ends = optimal_ends(&hist, parts, cap);
        prop_assert!(!ends.is_empty() && ends.len() <= parts);
        prop_assert_eq!(ends.last().copied(), Some(m));
        prop_assert!(ends.windows(2).all(|w| w[0] < w[1]));
        let groups = m.min(cap);
        let allowed: Vec<usize> = (1..groups).map(|g| g * m / groups).collect();
        prop_assert!(ends[..ends.len() - 1].iter().all(|e| allowed.contains(e)));
        let costs = Costs::new(&hist);
        let total = |ends: &[usize]| {
            let mut lo = 0;
            ends.iter().map(|&hi| { let c = costs.cost(lo, hi); lo = hi; c }).sum::<f64>()
        };
        // Every subset of the allowed cuts, at most parts - 1 of them.
        let mut best = f64::INFINITY;
        for mask in 0u32..1 << allowed.len() {
            if mask.count_ones() as usize >= parts {
                continue;
            }
            let mut cut: Vec<usize> = allowed
                .iter()
                .enumerate()
                .filter(|(i, _)| mask >> i & 1 == 1)
                .map(|(_, &e)| e)
                .collect();
            cut.push(m);
            best = best.min(total(&cut));
        }
        let got = total(&ends);
        prop_assert!((got - best).abs() <= 1e-9 * (1.0 + best), "{} vs {}", got, best);
    }
}

#[test]
fn quadrature_matches_a_fine_midpoint_sum() {
    let p = |c: f64, ratio: f64, b: i32, r: i32| {
        let s = (c / (1.0 + ratio - c)).clamp(0.0, 1.0);
        1.0 - (1.0 - s.powi(r)).powi(b)
    };
    let midpoint = |lo: f64, hi: f64, f: &dyn Fn(f64) -> f64| {
        let n = 200_000;
        let w = (hi - lo) / n as f64;
        (0..n)
            .map(|i| f(lo + (i as f64 + 0.5) * w) * w)
            .sum::<f64>()
    };
    for &(t, ratio, b, r) in &[
        (0.5, 1.0, 32, 4),
        (0.8, 3.0, 128, 1),
        (0.9, 0.95, 16, 8),
        (0.6, 20.0, 42, 3),
        (0.7, 0.7, 1, 8),
    ] {
        let (fp, fnm) = Tuner::masses(t, ratio, b as usize, r as usize);
        let fp_ref = midpoint(0.0, t.min(ratio), &|c| p(c, ratio, b, r));
        let fn_ref = if ratio > t {
            midpoint(t, ratio.min(1.0), &|c| 1.0 - p(c, ratio, b, r))
        } else {
            0.0
        };
        assert!(
            (fp - fp_ref).abs() < 1e-6,
            "{t} {ratio} {b}x{r}: {fp} vs {fp_ref}"
        );
        assert!(
            (fnm - fn_ref).abs() < 1e-6,
            "{t} {ratio} {b}x{r}: {fnm} vs {fn_ref}"
        );
    }
}

#[test]
fn the_chosen_banding_minimises_the_error_by_brute_force() {
    let tuner = Tuner {
        num_perm: 64,
        max_rows: 6,
        fp_weight: 0.5,
        fn_weight: 0.5,
    };
    for &(t, ratio) in &[(0.5, 1.0), (0.9, 1.5), (0.7, 8.0), (0.6, 0.65), (1.0, 2.0)] {
        let err = |b: usize, r: usize| {
            let (fp, fnm) = Tuner::masses(t, ratio, b, r);
            0.5 * fp + 0.5 * fnm
        };
        let (b, r) = tuner.optimal(t, ratio);
        let best = (1..=6)
            .flat_map(|r| (1..=64 / r).map(move |b| (b, r)))
            .map(|(b, r)| err(b, r))
            .fold(f64::INFINITY, f64::min);
        assert!(err(b, r) <= best + 1e-12, "{t} {ratio}: {b}x{r}");
    }
    // Large sets need many narrow bands, ratios near 1 fewer wider ones.
    assert!(tuner.optimal(0.5, 30.0).1 <= tuner.optimal(0.9, 1.0).1);
}

#[test]
fn ratio_buckets_round_up() {
    for (u, q) in [(10, 10), (7, 100), (1000, 3), (1, u64::MAX), (u64::MAX, 1)] {
        let k = ratio_bucket(u, q);
        let ratio = u as f64 / q as f64;
        // Past the clamp (e^±40) the grid stops; no real ratio gets there.
        assert!(
            bucket_ratio(k) >= ratio * (1.0 - 1e-9) || k.abs() == 320,
            "{u}/{q}"
        );
        assert!(bucket_ratio(k - 1) < ratio || k.abs() == 320, "{u}/{q}");
    }
    assert_eq!(ratio_bucket(5, 5), 0);
}

/// Sets of words `w{i}` as text, with their sizes.
fn words(range: impl Iterator<Item = u64>) -> String {
    range.map(|i| alloc::format!("w{i} ")).collect()
}

/// Pooled recall and precision at thresholds 0.5..0.9 of an ensemble
/// with weights `(fp, fn)` on generated sets: 300 sets of 20..2000 distinct
/// words, each a random stretch of a 40 000-word vocabulary (so they
/// overlap); 200 queries, each half to all of a set, sometimes shifted half
/// out of it.
fn recall_precision(fp_weight: f64, fn_weight: f64) -> [(f64, f64); 5] {
    let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |m: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % m
    };
    let mut sets = Vec::new();
    let mut b = LshEnsembleBuilder::<128>::new().weights(fp_weight, fn_weight);
    for id in 0..300u64 {
        let len = 20 + next(1980);
        let start = next(40_000);
        let text = words(start..start + len);
        b.insert(id, &fp.fingerprint(&text).unwrap(), len).unwrap();
        sets.push((start, start + len));
    }
    let idx = b.build().unwrap();
    let (mut tp, mut found, mut truth) = ([0usize; 5], [0usize; 5], [0usize; 5]);
    for _ in 0..200 {
        let (s, e) = sets[next(300) as usize];
        let len = ((e - s) * (5 + next(6)) / 10).max(5);
        let start = s + next(e - s - len + 1) + len / 2 * next(2);
        let q = (start, start + len);
        let sig = fp.fingerprint(&words(q.0..q.1)).unwrap();
        for (k, t) in [0.5, 0.6, 0.7, 0.8, 0.9].into_iter().enumerate() {
            let got: BTreeSet<u64> = idx.query(&sig, len, t).unwrap().into_iter().collect();
            for (id, &(xs, xe)) in sets.iter().enumerate() {
                let inter = xe.min(q.1).saturating_sub(xs.max(q.0));
                if inter as f64 / len as f64 >= t {
                    truth[k] += 1;
                    tp[k] += usize::from(got.contains(&(id as u64)));
                }
            }
            found[k] += got.len();
        }
    }
    assert!(truth.iter().all(|&n| n > 500), "{truth:?}");
    core::array::from_fn(|k| {
        (
            tp[k] as f64 / truth[k] as f64,
            tp[k] as f64 / found[k] as f64,
        )
    })
}

#[test]
fn recall_and_precision_on_generated_sets() {
    // Equal weights trade recall for precision as the threshold rises (the
    // error integrals weigh the wide range below the threshold against the
    // narrow one above it); these are the measured figures less a margin.
    let balanced = recall_precision(0.5, 0.5);
    let floors = [0.9, 0.85, 0.7, 0.5, 0.25];
    for (k, &(recall, precision)) in balanced.iter().enumerate() {
        assert!(recall >= floors[k], "threshold #{k}: {balanced:?}");
        assert!(precision >= 0.75, "threshold #{k}: {balanced:?}");
    }
    // Weighing misses nine times more buys recall with precision.
    let recall_first = recall_precision(0.1, 0.9);
    for k in 0..5 {
        assert!(
            recall_first[k].0 >= balanced[k].0.max(0.9),
            "{recall_first:?}"
        );
        assert!(recall_first[k].1 <= balanced[k].1);
    }
}

fn small_index() -> LshEnsemble<16> {
    let mut b = LshEnsembleBuilder::<16>::new().partitions(3).max_rows(4);
    for i in 0..20u64 {
        let mut h = [0u64; 16];
        for (j, s) in h.iter_mut().enumerate() {
            *s = (i * 31 + j as u64) % 7;
        }
        b.insert(i * 3, &sig16(h), 10 + i * 5).unwrap();
    }
    b.build().unwrap()
}

#[test]
fn bytes_round_trip() {
    let idx = small_index();
    let bytes = idx.to_bytes();
    let back = LshEnsemble::<16>::from_bytes(&bytes).unwrap();
    assert_eq!(back.to_bytes(), bytes);
    assert_eq!(back.partition_bounds(), idx.partition_bounds());
    for i in 0..20u64 {
        let (sig, size) = idx.get(i * 3).unwrap();
        assert_eq!(back.get(i * 3).unwrap(), (sig, size));
        for t in [0.3, 0.7, 1.0] {
            assert_eq!(
                back.query(sig, size / 2, t).unwrap(),
                idx.query(sig, size / 2, t).unwrap()
            );
        }
    }
}

#[test]
fn bytes_golden() {
    let mut b = LshEnsembleBuilder::<2>::new().partitions(2).max_rows(1);
    b.insert(
        9,
        &MinHashSig {
            hashes: [5, 6],
            ..MinHashSig::empty()
        },
        3,
    )
    .unwrap();
    let bytes = b.build().unwrap().to_bytes();
    let hex: String = bytes.iter().map(|b| alloc::format!("{b:02x}")).collect();
    assert_eq!(
        hex,
        concat!(
            "54585446504c4500010001000200000002000000020000000100000001000000",
            "000000000000e03f000000000000e03f01000000000000000900000000000000",
            "030000000000000005000000000000000600000000000000556874552e6cb019"
        )
    );
}

#[test]
fn damaged_bytes_are_errors() {
    let bytes = small_index().to_bytes();
    for i in 0..bytes.len() {
        for bit in [0x01, 0x80] {
            let mut bad = bytes.clone();
            bad[i] ^= bit;
            assert!(
                matches!(LshEnsemble::<16>::from_bytes(&bad), Err(Error::Corrupt(_))),
                "{i}"
            );
        }
    }
    for len in 0..bytes.len() {
        assert!(matches!(
            LshEnsemble::<16>::from_bytes(&bytes[..len]),
            Err(Error::Corrupt(_))
        ));
    }
    // A valid checksum over wrong contents: version, H and a zero size.
    let reseal = |mut b: Vec<u8>| {
        let n = b.len() - 8;
        let sum = crate::classical::xxh3_64(&b[..n]);
        b[n..].copy_from_slice(&sum.to_le_bytes());
        b
    };
    let mut v = bytes.clone();
    v[8] = 2;
    assert!(matches!(
        LshEnsemble::<16>::from_bytes(&reseal(v)),
        Err(Error::SchemaMismatch {
            expected: 1,
            actual: 2
        })
    ));
    // An unknown partitioning.
    let mut v = bytes.clone();
    v[28] = 2;
    assert!(matches!(
        LshEnsemble::<16>::from_bytes(&reseal(v)),
        Err(Error::Corrupt(_))
    ));
    assert!(matches!(
        LshEnsemble::<8>::from_bytes(&bytes),
        Err(Error::InvalidInput(_))
    ));
    let mut v = bytes.clone();
    v[56 + 8..56 + 16].fill(0);
    assert!(matches!(
        LshEnsemble::<16>::from_bytes(&reseal(v)),
        Err(Error::Corrupt(_))
    ));
    let mut v = bytes.clone();
    v[20..24].copy_from_slice(&0u32.to_le_bytes());
    assert!(matches!(
        LshEnsemble::<16>::from_bytes(&reseal(v)),
        Err(Error::Corrupt(_))
    ));
    // A hostile set count cannot make it allocate.
    let mut v = bytes;
    v[48..56].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        LshEnsemble::<16>::from_bytes(&reseal(v)),
        Err(Error::Corrupt(_))
    ));
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trip() {
    let idx = small_index();
    let json = serde_json::to_string(&idx).unwrap();
    let back: LshEnsemble<16> = serde_json::from_str(&json).unwrap();
    assert_eq!(back.to_bytes(), idx.to_bytes());
    assert!(serde_json::from_str::<LshEnsemble<16>>("[1,2,3]").is_err());
}

#[test]
fn bad_input_is_a_typed_error() {
    let idx = small_index();
    let (sig, _) = idx.get(0).unwrap();
    for t in [0.0, -0.5, 1.0001, f64::NAN, f64::INFINITY] {
        assert!(
            matches!(idx.query(sig, 10, t), Err(Error::Config(_))),
            "{t}"
        );
        assert!(idx.query_estimated(sig, 10, t).is_err());
        assert!(idx.bandings(10, t).is_err());
    }
    assert!(matches!(
        idx.query(sig, 0, 0.5),
        Err(Error::InvalidInput(_))
    ));
    let mut b = LshEnsembleBuilder::<16>::new();
    assert!(matches!(b.insert(1, sig, 0), Err(Error::InvalidInput(_))));
    b.insert(1, sig, 4).unwrap();
    b.insert(1, sig, 5).unwrap();
    assert!(matches!(b.clone().build(), Err(Error::InvalidInput(_))));
    for bad in [
        LshEnsembleBuilder::<16>::new().num_perm(0),
        LshEnsembleBuilder::<16>::new().num_perm(17),
        LshEnsembleBuilder::<16>::new().partitions(0),
        LshEnsembleBuilder::<16>::new().num_perm(4).max_rows(5),
        LshEnsembleBuilder::<16>::new().max_rows(0),
        LshEnsembleBuilder::<16>::new().weights(f64::NAN, 1.0),
        LshEnsembleBuilder::<16>::new().weights(0.0, 0.0),
    ] {
        assert!(matches!(bad.build(), Err(Error::Config(_))));
    }
    let empty = LshEnsembleBuilder::<16>::new().build().unwrap();
    assert!(empty.is_empty() && empty.query(sig, 3, 0.5).unwrap().is_empty());
}

#[test]
fn estimated_and_verified_queries_filter_the_candidates() {
    let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
    let mut b = LshEnsembleBuilder::<128>::new().partitions(4);
    let ranges = [
        (0u64, 300u64),
        (100, 140),
        (1000, 1300),
        (150, 320),
        (5000, 5010),
    ];
    for (id, &(s, e)) in ranges.iter().enumerate() {
        b.insert(id as u64, &fp.fingerprint(&words(s..e)).unwrap(), e - s)
            .unwrap();
    }
    let idx = b.build().unwrap();
    let q = (120u64, 220u64);
    let sig = fp.fingerprint(&words(q.0..q.1)).unwrap();
    let inter = |id: u64| {
        let (s, e) = ranges[id as usize];
        e.min(q.1).saturating_sub(s.max(q.0))
    };
    let verified = idx.query_verified(&sig, 100, 0.6, inter).unwrap();
    assert_eq!(verified, [(0, 1.0), (3, 0.7)]);
    assert_eq!(
        idx.query_verified(&sig, 100, 0.8, inter).unwrap(),
        [(0, 1.0)]
    );
    let candidates = idx.query(&sig, 100, 0.6).unwrap();
    let estimated = idx.query_estimated(&sig, 100, 0.6).unwrap();
    assert!(
        estimated
            .iter()
            .all(|(id, c)| candidates.contains(id) && *c >= 0.6)
    );
    assert!(estimated.iter().any(|e| e.0 == 0));
    assert!(!estimated.iter().any(|e| e.0 == 2 || e.0 == 4));
}

#[test]
fn choices_match_reference_values() {
    // (threshold, u/q) -> (bands, rows) at 128 slots, rows <= 8, equal
    // weights: reference values of the paper's integrals computed with a
    // 1000-step midpoint rule (the choices datasketch 2.0 makes).
    let tuner = Tuner {
        num_perm: 128,
        max_rows: 8,
        fp_weight: 0.5,
        fn_weight: 0.5,
    };
    for (t, xq, want) in [
        (0.9, 10.0, (21, 6)),
        (0.9, 2.0, (21, 6)),
        (0.6, 7.5, (64, 2)),
        (0.5, 1.0, (32, 4)),
        (0.8, 30.0, (42, 3)),
        (0.7, 1.2, (25, 5)),
    ] {
        assert_eq!(tuner.optimal(t, xq), want, "{t} {xq}");
    }
}
