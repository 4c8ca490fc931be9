//! The out-of-core engine against the in-memory one, and its resumption.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::Error;
use crate::dedup::{DedupReport, EmptyDocuments, MinHashScheme, Verification};

const VOCAB: usize = 400;

/// Deterministic corpus: base documents of 20–80 words, and about 40 %
/// edited copies of earlier documents (a few words changed, some exact
/// copies, some re-cased), so clusters chain and buckets hold several
/// documents. `blanks` adds documents without tokens.
pub(super) fn corpus(n: usize, seed: u64, blanks: bool) -> Vec<String> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut docs: Vec<String> = Vec::with_capacity(n);
    for _ in 0..n {
        let r = next() % 100;
        if blanks && r < 3 {
            docs.push(" ... ".to_string());
        } else if r < 45 && !docs.is_empty() {
            let src = docs[(next() % docs.len() as u64) as usize].clone();
            let mut words: Vec<String> = src.split(' ').map(str::to_string).collect();
            match next() % 6 {
                0 => {}
                1 => docs.push(src.to_uppercase()),
                _ => {
                    for _ in 0..1 + next() % 4 {
                        let at = (next() % words.len() as u64) as usize;
                        words[at] = format!("w{}", next() % VOCAB as u64);
                    }
                }
            }
            if docs.len() < n && r % 6 != 1 {
                docs.push(words.join(" "));
            }
        } else {
            let len = 20 + next() % 60;
            let words: Vec<String> = (0..len)
                .map(|_| format!("w{}", next() % VOCAB as u64))
                .collect();
            docs.push(words.join(" "));
        }
    }
    docs.truncate(n);
    docs
}

