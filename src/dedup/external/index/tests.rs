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
/// every part's decisions against one run over it and the parts before it
/// together (a later part can join two clusters of earlier ones, so only
/// the run that ends with a part decides as the chain did up to it).
/// Returns the number of segments after each part.
fn check_chain(d: &MinHashDedup, parts: &[&[String]], memory: usize, what: &str) -> Vec<usize> {
    check_chain_of(&|t, o| decide(d, t, o), parts, memory, what)
}

/// Dedups texts with options: a report and its decisions.
pub(in super::super) type Decide<'a> =
    &'a dyn Fn(&[String], &ExternalOptions) -> (ExternalReport, Vec<ExternalDecision>);

/// [`check_chain`] for any method.
pub(in super::super) fn check_chain_of(
    run: Decide<'_>,
    parts: &[&[String]],
    memory: usize,
    what: &str,
) -> Vec<usize> {
    let base = work_dir("index-chain");
    let index_dir = base.join("index");
    let mut offset = 0usize;
    let mut indexed_before = 0u64;
    let mut segments = Vec::new();
    for (k, part) in parts.iter().enumerate() {
        let opts = ExternalOptions::new(base.join(format!("w{k}")))
            .with_memory(memory)
            .against(&index_dir)
            .update_index(true);
        let (report, mine) = run(part, &opts);
        let upto: Vec<String> = parts[..=k].iter().flat_map(|p| p.iter().cloned()).collect();
        let opts = ExternalOptions::new(base.join(format!("together{k}"))).with_memory(memory);
        let (_, together) = run(&upto, &opts);
        let index = DedupIndex::open(&index_dir).unwrap();
        assert_eq!(index.generation(), k as u64 + 1, "{what}");
        assert_eq!(
            index.documents(),
            indexed_before + report.index_added,
            "{what}"
        );
        indexed_before = index.documents();
        segments.push(index.segments());
        let tables = index.segments() * (index.meta().bands + 1);
        assert_eq!(table_files(&index_dir).len(), tables, "{what}");
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
            // Ids of the first part are its positions in the run over both:
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
    segments
}

/// The names of the table files in `dir`, sorted.
fn table_files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tab"))
        .collect();
    names.sort();
    names
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
    // The stray table was rewritten as the segment the update wrote.
    assert_eq!(table_files(&idx), table_files(&clean.join("index")));
    std::fs::remove_dir_all(&base).unwrap();
}

/// Every file of the index in `dir` but its lock, with the lines of
/// `index.meta` that name the index and its last run left out.
pub(in super::super) fn index_bytes(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "index.lock")
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let mut bytes = std::fs::read(e.path()).unwrap();
            if name == "index.meta" {
                let text = String::from_utf8(bytes).unwrap();
                bytes = text
                    .lines()
                    .filter(|l| !l.starts_with("uid ") && !l.starts_with("updated_by "))
                    .collect::<Vec<_>>()
                    .join("\n")
                    .into_bytes();
            }
            (name, bytes)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_long_chain_adds_segments_and_compacts_them() {
    let texts = corpus(1200, 29, true);
    let parts: Vec<&[String]> = texts.chunks(150).collect();
    assert_eq!(parts.len(), 8);
    let d = MinHashDedup::new().with_empty_documents(EmptyDocuments::Drop);
    for (memory, threads) in [(MIN_MEMORY, 1), (1 << 20, 2)] {
        let segments = in_pool(threads, || {
            check_chain(&d, &parts, memory, &format!("{memory} {threads}"))
        });
        // Each part indexes 64 to 255 documents (one size class): a
        // segment each until the fourth, which merges the four into one
        // of the next class; the eighth merges the next four into one more.
        assert_eq!(segments, [1, 2, 3, 1, 2, 3, 4, 2], "{memory} {threads}");
    }
}

