//! The out-of-core SimHash run against the in-memory one, and its pair
//! lister against a plain loop.

use std::collections::BTreeSet;

use super::super::tests::{corpus, in_pool, work_dir};
use super::super::*;
use super::Lister;
use crate::dedup::{DedupReport, EmptyDocuments, SimHashDedup, Similarity};
use crate::lsh::SimHashLayout;
use crate::{Error, SimHash64, hamming};

fn run(d: &SimHashDedup, texts: &[String], opts: &ExternalOptions, batch: usize) -> Outcome {
    let report = d
        .run_external(&TextSource::new(texts).with_batch(batch), opts)
        .unwrap();
    Outcome {
        decisions: report.decisions().unwrap().map(Result::unwrap).collect(),
        clusters: report
            .clusters()
            .unwrap()
            .map(|c| c.map(|c| (c.kept, c.members)))
            .collect::<Result<_>>()
            .unwrap(),
        report,
    }
}

struct Outcome {
    decisions: Vec<ExternalDecision>,
    clusters: Vec<(u64, Vec<u64>)>,
    report: ExternalReport,
}

/// Same decisions, clusters and counts as the in-memory run; every
/// dropped document's closest link is within the radius.
fn assert_same(mem: &DedupReport, ext: &Outcome, k: u32, what: &str) {
    assert_eq!(mem.decisions.len(), ext.decisions.len(), "{what}");
    for (m, e) in mem.decisions.iter().zip(&ext.decisions) {
        assert_eq!(m.id, e.position, "{what}");
        assert_eq!(
            (m.keep, m.duplicate_of, m.cluster.map(|c| c as u64), m.empty),
            (e.keep, e.duplicate_of, e.cluster, e.empty),
            "{what}: document {}",
            m.id
        );
        match e.similarity {
            Some(Similarity::Hamming(h)) => assert!(h <= k, "{what}: {h}"),
            None => assert!(e.cluster.is_none(), "{what}"),
            other => panic!("{what}: {other:?}"),
        }
    }
    let clusters: Vec<(u64, Vec<u64>)> = mem
        .clusters
        .iter()
        .map(|c| (c.kept, c.members.clone()))
        .collect();
    assert_eq!(clusters, ext.clusters, "{what}");
    let (m, e) = (&mem.stats, &ext.report.stats);
    assert_eq!(
        (m.documents, m.kept, m.dropped, m.empty, m.clusters),
        (e.documents, e.kept, e.dropped, e.empty, e.clusters),
        "{what}"
    );
    assert_eq!(
        (m.candidate_pairs, m.verified_pairs),
        (e.candidate_pairs, e.verified_pairs),
        "{what}"
    );
}

