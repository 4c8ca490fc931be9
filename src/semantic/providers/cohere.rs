//! [`CohereProvider`]: the Cohere Embed API (v2).

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::batch::{Core, check_count, parse_json};
use super::http::Transport;
use crate::semantic::Embedding;
use crate::{Error, Result};

/// The public endpoint; [`CohereProvider::with_base_url`] replaces it.
pub const COHERE_BASE_URL: &str = "https://api.cohere.com";
/// The model used unless [`CohereProvider::with_model`] picks another.
pub const COHERE_DEFAULT_MODEL: &str = "embed-english-v3.0";
/// Most texts the API takes in one request; bigger batches are split.
pub const COHERE_MAX_BATCH: usize = 96;

/// Default dimensions of the Cohere embed models.
fn model_dim(model: &str) -> usize {
    match model {
        "embed-english-v3.0" | "embed-multilingual-v3.0" => 1024,
        "embed-english-light-v3.0" | "embed-multilingual-light-v3.0" => 384,
        "embed-v4.0" => 1536,
        _ => 0,
    }
}

/// What a Cohere text is for; the v3+ models require one and embed each
/// kind differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CohereInputType {
    /// A document stored for search (`"search_document"`).
    SearchDocument,
    /// A search query (`"search_query"`).
    SearchQuery,
    /// Input to a text classifier (`"classification"`).
    Classification,
    /// Input to clustering (`"clustering"`).
    Clustering,
}

impl CohereInputType {
    /// The API's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SearchDocument => "search_document",
            Self::SearchQuery => "search_query",
            Self::Classification => "classification",
            Self::Clustering => "clustering",
        }
    }
}

impl FromStr for CohereInputType {
    type Err = Error;

    /// One of the four API names; anything else is `InvalidInput` naming it.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "search_document" => Ok(Self::SearchDocument),
            "search_query" => Ok(Self::SearchQuery),
            "classification" => Ok(Self::Classification),
            "clustering" => Ok(Self::Clustering),
            other => Err(Error::InvalidInput(format!(
                "Cohere input_type must be one of search_document, search_query, \
                 classification, clustering; got {other:?}"
            ))),
        }
    }
}

#[derive(Serialize)]
struct Request<'a> {
    texts: &'a [&'a str],
    model: &'a str,
    input_type: &'static str,
    embedding_types: [&'static str; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    output_dimension: Option<usize>,
}

#[derive(Deserialize)]
struct Response {
    embeddings: Embeddings,
}

#[derive(Deserialize)]
struct Embeddings {
    float: Vec<Vec<f32>>,
}

/// Embeddings from the Cohere Embed API v2 (feature `cohere`).
///
/// `POST {base}/v2/embed` with `{"texts": [texts], "model", "input_type",
/// "embedding_types": ["float"], "output_dimension"?}` and a bearer key; the
/// answer's `embeddings.float` come in input order. Default model
/// `embed-english-v3.0` (1024 values). Batches of more than 96 texts go out
/// as several requests. Every vector is checked and tagged with the model
/// name.
///
/// The input type is required by the API: an argument of
/// [`embed_batch`](Self::embed_batch); [`EmbeddingProvider::embed`](crate::EmbeddingProvider::embed) uses
/// the one set by [`with_input_type`](Self::with_input_type)
/// (`search_document` by default). Requests are retried as [`RetryPolicy`](super::RetryPolicy)
/// describes; `Debug` shows the key as `<redacted>`.
///
/// ```no_run
/// use txtfp::semantic::providers::CohereProvider;
///
/// let p = CohereProvider::new(std::env::var("COHERE_API_KEY").unwrap())?;
/// let docs = p.embed_batch(&["lorem", "ipsum"], "search_document")?;
/// assert_eq!(docs[0].model_id(), Some("embed-english-v3.0"));
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone)]
pub struct CohereProvider {
    core: Core,
    input_type: CohereInputType,
}