#[test]
fn compaction_keeps_few_segments_and_rewrites_little() {
    use super::update::{FANOUT, plan};
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // Updates of one size, of random sizes in ranges, and growing ones.
    for spread in [1u64, 10, 1000, 100_000, 0] {
        let mut segments: Vec<u64> = Vec::new();
        let (mut total, mut written) = (0u64, 0u64);
        for k in 0..3000u64 {
            let new = match spread {
                0 => 1 + k * k + next() % (k + 1),
                s => 1 + next() % s,
            };
            let take = plan(&segments, new);
            let merged: u64 = segments.drain(segments.len() - take..).sum();
            segments.push(merged + new);
            total += new;
            written += merged + new;
            let classes = total.ilog(FANOUT as u64) as usize + 1;
            assert!(
                segments.len() <= (FANOUT - 1) * classes + 1,
                "{spread}: {segments:?}"
            );
        }
        // Each document is written about once per size class.
        let classes = total.ilog(FANOUT as u64) as u64 + 1;
        assert!(
            written <= total * (classes + 1),
            "{spread}: {written} of {total}"
        );
    }
    // An update far smaller than the index merges nothing.
    assert_eq!(plan(&[1 << 20], 1000), 0);
    assert_eq!(plan(&[1 << 20, 1000, 1000, 1000], 1000), 3);
}

#[test]
fn a_killed_update_resumes_to_the_bytes_of_a_clean_chain() {
    let texts = corpus(1200, 37, false);
    let parts: Vec<&[String]> = texts.chunks(150).collect();
    let d = MinHashDedup::new();
    let base = work_dir("index-kill-segments");
    let clean = base.join("clean");
    let idx = base.join("index");
    let opts = |root: &std::path::Path, k: usize| {
        ExternalOptions::new(root.join(format!("w{k}")))
            .against(root.join("index"))
            .update_index(true)
    };
    for (k, part) in parts.iter().enumerate() {
        decide(&d, part, &opts(&clean, k));
    }
    assert_eq!(DedupIndex::open(clean.join("index")).unwrap().segments(), 2);
    for (k, part) in parts.iter().enumerate() {
        let before = if idx.exists() {
            index_bytes(&idx)
        } else {
            Vec::new()
        };
        let o = opts(&base, k);
        let (_, decided) = decide(&d, part, &o);
        let old_tables = || {
            for (name, bytes) in before.iter().filter(|(n, _)| n.contains(".tab")) {
                std::fs::write(idx.join(name), bytes).unwrap();
            }
        };
        if k == 1 || k == 3 {
            // Killed just before `index.meta` was replaced (the fourth
            // part compacts): the new segment written, bytes appended to
            // the id and text files, the segments it merged still there,
            // a temporary file; the run resumed.
            old_tables();
            restore_meta(&idx, &before);
            std::fs::write(idx.join(format!("band-003.{}.tab.tmp", k + 1)), b"partial").unwrap();
            std::fs::remove_file(base.join(format!("w{k}/index.done"))).unwrap();
            let (report, again) = decide(&d, part, &o);
            assert_eq!(again, decided);
            assert!(
                !report.stages.last().unwrap().resumed,
                "{:?}",
                report.stages
            );
        } else if k == 7 {
            // Killed after it, before removing the segments it merged:
            // the next update removes them.
            old_tables();
        }
    }
    let extra = base.join("extra");
    decide(&d, &texts[..20], &opts(&base, 8));
    decide(
        &d,
        &texts[..20],
        &ExternalOptions::new(&extra)
            .against(clean.join("index"))
            .update_index(true),
    );
    assert_eq!(index_bytes(&idx), index_bytes(&clean.join("index")));
    std::fs::remove_dir_all(&base).unwrap();
}

