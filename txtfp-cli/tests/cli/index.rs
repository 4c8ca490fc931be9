//! `txtfp index build` and `dedup --against`: deduplicating a corpus
//! against the index of an earlier one keeps what deduplicating both
//! together keeps of it.

use std::path::{Path, PathBuf};

use crate::support::*;

const SAMPLE: &str = "../examples/data/sample.jsonl";

/// The sample in two files: its first 120 lines and the rest.
fn halves(dir: &Path) -> (PathBuf, PathBuf) {
    let text = read(&data(SAMPLE));
    let lines: Vec<String> = text.lines().map(|l| format!("{l}\n")).collect();
    let (a, b) = (dir.join("a.jsonl"), dir.join("b.jsonl"));
    std::fs::write(&a, lines[..120].concat()).unwrap();
    std::fs::write(&b, lines[120..].concat()).unwrap();
    (a, b)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn info(index: &Path) -> serde_json::Value {
    let out = txtfp(&["index", "info", s(index)]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn deduping_against_an_index_keeps_what_one_run_over_both_keeps() {
    let dir = fresh_dir("index_against");
    let (a, b) = halves(&dir);
    let index = dir.join("index");
    let out = txtfp(&["index", "build", s(&a), "--index", s(&index), "-q"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let first = info(&index);
    assert_eq!(first["generation"], 1);
    let indexed = first["documents"].as_u64().unwrap();
    assert!(indexed > 50 && indexed <= 120, "{first}");
    assert!(!index.join(".work").exists());

    let against = dir.join("against");
    let out = txtfp(&[
        "dedup",
        s(&b),
        "--against",
        s(&index),
        "--output",
        s(&against),
        "-q",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let together = dir.join("together");
    let out = txtfp(&[
        "dedup",
        s(&a),
        s(&b),
        "--output",
        s(&together),
        "--memory",
        "64KiB",
        "-q",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let kept = read(&against.join("kept/b.jsonl"));
    assert_eq!(kept, read(&together.join("kept/b.jsonl")));
    assert!(kept.lines().count() < 75, "nothing was dropped");

    // Every document dropped for the index names its indexed original, an
    // id of the first half.
    let a_ids: Vec<String> = json_lines(&read(&a))
        .iter()
        .map(|v| v["id"].to_string())
        .collect();
    let dups = json_lines(&read(&against.join("duplicates.jsonl")));
    let indexed_dups: Vec<_> = dups.iter().filter(|d| d["indexed"] == true).collect();
    assert!(!indexed_dups.is_empty());
    for d in &indexed_dups {
        assert!(a_ids.contains(&d["duplicate_of"].to_string()), "{d}");
    }
    let report: serde_json::Value =
        serde_json::from_str(&read(&against.join("report.json"))).unwrap();
    assert_eq!(
        report["index"]["indexed_duplicates"].as_u64().unwrap(),
        indexed_dups.len() as u64
    );
    assert_eq!(report["index"]["added"], 0);
    assert_eq!(info(&index)["generation"], 1);

    // --update-index adds the second half; building over a full index is
    // refused, as are other settings.
    let out = txtfp(&[
        "dedup",
        s(&b),
        "--against",
        s(&index),
        "--update-index",
        "--output",
        s(&dir.join("update")),
        "-q",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let second = info(&index);
    assert_eq!(second["generation"], 2);
    assert_eq!(second["segments"], 2);
    assert!(second["documents"].as_u64().unwrap() > indexed, "{second}");
    let out = txtfp(&["index", "build", s(&a), "--index", s(&index)]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("already holds an index"),
        "{}",
        stderr(&out)
    );
    let out = txtfp(&[
        "dedup",
        s(&b),
        "--against",
        s(&index),
        "--threshold",
        "0.5",
        "--output",
        s(&dir.join("other")),
    ]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("other settings"), "{}", stderr(&out));
    let out = txtfp(&[
        "dedup",
        s(&b),
        "--update-index",
        "--output",
        s(&dir.join("x")),
    ]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_simhash_index_works_as_a_minhash_one() {
    let dir = fresh_dir("index_simhash");
    let (a, b) = halves(&dir);
    let index = dir.join("index");
    let simhash = ["--algo", "simhash", "--max-hamming", "4"];
    let out = txtfp(
        &[
            &["index", "build", s(&a), "--index", s(&index), "-q"][..],
            &simhash,
        ]
        .concat(),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let first = info(&index);
    assert!(
        first["settings"].as_str().unwrap().starts_with("simhash"),
        "{first}"
    );
    let against = dir.join("against");
    let out = txtfp(
        &[
            &[
                "dedup",
                s(&b),
                "--against",
                s(&index),
                "--output",
                s(&against),
                "-q",
            ][..],
            &simhash,
        ]
        .concat(),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let together = dir.join("together");
    let out = txtfp(
        &[
            &[
                "dedup",
                s(&a),
                s(&b),
                "--output",
                s(&together),
                "--memory",
                "64KiB",
                "-q",
            ][..],
            &simhash,
        ]
        .concat(),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let kept = read(&against.join("kept/b.jsonl"));
    assert_eq!(kept, read(&together.join("kept/b.jsonl")));
    let dups = json_lines(&read(&against.join("duplicates.jsonl")));
    let indexed: Vec<_> = dups.iter().filter(|d| d["indexed"] == true).collect();
    assert!(!indexed.is_empty());
    for d in &indexed {
        if let Some(h) = d["hamming"].as_u64() {
            assert!(h <= 4, "{d}");
        }
    }
    // Other settings: another radius, or MinHash.
    for other in [
        &["--algo", "simhash", "--max-hamming", "2"][..],
        &["--algo", "minhash"][..],
    ] {
        let out = txtfp(
            &[
                &[
                    "dedup",
                    s(&b),
                    "--against",
                    s(&index),
                    "--output",
                    s(&dir.join("other")),
                ][..],
                other,
            ]
            .concat(),
        );
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        assert!(stderr(&out).contains("other settings"), "{}", stderr(&out));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
