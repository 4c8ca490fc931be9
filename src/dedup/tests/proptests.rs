//! Property tests: on random small corpora, a run equals a brute-force
//! reference written from the definition in the module documentation, on
//! one worker thread and on four.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use std::collections::HashSet;
use std::sync::OnceLock;

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

/// A rayon pool of `threads` workers, built once per size.
pub(in super::super::super) fn pool(threads: usize) -> &'static rayon::ThreadPool {
    static ONE: OnceLock<rayon::ThreadPool> = OnceLock::new();
    static FOUR: OnceLock<rayon::ThreadPool> = OnceLock::new();
    let cell = if threads == 1 { &ONE } else { &FOUR };
    cell.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    })
}

/// `run()` on one worker and on four: the two reports must be equal.
pub(in super::super::super) fn on_one_and_four<T: PartialEq + core::fmt::Debug + Send>(
    run: impl Fn() -> T + Sync,
) -> Result<T, TestCaseError> {
    let one = pool(1).install(&run);
    let four = pool(4).install(&run);
    prop_assert_eq!(&one, &four);
    Ok(one)
}

/// Texts made by editing a few base texts, so that near-duplicates (and
/// near-misses) are common; some are byte-for-byte copies of an earlier
/// text, some spell an earlier text differently (case, spacing) and some
/// come out empty.
fn corpus() -> impl Strategy<Value = Vec<String>> {
    let base = proptest::collection::vec(0usize..VOCAB.len(), 2..10);
    let edit = (0u8..3, any::<usize>(), 0usize..VOCAB.len());
    let doc = (
        any::<usize>(),
        proptest::collection::vec(edit, 0..4),
        0u8..24,
    );
    (
        proptest::collection::vec(base, 1..4),
        proptest::collection::vec(doc, 0..24),
    )
        .prop_map(|(bases, docs)| {
            let mut texts: Vec<String> = Vec::with_capacity(docs.len());
            for (b, edits, kind) in docs {
                let earlier = (!texts.is_empty()).then(|| texts[b % texts.len()].clone());
                let text = match (kind, earlier) {
                    (0, _) => String::from(" ... "),
                    (1..=4, Some(t)) => t,
                    (5, Some(t)) => t.to_uppercase(),
                    (6, Some(t)) => t.replace(' ', "  "),
                    _ => {
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
                    }
                };
                texts.push(text);
            }
            texts
        })
}

/// Distinct, scrambled ids (an odd multiplier and a xor are bijections).
fn ids_for(n: usize, salt: u64) -> Vec<u64> {
    (0..n as u64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ salt)
        .collect()
}

/// For each text, the first position with the same text.
pub(in super::super::super) fn first_copies(texts: &[String]) -> Vec<usize> {
    let mut first: BTreeMap<&str, usize> = BTreeMap::new();
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| *first.entry(t.as_str()).or_insert(i))
        .collect()
}

