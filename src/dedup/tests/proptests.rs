//! Property tests: on random small corpora, a run equals a brute-force
//! reference that compares every pair of documents directly.

use alloc::string::String;
use alloc::vec::Vec;
use std::collections::HashSet;

use proptest::prelude::*;

use super::super::{
    DedupReport, EmptyDocuments, MinHashDedup, MinHashScheme, Similarity, Verification,
};
use crate::{
    Canonicalizer, Fingerprinter, LshIndexBuilder, MinHashFingerprinter, MinHashSig,
    ShingleTokenizer, Tokenizer, WordTokenizer, classical::minhash::FastMinHashFingerprinter,
    classical::minhash::FastMinHashSig, jaccard,
};

const VOCAB: [&str; 12] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima",
];

/// Texts made by editing a few base texts, so that near-duplicates (and
/// near-misses) are common. Some come out empty.
fn corpus() -> impl Strategy<Value = Vec<String>> {
    let base = proptest::collection::vec(0usize..VOCAB.len(), 2..10);
    let edit = (0u8..3, any::<usize>(), 0usize..VOCAB.len());
    let doc = (
        any::<usize>(),
        proptest::collection::vec(edit, 0..4),
        0u8..20,
    );
    (
        proptest::collection::vec(base, 1..4),
        proptest::collection::vec(doc, 0..14),
    )
        .prop_map(|(bases, docs)| {
            docs.into_iter()
                .map(|(b, edits, blank)| {
                    if blank == 0 {
                        return String::from(" ... ");
                    }
                    let mut words = bases[b % bases.len()].clone();
                    for (op, at, w) in edits {
                        let at = at % (words.len() + 1);
                        match op {
                            0 => words.insert(at, w),
                            1 if at < words.len() => words[at] = w,
                            _ if at < words.len() => {
                                words.remove(at);
                            }
                            _ => {}
                        }
                    }
                    let words: Vec<&str> = words.iter().map(|&w| VOCAB[w]).collect();
                    words.join(" ")
                })
                .collect()
        })
}

/// Distinct, scrambled ids (an odd multiplier and a xor are bijections).
fn ids_for(n: usize, salt: u64) -> Vec<u64> {
    (0..n as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt)
        .collect()
}

/// What the reference says about a corpus: the verified pairs `(a, b)`,
/// `a < b`, and each document's measure against any other.
pub(in super::super::super) struct Reference<'a> {
    pub(in super::super::super) present: Vec<bool>,
    pub(in super::super::super) pairs: Vec<(usize, usize, Similarity)>,
    pub(in super::super::super) measure: &'a dyn Fn(usize, usize) -> Similarity,
}

