//! [`VoyageProvider`]: the Voyage AI Embeddings API.

use std::str::FromStr;

use serde::Serialize;

use super::batch::{Core, parse_indexed};
use super::http::Transport;
use crate::semantic::Embedding;
use crate::{Error, Result};

/// The public endpoint; [`VoyageProvider::with_base_url`] replaces it.
pub const VOYAGE_BASE_URL: &str = "https://api.voyageai.com";
/// The model used unless [`VoyageProvider::with_model`] picks another.
pub const VOYAGE_DEFAULT_MODEL: &str = "voyage-3";
/// Most inputs the API takes in one request; bigger batches are split.
pub const VOYAGE_MAX_BATCH: usize = 1000;

/// Default dimensions of the Voyage models.
fn model_dim(model: &str) -> usize {
    match model {
        "voyage-3-lite" => 512,
        "voyage-large-2" | "voyage-code-2" => 1536,
        "voyage-3"
        | "voyage-3-large"
        | "voyage-3.5"
        | "voyage-3.5-lite"
        | "voyage-code-3"
        | "voyage-2"
        | "voyage-law-2"
        | "voyage-finance-2"
        | "voyage-multilingual-2"
        | "voyage-large-2-instruct" => 1024,
        _ => 0,
    }
}

/// What a Voyage text is for: retrieval models embed queries and documents
/// differently (the API prepends its own prompt to each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoyageInputType {
    /// A search query (`"query"`).
    Query,
    /// A document to be searched (`"document"`).
    Document,
}

impl VoyageInputType {
    /// The API's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Query => "query",
            Self::Document => "document",
        }
    }
}

impl FromStr for VoyageInputType {
    type Err = Error;

    /// `"query"` or `"document"`; anything else is `InvalidInput` naming it.
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "query" => Ok(Self::Query),
            "document" => Ok(Self::Document),
            other => Err(Error::InvalidInput(format!(
                "Voyage input_type must be \"query\" or \"document\", got {other:?}"
            ))),
        }
    }
}

#[derive(Serialize)]
struct Request<'a> {
    input: &'a [&'a str],
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_dimension: Option<usize>,
}

/// Embeddings from the Voyage AI Embeddings API (feature `voyage`).
///
/// `POST {base}/v1/embeddings` with `{"input": [texts], "model",
/// "input_type"?, "output_dimension"?}` and a bearer key; the answer's
/// `data[].embedding` are put in `data[].index` order. Default model
/// `voyage-3` (1024 values). Batches of more than 1000 texts go out as
/// several requests (Voyage also caps the tokens per request: lower
/// [`with_batch_size`](Self::with_batch_size) if it answers 400 for long
/// texts). Every vector is checked and tagged with the model name.
///
/// The input type (`"query"` / `"document"`, or none) is an argument of
/// [`embed_batch`](Self::embed_batch); [`EmbeddingProvider::embed`](crate::EmbeddingProvider::embed) uses the
/// one set by [`with_input_type`](Self::with_input_type) (none by default).
/// Requests are retried as [`RetryPolicy`](super::RetryPolicy) describes; `Debug` shows the key
/// as `<redacted>`.
///
/// ```no_run
/// use txtfp::semantic::providers::VoyageProvider;
/// use txtfp::semantic_similarity;
///
/// let p = VoyageProvider::new(std::env::var("VOYAGE_API_KEY").unwrap())?;
/// let docs = p.embed_batch(&["lorem", "ipsum"], Some("document"))?;
/// let q = p.embed_query("lorem?")?;
/// let best = semantic_similarity(&q, &docs[0])?;
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone)]
pub struct VoyageProvider {
    core: Core,
    input_type: Option<VoyageInputType>,
}

shared_provider_api! {
    VoyageProvider;
    /// Uses `model`. Its default dimension is known for the published Voyage
    /// models; for any other name it is learned from the first answer
    /// ([`dimension`](crate::EmbeddingProvider::dimension) is 0 until then).
    with_model;
    /// Asks for `n`-value vectors (the API's `output_dimension`, which
    /// `voyage-3-large`, `voyage-3.5` and `voyage-code-3` support). Errors:
    /// `Config` unless `1 <= n <= MAX_EMBEDDING_DIM`.
    with_dimensions;
    /// Sends requests to `url` instead of `https://api.voyageai.com`; the
    /// path `/v1/embeddings` is appended. Errors: `Config` unless it is an
    /// `http(s)` URL.
    with_base_url;
    /// Inputs per request, clamped to `1..=1000`.
    with_batch_size;
}

impl VoyageProvider {
    /// A provider with the default model and endpoint.
    ///
    /// Errors: `Config` when the key is empty or holds characters an HTTP
    /// header cannot carry (the message never repeats the key).
    pub fn new(api_key: impl Into<String>) -> Result<Self> {
        let transport = Transport::new("Voyage", VOYAGE_BASE_URL, api_key.into())?;
        let core = Core::new(transport, VOYAGE_DEFAULT_MODEL, model_dim, VOYAGE_MAX_BATCH);
        Ok(Self {
            core,
            input_type: None,
        })
    }

    /// [`new`](Self::new) with the key from `VOYAGE_API_KEY`.
    pub fn from_env() -> Result<Self> {
        Self::new(super::env_key(&["VOYAGE_API_KEY"])?)
    }

    /// The input type [`EmbeddingProvider::embed`](crate::EmbeddingProvider::embed) sends.
    pub fn with_input_type(mut self, input_type: VoyageInputType) -> Self {
        self.input_type = Some(input_type);
        self
    }

    /// Embeds one text with the provider's input type
    /// ([`with_input_type`](Self::with_input_type); none by default).
    pub fn embed(&self, text: &str) -> Result<Embedding> {
        self.embed_one(text, self.input_type)
    }

    /// Embeds one text as a query.
    pub fn embed_query(&self, text: &str) -> Result<Embedding> {
        self.embed_one(text, Some(VoyageInputType::Query))
    }

    /// Embeds one text as a document.
    pub fn embed_document(&self, text: &str) -> Result<Embedding> {
        self.embed_one(text, Some(VoyageInputType::Document))
    }

    /// Embeds `texts`, in order, with `input_type` `Some("query")`,
    /// `Some("document")` or `None`. An empty slice makes no request.
    /// Errors: `InvalidInput` for another input type or an empty text,
    /// `HttpStatus` for an error answer, `Http` for a network failure or an
    /// unusable answer.
    pub fn embed_batch<S: AsRef<str>>(
        &self,
        texts: &[S],
        input_type: Option<&str>,
    ) -> Result<Vec<Embedding>> {
        let input_type = input_type.map(str::parse).transpose()?;
        self.embed_typed(texts, input_type)
    }

    fn embed_one(&self, text: &str, input_type: Option<VoyageInputType>) -> Result<Embedding> {
        self.embed_typed(&[text], input_type)?
            .pop()
            .ok_or(Error::EmptyEmbedding)
    }

    fn embed_typed<S: AsRef<str>>(
        &self,
        texts: &[S],
        input_type: Option<VoyageInputType>,
    ) -> Result<Vec<Embedding>> {
        let core = &self.core;
        core.run(
            texts,
            "/v1/embeddings",
            |input| {
                serde_json::to_vec(&Request {
                    input,
                    model: &core.model,
                    input_type: input_type.map(VoyageInputType::as_str),
                    output_dimension: core.dimensions,
                })
            },
            parse_indexed,
        )
    }
}