pub(super) fn work_dir(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "txtfp-external-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

struct Outcome {
    decisions: Vec<ExternalDecision>,
    clusters: Vec<ExternalCluster>,
    report: ExternalReport,
}

fn external(
    d: &MinHashDedup,
    texts: &[String],
    options: &ExternalOptions,
    batch: usize,
) -> Outcome {
    let report = d
        .run_external(&TextSource::new(texts).with_batch(batch), options)
        .unwrap();
    Outcome {
        decisions: report.decisions().unwrap().map(Result::unwrap).collect(),
        clusters: report.clusters().unwrap().map(Result::unwrap).collect(),
        report,
    }
}

/// The out-of-core result says what the in-memory one says.
fn assert_same(mem: &DedupReport, ext: &Outcome, what: &str) {
    assert_eq!(mem.decisions.len(), ext.decisions.len(), "{what}");
    for (m, e) in mem.decisions.iter().zip(&ext.decisions) {
        assert_eq!(m.id, e.position, "{what}");
        assert_eq!(
            (m.keep, m.duplicate_of, m.cluster.map(|c| c as u64), m.empty),
            (e.keep, e.duplicate_of, e.cluster, e.empty),
            "{what}: document {}",
            m.id
        );
        assert_eq!(e.cluster.is_some(), e.matched.is_some(), "{what}");
    }
    let clusters: Vec<(u64, Vec<u64>)> = mem
        .clusters
        .iter()
        .map(|c| (c.kept, c.members.clone()))
        .collect();
    let ext_clusters: Vec<(u64, Vec<u64>)> = ext
        .clusters
        .iter()
        .map(|c| (c.kept, c.members.clone()))
        .collect();
    assert_eq!(clusters, ext_clusters, "{what}");
    for (i, c) in ext.clusters.iter().enumerate() {
        assert_eq!(c.number, i as u64, "{what}");
    }
    let (m, e) = (&mem.stats, &ext.report.stats);
    assert_eq!(
        (m.documents, m.kept, m.dropped, m.empty, m.clusters),
        (e.documents, e.kept, e.dropped, e.empty, e.clusters),
        "{what}"
    );
    assert_eq!(
        (m.candidate_pairs, m.compared_pairs, m.verified_pairs),
        (e.candidate_pairs, e.compared_pairs, e.verified_pairs),
        "{what}"
    );
}

pub(super) fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn equals_in_memory_for_any_budget_and_thread_count() {
    let texts = corpus(3000, 7, false);
    let d = MinHashDedup::new();
    let mem = d.run_texts(&texts).unwrap();
    assert!(mem.stats.clusters > 100, "{:?}", mem.stats);
    for (memory, threads, batch) in [
        (MIN_MEMORY, 1, 97),
        (MIN_MEMORY, 4, 1000),
        (1 << 20, 2, 4096),
        (DEFAULT_MEMORY, 3, 500),
    ] {
        let dir = work_dir("budgets");
        let opts = ExternalOptions::new(&dir).with_memory(memory);
        let ext = in_pool(threads, || external(&d, &texts, &opts, batch));
        assert_same(&mem, &ext, &format!("memory {memory}, {threads} threads"));
        let sketch_runs =
            super::sketch::runs_with_prefix(&dir.join("sketch"), "band-000-").unwrap();
        if memory == MIN_MEMORY {
            // The small budget really spilled: several runs per band to merge.
            assert!(sketch_runs.len() > 2, "{}", sketch_runs.len());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn equals_in_memory_for_every_verification_and_scheme() {
    let texts = corpus(1500, 11, true);
    for verification in [
        Verification::Exact,
        Verification::Estimated,
        Verification::None,
    ] {
        for scheme in [MinHashScheme::Default, MinHashScheme::Fast] {
            for threshold in [0.5, 0.8, 1.0] {
                let d = MinHashDedup::new()
                    .with_verification(verification)
                    .with_scheme(scheme)
                    .with_threshold(threshold)
                    .with_empty_documents(EmptyDocuments::Drop);
                let mem = d.run_texts(&texts).unwrap();
                let dir = work_dir("modes");
                let opts = ExternalOptions::new(&dir).with_memory(MIN_MEMORY);
                let ext = external(&d, &texts, &opts, 300);
                assert_same(
                    &mem,
                    &ext,
                    &format!("{verification:?} {scheme:?} {threshold}"),
                );
                std::fs::remove_dir_all(&dir).unwrap();
            }
        }
    }
}

#[test]
fn similarity_is_that_of_the_best_verified_link() {
    let texts: Vec<String> = [
        "a b c d e f g h i j",
        "a b c d e f g h i j",
        "a b c d e f g h i x",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let d = MinHashDedup::new().with_threshold(0.5);
    let dir = work_dir("similarity");
    let ext = external(&d, &texts, &ExternalOptions::new(&dir), 2);
    let sims: Vec<_> = ext
        .decisions
        .iter()
        .map(|d| (d.matched, d.similarity))
        .collect();
    let j = crate::dedup::Similarity::Jaccard;
    assert_eq!(sims[0], (Some(1), Some(j(1.0))));
    assert_eq!(sims[1], (Some(0), Some(j(1.0))));
    // Five shingles of six shared: 5/7.
    assert_eq!(sims[2], (Some(0), Some(j((5.0f64 / 7.0) as f32))));
    assert_eq!(ext.report.id(2).unwrap(), "2");
    assert_eq!(ext.report.stats.dropped, 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A source that fails on its `fail_on`-th batch of its `pass`-th read, to
/// stand for a run killed mid-stage.
struct Failing<'a> {
    inner: TextSource<'a, String>,
    reads: AtomicUsize,
    pass: usize,
    fail_on: usize,
}

impl DocumentSource for Failing<'_> {
    fn identity(&self) -> String {
        self.inner.identity()
    }

    fn read(&self, sink: &mut dyn FnMut(&[SourceDoc<'_>], u64) -> Result<()>) -> Result<()> {
        let pass = self.reads.fetch_add(1, Ordering::Relaxed);
        let mut batch = 0;
        self.inner.read(&mut |docs, bytes| {
            if pass == self.pass && batch == self.fail_on {
                return Err(Error::InvalidInput("interrupted".into()));
            }
            batch += 1;
            sink(docs, bytes)
        })
    }
}

#[test]
fn an_interrupted_run_resumes_after_its_last_finished_stage() {
    let texts = corpus(2000, 3, false);
    let d = MinHashDedup::new();
    let whole_dir = work_dir("whole");
    let whole = external(
        &d,
        &texts,
        &ExternalOptions::new(&whole_dir).with_memory(MIN_MEMORY),
        100,
    );
    // Interrupted in the first pass (sketch) and in the second (verify).
    for (pass, resumed_stages) in [(0, 0), (1, 2)] {
        let dir = work_dir("resume");
        let opts = ExternalOptions::new(&dir).with_memory(MIN_MEMORY);
        let failing = Failing {
            inner: TextSource::new(&texts).with_batch(100),
            reads: AtomicUsize::new(0),
            pass,
            fail_on: 7,
        };
        let err = d.run_external(&failing, &opts).unwrap_err();
        assert_eq!(err.to_string(), "invalid input: interrupted");
        let again = external(&d, &texts, &opts, 100);
        let resumed: Vec<bool> = again.report.stages.iter().map(|s| s.resumed).collect();
        assert_eq!(
            resumed.iter().filter(|r| **r).count(),
            resumed_stages,
            "{resumed:?}"
        );
        assert_eq!(again.decisions, whole.decisions);
        assert_eq!(again.clusters, whole.clusters);
        // A finished run started again reads everything back.
        let third = external(&d, &texts, &opts, 100);
        assert!(third.report.stages.iter().all(|s| s.resumed));
        assert_eq!(third.decisions, whole.decisions);
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::remove_dir_all(&whole_dir).unwrap();
}

#[test]
fn a_work_dir_of_another_run_is_refused() {
    let texts = corpus(50, 5, false);
    let dir = work_dir("other");
    let opts = ExternalOptions::new(&dir);
    external(&MinHashDedup::new(), &texts, &opts, 10);
    let err = MinHashDedup::new()
        .with_threshold(0.7)
        .run_external(&TextSource::new(&texts), &opts)
        .unwrap_err();
    assert!(
        err.to_string().contains("holds a run with other settings"),
        "{err}"
    );
    let other_texts = corpus(51, 5, false);
    let err = MinHashDedup::new()
        .run_external(&TextSource::new(&other_texts), &opts)
        .unwrap_err();
    assert!(
        err.to_string().contains("holds a run with other settings"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    let stray = work_dir("stray");
    std::fs::create_dir_all(&stray).unwrap();
    std::fs::write(stray.join("notes.txt"), "mine").unwrap();
    let err = MinHashDedup::new()
        .run_external(&TextSource::new(&texts), &ExternalOptions::new(&stray))
        .unwrap_err();
    assert!(err.to_string().contains("not empty"), "{err}");
    assert_eq!(
        std::fs::read_to_string(stray.join("notes.txt")).unwrap(),
        "mine"
    );
    std::fs::remove_dir_all(&stray).unwrap();
}

/// Gives different documents on its second read.
struct Shifting<'a> {
    first: TextSource<'a, String>,
    second: TextSource<'a, String>,
    reads: AtomicUsize,
}

impl DocumentSource for Shifting<'_> {
    fn identity(&self) -> String {
        "shifting".into()
    }

    fn read(&self, sink: &mut dyn FnMut(&[SourceDoc<'_>], u64) -> Result<()>) -> Result<()> {
        if self.reads.fetch_add(1, Ordering::Relaxed) == 0 {
            self.first.read(sink)
        } else {
            self.second.read(sink)
        }
    }
}

#[test]
fn a_source_that_changes_between_passes_is_an_error() {
    let texts = corpus(300, 9, false);
    for extra in [1, -1i32] {
        let mut other = texts.clone();
        if extra > 0 {
            other.push("one more document here".into());
        } else {
            other.pop();
        }
        let src = Shifting {
            first: TextSource::new(&texts),
            second: TextSource::new(&other),
            reads: AtomicUsize::new(0),
        };
        let dir = work_dir("shifting");
        let err = MinHashDedup::new()
            .run_external(&src, &ExternalOptions::new(&dir))
            .unwrap_err();
        assert!(
            err.to_string().contains("same documents in the same order"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn empty_documents_follow_the_policy() {
    let texts: Vec<String> = [
        "one two three four five six",
        "   ",
        "one two three four five six",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let dir = work_dir("empty");
    let err = MinHashDedup::new()
        .run_external(&TextSource::new(&texts), &ExternalOptions::new(&dir))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        MinHashDedup::new()
            .run_texts(&texts)
            .unwrap_err()
            .to_string()
    );
    std::fs::remove_dir_all(&dir).unwrap();
    for policy in [EmptyDocuments::Keep, EmptyDocuments::Drop] {
        let d = MinHashDedup::new().with_empty_documents(policy);
        let dir = work_dir("empty");
        let ext = external(&d, &texts, &ExternalOptions::new(&dir), 2);
        assert_same(&d.run_texts(&texts).unwrap(), &ext, &format!("{policy:?}"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn damaged_work_files_are_reported() {
    let texts = corpus(200, 13, false);
    let dir = work_dir("damaged");
    let opts = ExternalOptions::new(&dir).with_memory(MIN_MEMORY);
    external(&MinHashDedup::new(), &texts, &opts, 50);
    // Remove the later markers and cut a run short: the next run redoes the
    // pairs stage from the sketch runs and finds the damage.
    for stage in ["pairs", "verify", "cluster"] {
        std::fs::remove_file(dir.join(format!("{stage}.done"))).unwrap();
    }
    let run = &super::sketch::runs_with_prefix(&dir.join("sketch"), "band-003-").unwrap()[0];
    let len = std::fs::metadata(run).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(run)
        .unwrap()
        .set_len(len - 5)
        .unwrap();
    let err = MinHashDedup::new()
        .run_external(&TextSource::new(&texts), &opts)
        .unwrap_err();
    assert!(matches!(err, Error::Corrupt(_)), "{err}");
    assert!(err.to_string().contains("band-003-"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_record_is_an_error_not_a_panic() {
    use std::io::{Seek, SeekFrom, Write};
    let texts = corpus(200, 17, false);
    let dir = work_dir("damaged-record");
    let opts = ExternalOptions::new(&dir).with_memory(MIN_MEMORY);
    external(&MinHashDedup::new(), &texts, &opts, 50);
    for stage in ["pairs", "verify", "cluster"] {
        std::fs::remove_file(dir.join(format!("{stage}.done"))).unwrap();
    }
    // The header and length stay right; the first record's position (bytes
    // 8..12 after the 24-byte header) points past the corpus.
    let run = &super::sketch::runs_with_prefix(&dir.join("sketch"), "band-001-").unwrap()[0];
    let mut f = std::fs::OpenOptions::new().write(true).open(run).unwrap();
    f.seek(SeekFrom::Start(24 + 8)).unwrap();
    f.write_all(&0x7fff_fff0u32.to_le_bytes()).unwrap();
    drop(f);
    let err = MinHashDedup::new()
        .run_external(&TextSource::new(&texts), &opts)
        .unwrap_err();
    assert!(matches!(err, Error::Corrupt(_)), "{err}");
    assert!(
        err.to_string()
            .contains("band runs: position 2147483632 is past the last"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
