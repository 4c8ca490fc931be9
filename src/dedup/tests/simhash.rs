//! The SimHash path against a brute-force candidate finder and a
//! brute-force reference.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use proptest::prelude::*;

use super::super::EmptyDocuments;
use super::super::Similarity;
use super::super::simhash::{CandidateIndex, SimHashDedup};
use super::proptests::{Reference, check_report, components, first_copies, on_one_and_four};
use crate::{Fingerprinter, Result, SimHash64, hamming};

/// Every stored signature within Hamming distance `k` of the probe, found by
/// comparing with all of them. For tests only: a real run needs an index.
pub(in super::super::super) struct BruteForce {
    k: u32,
    docs: Vec<(u64, SimHash64)>,
}

impl BruteForce {
    pub(in super::super::super) fn new(k: u32) -> Self {
        Self {
            k,
            docs: Vec::new(),
        }
    }
}

impl CandidateIndex for BruteForce {
    fn insert_batch(&mut self, docs: Vec<(u64, SimHash64)>) -> Result<()> {
        self.docs.extend(docs);
        Ok(())
    }

    fn candidates(&self, sig: &SimHash64) -> Vec<u64> {
        self.docs
            .iter()
            .filter(|(_, s)| hamming(*s, *sig) <= self.k)
            .map(|&(id, _)| id)
            .collect()
    }
}

fn run(
    dedup: &SimHashDedup,
    ids: &[u64],
    texts: &[String],
    by_length: bool,
) -> Result<super::super::DedupReport> {
    let index = BruteForce::new(dedup.max_distance());
    if by_length {
        dedup.execute(index, ids, texts, Some(|i: usize| texts[i].len()))
    } else {
        dedup.execute(index, ids, texts, None::<fn(usize) -> u8>)
    }
}

const WORDS: [&str; 10] = [
    "red", "green", "blue", "cyan", "magenta", "yellow", "black", "white", "grey", "pink",
];

/// Short texts over a small vocabulary (many equal and near signatures),
/// with byte-for-byte copies and respellings of earlier texts (same
/// signature, different bytes).
fn corpus() -> impl Strategy<Value = Vec<String>> {
    let doc = (
        proptest::collection::vec(0usize..WORDS.len(), 0..8),
        0u8..8,
        any::<usize>(),
    );
    proptest::collection::vec(doc, 0..16).prop_map(|docs| {
        let mut texts: Vec<String> = Vec::new();
        for (words, kind, at) in docs {
            let earlier = (!texts.is_empty()).then(|| texts[at % texts.len()].clone());
            let text = match (kind, earlier) {
                (0 | 1, Some(t)) => t,
                (2, Some(t)) => t.to_uppercase(),
                (3, Some(t)) => t.replace(' ', "   "),
                _ => words
                    .iter()
                    .map(|&w| WORDS[w])
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            texts.push(text);
        }
        texts
    })
}

/// The SimHash links by the definition: copies and equal values to their
/// first occurrence at distance 0, then every pair of first occurrences of
/// distinct values within `k`. Returns the links and the candidate count
/// (every pair within `k` is a candidate of a brute-force index).
fn simhash_links(
    texts: &[String],
    sigs: &[Option<SimHash64>],
    k: u32,
) -> (Vec<(usize, usize, Similarity)>, u64) {
    let first = first_copies(texts);
    let mut pairs = Vec::new();
    let mut value_first: BTreeMap<u64, usize> = BTreeMap::new();
    let mut values = Vec::new();
    for i in 0..texts.len() {
        let Some(sig) = sigs[i] else { continue };
        if first[i] != i {
            pairs.push((first[i], i, Similarity::Hamming(0)));
            continue;
        }
        match value_first.get(&sig.0) {
            Some(&f) => pairs.push((f, i, Similarity::Hamming(0))),
            None => {
                value_first.insert(sig.0, i);
                values.push(i);
            }
        }
    }
    let mut candidates = pairs.len() as u64;
    for (x, &b) in values.iter().enumerate() {
        for &a in &values[..x] {
            let (Some(sa), Some(sb)) = (sigs[a], sigs[b]) else {
                continue;
            };
            let d = hamming(sa, sb);
            if d <= k {
                candidates += 1;
                pairs.push((a, b, Similarity::Hamming(d)));
            }
        }
    }
    (pairs, candidates)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn simhash_matches_brute_force(
        texts in corpus(),
        k in prop::sample::select(vec![0u32, 3, 8, 16, 24, 64]),
        empty in prop::sample::select(vec![EmptyDocuments::Keep, EmptyDocuments::Drop]),
        record in any::<bool>(),
        by_length in any::<bool>(),
    ) {
        let dedup = SimHashDedup::new()
            .with_max_distance(k)
            .with_empty_documents(empty)
            .with_record_pairs(record);
        let ids: Vec<u64> = (0..texts.len() as u64).map(|i| 1000 - i).collect();
        let report = on_one_and_four(|| {
            run(&dedup, &ids, &texts, by_length).map_err(|e| e.to_string())
        })?
        .map_err(TestCaseError::fail)?;

        let sigs: Vec<Option<SimHash64>> =
            texts.iter().map(|t| dedup.fingerprinter().fingerprint(t).ok()).collect();
        let measure = |a: usize, b: usize| match (sigs[a], sigs[b]) {
            (Some(x), Some(y)) => Similarity::Hamming(hamming(x, y)),
            _ => Similarity::Hamming(u32::MAX),
        };
        let (pairs, candidates) = simhash_links(&texts, &sigs, k);
        let reference = Reference {
            present: sigs.iter().map(Option::is_some).collect(),
            pairs,
            candidates,
            measure: &measure,
        };
        let keys: Vec<usize> = texts.iter().map(String::len).collect();
        check_report(&report, &ids, &reference, by_length.then_some(&keys[..]), empty, record)?;

        // The clusters are those of every pair within `k`, collapse or not.
        let mut all = Vec::new();
        for b in 0..texts.len() {
            for a in 0..b {
                if let (Some(x), Some(y)) = (sigs[a], sigs[b])
                    && hamming(x, y) <= k
                {
                    all.push((a, b));
                }
            }
        }
        let want: Vec<Vec<u64>> = components(texts.len(), &all)
            .into_iter()
            .map(|m| m.into_iter().map(|x| ids[x]).collect())
            .collect();
        let got: Vec<Vec<u64>> = report.clusters.iter().map(|c| c.members.clone()).collect();
        prop_assert_eq!(got, want);

        // The real index finds exactly what brute force finds.
        if k <= crate::lsh::MAX_AUTO_DISTANCE {
            let public = on_one_and_four(|| {
                let items = ids.iter().copied().zip(texts.iter());
                let r = if by_length {
                    dedup.run_by_priority(items, |_, t| t.len())
                } else {
                    dedup.run(items)
                };
                r.map_err(|e| e.to_string())
            })?;
            prop_assert_eq!(public.map_err(TestCaseError::fail)?, report);
        }
    }
}

#[test]
fn simhash_errors() {
    let texts = [String::from("one two three"), String::from("   ")];
    let err = run(&SimHashDedup::new(), &[4, 5], &texts, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: dedup: document id 5 (item 1): empty document"
    );
    let err = run(
        &SimHashDedup::new().with_max_distance(65),
        &[4, 5],
        &texts,
        false,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "config error: SimHash max distance must be at most 64; got 65"
    );
    // The index supports radii up to 7.
    let err = SimHashDedup::new()
        .with_max_distance(8)
        .run_texts(&texts)
        .unwrap_err();
    assert!(matches!(err, crate::Error::Config(_)), "{err}");
    let err = SimHashDedup::new()
        .run([(1, "a b"), (1, "c d")])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: dedup: id 1 occurs more than once (items 0 and 1); ids must be unique"
    );
}

