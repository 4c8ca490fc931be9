//! [`LocalProviderBuilder`]: every knob of a [`LocalProvider`].

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use super::infer::{self, ModelIo};
use super::pool::{SessionConfig, SessionPool};
use super::{Inner, LocalProvider, models, runtime};
use crate::{Error, Pooling, Result};

/// Used when neither the builder nor the tokenizer file sets a length.
const DEFAULT_MAX_SEQ_LEN: usize = 512;

/// Configures and loads a [`LocalProvider`]; see [`LocalProvider::builder`].
///
/// Required: [`onnx_path`](Self::onnx_path) and
/// [`tokenizer_path`](Self::tokenizer_path). Everything else has a default:
///
/// | setting | default |
/// |---|---|
/// | `model_id` | `local-onnx:<16 hex digits>`, a hash of the model and tokenizer files and the pooling, so different local models never compare as equal |
/// | `pooling` | from the built-in table for known model ids, else `Mean` |
/// | `query_prefix`, `doc_prefix` | from the table (BGE, E5, nomic, Arctic, mxbai), else none |
/// | `max_seq_len` | the tokenizer file's truncation length, else `model_max_length` of a `tokenizer_config.json` beside it, else 512 |
/// | `intra_threads` | ONNX Runtime's choice (one per physical core) |
/// | `intra_op_spinning` | ONNX Runtime's choice (spinning on) |
/// | `max_sessions` | available parallelism (sessions are opened on demand) |
/// | `batch_size` | 32 texts per ONNX run in `embed_batch` |
/// | `onnx_runtime` | `ORT_DYLIB_PATH`, else `libonnxruntime.so` on the library path |
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct LocalProviderBuilder {
    model_id: Option<String>,
    onnx_path: Option<PathBuf>,
    tokenizer_path: Option<PathBuf>,
    pooling: Option<Pooling>,
    query_prefix: Option<String>,
    doc_prefix: Option<String>,
    max_seq_len: Option<usize>,
    intra_threads: Option<usize>,
    spinning: Option<bool>,
    max_sessions: Option<usize>,
    batch_size: Option<usize>,
    onnx_runtime: Option<PathBuf>,
}

impl LocalProviderBuilder {
    /// Model id stamped into every embedding (and used for the table lookup).
    pub fn model_id(mut self, id: impl Into<String>) -> Self {
        self.model_id = Some(id.into());
        self
    }

