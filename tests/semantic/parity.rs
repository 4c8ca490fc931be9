//! Parity with Python onnxruntime: the same model and tokenizer file, embedded
//! by scripts/onnx_reference.py (tokenizers + onnxruntime + numpy pooling) at
//! test time, must match LocalProvider to cosine >= 0.9999 on every sentence
//! of tests/data/semantic_sentences.txt (57 sentences, 20+ languages, one
//! longer than the 128-token limit).
#![cfg(feature = "semantic")]

use std::path::Path;
use std::process::Command;

use crate::support::{cosine, sentences, setup};
use txtfp::{LocalProvider, Pooling};

fn reference(python: &Path, model: &Path, pooling: &str) -> Vec<Vec<f32>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("semantic_reference_{pooling}.json"));
    let run = Command::new(python)
        .arg(root.join("scripts/onnx_reference.py"))
        .arg(model)
        .arg(root.join("tests/data/semantic_sentences.txt"))
        .arg(&out)
        .args(["--pooling", pooling])
        .output()
        .expect("running onnx_reference.py");
    assert!(
        run.status.success(),
        "onnx_reference.py failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    eprintln!("reference: Python onnxruntime {}", json["onnxruntime"]);
    json["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect()
        })
        .collect()
}

fn check(pooling: Pooling, name: &str) {
    let Some(s) = setup("parity") else { return };
    let Some(python) = s.python.clone() else {
        eprintln!(
            "*** SKIPPED parity: no Python venv (TXTFP_ONNX_PYTHON); run scripts/setup-onnx.sh ***"
        );
        return;
    };
    let want = reference(&python, &s.model, name);
    let texts = sentences();
    assert!(texts.len() >= 50 && want.len() == texts.len());
    let p = LocalProvider::builder()
        .model_id("sentence-transformers/all-MiniLM-L6-v2")
        .onnx_path(s.onnx())
        .tokenizer_path(s.tokenizer())
        .pooling(pooling)
        .build()
        .unwrap();
    let batch = p.embed_batch(&texts).unwrap();
    let mut worst = (f64::MAX, "");
    for ((t, w), b) in texts.iter().zip(&want).zip(&batch) {
        let one = p.embed_document(t).unwrap();
        for got in [one.vector(), b.vector()] {
            assert_eq!(got.len(), w.len());
            let c = cosine(got, w);
            if c < worst.0 {
                worst = (c, t.as_str());
            }
        }
    }
    eprintln!(
        "{name}: lowest cosine to Python over {} sentences (single and batched): {:.9} ({:?})",
        texts.len(),
        worst.0,
        worst.1
    );
    assert!(worst.0 >= 0.9999, "{worst:?}");
}

#[test]
fn mean_pooling_matches_python_onnxruntime() {
    check(Pooling::Mean, "mean");
}

#[test]
fn cls_pooling_matches_python_onnxruntime() {
    check(Pooling::Cls, "cls");
}

#[test]
fn max_pooling_matches_python_onnxruntime() {
    check(Pooling::Max, "max");
}
