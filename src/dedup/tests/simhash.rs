//! The SimHash path against a brute-force candidate finder.

use alloc::string::String;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::super::simhash::SimHashDedup;
use super::super::{CandidateIndex, EmptyDocuments, Similarity, engine};
use super::proptests::{Reference, check_report};
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

impl CandidateIndex<SimHash64> for BruteForce {
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

fn corpus() -> impl Strategy<Value = Vec<String>> {
    let doc = proptest::collection::vec(0usize..WORDS.len(), 0..8);
    proptest::collection::vec(doc, 0..12).prop_map(|docs| {
        docs.into_iter()
            .map(|d| d.iter().map(|&w| WORDS[w]).collect::<Vec<_>>().join(" "))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn simhash_matches_brute_force(
        texts in corpus(),
        k in prop::sample::select(vec![0u32, 3, 8, 16, 24, 64]),
        empty in prop::sample::select(vec![EmptyDocuments::Keep, EmptyDocuments::Drop]),
        record in any::<bool>(),
        chunk in prop::sample::select(vec![1usize, 2, 5, engine::SCAN_CHUNK]),
        by_length in any::<bool>(),
    ) {
        let mut dedup = SimHashDedup::new()
            .with_max_distance(k)
            .with_empty_documents(empty)
            .with_record_pairs(record);
        dedup.scan_chunk = chunk;
        let ids: Vec<u64> = (0..texts.len() as u64).map(|i| 1000 - i).collect();
        let report = run(&dedup, &ids, &texts, by_length)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;

        let sigs: Vec<Option<SimHash64>> =
            texts.iter().map(|t| dedup.fingerprinter().fingerprint(t).ok()).collect();
        let measure = |a: usize, b: usize| match (sigs[a], sigs[b]) {
            (Some(x), Some(y)) => Similarity::Hamming(hamming(x, y)),
            _ => Similarity::Hamming(u32::MAX),
        };
        let mut pairs = Vec::new();
        for b in 0..texts.len() {
            for a in 0..b {
                if let (Some(x), Some(y)) = (sigs[a], sigs[b])
                    && hamming(x, y) <= k
                {
                    pairs.push((a, b, measure(a, b)));
                }
            }
        }
        let reference = Reference {
            present: sigs.iter().map(Option::is_some).collect(),
            pairs,
            measure: &measure,
        };
        let keys: Vec<usize> = texts.iter().map(String::len).collect();
        check_report(&report, &ids, &reference, by_length.then_some(&keys[..]), empty, record)?;

        // The real index finds exactly what brute force finds.
        if k <= crate::lsh::MAX_AUTO_DISTANCE {
            let items = ids.iter().copied().zip(texts.iter());
            let public = if by_length {
                dedup.run_by_priority(items, |_, t| t.len())
            } else {
                dedup.run(items)
            };
            prop_assert_eq!(public.map_err(|e| TestCaseError::fail(e.to_string()))?, report);
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
