//! [`OpenAiProvider`]: the OpenAI Embeddings API.

use serde::Serialize;

use super::batch::{Core, parse_indexed};
use super::http::Transport;
use crate::semantic::Embedding;
use crate::{Error, Result};

/// The public endpoint; [`OpenAiProvider::with_base_url`] replaces it.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com";
/// The model used unless [`OpenAiProvider::with_model`] picks another.
pub const OPENAI_DEFAULT_MODEL: &str = "text-embedding-3-small";
/// Most inputs the API takes in one request; bigger batches are split.
pub const OPENAI_MAX_BATCH: usize = 2048;

/// Dimensions of the OpenAI models (without a `dimensions` request).
fn model_dim(model: &str) -> usize {
    match model {
        "text-embedding-3-small" | "text-embedding-ada-002" => 1536,
        "text-embedding-3-large" => 3072,
        _ => 0,
    }
}

#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    input: &'a [&'a str],
    #[serde(skip_serializing_if = "Option::is_none")]
    dimensions: Option<usize>,
}

/// Embeddings from the OpenAI Embeddings API (feature `openai`).
///
/// `POST {base}/v1/embeddings` with `{"model", "input": [texts],
/// "dimensions"?}` and a bearer key; the answer's `data[].embedding` are put
/// in `data[].index` order. Default model `text-embedding-3-small` (1536
/// values); `text-embedding-3-large` gives 3072, and both accept a smaller
/// [`with_dimensions`](Self::with_dimensions). Batches of more than 2048
/// texts go out as several requests. Every vector is checked (finite,
/// non-empty, the model's length) and tagged with the model name.
///
/// Requests are retried as [`RetryPolicy`](super::RetryPolicy) describes; `Debug` shows the key
/// as `<redacted>`.
///
/// ```no_run
/// use txtfp::EmbeddingProvider;
/// use txtfp::semantic::providers::OpenAiProvider;
///
/// let p = OpenAiProvider::from_env()?.with_model("text-embedding-3-large");
/// let one = p.embed("the quick brown fox")?;
/// assert_eq!((one.dim(), one.model_id()), (3072, Some("text-embedding-3-large")));
/// let many = p.embed_batch(&["fox", "wolf", "lion"])?;
/// assert_eq!(many.len(), 3);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone)]
pub struct OpenAiProvider {
    core: Core,
}

shared_provider_api! {
    OpenAiProvider;
    /// Uses `model`. Its dimension is known for the three OpenAI models;
    /// for any other name it is learned from the first answer
    /// ([`dimension`](crate::EmbeddingProvider::dimension) is 0 until then).
    with_model;
    /// Asks for `n`-value vectors (the API's `dimensions`; the
    /// `text-embedding-3-*` models support it). Errors: `Config` unless
    /// `1 <= n <= MAX_EMBEDDING_DIM`.
    with_dimensions;
    /// Sends requests to `url` instead of `https://api.openai.com` (a proxy,
    /// a compatible server, a test server); the path `/v1/embeddings` is
    /// appended. Errors: `Config` unless it is an `http(s)` URL.
    with_base_url;
    /// Inputs per request, clamped to `1..=2048`.
    with_batch_size;
}

impl OpenAiProvider {
    /// A provider with the default model and endpoint.
    ///
    /// Errors: `Config` when the key is empty or holds characters an HTTP
    /// header cannot carry (the message never repeats the key).
    pub fn new(api_key: impl Into<String>) -> Result<Self> {
        let transport = Transport::new("OpenAI", OPENAI_BASE_URL, api_key.into())?;
        let core = Core::new(transport, OPENAI_DEFAULT_MODEL, model_dim, OPENAI_MAX_BATCH);
        Ok(Self { core })
    }

    /// [`new`](Self::new) with the key from `OPENAI_API_KEY`.
    pub fn from_env() -> Result<Self> {
        Self::new(super::env_key(&["OPENAI_API_KEY"])?)
    }

    /// Embeds one text.
    pub fn embed(&self, text: &str) -> Result<Embedding> {
        self.embed_batch(&[text])?
            .pop()
            .ok_or(Error::EmptyEmbedding)
    }

    /// Embeds `texts`, in order: one request per 2048 texts (or per
    /// [`with_batch_size`](Self::with_batch_size)). An empty slice makes no
    /// request. Errors: `InvalidInput` naming the first empty text,
    /// `HttpStatus` for an error answer, `Http` for a network failure or an
    /// unusable answer.
    pub fn embed_batch<S: AsRef<str>>(&self, texts: &[S]) -> Result<Vec<Embedding>> {
        let core = &self.core;
        core.run(
            texts,
            "/v1/embeddings",
            |input| {
                serde_json::to_vec(&Request {
                    model: &core.model,
                    input,
                    dimensions: core.dimensions,
                })
            },
            parse_indexed,
        )
    }
}