shared_provider_api! {
    CohereProvider;
    /// Uses `model`. Its default dimension is known for the published embed
    /// models; for any other name it is learned from the first answer
    /// ([`dimension`](crate::EmbeddingProvider::dimension) is 0 until then).
    with_model;
    /// Asks for `n`-value vectors (the API's `output_dimension`, which
    /// `embed-v4.0` supports). Errors: `Config` unless
    /// `1 <= n <= MAX_EMBEDDING_DIM`.
    with_dimensions;
    /// Sends requests to `url` instead of `https://api.cohere.com`; the
    /// path `/v2/embed` is appended. Errors: `Config` unless it is an
    /// `http(s)` URL.
    with_base_url;
    /// Texts per request, clamped to `1..=96`.
    with_batch_size;
}

impl CohereProvider {
    /// A provider with the default model and endpoint.
    ///
    /// Errors: `Config` when the key is empty or holds characters an HTTP
    /// header cannot carry (the message never repeats the key).
    pub fn new(api_key: impl Into<String>) -> Result<Self> {
        let transport = Transport::new("Cohere", COHERE_BASE_URL, api_key.into())?;
        let core = Core::new(transport, COHERE_DEFAULT_MODEL, model_dim, COHERE_MAX_BATCH);
        Ok(Self {
            core,
            input_type: CohereInputType::SearchDocument,
        })
    }

    /// [`new`](Self::new) with the key from `COHERE_API_KEY` (or, when that
    /// is unset, `CO_API_KEY`, the name Cohere's own SDKs read).
    pub fn from_env() -> Result<Self> {
        Self::new(super::env_key(&["COHERE_API_KEY", "CO_API_KEY"])?)
    }

    /// The input type [`EmbeddingProvider::embed`](crate::EmbeddingProvider::embed) sends.
    pub fn with_input_type(mut self, input_type: CohereInputType) -> Self {
        self.input_type = input_type;
        self
    }

    /// Embeds one text with the provider's input type
    /// ([`with_input_type`](Self::with_input_type); `search_document` by default).
    pub fn embed(&self, text: &str) -> Result<Embedding> {
        self.embed_one(text, self.input_type)
    }

    /// Embeds one text as a search query.
    pub fn embed_query(&self, text: &str) -> Result<Embedding> {
        self.embed_one(text, CohereInputType::SearchQuery)
    }

    /// Embeds one text as a search document.
    pub fn embed_document(&self, text: &str) -> Result<Embedding> {
        self.embed_one(text, CohereInputType::SearchDocument)
    }

    /// Embeds `texts`, in order, as `input_type` (`"search_document"`,
    /// `"search_query"`, `"classification"` or `"clustering"`). An empty
    /// slice makes no request. Errors: `InvalidInput` for another input type
    /// or an empty text, `HttpStatus` for an error answer, `Http` for a
    /// network failure or an unusable answer.
    pub fn embed_batch<S: AsRef<str>>(
        &self,
        texts: &[S],
        input_type: &str,
    ) -> Result<Vec<Embedding>> {
        self.embed_typed(texts, input_type.parse()?)
    }

    fn embed_one(&self, text: &str, input_type: CohereInputType) -> Result<Embedding> {
        self.embed_typed(&[text], input_type)?
            .pop()
            .ok_or(Error::EmptyEmbedding)
    }

    fn embed_typed<S: AsRef<str>>(
        &self,
        texts: &[S],
        input_type: CohereInputType,
    ) -> Result<Vec<Embedding>> {
        let core = &self.core;
        core.run(
            texts,
            "/v2/embed",
            |chunk| {
                serde_json::to_vec(&Request {
                    texts: chunk,
                    model: &core.model,
                    input_type: input_type.as_str(),
                    embedding_types: ["float"],
                    output_dimension: core.dimensions,
                })
            },
            |t, body, n| {
                let r: Response = parse_json(t, body)?;
                check_count(t, r.embeddings.float.len(), n)?;
                Ok(r.embeddings.float)
            },
        )
    }
}
