//! Unit tests of [`MinHashDedup`] and the report.

#[cfg(feature = "std")]
mod proptests;
#[cfg(all(feature = "std", feature = "simhash"))]
mod simhash;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cmp::Reverse;

use super::*;
use crate::{
    Canonicalizer, Error, LshIndexBuilder, MinHashFingerprinter, ShingleTokenizer, WordTokenizer,
};

const NEWS: &str = "The city council voted on Tuesday to expand the bicycle lane network across \
    the northern districts, citing a sharp rise in commuter cycling since the spring.";
const RECIPE: &str = "Whisk the eggs with sugar until pale, fold in the sifted flour, then bake \
    the batter in a buttered tin for forty minutes at a moderate heat.";

fn corpus() -> Vec<(u64, String)> {
    vec![
        (100, NEWS.to_string()),
        (200, RECIPE.to_string()),
        (300, NEWS.to_uppercase()), // same tokens after case folding
        (
            400,
            format!("{NEWS} Officials expect work to begin next year."),
        ),
        (500, RECIPE.replace("forty", "fifty")),
    ]
}

fn words(range: core::ops::Range<u32>) -> String {
    range
        .map(|i| format!("w{i:02}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn defaults() {
    let d = MinHashDedup::new();
    assert_eq!(d.threshold(), 0.8);
    assert_eq!(d.verification(), Verification::Exact);
    assert_eq!(d.banding().unwrap(), LshIndexBuilder::new(32, 4));
    assert_eq!(d.fingerprinter().tokenizer().k, 5);
    assert_eq!(
        d.fingerprinter().config_hash(),
        MinHashFingerprinter::<_, 128>::new(
            Canonicalizer::default(),
            ShingleTokenizer::new(5, WordTokenizer).unwrap()
        )
        .config_hash()
    );
    assert_eq!(MinHashDedup::default().threshold(), 0.8);
}

#[test]
fn keeps_the_first_of_each_cluster() {
    let report = MinHashDedup::new().run(corpus()).unwrap();
    assert_eq!(report.kept_ids().collect::<Vec<_>>(), [100, 200, 400, 500]);
    assert_eq!(report.dropped_ids().collect::<Vec<_>>(), [300]);
    assert_eq!(
        report.clusters,
        [Cluster {
            kept: 100,
            members: vec![100, 300]
        }]
    );
    let d = &report.decisions[2];
    assert_eq!(
        (d.id, d.keep, d.duplicate_of, d.cluster),
        (300, false, Some(100), Some(0))
    );
    assert_eq!(d.similarity, Some(Similarity::Jaccard(1.0)));
    assert_eq!(report.stats.documents, 5);
    assert_eq!(
        (
            report.stats.kept,
            report.stats.dropped,
            report.stats.clusters
        ),
        (4, 1, 1)
    );
    // Nothing recorded unless asked for.
    assert!(report.pairs.is_empty());
}

#[test]
fn a_lower_threshold_merges_more() {
    let report = MinHashDedup::new()
        .with_threshold(0.5)
        .with_verification(Verification::Exact)
        .with_record_pairs(true)
        .run(corpus())
        .unwrap();
    assert_eq!(report.kept_ids().collect::<Vec<_>>(), [100, 200]);
    assert_eq!(report.clusters[0].members, [100, 300, 400]);
    assert_eq!(report.clusters[1].members, [200, 500]);
    for p in &report.pairs {
        assert!(p.similarity.jaccard().unwrap() >= 0.5, "{p:?}");
    }
    assert_eq!(report.stats.verified_pairs as usize, report.pairs.len());
}

#[test]
fn repeated_id_is_an_error() {
    let err = MinHashDedup::new()
        .run([(7, "a b c d e f"), (8, "g h i j k"), (7, "l m n o p")])
        .unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)));
    assert_eq!(
        err.to_string(),
        "invalid input: dedup: id 7 occurs more than once (items 0 and 2); ids must be unique"
    );
}

