//! Locating the ONNX Runtime library and the test model for the `semantic`
//! integration tests. Both come from `scripts/setup-onnx.sh`; without them the
//! tests say so loudly and skip (or fail, with TXTFP_REQUIRE_ONNX=1).

#![cfg(feature = "semantic")]
#![allow(dead_code)] // each test file uses a different part

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use txtfp::{LocalProvider, Pooling};

/// What `scripts/setup-onnx.sh` installed.
#[derive(Clone, Debug)]
pub struct Setup {
    /// libonnxruntime.so at the floor version.
    pub ort: PathBuf,
    /// A runtime older than the floor (wrong-version test).
    pub old_ort: Option<PathBuf>,
    /// all-MiniLM-L6-v2: model.onnx, tokenizer.json.
    pub model: PathBuf,
    /// The same model with external weights (model.onnx + model.onnx_data).
    pub external: Option<PathBuf>,
    /// The venv's python (onnxruntime, tokenizers, numpy).
    pub python: Option<PathBuf>,
}

impl Setup {
    pub fn onnx(&self) -> PathBuf {
        self.model.join("model.onnx")
    }
    pub fn tokenizer(&self) -> PathBuf {
        self.model.join("tokenizer.json")
    }
}

/// Values from the environment, else from `<onnx dir>/env.sh`.
fn lookup(name: &str, env_sh: &str) -> Option<PathBuf> {
    if let Some(v) = std::env::var_os(name).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(v));
    }
    env_sh.lines().find_map(|l| {
        l.strip_prefix("export ")?
            .strip_prefix(name)?
            .strip_prefix('=')
            .map(PathBuf::from)
    })
}

/// The setup with its ONNX Runtime loaded, or `None` after printing why the
/// caller skips.
pub fn setup(test: &str) -> Option<Setup> {
    let s = paths(test)?;
    txtfp::semantic::local::init_onnx_runtime(&s.ort)
        .expect("loading the ONNX Runtime of the setup");
    Some(s)
}

/// The setup without loading anything.
pub fn paths(test: &str) -> Option<Setup> {
    static SETUP: OnceLock<Result<Setup, String>> = OnceLock::new();
    let found = SETUP.get_or_init(|| {
        let dir = std::env::var_os("TXTFP_ONNX_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/onnx"));
        let env_sh = std::fs::read_to_string(dir.join("env.sh")).unwrap_or_default();
        let ort = lookup("TXTFP_ORT_DYLIB", &env_sh).or_else(|| lookup("ORT_DYLIB_PATH", &env_sh));
        let model = lookup("TXTFP_MODEL_DIR", &env_sh);
        match (ort, model) {
            (Some(ort), Some(model))
                if ort.is_file() && model.join("model.onnx").is_file() && model.join("tokenizer.json").is_file() =>
            {
                Ok(Setup {
                    ort,
                    old_ort: lookup("TXTFP_ORT_DYLIB_OLD", &env_sh).filter(|p| p.is_file()),
                    model,
                    external: lookup("TXTFP_MODEL_EXTERNAL_DIR", &env_sh).filter(|p| p.join("model.onnx").is_file()),
                    python: lookup("TXTFP_ONNX_PYTHON", &env_sh).filter(|p| p.is_file()),
                })
            }
            (ort, model) => Err(format!(
                "no ONNX Runtime / model (TXTFP_ORT_DYLIB={ort:?}, TXTFP_MODEL_DIR={model:?}, looked in {}); \
                 run `eval \"$(scripts/setup-onnx.sh)\"`",
                dir.display()
            )),
        }
    });
    match found {
        Ok(s) => Some(s.clone()),
        Err(why) => {
            if std::env::var_os("TXTFP_REQUIRE_ONNX").is_some_and(|v| v == "1") {
                panic!("{test}: TXTFP_REQUIRE_ONNX=1 but {why}");
            }
            eprintln!("*** SKIPPED {test}: {why} ***");
            None
        }
    }
}

/// One shared MiniLM provider per test binary (loading takes ~0.3 s).
pub fn minilm(test: &str) -> Option<(Setup, LocalProvider)> {
    static P: OnceLock<LocalProvider> = OnceLock::new();
    let s = setup(test)?;
    let p = P.get_or_init(|| {
        LocalProvider::builder()
            .onnx_runtime(&s.ort)
            .model_id("sentence-transformers/all-MiniLM-L6-v2")
            .onnx_path(s.onnx())
            .tokenizer_path(s.tokenizer())
            .pooling(Pooling::Mean)
            .build()
            .expect("MiniLM provider")
    });
    Some((s, p.clone()))
}

pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| f64::from(x) * f64::from(y))
        .sum();
    let n = |v: &[f32]| v.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
    dot / (n(a) * n(b))
}

/// The sentences of tests/data/semantic_sentences.txt (`\n` escapes decoded).
pub fn sentences() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/semantic_sentences.txt");
    std::fs::read_to_string(path)
        .expect("sentences file")
        .lines()
        .map(|l| l.replace("\\n", "\n"))
        .collect()
}