/// Puts back the `index.meta` of `before`, with the lines
/// [`index_bytes`] left out taken from the current one.
pub(in super::super) fn restore_meta(dir: &std::path::Path, before: &[(String, Vec<u8>)]) {
    let now = std::fs::read_to_string(dir.join("index.meta")).unwrap();
    let (_, old) = before.iter().find(|(n, _)| n == "index.meta").unwrap();
    let mut text = String::from_utf8(old.clone()).unwrap();
    text.push('\n');
    for l in now.lines().filter(|l| l.starts_with("uid ")) {
        text.push_str(l);
        text.push('\n');
    }
    text.push_str("updated_by 0000000000000000\n");
    std::fs::write(dir.join("index.meta"), text).unwrap();
}

/// `options` with a progress callback that, at the run's first report,
/// says so on the first channel and then waits for the second.
fn paused(
    options: ExternalOptions,
) -> (
    ExternalOptions,
    std::sync::mpsc::Receiver<()>,
    std::sync::mpsc::Sender<()>,
) {
    use std::sync::{Arc, Mutex, mpsc};
    let (started, wait_started) = mpsc::channel::<()>();
    let (go, wait_go) = mpsc::channel::<()>();
    let once = Mutex::new(Some((started, wait_go)));
    let options = options.with_progress(Arc::new(move |_| {
        let first = once.lock().unwrap().take();
        if let Some((started, wait_go)) = first {
            started.send(()).unwrap();
            wait_go.recv().unwrap();
        }
    }));
    (options, wait_started, go)
}

