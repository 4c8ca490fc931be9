//! `txtfp dedup` out of core: sharded, compressed input in a small memory
//! budget gives what the library gives in memory, and a run resumes.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::support::*;
use serde_json::Value;
use txtfp::dedup::{EmptyDocuments, MinHashDedup, SimHashDedup};

const SAMPLE: &str = "../examples/data/sample.jsonl";

/// The sample split into three shards: plain, gzip and zstd.
fn shards(dir: &Path) -> (PathBuf, Vec<String>) {
    let text = read(&data(SAMPLE));
    let lines: Vec<String> = text.lines().map(|l| format!("{l}\n")).collect();
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    let third = lines.len() / 3;
    let parts = [
        &lines[..third],
        &lines[third..2 * third],
        &lines[2 * third..],
    ];
    std::fs::write(input.join("part-0.jsonl"), parts[0].concat()).unwrap();
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(input.join("part-1.jsonl.gz")).unwrap(),
        flate2::Compression::default(),
    );
    // A bad record inside a later shard: skipped, never written, and the
    // records after it still meet their own decisions.
    let mut middle = parts[1].to_vec();
    middle.insert(middle.len() / 2, "not json\n".to_string());
    gz.write_all(middle.concat().as_bytes()).unwrap();
    gz.finish().unwrap();
    std::fs::write(
        input.join("part-2.jsonl.zst"),
        zstd::encode_all(parts[2].concat().as_bytes(), 3).unwrap(),
    )
    .unwrap();
    (input, lines)
}

/// The kept shards, decompressed and concatenated in input order.
fn kept_lines(kept: &Path) -> Vec<String> {
    let mut out = String::new();
    out.push_str(&read(&kept.join("part-0.jsonl")));
    let mut gz =
        flate2::read::GzDecoder::new(std::fs::File::open(kept.join("part-1.jsonl.gz")).unwrap());
    std::io::Read::read_to_string(&mut gz, &mut out).unwrap();
    let zst =
        zstd::decode_all(std::fs::File::open(kept.join("part-2.jsonl.zst")).unwrap()).unwrap();
    out.push_str(std::str::from_utf8(&zst).unwrap());
    out.lines().map(|l| format!("{l}\n")).collect()
}