/// Connected components of two or more members, each ascending, ordered by
/// their first member (by repeated relabelling: slow and obviously right).
pub(in super::super::super) fn components(n: usize, pairs: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut label: Vec<usize> = (0..n).collect();
    loop {
        let mut changed = false;
        for &(a, b) in pairs {
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
    let mut clusters = Vec::new();
    for i in 0..n {
        let members: Vec<usize> = (0..n).filter(|&j| label[j] == label[i]).collect();
        if members.len() > 1 && members[0] == i {
            clusters.push(members);
        }
    }
    clusters
}

/// What the reference says about a corpus: the links `(a, b)`, `a < b`,
/// the count of candidate pairs, and each document's measure against any
/// other.
pub(in super::super::super) struct Reference<'a> {
    pub(in super::super::super) present: Vec<bool>,
    pub(in super::super::super) pairs: Vec<(usize, usize, Similarity)>,
    pub(in super::super::super) candidates: u64,
    pub(in super::super::super) measure: &'a dyn Fn(usize, usize) -> Similarity,
}

/// Checks `report` against the reference: clusters are the connected
/// components of the reference pairs, the kept member is the first or the
/// one with the largest key (ties to the first), the recorded pairs are the
/// reference pairs, and so on.
pub(in super::super::super) fn check_report(
    report: &DedupReport,
    ids: &[u64],
    reference: &Reference<'_>,
    keys: Option<&[usize]>,
    empty: EmptyDocuments,
    recorded: bool,
) -> Result<(), TestCaseError> {
    let n = ids.len();
    let links: Vec<(usize, usize)> = reference.pairs.iter().map(|&(a, b, _)| (a, b)).collect();
    let clusters = components(n, &links);
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
    prop_assert_eq!(s.candidate_pairs, reference.candidates);
    prop_assert_eq!(s.compared_pairs, s.candidate_pairs);
    prop_assert_eq!(s.verified_pairs as usize, reference.pairs.len());
    if recorded {
        let mut want = reference.pairs.clone();
        want.sort_by_key(|&(a, b, _)| (a, b));
        let want: Vec<(u64, u64, Similarity)> =
            want.iter().map(|&(a, b, s)| (ids[a], ids[b], s)).collect();
        let got: Vec<(u64, u64, Similarity)> = report
            .pairs
            .iter()
            .map(|p| (p.a, p.b, p.similarity))
            .collect();
        prop_assert_eq!(got, want);
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

/// The MinHash star semantics, brute force: buckets keyed by the band's
/// slot values themselves (not a hash of them), each bucket's smallest
/// position paired with every other member, the distinct pairs verified by
/// `passes`, plus the exact copies. Returns the links and the number of
/// candidate pairs (copies included).
fn minhash_star(
    texts: &[String],
    slots: &[Option<[u64; 16]>],
    rows: usize,
    passes: &dyn Fn(usize, usize) -> Option<Similarity>,
) -> (Vec<(usize, usize, Similarity)>, u64) {
    let first = first_copies(texts);
    let mut buckets: BTreeMap<(usize, Vec<u64>), BTreeSet<usize>> = BTreeMap::new();
    for (i, s) in slots.iter().enumerate() {
        let Some(s) = s else { continue };
        if first[i] != i {
            continue;
        }
        for (band, run) in s.chunks(rows).enumerate() {
            buckets.entry((band, run.to_vec())).or_default().insert(i);
        }
    }
    let mut candidates: BTreeSet<(usize, usize)> = BTreeSet::new();
    for members in buckets.values() {
        let rep = *members.first().unwrap();
        for &m in members.iter().skip(1) {
            candidates.insert((rep, m));
        }
    }
    let mut pairs: Vec<(usize, usize, Similarity)> = candidates
        .iter()
        .filter_map(|&(a, b)| passes(a, b).map(|s| (a, b, s)))
        .collect();
    let mut count = candidates.len() as u64;
    for (i, &f) in first.iter().enumerate() {
        if f != i && slots[f].is_some() {
            pairs.push((f, i, Similarity::Jaccard(1.0)));
            count += 1;
        }
    }
    (pairs, count)
}

#[derive(Clone, Copy, Debug)]
struct Setup {
    threshold: f32,
    banding: Option<LshIndexBuilder>,
    verification: Verification,
    empty: EmptyDocuments,
    record: bool,
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
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(threshold, rows, verification, empty, record, by_length, fast)| Setup {
                threshold,
                banding: (rows > 0).then(|| LshIndexBuilder::new(16 / rows, rows)),
                verification,
                empty,
                record,
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
    let result = on_one_and_four(|| {
        let items = ids.iter().copied().zip(texts.iter().cloned());
        let r = if setup.by_length {
            dedup.run_by_priority(items, |_, t| t.len())
        } else {
            dedup.run(items)
        };
        r.map_err(|e| e.to_string())
    })?;
    let fast =
        FastMinHashFingerprinter::<_, 16>::new(fp.canonicalizer().clone(), fp.tokenizer().clone())
            .with_seed(fp.seed());
    let fast_sigs: Vec<Option<FastMinHashSig<16>>> =
        texts.iter().map(|t| fast.fingerprint(t).ok()).collect();
    let sigs: Vec<Option<MinHashSig<16>>> = texts.iter().map(|t| fp.fingerprint(t).ok()).collect();
    // The slots the bands cut: the run's scheme's.
    let slots: Vec<Option<[u64; 16]>> = if setup.fast {
        fast_sigs
            .iter()
            .map(|s| s.as_ref().map(|s| s.hashes))
            .collect()
    } else {
        sigs.iter().map(|s| s.as_ref().map(|s| s.hashes)).collect()
    };
    if setup.empty == EmptyDocuments::Error
        && let Some(i) = slots.iter().position(Option::is_none)
    {
        let msg = result.unwrap_err();
        prop_assert!(
            msg.contains(&alloc::format!("document id {} (item {i})", ids[i])),
            "{}",
            msg
        );
        return Ok(());
    }
    let report = result.map_err(TestCaseError::fail)?;

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
    let measure = |a: usize, b: usize| {
        Similarity::Jaccard(match setup.verification {
            Verification::Exact => exact(a, b),
            _ if setup.fast => match (&fast_sigs[a], &fast_sigs[b]) {
                (Some(f), Some(g)) => f.jaccard(g),
                _ => f32::NAN,
            },
            _ => match (&sigs[a], &sigs[b]) {
                (Some(x), Some(y)) => jaccard(x, y),
                _ => f32::NAN,
            },
        })
    };
    let passes = |a: usize, b: usize| {
        let sim = measure(a, b);
        match setup.verification {
            Verification::None => Some(sim),
            _ => sim.jaccard().filter(|&j| j >= setup.threshold).map(|_| sim),
        }
    };
    let (pairs, candidates) = minhash_star(texts, &slots, rows, &passes);
    // Linear: at most one candidate per band and document.
    let bands = 16 / rows;
    prop_assert!(candidates <= (texts.len() * bands.max(1)) as u64);
    let reference = Reference {
        present: slots.iter().map(Option::is_some).collect(),
        pairs,
        candidates,
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
    fn minhash_words_matches_the_star_reference(texts in corpus(), salt in any::<u64>(), setup in setup()) {
        let fp = MinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer);
        check_minhash(fp, &texts, salt, setup)?;
    }

    #[test]
    fn minhash_shingles_matches_the_star_reference(texts in corpus(), salt in any::<u64>(), setup in setup()) {
        let tok = ShingleTokenizer { k: 2, inner: WordTokenizer };
        let fp = MinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), tok).with_seed(salt);
        check_minhash(fp, &texts, salt, setup)?;
    }
}
