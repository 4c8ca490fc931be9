//! `txtfp dedup` on real files, checked against the library's own
//! `DedupReport` for the same input.

use crate::support::*;
use serde_json::Value;
use txtfp::DedupReport;
use txtfp::dedup::{EmptyDocuments, MinHashDedup, MinHashScheme, SimHashDedup};

const SAMPLE: &str = "../examples/data/sample.jsonl";

/// Checks kept.jsonl, clusters.jsonl and report.json against `lib`, run over
/// `docs` with positions as ids.
fn assert_consistent(
    dir: &std::path::Path,
    input_lines: &[&str],
    docs: &[(Value, String)],
    lib: &DedupReport,
) {
    let id_of = |pos: u64| docs[pos as usize].0.clone();
    // Kept: the input lines of the kept documents, unchanged, in input order.
    let kept = read(&dir.join("kept.jsonl"));
    let expected: Vec<&str> = lib.kept_ids().map(|p| input_lines[p as usize]).collect();
    assert_eq!(kept.lines().collect::<Vec<_>>(), expected);
    // Clusters: same members, same kept document, same order.
    let clusters = json_lines(&read(&dir.join("clusters.jsonl")));
    assert_eq!(clusters.len(), lib.clusters.len());
    for (i, (got, want)) in clusters.iter().zip(&lib.clusters).enumerate() {
        assert_eq!(got["cluster"], i);
        assert_eq!(got["kept"], id_of(want.kept));
        let members: Vec<Value> = want.members.iter().map(|&m| id_of(m)).collect();
        assert_eq!(got["members"].as_array().unwrap(), &members);
        assert_eq!(got["size"], members.len());
        let dups = got["duplicates"].as_array().unwrap();
        assert_eq!(dups.len(), members.len() - 1);
    }
    // Report: the library's counts.
    let report: Value = serde_json::from_str(&read(&dir.join("report.json"))).unwrap();
    let st = &lib.stats;
    assert_eq!(report["documents"], st.documents);
    assert_eq!(report["kept"], st.kept);
    assert_eq!(report["dropped"], st.dropped);
    assert_eq!(report["clusters"], st.clusters);
    assert_eq!(report["empty"], st.empty);
    assert_eq!(report["candidate_pairs"], st.candidate_pairs);
    assert_eq!(report["verified_pairs"], st.verified_pairs);
    assert_eq!(report["skipped"], 0);
}

