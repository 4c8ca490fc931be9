//! `txtfp dedup` on Parquet files written by pyarrow 26 (snappy): the same
//! decisions as the JSONL of the same rows.

#![cfg(feature = "parquet")]

use crate::support::*;
use serde_json::Value;

#[test]
fn parquet_rows_dedup_like_their_jsonl() {
    let pq = fresh_dir("parquet_sample");
    let out = txtfp(&[
        "dedup",
        "tests/data/cli/sample.parquet",
        "-o",
        pq.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let js = fresh_dir("parquet_sample_jsonl");
    let out = txtfp(&[
        "dedup",
        "../examples/data/sample.jsonl",
        "-q",
        "-o",
        js.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        read(&pq.join("clusters.jsonl")),
        read(&js.join("clusters.jsonl"))
    );
    // Kept rows come out as JSON objects with every column.
    let rows = json_lines(&read(&pq.join("kept.jsonl")));
    let lines = json_lines(&read(&js.join("kept.jsonl")));
    assert_eq!(rows, lines);
    let report: Value = serde_json::from_str(&read(&pq.join("report.json"))).unwrap();
    assert_eq!(report["format"], "parquet");
    assert_eq!(report["kept"], 181);
}

#[test]
fn null_text_rows_are_skipped_or_stop_the_run() {
    let dir = fresh_dir("parquet_nulls");
    let out = txtfp(&[
        "dedup",
        "tests/data/cli/nulls.parquet",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("skipped tests/data/cli/nulls.parquet:row 2: column \"text\" is null"),
        "{}",
        stderr(&out)
    );
    let kept = json_lines(&read(&dir.join("kept.jsonl")));
    let ids: Vec<&Value> = kept.iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, [&serde_json::json!(1), &serde_json::json!(3)]);
    let out = txtfp(&["dedup", "tests/data/cli/nulls.parquet", "--strict"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "txtfp: tests/data/cli/nulls.parquet:row 2: column \"text\" is null\n"
    );
    // Not a Parquet file.
    let out = txtfp(&["dedup", "tests/data/cli/a.txt.parquet"]);
    assert_eq!(code(&out), 1);
    let bad = dir.join("bad.parquet");
    std::fs::write(&bad, b"PAR1 this is not parquet").unwrap();
    let out = txtfp(&["dedup", bad.to_str().unwrap()]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("not a readable Parquet file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn parquet_shards_dedup_out_of_core_and_come_back_as_parquet() {
    let dir = fresh_dir("parquet_out_of_core");
    let second = dir.join("copy");
    std::fs::create_dir_all(&second).unwrap();
    std::fs::copy(
        data("tests/data/cli/sample.parquet"),
        second.join("again.parquet"),
    )
    .unwrap();
    let out_dir = dir.join("out");
    let out = txtfp(&[
        "dedup",
        "tests/data/cli/sample.parquet",
        second.join("again.parquet").to_str().unwrap(),
        "--output",
        out_dir.to_str().unwrap(),
        "--memory",
        "1MiB",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let report: Value = serde_json::from_str(&read(&out_dir.join("report.json"))).unwrap();
    // The second shard repeats the first row for row: every row of it is an
    // exact copy, and the first keeps what the in-memory run keeps.
    assert_eq!(report["documents"], 390);
    assert_eq!(report["kept"], 181);
    assert_eq!(report["written_records"], 181);
    assert!(out_dir.join("kept/sample.parquet").is_file());
    assert!(out_dir.join("kept/again.parquet").is_file());
}
