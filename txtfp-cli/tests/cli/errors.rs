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
    assert_eq!(code(&out), 1, "bad records make the exit code 1");
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
}
