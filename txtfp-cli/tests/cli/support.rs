//! Running the `txtfp` binary the way a user does, from this crate's folder.

#![allow(dead_code)] // each area uses a different subset

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `txtfp ARGS` in the crate root; stdin is empty.
pub fn txtfp(args: &[&str]) -> Output {
    txtfp_stdin(args, b"")
}

/// `txtfp ARGS` with `input` on stdin.
pub fn txtfp_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_txtfp"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start txtfp");
    let mut stdin = child.stdin.take().expect("stdin");
    // Ignore a closed pipe: a command that never reads stdin may exit first.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("run txtfp")
}

/// The exit code.
pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 stdout")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8 stderr")
}

/// A fresh empty folder for one test's outputs.
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

/// A path under the crate root.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Lines of a JSONL file (or text), parsed.
pub fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// `(id, text)` of every line of a JSONL corpus, ids as JSON values.
pub fn corpus(path: &Path) -> Vec<(serde_json::Value, String)> {
    json_lines(&read(path))
        .into_iter()
        .map(|v| {
            (
                v["id"].clone(),
                v["text"].as_str().expect("text").to_string(),
            )
        })
        .collect()
}