#[test]
fn simhash_near_duplicates() {
    let base = "the committee approved the annual budget after a long debate about road repairs and school funding";
    let texts = [
        String::from(base),
        alloc::format!("{base}."),
        String::from(
            "a recipe for bread needs flour water salt yeast and a warm place to rise overnight",
        ),
        base.replace("long", "lengthy"),
    ];
    let report = run(
        &SimHashDedup::new().with_record_pairs(true),
        &[1, 2, 3, 4],
        &texts,
        false,
    )
    .unwrap();
    assert_eq!(report.decisions[1].duplicate_of, Some(1));
    assert_eq!(report.decisions[1].similarity, Some(Similarity::Hamming(0)));
    assert!(report.decisions[2].keep && report.decisions[2].cluster.is_none());
    assert!(
        report
            .pairs
            .iter()
            .all(|p| p.similarity.hamming().is_some_and(|d| d <= 3))
    );
}

#[test]
fn equal_signatures_cost_one_link_each() {
    const N: usize = 20_000;
    let dedup = SimHashDedup::new().with_record_pairs(true);
    let spellings = ["a b", "a  b", "A b"];
    let mixed: Vec<&str> = (0..N).map(|i| spellings[i % 3]).collect();
    let variants = super::case_variants("abcdefghijklmnopqrstu", N);
    for report in [
        dedup.run_texts(&mixed).unwrap(),
        dedup.run_texts(&variants).unwrap(),
    ] {
        assert_eq!(report.clusters.len(), 1);
        assert_eq!(report.clusters[0].members.len(), N);
        let s = report.stats;
        assert_eq!(
            (s.candidate_pairs, s.verified_pairs),
            (N as u64 - 1, N as u64 - 1)
        );
        // Copies link to the first of their spelling, spellings to the
        // first of the value.
        assert!(
            report
                .pairs
                .iter()
                .all(|p| p.a < 3 && p.similarity == Similarity::Hamming(0))
        );
    }
}