    /// The `.onnx` file. External weights (`model.onnx_data`) are read from
    /// beside it.
    pub fn onnx_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.onnx_path = Some(path.into());
        self
    }

    /// The Hugging Face `tokenizer.json`.
    pub fn tokenizer_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.tokenizer_path = Some(path.into());
        self
    }

    /// Pooling of the token states (when the model outputs them).
    pub fn pooling(mut self, pooling: Pooling) -> Self {
        self.pooling = Some(pooling);
        self
    }

    /// Text put before every query ([`LocalProvider::embed_query`]).
    pub fn query_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.query_prefix = Some(prefix.into());
        self
    }

    /// Text put before every document ([`LocalProvider::embed_document`]).
    pub fn doc_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.doc_prefix = Some(prefix.into());
        self
    }

    /// Longest token sequence fed to the model, special tokens included
    /// (0 counts as 1). Longer texts are truncated; the closing special token
    /// (`[SEP]`, `</s>`) is kept.
    pub fn max_seq_len(mut self, n: usize) -> Self {
        self.max_seq_len = Some(n.max(1));
        self
    }

    /// Threads ONNX Runtime uses inside one run (0 counts as 1). With several
    /// callers at once, `intra_threads(1)` and one session per core scale best.
    pub fn intra_threads(mut self, n: usize) -> Self {
        self.intra_threads = Some(n.max(1));
        self
    }

    /// Whether ONNX Runtime's intra-op threads spin while waiting for work
    /// (its default: yes). Spinning shortens each run on an idle machine but
    /// burns cores that other sessions or processes could use.
    pub fn intra_op_spinning(mut self, spin: bool) -> Self {
        self.spinning = Some(spin);
        self
    }

    /// Most sessions opened for concurrent callers (0 counts as 1). Each
    /// session holds its own copy of the weights.
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.max_sessions = Some(n.max(1));
        self
    }

    /// Texts per ONNX run in [`LocalProvider::embed_batch`] (0 counts as 1).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = Some(n.max(1));
        self
    }

    /// The ONNX Runtime shared library to load if none is loaded yet
    /// (see [`init_onnx_runtime`](super::init_onnx_runtime)).
    pub fn onnx_runtime(mut self, path: impl Into<PathBuf>) -> Self {
        self.onnx_runtime = Some(path.into());
        self
    }

    /// Load the runtime, the tokenizer and the model, and probe the model once
    /// to learn its output dimension.
    ///
    /// Errors: `Config` when a path is missing (ONNX first, as 0.3.2);
    /// `Tokenizer` when `tokenizer.json` cannot be read; `Onnx` when the
    /// runtime or the model cannot be loaded or run (unexpected inputs
    /// included).
    pub fn build(self) -> Result<LocalProvider> {
        let onnx_path = self.onnx_path.ok_or_else(|| {
            Error::Config(String::from("LocalProviderBuilder: onnx_path is required"))
        })?;
        let tokenizer_path = self.tokenizer_path.ok_or_else(|| {
            Error::Config(String::from(
                "LocalProviderBuilder: tokenizer_path is required",
            ))
        })?;
        let profile = self.model_id.as_deref().and_then(models::lookup);
        let pooling = self
            .pooling
            .or(profile.map(|p| p.pooling))
            .unwrap_or(Pooling::Mean);
        let query_prefix = self
            .query_prefix
            .unwrap_or_else(|| profile.map_or("", |p| p.query_prefix).to_string());
        let doc_prefix = self
            .doc_prefix
            .unwrap_or_else(|| profile.map_or("", |p| p.doc_prefix).to_string());

        let mut tokenizer = Tokenizer::from_file(&tokenizer_path).map_err(|e| {
            Error::Tokenizer(format!("cannot load `{}`: {e}", tokenizer_path.display()))
        })?;
        let max_seq_len = self
            .max_seq_len
            .or(tokenizer.get_truncation().map(|t| t.max_length.max(1)))
            .or_else(|| model_max_length(&tokenizer_path))
            .unwrap_or(DEFAULT_MAX_SEQ_LEN);
        // Pad ids for our own per-batch padding; the file's fixed padding
        // (e.g. 128 for MiniLM) would only waste compute.
        let pad_id = tokenizer.get_padding().map_or(0, |p| p.pad_id);
        tokenizer.with_padding(None);
        // Truncating in the tokenizer (not after it, as 0.3.2 did) keeps the
        // closing special token.
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_seq_len,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
                direction: TruncationDirection::Right,
            }))
            .map_err(|e| {
                Error::Tokenizer(format!("cannot set truncation to {max_seq_len}: {e}"))
            })?;

        let model_id = match self.model_id {
            Some(id) => id,
            None => default_model_id(&onnx_path, &tokenizer_path, pooling)?,
        };
        let env = runtime::environment(self.onnx_runtime.as_deref())?;
        let config = SessionConfig {
            onnx_path,
            intra_threads: self.intra_threads,
            spinning: self.spinning,
        };
        let mut first = config.open(&env)?;
        let io = ModelIo::inspect(&first)?;
        // One tiny run tells the real output width (0.3.2 guessed 384 when the
        // graph did not declare it) and proves the model and tokenizer agree.
        let probe = infer::encode(&tokenizer, "dimension probe")?;
        let dimension = infer::run_batch(&mut first, &io, pooling, pad_id, &[&probe])?
            .first()
            .map(Vec::len)
            .ok_or_else(|| Error::Onnx(String::from("the probe run returned nothing")))?;
        let max_sessions = self.max_sessions.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        Ok(LocalProvider {
            inner: Arc::new(Inner {
                model_id,
                pooling,
                query_prefix,
                doc_prefix,
                max_seq_len,
                batch_size: self.batch_size.unwrap_or(32),
                dimension,
                pad_id,
                tokenizer,
                io,
                pool: SessionPool::new(env, config, max_sessions, first),
            }),
        })
    }
}

/// `model_max_length` from the `tokenizer_config.json` beside the tokenizer,
/// when it is a real limit (Hugging Face writes 1e30 for "none"): long-context
/// models (8k tokens) declare theirs there, not in `tokenizer.json`.
fn model_max_length(tokenizer: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(tokenizer.with_file_name("tokenizer_config.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let n = v.get("model_max_length")?.as_u64()?;
    usize::try_from(n)
        .ok()
        .filter(|&n| (1..=1 << 20).contains(&n))
}

/// `local-onnx:` + XXH3-64 (hex) of the model file, its external-data file if
/// any, the tokenizer file and the pooling name.
fn default_model_id(onnx: &Path, tokenizer: &Path, pooling: Pooling) -> Result<String> {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut feed = |path: &Path, h: &mut xxhash_rust::xxh3::Xxh3| -> Result<()> {
        let mut f = File::open(path)
            .map_err(|e| Error::Config(format!("cannot read `{}`: {e}", path.display())))?;
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                return Ok(());
            }
            h.update(&buf[..n]);
        }
    };
    feed(onnx, &mut h)?;
    for suffix in ["_data", ".data"] {
        let mut p = onnx.as_os_str().to_owned();
        p.push(suffix);
        let p = PathBuf::from(p);
        if p.is_file() {
            feed(&p, &mut h)?;
        }
    }
    feed(tokenizer, &mut h)?;
    h.update(pooling.as_str().as_bytes());
    Ok(format!("local-onnx:{:016x}", h.digest()))
}