#[test]
fn sharded_compressed_input_matches_the_library_in_memory() {
    let dir = fresh_dir("outofcore_shards");
    let (input, lines) = shards(&dir);
    let out_dir = dir.join("out");
    let out = txtfp(&[
        "dedup",
        input.to_str().unwrap(),
        "--output",
        out_dir.to_str().unwrap(),
        "--memory",
        "64KiB",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("3 shards"), "{err}");
    assert!(err.contains("part-1.jsonl.gz:"), "{err}");

    let docs = corpus(&data(SAMPLE));
    let lib = MinHashDedup::new()
        .with_empty_documents(EmptyDocuments::Keep)
        .run_texts(&docs.iter().map(|d| d.1.as_str()).collect::<Vec<_>>())
        .unwrap();
    let expected: Vec<String> = lib.kept_ids().map(|p| lines[p as usize].clone()).collect();
    assert_eq!(kept_lines(&out_dir.join("kept")), expected);

    let clusters = json_lines(&read(&out_dir.join("clusters.jsonl")));
    assert_eq!(clusters.len(), lib.clusters.len());
    for (got, want) in clusters.iter().zip(&lib.clusters) {
        assert_eq!(got["kept"], docs[want.kept as usize].0);
        let members: Vec<Value> = want
            .members
            .iter()
            .map(|&m| docs[m as usize].0.clone())
            .collect();
        assert_eq!(got["members"].as_array().unwrap(), &members);
    }
    let dups = json_lines(&read(&out_dir.join("duplicates.jsonl")));
    assert_eq!(dups.len(), lib.stats.dropped);
    for d in &dups {
        assert!(d["jaccard"].as_f64().unwrap() >= 0.8, "{d}");
    }
    let report: Value = serde_json::from_str(&read(&out_dir.join("report.json"))).unwrap();
    assert_eq!(report["engine"], "out-of-core");
    assert_eq!(report["documents"], lib.stats.documents);
    assert_eq!(report["kept"], lib.stats.kept);
    assert_eq!(report["clusters"], lib.stats.clusters);
    assert_eq!(report["shards"], 3);
    assert_eq!(report["stages"].as_array().unwrap().len(), 4);
    // The work directory is removed after a successful run.
    assert!(!out_dir.join("work").exists());
}

#[test]
fn simhash_out_of_core_matches_the_library_in_memory() {
    let dir = fresh_dir("outofcore_simhash");
    let (input, lines) = shards(&dir);
    let out_dir = dir.join("out");
    let out = txtfp(&[
        "dedup",
        input.to_str().unwrap(),
        "--algo",
        "simhash",
        "--max-hamming",
        "6",
        "--output",
        out_dir.to_str().unwrap(),
        "--memory",
        "64KiB",
        "-q",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let docs = corpus(&data(SAMPLE));
    let lib = SimHashDedup::new()
        .with_max_distance(6)
        .with_empty_documents(EmptyDocuments::Keep)
        .run_texts(&docs.iter().map(|d| d.1.as_str()).collect::<Vec<_>>())
        .unwrap();
    assert!(lib.stats.dropped > 0, "{:?}", lib.stats);
    let expected: Vec<String> = lib.kept_ids().map(|p| lines[p as usize].clone()).collect();
    assert_eq!(kept_lines(&out_dir.join("kept")), expected);
    let dups = json_lines(&read(&out_dir.join("duplicates.jsonl")));
    assert_eq!(dups.len(), lib.stats.dropped);
    for d in &dups {
        assert!(d["hamming"].as_u64().unwrap() <= 6, "{d}");
    }
    let report: Value = serde_json::from_str(&read(&out_dir.join("report.json"))).unwrap();
    assert_eq!(report["method"]["algo"], "simhash");
    assert_eq!(report["clusters"], lib.stats.clusters);
}

#[test]
fn a_kept_work_dir_resumes_and_gives_the_same_output() {
    let dir = fresh_dir("outofcore_resume");
    let (input, _) = shards(&dir);
    let out_dir = dir.join("out");
    let work = dir.join("work");
    let args = [
        "dedup",
        input.to_str().unwrap(),
        "--output",
        out_dir.to_str().unwrap(),
        "--work-dir",
        work.to_str().unwrap(),
        "--keep-work",
        "-q",
    ];
    let first = txtfp(&args);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let kept = kept_lines(&out_dir.join("kept"));
    let clusters = read(&out_dir.join("clusters.jsonl"));
    std::fs::remove_dir_all(out_dir.join("kept")).unwrap();
    let again = txtfp(&args);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    let report: Value = serde_json::from_str(&read(&out_dir.join("report.json"))).unwrap();
    for s in report["stages"].as_array().unwrap() {
        assert_eq!(s["resumed"], true, "{s}");
    }
    assert_eq!(kept_lines(&out_dir.join("kept")), kept);
    assert_eq!(read(&out_dir.join("clusters.jsonl")), clusters);

    // Other settings over the same work directory are refused.
    let mut other: Vec<&str> = args.to_vec();
    other.extend(["--threshold", "0.7"]);
    let refused = txtfp(&other);
    assert_eq!(code(&refused), 1);
    assert!(
        stderr(&refused).contains("other settings"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn only_bad_records_fail_and_usage_errors_are_named() {
    let dir = fresh_dir("outofcore_bad");
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "not json\n{\"no_text\": 1}\n").unwrap();
    let gz = dir.join("bad2.jsonl");
    std::fs::write(&gz, "{\"text\": 5}\n").unwrap();
    let out = txtfp(&[
        "dedup",
        bad.to_str().unwrap(),
        gz.to_str().unwrap(),
        "--output",
        dir.join("out").to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("no readable record"), "{err}");
    assert!(err.contains("bad.jsonl:1"), "{err}");

    let sample = data(SAMPLE);
    let s = sample.to_str().unwrap();
    let no_output = txtfp(&["dedup", s, "--memory", "1MiB"]);
    assert_eq!(code(&no_output), 2, "{}", stderr(&no_output));
    assert!(
        stderr(&no_output).contains("--output"),
        "{}",
        stderr(&no_output)
    );
    let bad_size = txtfp(&["dedup", s, "--memory", "lots", "--output", "x"]);
    assert_eq!(code(&bad_size), 2, "{}", stderr(&bad_size));
}

/// A disk that fills up, simulated with a file size limit (`ulimit -f`, in
/// blocks of 512 bytes; with SIGXFSZ ignored a write past it fails with
/// EFBIG): the error names the stage and the file, the exit code is 1, and
/// the same command run again without the limit resumes and writes what an
/// uninterrupted run writes. The limits stop the sketch stage, the verify
/// stage and the write stage.
#[cfg(unix)]
#[test]
fn a_full_disk_stops_the_run_resumably() {
    let dir = fresh_dir("outofcore_full_disk");
    let sample = data(SAMPLE);
    let run = |out: &Path, work: &Path, limit: Option<u32>| {
        let args = [
            "dedup",
            sample.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--work-dir",
            work.to_str().unwrap(),
            "--memory",
            "64KiB",
            "-q",
        ];
        match limit {
            None => txtfp(&args),
            Some(blocks) => std::process::Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "ulimit -f {blocks}; trap '' XFSZ; exec \"$0\" \"$@\""
                ))
                .arg(env!("CARGO_BIN_EXE_txtfp"))
                .args(args)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .expect("run sh"),
        }
    };
    let reference = dir.join("ref");
    let out = run(&reference, &dir.join("ref-work"), None);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let outputs = |d: &Path| {
        ["kept/sample.jsonl", "clusters.jsonl", "duplicates.jsonl"].map(|f| read(&d.join(f)))
    };
    for (blocks, stage, file) in [
        (1, "sketch stage: ", "work/sketch/"),
        (8, "verify stage: ", "work/verify/"),
        (64, "write stage: ", "out/kept/sample.jsonl"),
    ] {
        let (o, w) = (dir.join("out"), dir.join("work"));
        let _ = std::fs::remove_dir_all(&o);
        let _ = std::fs::remove_dir_all(&w);
        let full = run(&o, &w, Some(blocks));
        assert_eq!(code(&full), 1, "{blocks}: {}", stderr(&full));
        let err = stderr(&full);
        let first = err.lines().next().unwrap();
        assert!(first.contains(stage), "{blocks}: {err}");
        assert!(
            first.contains(&dir.join(file).display().to_string()),
            "{blocks}: {err}"
        );
        assert!(first.contains("os error 27"), "{blocks}: {err}");
        assert!(
            err.contains("run the same command again to resume"),
            "{err}"
        );
        let again = run(&o, &w, None);
        assert_eq!(code(&again), 0, "{blocks}: {}", stderr(&again));
        assert_eq!(outputs(&o), outputs(&reference), "{blocks}");
        assert!(!w.exists(), "the work directory is removed at the end");
    }
}

#[test]
fn the_output_level_changes_the_bytes_not_the_records() {
    let dir = fresh_dir("outofcore_level");
    let (input, _) = shards(&dir);
    let run = |out: &str, level: &str| {
        txtfp(&[
            "dedup",
            input.to_str().unwrap(),
            "--output",
            dir.join(out).to_str().unwrap(),
            "--output-level",
            level,
            "-q",
        ])
    };
    // One level for the gzip and the zstd shard.
    let fast = run("fast", "1");
    assert_eq!(code(&fast), 0, "{}", stderr(&fast));
    let small = run("small", "9");
    assert_eq!(code(&small), 0, "{}", stderr(&small));
    assert_eq!(
        kept_lines(&dir.join("fast/kept")),
        kept_lines(&dir.join("small/kept"))
    );
    assert!(
        std::fs::metadata(dir.join("small/kept/part-2.jsonl.zst"))
            .unwrap()
            .len()
            <= std::fs::metadata(dir.join("fast/kept/part-2.jsonl.zst"))
                .unwrap()
                .len()
    );
    // gzip takes 0 to 9: refused before the corpus is read.
    let bad = run("bad", "12");
    assert_eq!(code(&bad), 1, "{}", stderr(&bad));
    assert!(stderr(&bad).contains("gzip level 12"), "{}", stderr(&bad));
    assert!(!dir.join("bad/work").exists());
}