#[test]
fn equals_in_memory_for_any_budget_and_thread_count() {
    let texts = corpus(3000, 7, false);
    let d = SimHashDedup::new();
    let mem = d.run_texts(&texts).unwrap();
    assert!(mem.stats.clusters > 100, "{:?}", mem.stats);
    for (memory, threads, batch) in [
        (MIN_MEMORY, 1, 97),
        (MIN_MEMORY, 4, 1000),
        (1 << 20, 2, 4096),
        (DEFAULT_MEMORY, 3, 500),
    ] {
        let dir = work_dir("simhash-budgets");
        let opts = ExternalOptions::new(&dir).with_memory(memory);
        let ext = in_pool(threads, || run(&d, &texts, &opts, batch));
        assert_same(
            &mem,
            &ext,
            3,
            &format!("memory {memory}, {threads} threads"),
        );
        if memory == MIN_MEMORY {
            // The small budget really spilled.
            let runs =
                super::super::sketch::runs_with_prefix(&dir.join("sketch"), "band-000-").unwrap();
            assert!(runs.len() >= 2, "{}", runs.len());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn equals_in_memory_for_every_radius_and_empty_policy() {
    let texts = corpus(1500, 5, true);
    for k in [0, 1, 2, 4, 5, 7] {
        for empty in [EmptyDocuments::Keep, EmptyDocuments::Drop] {
            let d = SimHashDedup::new()
                .with_max_distance(k)
                .with_empty_documents(empty);
            let mem = d.run_texts(&texts).unwrap();
            let dir = work_dir("simhash-radius");
            let opts = ExternalOptions::new(&dir).with_memory(MIN_MEMORY);
            let ext = in_pool(2, || run(&d, &texts, &opts, 300));
            assert_same(&mem, &ext, k, &format!("k {k}, {empty:?}"));
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

#[test]
fn the_similarity_is_the_distance_of_the_closest_link() {
    let texts = corpus(800, 9, false);
    let d = SimHashDedup::new().with_max_distance(5);
    let dir = work_dir("simhash-similarity");
    let ext = run(&d, &texts, &ExternalOptions::new(&dir), 100);
    let fp = d.fingerprinter();
    let sigs: Vec<SimHash64> = texts
        .iter()
        .map(|t| crate::Fingerprinter::fingerprint(fp, t).unwrap())
        .collect();
    let mut checked = 0;
    for e in &ext.decisions {
        let Some(m) = e.matched else { continue };
        let p = e.position as usize;
        let d_match = hamming(sigs[p], sigs[m as usize]);
        assert_eq!(e.similarity, Some(Similarity::Hamming(d_match)));
        // No document within the radius and in the cluster is closer.
        let closest = ext
            .decisions
            .iter()
            .filter(|o| o.position != e.position && o.cluster == e.cluster)
            .map(|o| hamming(sigs[p], sigs[o.position as usize]))
            .min()
            .unwrap();
        assert_eq!(d_match, closest, "document {p}");
        checked += 1;
    }
    assert!(checked > 50, "{checked}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_resumes_after_its_last_finished_stage() {
    let texts = corpus(2000, 3, false);
    let d = SimHashDedup::new();
    let dir = work_dir("simhash-resume");
    let opts = ExternalOptions::new(&dir).with_memory(MIN_MEMORY);
    let whole = run(&d, &texts, &opts, 100);
    // As if killed during verify: its marker and the later ones are gone,
    // its directory holds half-written files.
    for stage in ["verify", "cluster"] {
        std::fs::remove_file(dir.join(format!("{stage}.done"))).unwrap();
    }
    std::fs::write(dir.join("verify").join("table-003-00000.run"), b"partial").unwrap();
    let again = run(&d, &texts, &opts, 100);
    let resumed: Vec<bool> = again.report.stages.iter().map(|s| s.resumed).collect();
    assert_eq!(resumed, [true, true, false, false]);
    assert_eq!(again.decisions, whole.decisions);
    assert_eq!(again.clusters, whole.clusters);
    assert_eq!(again.report.stats, whole.report.stats);
    // Other settings are another run.
    let other = SimHashDedup::new().with_max_distance(4);
    let err = other
        .run_external(&TextSource::new(&texts), &opts)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn settings_it_cannot_run_are_refused() {
    let texts = corpus(50, 1, false);
    let dir = work_dir("simhash-refused");
    let too_far = SimHashDedup::new().with_max_distance(8);
    let err = too_far
        .run_external(&TextSource::new(&texts), &ExternalOptions::new(&dir))
        .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn decide(
    d: &SimHashDedup,
    texts: &[String],
    opts: &ExternalOptions,
) -> (ExternalReport, Vec<ExternalDecision>) {
    let out = run(d, texts, opts, 61);
    (out.report, out.decisions)
}

#[test]
fn a_chain_against_an_index_decides_as_one_run_over_all() {
    use super::super::index::tests::check_chain_of;
    let texts = corpus(1500, 33, true);
    let (a, rest) = texts.split_at(600);
    let (b, c) = rest.split_at(500);
    for (k, memory, threads) in [(3, MIN_MEMORY, 1), (1, 1 << 20, 3), (5, 1 << 20, 2)] {
        for empty in [EmptyDocuments::Keep, EmptyDocuments::Drop] {
            let d = SimHashDedup::new()
                .with_max_distance(k)
                .with_empty_documents(empty);
            in_pool(threads, || {
                check_chain_of(
                    &|t, o| decide(&d, t, o),
                    &[a, b, c],
                    memory,
                    &format!("k {k} {memory} {threads} {empty:?}"),
                );
            });
        }
    }
}

#[test]
fn links_to_the_index_name_the_indexed_signature_and_its_distance() {
    let a = corpus(500, 9, false);
    // Copies, case changes (equal signatures) and one-word edits of `a`.
    let b: Vec<String> = a
        .iter()
        .enumerate()
        .map(|(i, t)| match i % 3 {
            0 => t.clone(),
            1 => t.to_uppercase(),
            _ => t.replacen(' ', " zq ", 1),
        })
        .collect();
    let k = 4;
    let d = SimHashDedup::new().with_max_distance(k);
    let base = work_dir("simhash-index-links");
    let index = base.join("index");
    let opts = ExternalOptions::new(base.join("w1"))
        .against(&index)
        .update_index(true);
    run(&d, &a, &opts, 50);
    let ext = run(
        &d,
        &b,
        &ExternalOptions::new(base.join("w2")).against(&index),
        50,
    );
    let ids = DedupIndex::open(&index).unwrap().ids().unwrap();
    let fp = d.fingerprinter();
    let sig = |t: &str| -> SimHash64 { crate::Fingerprinter::fingerprint(fp, t).unwrap() };
    let sigs_a: Vec<SimHash64> = a.iter().map(|t| sig(t)).collect();
    let mut by_distance = [0usize; 8];
    for e in &ext.decisions {
        let mine = sig(&b[e.position as usize]);
        let near = sigs_a.iter().any(|&s| hamming(s, mine) <= k);
        if near {
            assert!(!e.keep && e.indexed.is_some(), "document {}", e.position);
        }
        let Some((at, Similarity::Hamming(h))) = e.indexed.as_ref().and_then(|x| x.link) else {
            continue;
        };
        let original: usize = ids.get(at).unwrap().parse().unwrap();
        assert_eq!(
            hamming(sigs_a[original], mine),
            h,
            "document {}",
            e.position
        );
        assert!(h <= k);
        by_distance[h as usize] += 1;
    }
    assert!(by_distance[0] > 100, "{by_distance:?}");
    assert!(
        by_distance[1..].iter().sum::<usize>() > 20,
        "{by_distance:?}"
    );
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_killed_update_resumes_to_the_index_of_a_clean_run() {
    use super::super::index::tests::{index_bytes, restore_meta};
    let texts = corpus(1200, 7, false);
    let (a, b) = texts.split_at(500);
    let d = SimHashDedup::new();
    let base = work_dir("simhash-index-killed");
    let idx = base.join("index");
    let update = |name: &str| {
        ExternalOptions::new(base.join(name))
            .with_memory(MIN_MEMORY)
            .against(&idx)
            .update_index(true)
    };
    run(&d, a, &update("a"), 50);
    let before = index_bytes(&idx);
    let whole = run(&d, b, &update("b"), 50);
    let clean = index_bytes(&idx);
    assert!(whole.report.index_added > 0);
    // As if killed in verify: the index as it was, the later markers gone,
    // a half-written run left behind.
    restore_meta(&idx, &before);
    let work = base.join("b");
    for stage in ["verify", "cluster", "index"] {
        std::fs::remove_file(work.join(format!("{stage}.done"))).unwrap();
    }
    std::fs::write(
        work.join("verify").join("newkeys-003-00000.run"),
        b"partial",
    )
    .unwrap();
    let again = run(&d, b, &update("b"), 50);
    let resumed: Vec<bool> = again.report.stages.iter().map(|s| s.resumed).collect();
    assert_eq!(resumed, [true, true, false, false, false]);
    assert_eq!(again.decisions, whole.decisions);
    assert_eq!(index_bytes(&idx), clean);
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn an_index_of_other_settings_is_refused() {
    let texts = corpus(300, 2, false);
    let base = work_dir("simhash-index-settings");
    let index = base.join("index");
    SimHashDedup::new()
        .run_external(
            &TextSource::new(&texts),
            &ExternalOptions::new(base.join("w1"))
                .against(&index)
                .update_index(true),
        )
        .unwrap();
    // Another radius, and MinHash, against a SimHash index; SimHash
    // against a MinHash index.
    let other = SimHashDedup::new().with_max_distance(2);
    let err = other
        .run_external(
            &TextSource::new(&texts),
            &ExternalOptions::new(base.join("w2")).against(&index),
        )
        .unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err}");
    let err = crate::dedup::MinHashDedup::new()
        .run_external(
            &TextSource::new(&texts),
            &ExternalOptions::new(base.join("w3")).against(&index),
        )
        .unwrap_err();
    assert!(err.to_string().contains("other settings"), "{err}");
    let minhash_index = base.join("minhash-index");
    crate::dedup::MinHashDedup::new()
        .run_external(
            &TextSource::new(&texts),
            &ExternalOptions::new(base.join("w4"))
                .against(&minhash_index)
                .update_index(true),
        )
        .unwrap();
    let err = SimHashDedup::new()
        .run_external(
            &TextSource::new(&texts),
            &ExternalOptions::new(base.join("w5")).against(&minhash_index),
        )
        .unwrap_err();
    assert!(err.to_string().contains("other settings"), "{err}");
    std::fs::remove_dir_all(&base).unwrap();
}

/// Deterministic pseudo-random numbers.
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Signatures that crowd one table's groups: a few centres, each with many
/// variants a few bits away.
fn crowded(n: usize, seed: u64) -> Vec<u64> {
    let mut next = xorshift(seed);
    let centres: Vec<u64> = (0..4).map(|_| next()).collect();
    let mut sigs = BTreeSet::new();
    while sigs.len() < n {
        let mut s = centres[(next() % 4) as usize];
        for _ in 0..next() % 6 {
            s ^= 1 << (next() % 64);
        }
        sigs.insert(s);
    }
    sigs.into_iter().collect()
}

/// Every pair within `k` of `sigs`, listed table by table as the verify
/// stage does (groups of equal keys, the lister's fast path included),
/// and with each pair's distance.
fn listed(sigs: &[u64], k: u32) -> Vec<(u32, u32, u32)> {
    let layout = SimHashLayout::for_distance(k).unwrap();
    let masks = layout.masks();
    let mut out = Vec::new();
    for (t, &mask) in masks.iter().enumerate() {
        let lister = Lister::new(&masks[..t], !mask, k);
        let mut order: Vec<(u64, u32)> = sigs
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, i as u32))
            .collect();
        order.sort_by_key(|&(s, p)| (s & mask, s, p));
        for group in order.chunk_by_mut(|a, b| a.0 & mask == b.0 & mask) {
            lister.pairs(group, |a, b, d| out.push((a.min(b), a.max(b), d)));
        }
    }
    out.sort_unstable();
    out
}

#[test]
fn the_lister_finds_every_pair_within_k_once() {
    for (k, n, seed) in [
        (3, 600, 1),
        (3, 2000, 2),
        (1, 800, 3),
        (5, 900, 4),
        (7, 700, 5),
        (2, 700, 6),
    ] {
        let sigs = crowded(n, seed);
        let got = listed(&sigs, k);
        let mut want = Vec::new();
        for i in 0..sigs.len() {
            for j in i + 1..sigs.len() {
                let d = (sigs[i] ^ sigs[j]).count_ones();
                if d <= k {
                    want.push((i as u32, j as u32, d));
                }
            }
        }
        assert!(
            want.len() > n / 4,
            "k {k}: the test needs dense groups ({})",
            want.len()
        );
        assert_eq!(got, want, "k {k}");
    }
}

/// Every pair (run signature, indexed signature) within `k`, listed table
/// by table as the verify stage does against an index.
fn listed_across(mine: &[u64], theirs: &[u64], k: u32) -> Vec<(u32, u32, u32)> {
    use super::super::records::BandRec;
    let layout = SimHashLayout::for_distance(k).unwrap();
    let masks = layout.masks();
    let mut out = Vec::new();
    for (t, &mask) in masks.iter().enumerate() {
        let lister = Lister::new(&masks[..t], !mask, k);
        let keys: BTreeSet<u64> = mine.iter().map(|s| s & mask).collect();
        for key in keys {
            let group: Vec<(u64, u32)> = (0u32..)
                .zip(mine)
                .filter(|&(_, s)| s & mask == key)
                .map(|(i, &s)| (s, i))
                .collect();
            let indexed: Vec<BandRec> = (0u32..)
                .zip(theirs)
                .filter(|&(_, s)| s & mask == key)
                .map(|(pos, &key)| BandRec { key, pos })
                .collect();
            lister.cross(&group, &indexed, |a, b, d| out.push((a, b, d)));
        }
    }
    out.sort_unstable();
    out
}

#[test]
fn the_lister_finds_every_pair_with_the_index_once() {
    // Small groups take the direct loop, crowded ones the blocks.
    for (k, mine, theirs, seed) in [
        (3, 150, 150, 11),
        (3, 300, 900, 12),
        (1, 1000, 3000, 13),
        (5, 300, 500, 14),
    ] {
        let all = crowded(mine + theirs, seed);
        let (a, b) = all.split_at(mine);
        let got = listed_across(a, b, k);
        let mut want = Vec::new();
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                let d = (x ^ y).count_ones();
                if d <= k {
                    want.push((i as u32, j as u32, d));
                }
            }
        }
        assert!(
            want.len() > 20,
            "k {k}: the test needs close pairs ({})",
            want.len()
        );
        assert_eq!(got, want, "k {k}");
    }
}

#[test]
fn large_groups_are_cut_into_blocks() {
    // One group far above the pair-by-pair size: the blocked path lists
    // the same pairs and compares far fewer than all of them.
    let mut next = xorshift(9);
    let mask = SimHashLayout::for_distance(3).unwrap().masks()[0];
    let base = next() & mask;
    let mut group: Vec<(u64, u32)> = (0..4000u32).map(|i| (base | (next() & !mask), i)).collect();
    let lister = Lister::new(&[], !mask, 3);
    let mut fast = Vec::new();
    let compared = lister.pairs(&mut group, |a, b, d| fast.push((a.min(b), a.max(b), d)));
    let mut slow = Vec::new();
    for i in 0..group.len() {
        for j in i + 1..group.len() {
            let d = (group[i].0 ^ group[j].0).count_ones();
            if d <= 3 {
                let (a, b) = (group[i].1, group[j].1);
                slow.push((a.min(b), a.max(b), d));
            }
        }
    }
    fast.sort_unstable();
    slow.sort_unstable();
    assert_eq!(fast, slow);
    let all = (group.len() * (group.len() - 1) / 2) as u64;
    assert!(compared * 20 < all, "{compared} of {all}");
}

#[test]
fn copies_and_equal_signatures_cost_one_link_each() {
    const N: usize = 20_000;
    let d = SimHashDedup::new();
    // Byte-identical texts, then distinct texts with one signature (case
    // variants, equal after canonicalization).
    let copies = vec!["a b".to_string(); N];
    let word = "abcdefghijklmnopqrstu";
    let variants: Vec<String> = (0..N)
        .map(|v| {
            word.chars()
                .enumerate()
                .map(|(i, c)| {
                    if v >> i & 1 == 1 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect()
        })
        .collect();
    for texts in [copies, variants] {
        let dir = work_dir("simhash-copies");
        let ext = run(
            &d,
            &texts,
            &ExternalOptions::new(&dir).with_memory(1 << 20),
            4096,
        );
        assert_eq!(ext.clusters.len(), 1);
        assert_eq!(ext.clusters[0].1.len(), N);
        let s = ext.report.stats;
        assert_eq!(
            (s.candidate_pairs, s.verified_pairs),
            (N as u64 - 1, N as u64 - 1)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn near_identical_documents_collapse_into_few_values() {
    // A 200-word text with one word replaced per document: the signatures
    // take few distinct values, so the links grow with the documents.
    const N: usize = 20_000;
    let base: Vec<String> = (0..200).map(|i| format!("word{i}")).collect();
    let texts: Vec<String> = (0..N)
        .map(|d| {
            let mut w = base.clone();
            w[d % 200] = format!("changed{d}");
            w.join(" ")
        })
        .collect();
    let d = SimHashDedup::new();
    let mem = d.run_texts(&texts).unwrap();
    let dir = work_dir("simhash-near");
    let ext = run(
        &d,
        &texts,
        &ExternalOptions::new(&dir).with_memory(1 << 20),
        4096,
    );
    assert_same(&mem, &ext, 3, "near-identical");
    assert!(
        ext.report.stats.verified_pairs < 4 * N as u64,
        "{:?}",
        ext.report.stats
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The verify stage alone over crafted values: `sigs[i]` is document `i`'s
/// distinct signature. Returns the links (smaller position first).
fn verify_values(
    dir: &std::path::Path,
    sigs: &[u64],
    memory: usize,
    k: u32,
) -> Result<BTreeSet<(u32, u32)>> {
    use super::super::pairs::Pairs;
    use super::super::records::{BandRec, EdgeRec};
    use super::super::runs::{Spiller, for_each_merged};
    use super::super::sketch::Sketch;
    use super::super::workdir::WorkDir;
    let work = WorkDir::open(dir, "crafted values\n")?;
    let pairs_dir = work.stage_dir("pairs", true)?;
    let mut values = Spiller::<BandRec>::new(&pairs_dir, "values", 1 << 10);
    let mut sorted: Vec<BandRec> = (0u32..)
        .zip(sigs)
        .map(|(pos, &key)| BandRec { key, pos })
        .collect();
    sorted.sort();
    for r in sorted {
        values.push(r)?;
    }
    values.finish()?;
    let sk = Sketch {
        dir: work.stage_dir("sketch", true)?,
        documents: sigs.len() as u64,
        empty: 0,
        bytes: 0,
    };
    let pr = Pairs {
        dir: pairs_dir,
        copies: 0,
        index_generation: 0,
        token: 0,
    };
    let layout = SimHashLayout::for_distance(k)?;
    let opts = ExternalOptions::new(dir).with_memory(memory);
    let (vr, _) = super::tables::run(&work, &sk, &pr, layout.masks(), k, None, &opts)?;
    let mut links = BTreeSet::new();
    for_each_merged::<EdgeRec>(&vr.edge_runs()?, |e| {
        if e.doc < e.other {
            assert!(links.insert((e.doc, e.other)), "listed twice");
        }
        Ok(())
    })?;
    Ok(links)
}

#[test]
fn a_group_larger_than_the_budget_is_an_error_and_a_larger_budget_lists_it() {
    let k = 3;
    let mask = SimHashLayout::for_distance(k).unwrap().masks()[0];
    // 600 distinct signatures with one key under the first table's mask.
    let mut next = xorshift(77);
    let base = next();
    let mut sigs = BTreeSet::new();
    while sigs.len() < 600 {
        let mut s = base;
        for _ in 0..1 + next() % 4 {
            s ^= 1 << (next() % 64);
        }
        sigs.insert((base & mask) | (s & !mask));
    }
    let sigs: Vec<u64> = sigs.into_iter().collect();
    let dir = work_dir("simhash-crowded-key");
    in_pool(1, || {
        // 64 KiB holds 512 members of a group.
        let err = verify_values(&dir.join("small"), &sigs, MIN_MEMORY, k).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidInput(m) if m.contains("raise the memory budget")),
            "{err}"
        );
        let links = verify_values(&dir.join("large"), &sigs, 1 << 20, k).unwrap();
        let mut want = BTreeSet::new();
        for i in 0..sigs.len() {
            for j in i + 1..sigs.len() {
                if (sigs[i] ^ sigs[j]).count_ones() <= k {
                    want.insert((i as u32, j as u32));
                }
            }
        }
        assert!(want.len() > 1000, "{}", want.len());
        assert_eq!(links, want);
    });
    std::fs::remove_dir_all(&dir).unwrap();
}