#[test]
fn minhash_sample_matches_the_library() {
    let dir = fresh_dir("minhash_sample");
    let out = txtfp(&["dedup", SAMPLE, "--output", dir.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert!(err.contains("195 documents"), "{err}");
    assert!(err.contains("kept 181, dropped 14 (12 clusters"), "{err}");

    let text = read(&data(SAMPLE));
    let lines: Vec<&str> = text.lines().collect();
    let docs = corpus(&data(SAMPLE));
    let lib = MinHashDedup::new()
        .with_empty_documents(EmptyDocuments::Keep)
        .run_texts(&docs.iter().map(|d| d.1.as_str()).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(lib.stats.kept, 181);
    assert_consistent(&dir, &lines, &docs, &lib);
    let report: Value = serde_json::from_str(&read(&dir.join("report.json"))).unwrap();
    assert_eq!(report["method"]["threshold"], 0.8);
    assert_eq!(report["method"]["verification"], "exact");
    assert_eq!(report["format"], "jsonl");
    assert_eq!(report["bytes"], text.len());
}

#[test]
fn threshold_and_estimated_verification_reach_the_library() {
    let dir = fresh_dir("minhash_estimated");
    let d = dir.to_str().unwrap();
    let out = txtfp(&[
        "dedup",
        SAMPLE,
        "-o",
        d,
        "--threshold",
        "0.5",
        "--estimated",
        "-k",
        "3",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = read(&data(SAMPLE));
    let lines: Vec<&str> = text.lines().collect();
    let docs = corpus(&data(SAMPLE));
    let fp = txtfp::MinHashFingerprinter::<_, 128>::new(
        txtfp::Canonicalizer::default(),
        txtfp::ShingleTokenizer {
            k: 3,
            inner: txtfp::WordTokenizer,
        },
    );
    let lib = MinHashDedup::with_fingerprinter(fp)
        .with_threshold(0.5)
        .with_verification(txtfp::dedup::Verification::Estimated)
        .with_empty_documents(EmptyDocuments::Keep)
        .run_texts(&docs.iter().map(|d| d.1.as_str()).collect::<Vec<_>>())
        .unwrap();
    assert_consistent(&dir, &lines, &docs, &lib);
}

#[test]
fn fast_scheme_reaches_the_library() {
    let dir = fresh_dir("minhash_fast");
    let d = dir.to_str().unwrap();
    let out = txtfp(&[
        "dedup",
        SAMPLE,
        "-o",
        d,
        "--algo",
        "minhash-fast",
        "--estimated",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("minhash-fast, word 5-shingles"),
        "{}",
        stderr(&out)
    );
    let text = read(&data(SAMPLE));
    let lines: Vec<&str> = text.lines().collect();
    let docs = corpus(&data(SAMPLE));
    let texts: Vec<&str> = docs.iter().map(|d| d.1.as_str()).collect();
    let run = |scheme| {
        MinHashDedup::new()
            .with_scheme(scheme)
            .with_verification(txtfp::dedup::Verification::Estimated)
            .with_empty_documents(EmptyDocuments::Keep)
            .run_texts(&texts)
            .unwrap()
    };
    let lib = run(MinHashScheme::Fast);
    assert_consistent(&dir, &lines, &docs, &lib);
    // Another scheme's estimates: the same clusters on this sample, but
    // not the same pair counts, so the CLI did run the fast scheme.
    let default = run(MinHashScheme::Default);
    assert_eq!(default.stats.kept, lib.stats.kept);
    assert_ne!(
        (default.stats.candidate_pairs, default.stats.verified_pairs),
        (lib.stats.candidate_pairs, lib.stats.verified_pairs)
    );
    let report: Value = serde_json::from_str(&read(&dir.join("report.json"))).unwrap();
    assert_eq!(report["method"]["algo"], "minhash-fast");
}

#[test]
fn simhash_sample_matches_the_library() {
    let dir = fresh_dir("simhash_sample");
    let d = dir.to_str().unwrap();
    let out = txtfp(&[
        "dedup",
        SAMPLE,
        "--algo",
        "simhash",
        "--max-hamming",
        "4",
        "-o",
        d,
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = read(&data(SAMPLE));
    let lines: Vec<&str> = text.lines().collect();
    let docs = corpus(&data(SAMPLE));
    let lib = SimHashDedup::new()
        .with_max_distance(4)
        .with_empty_documents(EmptyDocuments::Keep)
        .run_texts(&docs.iter().map(|d| d.1.as_str()).collect::<Vec<_>>())
        .unwrap();
    assert!(lib.stats.clusters > 0);
    assert_consistent(&dir, &lines, &docs, &lib);
    let clusters = json_lines(&read(&dir.join("clusters.jsonl")));
    assert!(clusters[0]["duplicates"][0]["hamming"].as_u64().unwrap() <= 4);
}

#[test]
fn kept_records_go_to_stdout_without_output_paths() {
    let dir = fresh_dir("stdout_kept");
    let report = dir.join("r.json");
    let out = txtfp(&[
        "dedup",
        SAMPLE,
        "--report",
        report.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 181);
    assert_eq!(stderr(&out), "", "--quiet prints nothing when all is well");
    let r: Value = serde_json::from_str(&read(&report)).unwrap();
    assert_eq!(r["kept"], 181);
    assert!(!dir.join("clusters.jsonl").exists());
}

#[test]
fn explicit_paths_and_stdin_input() {
    let dir = fresh_dir("stdin_input");
    let (k, c, r) = (dir.join("k.jsonl"), dir.join("c.jsonl"), dir.join("r.json"));
    let input = std::fs::read(data(SAMPLE)).unwrap();
    let args = [
        "dedup",
        "-",
        "--kept",
        k.to_str().unwrap(),
        "--clusters",
        c.to_str().unwrap(),
        "--report",
        r.to_str().unwrap(),
    ];
    let out = txtfp_stdin(&args, &input);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("<stdin>"));
    assert_eq!(read(&k).lines().count(), 181);
    assert_eq!(read(&c).lines().count(), 12);
    let rep: Value = serde_json::from_str(&read(&r)).unwrap();
    assert_eq!(rep["input"], "<stdin>");
    // The same clusters as reading the file.
    let from_file = fresh_dir("stdin_input_file");
    let out = txtfp(&["dedup", SAMPLE, "-q", "-o", from_file.to_str().unwrap()]);
    assert_eq!(code(&out), 0);
    assert_eq!(read(&c), read(&from_file.join("clusters.jsonl")));
}

#[test]
fn folder_of_text_files() {
    let dir = fresh_dir("folder");
    let out = txtfp(&["dedup", "tests/data/cli/docs", "-o", dir.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    // The Latin-1 file is skipped with its path and the byte at fault.
    assert!(
        err.contains("tests/data/cli/docs/06-latin1.txt: invalid UTF-8 at byte 4"),
        "{err}"
    );
    let clusters = json_lines(&read(&dir.join("clusters.jsonl")));
    let members: Vec<&Value> = clusters.iter().map(|c| &c["members"]).collect();
    assert_eq!(
        members,
        [
            &serde_json::json!(["01-psql.txt", "more/03-psql-copy.txt"]),
            &serde_json::json!(["04-kjv.txt", "05-kjv-copy.txt"]),
        ]
    );
    // Kept records are {"id": relative path, "text": contents}.
    let kept = json_lines(&read(&dir.join("kept.jsonl")));
    let ids: Vec<&str> = kept.iter().map(|v| v["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["01-psql.txt", "02-other.txt", "04-kjv.txt"]);
    assert_eq!(
        kept[1]["text"],
        read(&data("tests/data/cli/docs/02-other.txt"))
    );
    let report: Value = serde_json::from_str(&read(&dir.join("report.json"))).unwrap();
    assert_eq!(report["format"], "folder");
    assert_eq!(report["skipped"], 1);
    assert_eq!(report["documents"], 5);
}

#[test]
fn empty_documents_are_kept_or_dropped() {
    let input = b"{\"id\":1,\"text\":\"\"}\n{\"id\":2,\"text\":\"some words to hash here\"}\n";
    let out = txtfp_stdin(&["dedup", "-", "-q"], input);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 2);
    let out = txtfp_stdin(&["dedup", "-", "-q", "--empty", "drop"], input);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "{\"id\":2,\"text\":\"some words to hash here\"}\n"
    );
}

#[test]
fn other_columns_and_missing_ids() {
    // Text under "body", no id column: ids are line numbers.
    let input = "{\"body\":\"one two three four five six seven\"}\n\n{\"body\":\"One two three four five six seven!\"}\n";
    let dir = fresh_dir("columns");
    let args = [
        "dedup",
        "-",
        "--text-column",
        "body",
        "-q",
        "-o",
        dir.to_str().unwrap(),
    ];
    let out = txtfp_stdin(&args, input.as_bytes());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let clusters = json_lines(&read(&dir.join("clusters.jsonl")));
    assert_eq!(clusters[0]["members"], serde_json::json!([1, 3]));
}

#[test]
fn large_input_is_read_and_written_in_parallel_pieces() {
    // Above the 16 MiB parallel-read threshold: 80 copies of the sample
    // with fresh ids. Every copy joins the cluster of its first instance.
    let dir = fresh_dir("large_input");
    let sample = read(&data(SAMPLE));
    let mut big = String::with_capacity(sample.len() * 80);
    for copy in 0..80 {
        for line in sample.lines() {
            big.push_str(&line.replacen("\", \"text\"", &format!("-{copy}\", \"text\""), 1));
            big.push('\n');
        }
    }
    assert!(big.len() > 16 << 20);
    let input = dir.join("big.jsonl");
    std::fs::write(&input, &big).unwrap();
    let out_dir = dir.join("out");
    let out = txtfp(&[
        "dedup",
        input.to_str().unwrap(),
        "-q",
        "-o",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let lines: Vec<&str> = big.lines().collect();
    let docs = corpus(&input);
    let lib = MinHashDedup::new()
        .with_empty_documents(EmptyDocuments::Keep)
        .run_texts(&docs.iter().map(|d| d.1.as_str()).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(lib.stats.kept, 181);
    assert_consistent(&out_dir, &lines, &docs, &lib);
}

#[test]
fn kept_lines_are_byte_for_byte_the_input() {
    // CRLF line ends stay; a last line without a line break gets one.
    let a = "{\"id\":1,\"text\":\"alpha beta gamma delta epsilon zeta eta theta\"}";
    let b = "{\"id\":2,\"text\":\"Alpha beta gamma delta epsilon zeta eta theta!\"}";
    let c = "{\"id\":3,\"text\":\"iota kappa lambda mu nu xi omicron pi rho\"}";
    let input = format!("{a}\r\n{b}\r\n\r\n{c}");
    let dir = fresh_dir("byte_for_byte");
    let kept = dir.join("kept.jsonl");
    let out = txtfp_stdin(
        &["dedup", "-", "-q", "--kept", kept.to_str().unwrap()],
        input.as_bytes(),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(read(&kept), format!("{a}\r\n{c}\n"));
    let out = txtfp_stdin(&["dedup", "-", "-q"], input.as_bytes());
    assert_eq!(stdout(&out), format!("{a}\r\n{c}\n"));
}

#[test]
fn one_thread_gives_the_same_output() {
    let one = fresh_dir("threads_1");
    let two = fresh_dir("threads_2");
    for (dir, n) in [(&one, "1"), (&two, "2")] {
        let out = txtfp(&[
            "dedup",
            SAMPLE,
            "-q",
            "--threads",
            n,
            "-o",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    for f in ["kept.jsonl", "clusters.jsonl"] {
        assert_eq!(read(&one.join(f)), read(&two.join(f)), "{f}");
    }
    let r1: Value = serde_json::from_str(&read(&one.join("report.json"))).unwrap();
    assert_eq!(r1["threads"], 1);
}
