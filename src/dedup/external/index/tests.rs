//! Runs against an index decide their documents as one run over the
//! indexed corpus and theirs together.

use super::super::tests::{corpus, in_pool, work_dir};
use super::super::*;
use crate::Error;
use crate::dedup::{EmptyDocuments, MinHashScheme, Verification};

fn decide(
    d: &MinHashDedup,
    texts: &[String],
    options: &ExternalOptions,
) -> (ExternalReport, Vec<ExternalDecision>) {
    let report = d
        .run_external(&TextSource::new(texts).with_batch(97), options)
        .unwrap();
    let decisions = report.decisions().unwrap().map(Result::unwrap).collect();
    (report, decisions)
}

/// Dedups `parts` in turn against one index, each updating it, and checks
/// every part's decisions against one run over all parts together.
fn check_chain(d: &MinHashDedup, parts: &[&[String]], memory: usize, what: &str) {
    let base = work_dir("index-chain");
    let all: Vec<String> = parts.iter().flat_map(|p| p.iter().cloned()).collect();
    let opts = ExternalOptions::new(base.join("together")).with_memory(memory);
    let (_, together) = decide(d, &all, &opts);
    let index_dir = base.join("index");
    let mut offset = 0usize;
    let mut indexed_before = 0u64;
    for (k, part) in parts.iter().enumerate() {
        let opts = ExternalOptions::new(base.join(format!("w{k}")))
            .with_memory(memory)
            .against(&index_dir)
            .update_index(true);
        let (report, mine) = decide(d, part, &opts);
        let index = DedupIndex::open(&index_dir).unwrap();
        assert_eq!(index.generation(), k as u64 + 1, "{what}");
        assert_eq!(
            index.documents(),
            indexed_before + report.index_added,
            "{what}"
        );
        indexed_before = index.documents();
        let mut indexed_drops = 0;
        for (m, t) in mine.iter().zip(&together[offset..]) {
            let at = format!("{what}: part {k}, document {}", m.position);
            assert_eq!(m.keep, t.keep, "{at}");
            assert_eq!(m.empty, t.empty, "{at}");
            // Reaching an earlier part is being dropped for a document
            // before this part in the run over all.
            let earlier = t.duplicate_of.is_some_and(|o| o < offset as u64);
            assert_eq!(m.indexed.is_some(), earlier, "{at}");
            if m.indexed.is_some() {
                indexed_drops += 1;
                assert_eq!((m.duplicate_of, m.cluster), (None, None), "{at}");
            } else {
                assert_eq!(
                    m.duplicate_of.map(|o| o + offset as u64),
                    t.duplicate_of,
                    "{at}"
                );
            }
        }
        assert_eq!(report.indexed_duplicates, indexed_drops, "{what}");
        if k == 1 {
            // Ids of the first part are its positions in the run over all:
            // the original named is in the document's cluster there.
            let ids = index.ids().unwrap();
            for (m, t) in mine.iter().zip(&together[offset..]) {
                if let Some(x) = &m.indexed {
                    let first: usize = ids.get(x.position).unwrap().parse().unwrap();
                    assert_eq!(together[first].cluster, t.cluster, "{what}");
                }
            }
        }
        offset += part.len();
    }
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_chain_of_runs_decides_as_one_run_over_all() {
    let texts = corpus(2400, 21, true);
    let d = MinHashDedup::new().with_empty_documents(EmptyDocuments::Drop);
    let (a, rest) = texts.split_at(1000);
    let (b, c) = rest.split_at(900);
    for (memory, threads) in [(MIN_MEMORY, 1), (1 << 20, 3)] {
        in_pool(threads, || {
            check_chain(&d, &[a, b, c], memory, &format!("{memory} {threads}"));
        });
    }
}

#[test]
fn every_verification_and_scheme_against_an_index() {
    let texts = corpus(1200, 5, false);
    let (a, b) = texts.split_at(500);
    for verification in [Verification::Exact, Verification::Estimated] {
        for scheme in [MinHashScheme::Default, MinHashScheme::Fast] {
            let d = MinHashDedup::new()
                .with_verification(verification)
                .with_scheme(scheme)
                .with_threshold(0.7);
            check_chain(
                &d,
                &[a, b],
                MIN_MEMORY,
                &format!("{verification:?} {scheme:?}"),
            );
        }
    }
}

#[test]
fn a_run_against_an_index_without_update_leaves_it_unchanged() {
    let texts = corpus(800, 9, false);
    let (a, b) = texts.split_at(400);
    let base = work_dir("index-readonly");
    let d = MinHashDedup::new();
    let idx = base.join("index");
    decide(
        &d,
        a,
        &ExternalOptions::new(base.join("w1"))
            .against(&idx)
            .update_index(true),
    );
    let before = DedupIndex::open(&idx).unwrap();
    let (report, _) = decide(&d, b, &ExternalOptions::new(base.join("w2")).against(&idx));
    assert_eq!(report.index_added, 0);
    assert!(report.indexed_duplicates > 0, "{report:?}");
    let after = DedupIndex::open(&idx).unwrap();
    assert_eq!(
        (before.generation(), before.documents(), before.disk_bytes()),
        (after.generation(), after.documents(), after.disk_bytes())
    );
    // Started again, the finished run resumes every stage and the index
    // is not updated twice.
    let opts = ExternalOptions::new(base.join("w1"))
        .against(&idx)
        .update_index(true);
    let (again, _) = decide(&d, a, &opts);
    assert!(again.stages.iter().all(|s| s.resumed), "{:?}", again.stages);
    assert_eq!(DedupIndex::open(&idx).unwrap().generation(), 1);
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn other_settings_and_a_changed_index_are_refused() {
    let texts = corpus(600, 13, false);
    let (a, b) = texts.split_at(300);
    let base = work_dir("index-refused");
    let idx = base.join("index");
    let d = MinHashDedup::new();
    decide(
        &d,
        a,
        &ExternalOptions::new(base.join("w1"))
            .against(&idx)
            .update_index(true),
    );
    let other = MinHashDedup::new().with_scheme(MinHashScheme::Fast);
    let err = other
        .run_external(
            &TextSource::new(b),
            &ExternalOptions::new(base.join("w2")).against(&idx),
        )
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidInput(m) if m.contains("other settings")),
        "{err}"
    );
    // A missing index without update is an error naming it.
    let err = d
        .run_external(
            &TextSource::new(b),
            &ExternalOptions::new(base.join("w3")).against(base.join("none")),
        )
        .unwrap_err();
    assert!(err.to_string().contains("none"), "{err}");
    // A run whose index another run updated after its pairs stage stops.
    let w4 = base.join("w4");
    let opts = ExternalOptions::new(&w4).against(&idx).update_index(true);
    decide(&d, b, &opts);
    for stage in ["verify", "cluster", "index"] {
        std::fs::remove_file(w4.join(format!("{stage}.done"))).unwrap();
    }
    decide(
        &d,
        b,
        &ExternalOptions::new(base.join("w5"))
            .against(&idx)
            .update_index(true),
    );
    let err = d.run_external(&TextSource::new(b), &opts).unwrap_err();
    assert!(err.to_string().contains("index changed"), "{err}");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_killed_update_leaves_the_index_usable() {
    let texts = corpus(900, 17, false);
    let (a, rest) = texts.split_at(300);
    let (b, c) = rest.split_at(300);
    let d = MinHashDedup::new();
    let base = work_dir("index-killed");
    let idx = base.join("index");
    let run = |name: &str, part: &[String]| {
        decide(
            &d,
            part,
            &ExternalOptions::new(base.join(name))
                .against(&idx)
                .update_index(true),
        )
    };
    run("a", a);
    // What an update killed before replacing `index.meta` leaves: appended
    // bytes past the recorded lengths and tables of the next generation.
    for name in ["ids.dat", "ids.idx", "texts.dat", "texts.idx"] {
        let p = idx.join(name);
        let mut bytes = std::fs::read(&p).unwrap();
        bytes.extend_from_slice(b"partial");
        std::fs::write(&p, bytes).unwrap();
    }
    std::fs::write(idx.join("band-000.2.tab"), b"partial").unwrap();
    run("b", b);
    let (_, with_kill) = run("c", c);
    let clean = base.join("clean");
    for (k, part) in [a, b, c].into_iter().enumerate() {
        let opts = ExternalOptions::new(clean.join(format!("w{k}")))
            .against(clean.join("index"))
            .update_index(true);
        let (_, decisions) = decide(&d, part, &opts);
        if k == 2 {
            assert_eq!(decisions, with_kill);
        }
    }
    assert_eq!(
        DedupIndex::open(&idx).unwrap().disk_bytes(),
        DedupIndex::open(clean.join("index")).unwrap().disk_bytes()
    );
    assert!(!idx.join("band-000.1.tab").exists());
    std::fs::remove_dir_all(&base).unwrap();
}