#[test]
fn empty_documents() {
    let items = [(1, NEWS), (2, "  !? "), (3, NEWS), (4, "")];
    let err = MinHashDedup::new().run(items).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: dedup: document id 2 (item 1): empty document"
    );
    let keep = MinHashDedup::new()
        .with_empty_documents(EmptyDocuments::Keep)
        .run(items)
        .unwrap();
    assert_eq!(keep.kept_ids().collect::<Vec<_>>(), [1, 2, 4]);
    assert!(keep.decisions[1].empty && keep.decisions[1].cluster.is_none());
    assert_eq!(keep.stats.empty, 2);
    let drop = MinHashDedup::new()
        .with_empty_documents(EmptyDocuments::Drop)
        .run(items)
        .unwrap();
    assert_eq!(drop.kept_ids().collect::<Vec<_>>(), [1]);
    assert_eq!(drop.decisions[3].duplicate_of, None);
    assert_eq!((drop.stats.kept, drop.stats.dropped), (1, 3));
}

#[test]
fn configuration_errors() {
    let msg = |d: MinHashDedup| d.run([(1, NEWS)]).unwrap_err().to_string();
    for t in [0.0, -0.1, 1.01, f32::NAN, f32::INFINITY] {
        assert_eq!(
            msg(MinHashDedup::new().with_threshold(t)),
            format!("config error: dedup threshold must be in (0.0, 1.0]; got {t}")
        );
    }
    assert_eq!(
        msg(MinHashDedup::new().with_banding(LshIndexBuilder::new(0, 128))),
        "config error: bands and rows must be > 0"
    );
    // The fingerprinter's own check comes before any document is read.
    let fp = MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 5000,
            inner: WordTokenizer,
        },
    );
    let err = MinHashDedup::with_fingerprinter(fp)
        .run([(1, "")])
        .unwrap_err();
    assert!(err.to_string().contains("5000"), "{err}");
}

#[test]
fn priorities() {
    let base = words(0..30);
    let items = vec![
        (5, base.clone()),
        (3, format!("{base} w98")),
        (9, format!("{base} w98 w99")),
        (1, format!("{base} w97 w96")),
    ];
    let dedup = MinHashDedup::with_fingerprinter(MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        WordTokenizer,
    ))
    .with_threshold(0.9);
    let first = dedup.run(items.clone()).unwrap();
    assert_eq!(
        first.clusters,
        [Cluster {
            kept: 5,
            members: vec![5, 3, 9, 1]
        }]
    );
    let longest = dedup
        .run_by_priority(items.clone(), |_, t| t.len())
        .unwrap();
    // 9 and 1 tie on length; 9 comes first.
    assert_eq!(longest.clusters[0].kept, 9);
    assert_eq!(longest.decisions[0].duplicate_of, Some(9));
    let lowest = dedup
        .run_by_priority(items.clone(), |id, _| Reverse(id))
        .unwrap();
    assert_eq!(lowest.kept_ids().collect::<Vec<_>>(), [1]);
    // The closure sees each member once.
    let mut calls = Vec::new();
    dedup
        .run_by_priority(items, |id, _| {
            calls.push(id);
            0
        })
        .unwrap();
    assert_eq!(calls, [5, 3, 9, 1]);
}

#[test]
fn run_texts_uses_positions() {
    let texts: Vec<String> = corpus().into_iter().map(|(_, t)| t).collect();
    let report = MinHashDedup::new().run_texts(&texts).unwrap();
    assert_eq!(report.kept_ids().collect::<Vec<_>>(), [0, 1, 3, 4]);
    assert_eq!(report.decisions[2].duplicate_of, Some(0));
    let none: [&str; 0] = [];
    assert_eq!(
        MinHashDedup::new().run_texts(&none).unwrap(),
        DedupReport::default()
    );
}

#[test]
fn clusters_are_connected_components() {
    // A–B and B–C pass 0.6 (8/12); A–C does not (6/14), yet C joins A's cluster.
    let dedup = MinHashDedup::with_fingerprinter(MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        WordTokenizer,
    ))
    .with_threshold(0.6)
    .with_verification(Verification::Exact)
    .with_record_pairs(true);
    let report = dedup
        .run([(1, words(0..10)), (2, words(2..12)), (3, words(4..14))])
        .unwrap();
    assert_eq!(
        report.clusters,
        [Cluster {
            kept: 1,
            members: vec![1, 2, 3]
        }]
    );
    let pairs: Vec<(u64, u64, Similarity)> = report
        .pairs
        .iter()
        .map(|p| (p.a, p.b, p.similarity))
        .collect();
    let j = Similarity::Jaccard((8.0f64 / 12.0) as f32);
    assert_eq!(pairs, [(1, 2, j), (2, 3, j)]);
    assert_eq!(
        report.decisions[2].similarity,
        Some(Similarity::Jaccard((6.0f64 / 14.0) as f32))
    );
}