/// Checks `report` against the reference: clusters are the connected
/// components of the reference pairs, the kept member is the first or the
/// one with the largest key (ties to the first), and so on.
pub(in super::super::super) fn check_report(
    report: &DedupReport,
    ids: &[u64],
    reference: &Reference<'_>,
    keys: Option<&[usize]>,
    empty: EmptyDocuments,
    recorded: bool,
) -> Result<(), TestCaseError> {
    let n = ids.len();
    // Components by repeated relabelling.
    let mut label: Vec<usize> = (0..n).collect();
    loop {
        let mut changed = false;
        for &(a, b, _) in &reference.pairs {
            let m = label[a].min(label[b]);
            if label[a] != m || label[b] != m {
                label[a] = m;
                label[b] = m;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut clusters: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        let members: Vec<usize> = (0..n).filter(|&j| label[j] == label[i]).collect();
        if members.len() > 1 && members[0] == i {
            clusters.push(members);
        }
    }
    let kept: Vec<usize> = clusters
        .iter()
        .map(|m| match keys {
            None => m[0],
            Some(k) => *m.iter().rev().max_by_key(|&&x| k[x]).unwrap_or(&m[0]),
        })
        .collect();

    prop_assert_eq!(report.clusters.len(), clusters.len());
    for ((got, want), &k) in report.clusters.iter().zip(&clusters).zip(&kept) {
        let want_ids: Vec<u64> = want.iter().map(|&x| ids[x]).collect();
        prop_assert_eq!(&got.members, &want_ids);
        prop_assert_eq!(got.kept, ids[k]);
    }
    prop_assert_eq!(report.decisions.len(), n);
    for (i, d) in report.decisions.iter().enumerate() {
        prop_assert_eq!(d.id, ids[i]);
        prop_assert_eq!(d.empty, !reference.present[i]);
        let c = clusters.iter().position(|m| m.contains(&i));
        prop_assert_eq!(d.cluster, c);
        match c {
            Some(c) if kept[c] != i => {
                prop_assert!(!d.keep);
                prop_assert_eq!(d.duplicate_of, Some(ids[kept[c]]));
                let (a, b) = (i.min(kept[c]), i.max(kept[c]));
                prop_assert_eq!(d.similarity, Some((reference.measure)(a, b)));
            }
            _ => {
                let dropped_empty = d.empty && empty == EmptyDocuments::Drop;
                prop_assert_eq!(d.keep, !dropped_empty);
                prop_assert_eq!(d.duplicate_of, None);
                prop_assert_eq!(d.similarity, None);
            }
        }
    }
    let s = &report.stats;
    prop_assert_eq!(s.documents, n);
    prop_assert_eq!(s.kept + s.dropped, n);
    prop_assert_eq!(s.kept, report.kept_ids().count());
    prop_assert_eq!(s.empty, reference.present.iter().filter(|p| !**p).count());
    prop_assert_eq!(s.clusters, clusters.len());
    prop_assert!(s.verified_pairs <= s.compared_pairs && s.compared_pairs <= s.candidate_pairs);
    if recorded {
        let mut want = reference.pairs.clone();
        want.sort_by_key(|&(a, b, _)| (b, a));
        let want: Vec<(u64, u64, Similarity)> =
            want.iter().map(|&(a, b, s)| (ids[a], ids[b], s)).collect();
        let got: Vec<(u64, u64, Similarity)> = report
            .pairs
            .iter()
            .map(|p| (p.a, p.b, p.similarity))
            .collect();
        prop_assert_eq!(got, want);
        prop_assert_eq!(s.verified_pairs as usize, reference.pairs.len());
        prop_assert_eq!(s.compared_pairs, s.candidate_pairs);
    } else {
        prop_assert!(report.pairs.is_empty());
    }
    Ok(())
}

/// The distinct tokens of `text` as strings: independent of the hashing
/// the exact verifier uses.
fn token_strings<T: Tokenizer>(fp: &MinHashFingerprinter<T, 16>, text: &str) -> HashSet<String> {
    let canonical = fp.canonicalizer().canonicalize(text);
    let mut set = HashSet::new();
    fp.tokenizer().for_each_token(&canonical, &mut |t| {
        set.insert(String::from(t));
    });
    set
}

fn shares_band(a: &MinHashSig<16>, b: &MinHashSig<16>, rows: usize) -> bool {
    a.hashes
        .chunks(rows)
        .zip(b.hashes.chunks(rows))
        .any(|(x, y)| x == y)
}

#[derive(Clone, Copy, Debug)]
struct Setup {
    threshold: f32,
    banding: Option<LshIndexBuilder>,
    verification: Verification,
    empty: EmptyDocuments,
    record: bool,
    chunk: usize,
    by_length: bool,
    fast: bool,
}

fn setup() -> impl Strategy<Value = Setup> {
    (
        prop::sample::select(vec![0.25f32, 0.5, 0.6, 0.75, 0.8, 1.0]),
        prop::sample::select(vec![0usize, 1, 2, 4, 8, 16]),
        prop::sample::select(vec![
            Verification::None,
            Verification::Estimated,
            Verification::Exact,
        ]),
        prop::sample::select(vec![
            EmptyDocuments::Error,
            EmptyDocuments::Keep,
            EmptyDocuments::Drop,
        ]),
        any::<bool>(),
        prop::sample::select(vec![1usize, 2, 3, 8192]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(threshold, rows, verification, empty, record, chunk, by_length, fast)| Setup {
                threshold,
                banding: (rows > 0).then(|| LshIndexBuilder::new(16 / rows, rows)),
                verification,
                empty,
                record,
                chunk,
                by_length,
                fast,
            },
        )
}

fn check_minhash<T: Tokenizer + Clone>(
    fp: MinHashFingerprinter<T, 16>,
    texts: &[String],
    salt: u64,
    setup: Setup,
) -> Result<(), TestCaseError> {
    let ids = ids_for(texts.len(), salt);
    let mut dedup = MinHashDedup::with_fingerprinter(fp.clone())
        .with_threshold(setup.threshold)
        .with_verification(setup.verification)
        .with_empty_documents(setup.empty)
        .with_record_pairs(setup.record);
    if let Some(b) = setup.banding {
        dedup = dedup.with_banding(b);
    }
    if setup.fast {
        dedup = dedup.with_scheme(MinHashScheme::Fast);
    }
    dedup.scan_chunk = setup.chunk;
    let items = ids.iter().copied().zip(texts.iter().cloned());
    let result = if setup.by_length {
        dedup.run_by_priority(items, |_, t| t.len())
    } else {
        dedup.run(items)
    };
    // The fast scheme's signatures, its slots in the default type for the
    // band test (the index bands slot values only).
    let fast =
        FastMinHashFingerprinter::<_, 16>::new(fp.canonicalizer().clone(), fp.tokenizer().clone())
            .with_seed(fp.seed());
    let fast_sigs: Vec<Option<FastMinHashSig<16>>> =
        texts.iter().map(|t| fast.fingerprint(t).ok()).collect();
    let sigs: Vec<Option<MinHashSig<16>>> = if setup.fast {
        let slots = |s: &FastMinHashSig<16>| MinHashSig {
            hashes: s.hashes,
            ..MinHashSig::empty()
        };
        fast_sigs.iter().map(|s| s.as_ref().map(slots)).collect()
    } else {
        texts.iter().map(|t| fp.fingerprint(t).ok()).collect()
    };
    if setup.empty == EmptyDocuments::Error
        && let Some(i) = sigs.iter().position(Option::is_none)
    {
        let msg = result.unwrap_err().to_string();
        prop_assert!(
            msg.contains(&alloc::format!("document id {} (item {i})", ids[i])),
            "{}",
            msg
        );
        return Ok(());
    }
    let report = result.map_err(|e| TestCaseError::fail(e.to_string()))?;

    let rows = dedup
        .banding()
        .map_err(|e| TestCaseError::fail(e.to_string()))?
        .rows;
    let sets: Vec<HashSet<String>> = texts.iter().map(|t| token_strings(&fp, t)).collect();
    let exact = |a: usize, b: usize| {
        let inter = sets[a].intersection(&sets[b]).count();
        let union = sets[a].len() + sets[b].len() - inter;
        (inter as f64 / union as f64) as f32
    };
    let measure = |a: usize, b: usize| match (setup.verification, &sigs[a], &sigs[b]) {
        (Verification::Exact, _, _) => Similarity::Jaccard(exact(a, b)),
        (_, Some(x), Some(y)) => Similarity::Jaccard(match (&fast_sigs[a], &fast_sigs[b]) {
            (Some(f), Some(g)) if setup.fast => f.jaccard(g),
            _ => jaccard(x, y),
        }),
        _ => Similarity::Jaccard(f32::NAN),
    };
    let mut pairs = Vec::new();
    for b in 0..texts.len() {
        for a in 0..b {
            let (Some(x), Some(y)) = (&sigs[a], &sigs[b]) else {
                continue;
            };
            if !shares_band(x, y, rows) {
                continue;
            }
            let sim = measure(a, b);
            let passes = match setup.verification {
                Verification::None => true,
                _ => sim.jaccard().is_some_and(|j| j >= setup.threshold),
            };
            if passes {
                pairs.push((a, b, sim));
            }
        }
    }
    let reference = Reference {
        present: sigs.iter().map(Option::is_some).collect(),
        pairs,
        measure: &measure,
    };
    let keys: Vec<usize> = texts.iter().map(String::len).collect();
    check_report(
        &report,
        &ids,
        &reference,
        setup.by_length.then_some(&keys[..]),
        setup.empty,
        setup.record,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn minhash_words_matches_brute_force(texts in corpus(), salt in any::<u64>(), setup in setup()) {
        let fp = MinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer);
        check_minhash(fp, &texts, salt, setup)?;
    }

    #[test]
    fn minhash_shingles_matches_brute_force(texts in corpus(), salt in any::<u64>(), setup in setup()) {
        let tok = ShingleTokenizer { k: 2, inner: WordTokenizer };
        let fp = MinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), tok).with_seed(salt);
        check_minhash(fp, &texts, salt, setup)?;
    }
}
