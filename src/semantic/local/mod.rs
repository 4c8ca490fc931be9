//! [`LocalProvider`]: sentence embeddings from an ONNX model, run locally by
//! ONNX Runtime (feature `semantic`).
//!
//! ONNX Runtime is not linked at build time: its shared library
//! (`libonnxruntime.so`, version 1.24 or newer) is opened at run time from
//! [`LocalProviderBuilder::onnx_runtime`], [`init_onnx_runtime`], the
//! `ORT_DYLIB_PATH` environment variable, or the system library path, in that
//! order. The `onnxruntime` Python wheel ships a suitable library in
//! `onnxruntime/capi/`. A missing or too old library is an [`Error::Onnx`](crate::Error::Onnx).

mod builder;
#[cfg(feature = "hf-hub")]
mod hub;
mod infer;
mod models;
mod pool;
mod pretrained;
mod runtime;

use std::sync::Arc;

use tokenizers::Tokenizer;

pub use builder::LocalProviderBuilder;
pub use runtime::{MIN_ONNX_RUNTIME, init_onnx_runtime, onnx_runtime_path};

use crate::{Embedding, EmbeddingProvider, Pooling, Result};
use infer::ModelIo;
use pool::SessionPool;

/// Embeds text with a local ONNX sentence-embedding model.
///
/// Cheap to clone (an `Arc`); clones share the sessions. Callers on several
/// threads run in parallel: each borrows one of up to
/// [`max_sessions`](LocalProviderBuilder::max_sessions) sessions (no global
/// lock around inference, unlike 0.3.2). [`embed_batch`](Self::embed_batch)
/// pads texts of similar length together and runs the model once per batch,
/// several times faster than one call per text.
///
/// ```no_run
/// use txtfp::{EmbeddingProvider, LocalProvider, Pooling, semantic_similarity};
/// let p = LocalProvider::builder()
///     .model_id("sentence-transformers/all-MiniLM-L6-v2")
///     .onnx_path("models/all-MiniLM-L6-v2/model.onnx")
///     .tokenizer_path("models/all-MiniLM-L6-v2/tokenizer.json")
///     .build()?;
/// assert_eq!(p.dimension(), 384);
/// let v = p.embed_batch(&["a cat sits on the mat", "a kitten rests on a rug"])?;
/// println!("{:.3}", semantic_similarity(&v[0], &v[1])?);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone)]
pub struct LocalProvider {
    inner: Arc<Inner>,
}

struct Inner {
    model_id: String,
    pooling: Pooling,
    query_prefix: String,
    doc_prefix: String,
    max_seq_len: usize,
    batch_size: usize,
    dimension: usize,
    pad_id: u32,
    tokenizer: Tokenizer,
    io: ModelIo,
    pool: SessionPool,
}

impl core::fmt::Debug for LocalProvider {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let i = &self.inner;
        f.debug_struct("LocalProvider")
            .field("model_id", &i.model_id)
            .field("pooling", &i.pooling)
            .field("dimension", &i.dimension)
            .field("max_seq_len", &i.max_seq_len)
            .field("query_prefix", &i.query_prefix)
            .field("doc_prefix", &i.doc_prefix)
            .field("batch_size", &i.batch_size)
            .field("sessions", &i.pool.sessions())
            .finish_non_exhaustive()
    }
}

impl LocalProvider {
    /// A builder; see [`LocalProviderBuilder`] for the settings and defaults.
    pub fn builder() -> LocalProviderBuilder {
        LocalProviderBuilder::default()
    }

    /// A provider for an ONNX file and its `tokenizer.json`, with the given
    /// pooling and every other setting at its default (the model id is a hash
    /// of the files, see [`LocalProviderBuilder`]).
    pub fn from_onnx(
        onnx_path: &std::path::Path,
        tokenizer_path: &std::path::Path,
        pooling: Pooling,
    ) -> Result<Self> {
        Self::builder()
            .onnx_path(onnx_path)
            .tokenizer_path(tokenizer_path)
            .pooling(pooling)
            .build()
    }

    /// Embed a document (prefixed with the model's document prefix, if any).
    pub fn embed_document(&self, input: &str) -> Result<Embedding> {
        self.embed_one(&self.inner.doc_prefix, input)
    }

