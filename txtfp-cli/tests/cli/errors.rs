//! Bad input and bad usage: messages name the file and line, runs go on
//! (counting what they skip) unless `--strict`, exit codes 0 / 1 / 2.

use crate::support::*;
use serde_json::Value;

const MIXED: &str = "tests/data/cli/mixed.jsonl";

#[test]
fn bad_records_are_skipped_named_and_counted() {
    let dir = fresh_dir("mixed");
    let out = txtfp(&["dedup", MIXED, "-o", dir.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    for needle in [
        "skipped tests/data/cli/mixed.jsonl:3: malformed JSON (truncated): EOF while parsing a string",
        "skipped tests/data/cli/mixed.jsonl:7: no \"text\" column",
        "skipped tests/data/cli/mixed.jsonl:8: invalid type: integer `42`, expected a string in column \"text\"",
        "skipped tests/data/cli/mixed.jsonl:11: invalid UTF-8 at byte 32 of the line",
        "7 documents, 4 bad records skipped",
    ] {
        assert!(err.contains(needle), "missing {needle:?} in\n{err}");
    }
    let report: Value = serde_json::from_str(&read(&dir.join("report.json"))).unwrap();
    assert_eq!(report["skipped"], 4);
    assert_eq!(report["documents"], 7);
    let places: Vec<&str> = report["skipped_records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["place"].as_str().unwrap())
        .collect();
    assert_eq!(
        places,
        ["3", "7", "8", "11"].map(|n| format!("tests/data/cli/mixed.jsonl:{n}"))
    );
    // The good records pair up: three clusters of two, and s001494 alone.
    let kept = json_lines(&read(&dir.join("kept.jsonl")));
    let ids: Vec<&str> = kept.iter().map(|v| v["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["s000464", "s001456", "s000124", "s001494"]);
    assert_eq!(read(&dir.join("clusters.jsonl")).lines().count(), 3);
}

#[test]
fn strict_stops_at_the_first_bad_record() {
    let dir = fresh_dir("mixed_strict");
    let out = txtfp(&["dedup", MIXED, "--strict", "-o", dir.to_str().unwrap()]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.starts_with("txtfp: tests/data/cli/mixed.jsonl:3: malformed JSON"),
        "{err}"
    );
    assert!(!err.contains(":7:"), "{err}");
    assert_eq!(read(&dir.join("kept.jsonl")), "", "nothing is written");
    // A missing text column under --strict, with another column name.
    let out = txtfp_stdin(
        &["dedup", "-", "--strict", "--text-column", "body"],
        b"{\"text\":\"x\"}\n",
    );
    assert_eq!(code(&out), 1);
    assert_eq!(stderr(&out), "txtfp: <stdin>:1: no \"body\" column\n");
}

#[test]
fn folder_strict_names_the_file() {
    let out = txtfp(&["dedup", "tests/data/cli/docs", "--strict"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "txtfp: tests/data/cli/docs/06-latin1.txt: invalid UTF-8 at byte 4\n"
    );
}

#[test]
fn unreadable_inputs() {
    let out = txtfp(&["dedup", "tests/data/cli/no-such-file.jsonl"]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.starts_with("txtfp: tests/data/cli/no-such-file.jsonl: cannot read: No such file"),
        "{err}"
    );
    let out = txtfp(&[
        "fingerprint",
        "tests/data/cli/a.txt",
        "tests/data/cli/missing.txt",
    ]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out).lines().count(),
        1,
        "the readable file is still printed"
    );
    assert!(stderr(&out).contains("tests/data/cli/missing.txt: cannot read"));
    let out = txtfp(&[
        "compare",
        "tests/data/cli/a.txt",
        "tests/data/cli/docs/06-latin1.txt",
    ]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "txtfp: tests/data/cli/docs/06-latin1.txt: invalid UTF-8 at byte 4\n"
    );
}

#[test]
fn usage_errors_exit_with_2() {
    for args in [
        &[
            "dedup",
            "../examples/data/sample.jsonl",
            "--threshold",
            "1.5",
        ][..],
        &[
            "dedup",
            "../examples/data/sample.jsonl",
            "--algo",
            "simhash",
            "--max-hamming",
            "9",
        ],
        &["dedup", "../examples/data/sample.jsonl", "--no-such-option"],
        &["dedup", "../examples/data/sample.jsonl", "--shingle", "0"],
        &["dedup"],
        &[
            "fingerprint",
            "--algo",
            "tlsh",
            "--format",
            "base32",
            "tests/data/cli/a.txt",
        ],
        &["fingerprint", "--algo", "md5"],
        &["compare", "-", "-"],
        &["frobnicate"],
    ] {
        let out = txtfp(args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).is_empty());
    }
    let out = txtfp(&[
        "dedup",
        "../examples/data/sample.jsonl",
        "--threshold",
        "1.5",
    ]);
    assert!(stderr(&out).contains("--threshold 1.5"), "{}", stderr(&out));
}

#[test]
fn refuses_to_overwrite_the_input() {
    let dir = fresh_dir("overwrite");
    let input = dir.join("in.jsonl");
    std::fs::copy(data("../examples/data/sample.jsonl"), &input).unwrap();
    let i = input.to_str().unwrap();
    let out = txtfp(&["dedup", i, "--kept", i]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("refusing to overwrite the input"));
    assert_eq!(read(&input), read(&data("../examples/data/sample.jsonl")));
}

#[test]
fn fingerprint_jsonl_reports_bad_records() {
    let out = txtfp(&[
        "fingerprint",
        "--jsonl",
        "--algo",
        "simhash",
        "--format",
        "hex",
        MIXED,
    ]);
    assert_eq!(code(&out), 0, "skipped records do not fail the run");
    assert_eq!(stdout(&out).lines().count(), 7);
    let err = stderr(&out);
    assert!(
        err.contains("tests/data/cli/mixed.jsonl:8: invalid type"),
        "{err}"
    );
    let out = txtfp(&["fingerprint", "--jsonl", "--strict", MIXED]);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out), "", "--strict stops before printing");
    assert!(stderr(&out).starts_with("txtfp: tests/data/cli/mixed.jsonl:3: "));
    // Each input is one file: a folder or a glob is not read as shards.
    for input in ["tests/data/cli", "tests/data/cli/*.jsonl"] {
        let out = txtfp(&["fingerprint", "--jsonl", input]);
        assert_eq!(code(&out), 1, "{input}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{input}");
        assert!(stderr(&out).contains(input), "{}", stderr(&out));
    }
}

/// Every record bad: exit code 1 from every subcommand that reads records,
/// naming the first; some bad: 0, with the bad ones named on stderr.
#[test]
fn exit_codes_agree_across_subcommands() {
    let dir = fresh_dir("exit_codes");
    let all_bad: &[u8] = b"not json\n{\"no_text\":1}\n{\"text\":5}\n";
    let mut partly = all_bad.to_vec();
    partly.extend_from_slice(b"{\"id\":\"ok\",\"text\":\"one good record of plain words\"}\n");
    let store = dir.join("store");
    let store = store.to_str().unwrap();
    let work = dir.join("work");
    let out_dir = dir.join("o");
    for (name, input, want) in [("bad.jsonl", all_bad, 1), ("partly.jsonl", &partly[..], 0)] {
        let path = dir.join(name);
        std::fs::write(&path, input).unwrap();
        let p = path.to_str().unwrap();
        let runs: [(&str, Vec<&str>); 4] = [
            ("dedup", vec!["dedup", p]),
            (
                "dedup out of core",
                vec![
                    "dedup",
                    p,
                    "--work-dir",
                    work.to_str().unwrap(),
                    "-o",
                    out_dir.to_str().unwrap(),
                ],
            ),
            ("fingerprint --jsonl", vec!["fingerprint", "--jsonl", p]),
            ("store ingest", vec!["store", "ingest", p, "--root", store]),
        ];
        for (what, args) in &runs {
            let _ = std::fs::remove_dir_all(&work);
            let out = txtfp(args);
            let err = stderr(&out);
            assert_eq!(code(&out), want, "{what} {name}: {err}");
            assert!(err.contains(&format!("{p}:3: ")), "{what} {name}: {err}");
            if want == 1 {
                assert!(
                    err.contains(&format!(
                        "no readable record in the input (3 bad records; the first: {p}:1: malformed JSON"
                    )),
                    "{what}: {err}"
                );
                assert_eq!(stdout(&out), "", "{what}");
            }
        }
    }
    // Documents the store rejects (no word) count as bad records too.
    let out = txtfp_stdin(
        &["store", "ingest", "-", "--root", store],
        b"{\"id\":\"p\",\"text\":\"!!! ???\"}\n",
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "no readable record in the input (1 bad records; the first: <stdin>: id \"p\": rejected"
        ),
        "{}",
        stderr(&out)
    );
    // fingerprint: a named input that cannot be fingerprinted is an error;
    // a JSONL record that cannot be is a skipped record.
    let out = txtfp(&[
        "fingerprint",
        "--algo",
        "tlsh",
        "tests/data/cli/short.txt",
        "tests/data/cli/a.txt",
    ]);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out).lines().count(), 1);
    let out = txtfp_stdin(
        &["fingerprint", "--jsonl", "--algo", "tlsh", "-"],
        b"{\"id\":1,\"text\":\"too short\"}\n",
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the first: <stdin>: id 1: invalid input: tlsh requires"),
        "{}",
        stderr(&out)
    );
}

