//! `from_pretrained` downloading from the Hub (feature `hf-hub`), against a
//! local stand-in for it (tests/data/semantic_hf_mock.py on 127.0.0.1, which
//! redirects the ONNX files as the Hub does LFS files): files land in the
//! cache with their external data, and each failure says what failed.
//! HF_ENDPOINT and HF_HUB_CACHE are per process, so the checks run in a child
//! process of this test binary.
#![cfg(feature = "hf-hub")]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::support::{cosine, minilm, setup};
use txtfp::{EmbeddingProvider, LocalProvider, Pooling};

const ID: &str = "acme/minilm-external";

fn child_checks() {
    let (_, plain) = minilm("hub child").expect("setup");
    let p = LocalProvider::from_pretrained(ID).unwrap();
    assert_eq!(
        (p.model_id(), p.dimension(), p.pooling()),
        (ID, 384, Pooling::Mean)
    );
    let t = "Downloaded models embed like local ones.";
    assert!(
        cosine(
            p.embed(t).unwrap().vector(),
            plain.embed(t).unwrap().vector()
        ) > 0.99999
    );
    let cache = std::path::PathBuf::from(std::env::var_os("HF_HUB_CACHE").unwrap());
    let snap = cache
        .join("models--acme--minilm-external/snapshots/0123456789abcdef0123456789abcdef01234567");
    for f in ["onnx/model.onnx", "onnx/model.onnx_data", "tokenizer.json"] {
        assert!(snap.join(f).is_file(), "{f} not cached");
    }
    // Second time: straight from the cache.
    assert_eq!(LocalProvider::from_pretrained(ID).unwrap().dimension(), 384);
    let err = |id: &str| LocalProvider::from_pretrained(id).unwrap_err().to_string();
    let e = err("acme/absent");
    assert!(
        e.contains("cannot list the files of `acme/absent`") && e.contains("404"),
        "{e}"
    );
    let e = err("acme/no-onnx");
    assert!(
        e.contains("`acme/no-onnx` has no ONNX export") && e.contains("tokenizer.json"),
        "{e}"
    );
    let e = err("acme/broken");
    assert!(
        e.contains("downloading `tokenizer.json` of `acme/broken` failed") && e.contains("500"),
        "{e}"
    );
}

#[test]
fn downloads_into_the_cache_and_reports_failures() {
    if std::env::var_os("TXTFP_CHILD_HUB").is_some() {
        child_checks();
        return;
    }
    let Some(s) = setup("hub") else { return };
    let Some(ext) = s.external.clone() else {
        eprintln!("*** SKIPPED hub: no external-data model (scripts/setup-onnx.sh) ***");
        return;
    };
    let tmp = std::env::temp_dir().join(format!("txtfp-hub-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let path = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    let config = serde_json::json!({
        ID: {"files": {
            "onnx/model.onnx": path(ext.join("model.onnx")),
            "onnx/model.onnx_data": path(ext.join("model.onnx_data")),
            "tokenizer.json": path(ext.join("tokenizer.json")),
            "README.md": path(ext.join("config.json")),
        }},
        "acme/no-onnx": {"files": {"tokenizer.json": path(ext.join("tokenizer.json"))}},
        "acme/broken": {"files": {
            "model.onnx": path(s.onnx()),
            "tokenizer.json": path(ext.join("tokenizer.json")),
        }, "fail": ["tokenizer.json"]},
    });
    std::fs::write(tmp.join("hub.json"), config.to_string()).unwrap();
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/semantic_hf_mock.py");
    let mut hub = Command::new("python3")
        .arg(script)
        .arg(tmp.join("hub.json"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 for the mock hub");
    let mut line = String::new();
    BufReader::new(hub.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .strip_prefix("PORT ")
        .expect("mock hub port")
        .to_string();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "hub::downloads_into_the_cache_and_reports_failures",
            "--nocapture",
        ])
        .env("TXTFP_CHILD_HUB", "1")
        .env("HF_ENDPOINT", format!("http://127.0.0.1:{port}"))
        .env("HF_HUB_CACHE", tmp.join("cache"))
        .env_remove("HF_HUB_OFFLINE")
        .env_remove("HF_TOKEN")
        .output()
        .unwrap();
    hub.kill().ok();
    hub.wait().ok();
    std::fs::remove_dir_all(&tmp).unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("1 passed"), "{text}");
}