#[test]
fn exact_verification_passes_a_pair_exactly_at_the_threshold() {
    // 4 shared words out of 5: Jaccard 0.8 exactly.
    let dedup = MinHashDedup::with_fingerprinter(MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        WordTokenizer,
    ))
    .with_verification(Verification::Exact);
    let report = dedup.run([(1, words(0..4)), (2, words(0..5))]).unwrap();
    assert_eq!(
        report.decisions[1].similarity,
        Some(Similarity::Jaccard(0.8))
    );
    let stricter = dedup
        .with_threshold(0.81)
        .run([(1, words(0..4)), (2, words(0..5))]);
    assert!(stricter.unwrap().clusters.is_empty());
}

#[test]
fn verification_none_keeps_every_candidate() {
    // One band of one row: every pair whose first slot agrees is a candidate.
    let dedup = MinHashDedup::new()
        .with_threshold(0.99)
        .with_banding(LshIndexBuilder::new(128, 1))
        .with_verification(Verification::None)
        .with_record_pairs(true);
    let report = dedup.run(corpus()).unwrap();
    assert_eq!(report.stats.verified_pairs, report.stats.candidate_pairs);
    assert!(
        report
            .pairs
            .iter()
            .any(|p| p.similarity.jaccard().unwrap() < 0.99)
    );
    let verified = dedup
        .with_verification(Verification::Estimated)
        .run(corpus())
        .unwrap();
    assert!(
        verified
            .pairs
            .iter()
            .all(|p| p.similarity.jaccard().unwrap() >= 0.99)
    );
}

#[test]
fn threshold_one_needs_equal_token_sets() {
    let report = MinHashDedup::new()
        .with_threshold(1.0)
        .with_verification(Verification::Exact)
        .run(corpus())
        .unwrap();
    assert_eq!(report.dropped_ids().collect::<Vec<_>>(), [300]);
}

#[test]
fn exact_copies_are_linked_to_their_first_occurrence() {
    // Forty copies: 39 links to the first, no band bucket, no comparison.
    let mut items: Vec<(u64, &str)> = (0..40).map(|i| (i, NEWS)).collect();
    items.insert(1, (100, RECIPE));
    for verification in [
        Verification::Exact,
        Verification::Estimated,
        Verification::None,
    ] {
        let report = MinHashDedup::new()
            .with_verification(verification)
            .with_record_pairs(true)
            .run(items.clone())
            .unwrap();
        let mut members: Vec<u64> = (0..40).collect();
        members.sort_by_key(|&id| items.iter().position(|&(x, _)| x == id));
        assert_eq!(report.clusters, [Cluster { kept: 0, members }]);
        assert_eq!(report.pairs.len(), 39);
        assert!(
            report
                .pairs
                .iter()
                .all(|p| p.a == 0 && p.similarity == Similarity::Jaccard(1.0))
        );
        assert!(report.pairs.windows(2).all(|w| w[0].b < w[1].b));
        let s = report.stats;
        assert_eq!(
            (s.candidate_pairs, s.compared_pairs, s.verified_pairs),
            (39, 39, 39)
        );
        assert!(
            report.decisions[2..].iter().all(
                |d| d.duplicate_of == Some(0) && d.similarity == Some(Similarity::Jaccard(1.0))
            )
        );
    }
}

#[test]
fn a_copy_is_measured_against_a_kept_document_of_other_text() {
    // 1 and 3 are copies; the priority keeps 2, a near-duplicate of both.
    let base = words(0..30);
    let longer = format!("{base} w99");
    let items = vec![(1, base.clone()), (2, longer), (3, base)];
    let dedup = MinHashDedup::with_fingerprinter(MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        WordTokenizer,
    ))
    .with_threshold(0.9)
    .with_record_pairs(true);
    let report = dedup.run_by_priority(items, |_, t| t.len()).unwrap();
    assert_eq!(report.clusters[0].kept, 2);
    let j = Similarity::Jaccard((30.0f64 / 31.0) as f32);
    assert_eq!(report.decisions[0].similarity, Some(j));
    assert_eq!(report.decisions[2].similarity, Some(j));
    let pairs: Vec<(u64, u64, Similarity)> = report
        .pairs
        .iter()
        .map(|p| (p.a, p.b, p.similarity))
        .collect();
    assert_eq!(pairs, [(1, 2, j), (1, 3, Similarity::Jaccard(1.0))]);
}