    /// Embed a search query (prefixed with the model's query prefix, e.g.
    /// `"query: "` for E5 or the retrieval instruction for BGE).
    pub fn embed_query(&self, input: &str) -> Result<Embedding> {
        self.embed_one(&self.inner.query_prefix, input)
    }

    /// Embed many documents: texts are tokenized, sorted by length, padded in
    /// groups of [`batch_size`](LocalProviderBuilder::batch_size) and run once
    /// per group. Results come back in input order and equal
    /// [`embed_document`](Self::embed_document)'s up to float rounding.
    pub fn embed_batch<S: AsRef<str>>(&self, inputs: &[S]) -> Result<Vec<Embedding>> {
        self.embed_many(&self.inner.doc_prefix, inputs)
    }

    /// [`embed_batch`](Self::embed_batch) for queries (query prefix).
    pub fn embed_query_batch<S: AsRef<str>>(&self, inputs: &[S]) -> Result<Vec<Embedding>> {
        self.embed_many(&self.inner.query_prefix, inputs)
    }

    /// The pooling in use.
    pub fn pooling(&self) -> Pooling {
        self.inner.pooling
    }

    /// Longest token sequence fed to the model.
    pub fn max_seq_len(&self) -> usize {
        self.inner.max_seq_len
    }

    /// The prefix [`embed_query`](Self::embed_query) adds.
    pub fn query_prefix(&self) -> &str {
        &self.inner.query_prefix
    }

    /// The prefix [`embed_document`](Self::embed_document) adds.
    pub fn doc_prefix(&self) -> &str {
        &self.inner.doc_prefix
    }

    fn embed_one(&self, prefix: &str, input: &str) -> Result<Embedding> {
        let enc = self.encode(prefix, input)?;
        let i = &self.inner;
        let mut v = i
            .pool
            .with_session(|s| infer::run_batch(s, &i.io, i.pooling, i.pad_id, &[&enc]))?;
        self.wrap(v.pop())
    }

    fn embed_many<S: AsRef<str>>(&self, prefix: &str, inputs: &[S]) -> Result<Vec<Embedding>> {
        let i = &self.inner;
        let mut out: Vec<Option<Embedding>> = vec![None; inputs.len()];
        // Tokenize a window of batches at a time, so memory stays bounded
        // however many texts come in, while sorting still finds similar lengths.
        let window = i.batch_size.saturating_mul(8);
        for (w, texts) in inputs.chunks(window).enumerate() {
            let encs = texts
                .iter()
                .map(|t| self.encode(prefix, t.as_ref()))
                .collect::<Result<Vec<_>>>()?;
            let mut order: Vec<usize> = (0..encs.len()).collect();
            order.sort_by_key(|&k| encs[k].len());
            for group in order.chunks(i.batch_size) {
                let refs: Vec<_> = group.iter().map(|&k| &encs[k]).collect();
                let vecs = i
                    .pool
                    .with_session(|s| infer::run_batch(s, &i.io, i.pooling, i.pad_id, &refs))?;
                if vecs.len() != group.len() {
                    return Err(crate::Error::EmptyEmbedding);
                }
                for (&k, v) in group.iter().zip(vecs) {
                    out[w * window + k] = Some(self.wrap(Some(v))?);
                }
            }
        }
        out.into_iter()
            .map(|e| e.ok_or(crate::Error::EmptyEmbedding))
            .collect()
    }

    fn encode(&self, prefix: &str, input: &str) -> Result<tokenizers::Encoding> {
        let i = &self.inner;
        let input = infer::cut_for_tokenizer(input, i.max_seq_len);
        if prefix.is_empty() {
            infer::encode(&i.tokenizer, input)
        } else {
            infer::encode(&i.tokenizer, &format!("{prefix}{input}"))
        }
    }

    fn wrap(&self, v: Option<Vec<f32>>) -> Result<Embedding> {
        let v = v.ok_or(crate::Error::EmptyEmbedding)?;
        Embedding::with_model(v, Some(self.inner.model_id.clone()))
    }
}

impl EmbeddingProvider for LocalProvider {
    type Input = str;

    /// Same as [`LocalProvider::embed_document`].
    fn embed(&self, input: &str) -> Result<Embedding> {
        self.embed_document(input)
    }

    fn model_id(&self) -> &str {
        &self.inner.model_id
    }

    /// Read from the model by a probe run when the provider was built.
    fn dimension(&self) -> usize {
        self.inner.dimension
    }
}