/// Records sharing an id: one warning with the count and the first ids, in
/// memory, out of core and when ingesting; the reports count them.
#[test]
fn repeated_ids_are_warned_about() {
    let dir = fresh_dir("repeated_ids");
    let mut input = String::new();
    for (n, id) in ["a", "b", "a", "c", "b", "a", "d"].iter().enumerate() {
        input += &format!(
            "{{\"id\":\"{id}\",\"text\":\"document number {n} talks about topic {n} at length\"}}\n"
        );
    }
    input += "{\"text\":\"a record without an id gets its line number\"}\n";
    let path = dir.join("ids.jsonl");
    std::fs::write(&path, &input).unwrap();
    let p = path.to_str().unwrap();
    let warning = format!(
        "txtfp: warning: {p}: 3 records repeat the id of an earlier record (\"a\", \"b\"); \
         outputs name records by id"
    );
    let in_memory = dir.join("mem");
    let out_of_core = dir.join("ooc");
    for (what, out_dir, extra) in [
        ("in memory", &in_memory, None),
        ("out of core", &out_of_core, Some(dir.join("work"))),
    ] {
        let mut args = vec!["dedup", p, "-o", out_dir.to_str().unwrap()];
        if let Some(w) = &extra {
            args.extend(["--work-dir", w.to_str().unwrap(), "--memory", "64KiB"]);
        }
        let out = txtfp(&args);
        assert_eq!(code(&out), 0, "{what}: {}", stderr(&out));
        let err = stderr(&out);
        let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
        assert_eq!(warnings, [warning.as_str()], "{what}");
        let report: Value = serde_json::from_str(&read(&out_dir.join("report.json"))).unwrap();
        assert_eq!(report["duplicate_ids"], 3, "{what}");
        assert_eq!(
            report["duplicate_id_examples"],
            serde_json::json!(["a", "b"]),
            "{what}"
        );
    }
    let store = dir.join("store");
    let out = txtfp(&["store", "ingest", p, "--root", store.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains(&warning), "{}", stderr(&out));
    // Unique ids: no warning, a zero count.
    let out = txtfp(&["dedup", MIXED, "-o", dir.join("mixed").to_str().unwrap()]);
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&read(&dir.join("mixed/report.json"))).unwrap();
    assert_eq!(report["duplicate_ids"], 0);
}