#[test]
fn copies_of_an_empty_document_follow_the_policy() {
    let items = [(1, "  "), (2, NEWS), (3, "  "), (4, NEWS)];
    let err = MinHashDedup::new().run(items).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: dedup: document id 1 (item 0): empty document"
    );
    let keep = MinHashDedup::new()
        .with_empty_documents(EmptyDocuments::Keep)
        .run(items)
        .unwrap();
    assert_eq!(keep.kept_ids().collect::<Vec<_>>(), [1, 2, 3]);
    assert!(keep.decisions[2].empty && keep.decisions[2].cluster.is_none());
    assert_eq!((keep.stats.empty, keep.stats.verified_pairs), (2, 1));
    let drop = MinHashDedup::new()
        .with_empty_documents(EmptyDocuments::Drop)
        .run(items)
        .unwrap();
    assert_eq!(drop.kept_ids().collect::<Vec<_>>(), [2]);
    assert_eq!(drop.decisions[2].duplicate_of, None);
}

/// A word fingerprinter: two-word texts have tokens.
fn word_dedup() -> MinHashDedup<WordTokenizer> {
    MinHashDedup::with_fingerprinter(MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        WordTokenizer,
    ))
}

/// `n` spellings of one text that differ in letter case only: distinct
/// contents, one token sequence.
fn case_variants(text: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            text.chars()
                .enumerate()
                .map(|(b, c)| {
                    if b < usize::BITS as usize && (i >> b) & 1 == 1 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect()
        })
        .collect()
}

#[test]
fn identical_documents_cost_one_link_each() {
    const N: usize = 20_000;
    let dedup = word_dedup();
    let bands = dedup.banding().unwrap().bands;
    let copies = vec!["a b"; N];
    let report = dedup.run_texts(&copies).unwrap();
    assert_eq!(report.clusters.len(), 1);
    assert_eq!(report.clusters[0].members.len(), N);
    assert_eq!(report.stats.candidate_pairs, N as u64 - 1);
    assert!(report.stats.candidate_pairs <= (N * bands) as u64);
    // Distinct texts with one signature: every band has the first as its
    // representative, so each document is one candidate.
    let variants = case_variants("abcdefghijklmnopqrstu", N);
    let report = dedup.run_texts(&variants).unwrap();
    assert_eq!(report.clusters.len(), 1);
    assert_eq!(report.clusters[0].members.len(), N);
    assert_eq!(report.stats.candidate_pairs, N as u64 - 1);
    assert_eq!(report.stats.verified_pairs, N as u64 - 1);
}

#[test]
fn near_identical_documents_cost_at_most_one_candidate_per_band() {
    // A 200-word text with one word replaced per document: any two share
    // about 186 of 206 word 5-shingles (Jaccard 0.9), and most bands.
    const N: usize = 20_000;
    let base: Vec<String> = (0..200).map(|i| format!("word{i}")).collect();
    let texts: Vec<String> = (0..N)
        .map(|d| {
            let mut w = base.clone();
            w[d % 200] = format!("changed{d}");
            w.join(" ")
        })
        .collect();
    let dedup = MinHashDedup::new();
    let bands = dedup.banding().unwrap().bands;
    let report = dedup.run_texts(&texts).unwrap();
    assert_eq!(report.clusters.len(), 1);
    assert_eq!(report.clusters[0].members.len(), N);
    assert_eq!((report.stats.kept, report.stats.dropped), (1, N - 1));
    let s = report.stats;
    assert!(s.candidate_pairs <= (N * bands) as u64, "{s:?}");
    assert!(s.verified_pairs >= N as u64 - 1, "{s:?}");
}

#[cfg(feature = "serde")]
#[test]
fn report_round_trips_through_json() {
    let report = MinHashDedup::new()
        .with_record_pairs(true)
        .run(corpus())
        .unwrap();
    let json = serde_json::to_string(&report).unwrap();
    let back: DedupReport = serde_json::from_str(&json).unwrap();
    assert_eq!(back, report);
    assert!(json.contains(r#""similarity":{"Jaccard":1.0}"#), "{json}");
    let v: Verification = serde_json::from_str(r#""Exact""#).unwrap();
    assert_eq!(v, Verification::Exact);
}