#[test]
fn a_second_updater_is_refused_while_the_first_runs() {
    let texts = corpus(600, 41, false);
    let (a, b) = texts.split_at(300);
    let base = work_dir("index-lock");
    let idx = base.join("index");
    let d = MinHashDedup::new();
    let run = |name: &str, update: bool| {
        d.run_external(
            &TextSource::new(b),
            &ExternalOptions::new(base.join(name))
                .against(&idx)
                .update_index(update),
        )
    };
    let refused = |result: crate::Result<ExternalReport>, what: &str| match result {
        Err(Error::InvalidInput(m)) => {
            assert!(m.contains(what), "{m}");
            assert!(m.contains(&idx.display().to_string()), "{m}");
        }
        other => panic!("{other:?}"),
    };
    decide(
        &d,
        a,
        &ExternalOptions::new(base.join("w0"))
            .against(&idx)
            .update_index(true),
    );
    // An updater holds its lock from its start to its end: another
    // updater, and a run that only reads, are refused at once meanwhile.
    let (first, started, go) = paused(
        ExternalOptions::new(base.join("w1"))
            .against(&idx)
            .update_index(true),
    );
    std::thread::scope(|s| {
        let updater = s.spawn(|| d.run_external(&TextSource::new(b), &first));
        started.recv().unwrap();
        refused(run("w2", true), "being updated by another run");
        refused(run("w3", false), "being updated by another run");
        go.send(()).unwrap();
        assert!(updater.join().unwrap().unwrap().index_added > 0);
    });
    assert_eq!(DedupIndex::open(&idx).unwrap().generation(), 2);
    // Runs that only read share the index; an update waits for them.
    let (reader, started, go) = paused(ExternalOptions::new(base.join("w4")).against(&idx));
    std::thread::scope(|s| {
        let first = s.spawn(|| d.run_external(&TextSource::new(b), &reader));
        started.recv().unwrap();
        assert_eq!(run("w5", false).unwrap().index_added, 0);
        refused(run("w6", true), "being read by another run");
        go.send(()).unwrap();
        first.join().unwrap().unwrap();
    });
    // Each run released its lock when it ended.
    assert_eq!(run("w7", true).unwrap().index_added, 0);
    assert_eq!(DedupIndex::open(&idx).unwrap().generation(), 3);
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_damaged_segment_is_a_corrupt_error_naming_it() {
    let texts = corpus(900, 43, false);
    let parts: Vec<&[String]> = texts.chunks(300).collect();
    let base = work_dir("index-corrupt");
    let idx = base.join("index");
    let d = MinHashDedup::new();
    for (k, part) in parts[..2].iter().enumerate() {
        decide(
            &d,
            part,
            &ExternalOptions::new(base.join(format!("w{k}")))
                .against(&idx)
                .update_index(true),
        );
    }
    assert_eq!(DedupIndex::open(&idx).unwrap().segments(), 2);
    let band = idx.join("band-007.2.tab");
    let content = idx.join("content.1.tab");
    let good = (
        std::fs::read(&band).unwrap(),
        std::fs::read(&content).unwrap(),
    );
    let damage: [(&std::path::Path, Vec<u8>); 4] = [
        (&band, good.0[..good.0.len() - 5].to_vec()),
        (&band, good.0[..10].to_vec()),
        (&content, {
            let mut b = good.1.clone();
            b[0] ^= 0xff;
            b
        }),
        (&content, Vec::new()),
    ];
    for (k, (path, bytes)) in damage.into_iter().enumerate() {
        std::fs::write(path, bytes).unwrap();
        let err = d
            .run_external(
                &TextSource::new(parts[2]),
                &ExternalOptions::new(base.join(format!("x{k}"))).against(&idx),
            )
            .unwrap_err();
        assert!(
            matches!(&err, Error::Corrupt(m) if m.contains(&path.display().to_string())),
            "{k}: {err}"
        );
        std::fs::write(&band, &good.0).unwrap();
        std::fs::write(&content, &good.1).unwrap();
    }
    // A missing segment is an I/O error naming it.
    std::fs::remove_file(&band).unwrap();
    let err = d
        .run_external(
            &TextSource::new(parts[2]),
            &ExternalOptions::new(base.join("x9")).against(&idx),
        )
        .unwrap_err();
    assert!(err.to_string().contains("band-007.2.tab"), "{err}");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn an_index_of_the_first_format_opens_as_one_segment() {
    let texts = corpus(900, 47, false);
    let parts: Vec<&[String]> = texts.chunks(300).collect();
    let base = work_dir("index-format-1");
    let d = MinHashDedup::new();
    let mut last = Vec::new();
    for root in ["old", "new"] {
        let idx = base.join(root).join("index");
        for (k, part) in parts.iter().enumerate() {
            let (_, decided) = decide(
                &d,
                part,
                &ExternalOptions::new(base.join(root).join(format!("w{k}")))
                    .against(&idx)
                    .update_index(true),
            );
            if k == 0 && root == "old" {
                // Written as the first format wrote generation 1: its
                // tables are those of segment 1.
                let meta = std::fs::read_to_string(idx.join("index.meta")).unwrap();
                let old: String = meta
                    .lines()
                    .filter(|l| !l.starts_with("segments"))
                    .map(|l| l.replace("txtfp dedup index 2", "txtfp dedup index 1") + "\n")
                    .collect();
                std::fs::write(idx.join("index.meta"), old).unwrap();
                let index = DedupIndex::open(&idx).unwrap();
                assert_eq!((index.generation(), index.segments()), (1, 1));
            }
            if k == 2 {
                last.push(decided);
            }
        }
        assert_eq!(DedupIndex::open(&idx).unwrap().segments(), 3);
    }
    assert_eq!(last[0], last[1]);
    assert_eq!(
        index_bytes(&base.join("old/index")),
        index_bytes(&base.join("new/index"))
    );
    // A later format is refused with a message that says so.
    let idx = base.join("new/index");
    let meta = std::fs::read_to_string(idx.join("index.meta")).unwrap();
    std::fs::write(
        idx.join("index.meta"),
        meta.replace("txtfp dedup index 2", "txtfp dedup index 3"),
    )
    .unwrap();
    let err = DedupIndex::open(&idx).unwrap_err();
    assert!(
        matches!(&err, Error::Corrupt(m) if m.contains("later txtfp")),
        "{err}"
    );
    std::fs::remove_dir_all(&base).unwrap();
}
