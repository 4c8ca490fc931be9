//! Cloud embedding providers (features `openai`, `voyage`, `cohere`).
//!
//! | provider | feature | request | answer | default model | inputs per request |
//! |---|---|---|---|---|---|
//! | [`OpenAiProvider`] | `openai` | `POST {base}/v1/embeddings` `{"model", "input": [..], "dimensions"?}` | `{"data": [{"embedding", "index"}], "model", "usage"}` | `text-embedding-3-small` (1536) | 2048 |
//! | [`VoyageProvider`] | `voyage` | `POST {base}/v1/embeddings` `{"input": [..], "model", "input_type"?, "output_dimension"?}` | `{"data": [{"embedding", "index"}], ...}` | `voyage-3` (1024) | 1000 |
//! | [`CohereProvider`] | `cohere` | `POST {base}/v2/embed` `{"texts": [..], "model", "input_type", "embedding_types": ["float"], "output_dimension"?}` | `{"embeddings": {"float": [[..]]}, ...}` | `embed-english-v3.0` (1024) | 96 |
//!
//! All three send `Authorization: Bearer <key>` over HTTPS (`ureq` with
//! rustls), put the vectors in input order (by `index` where the API gives
//! one), check that there is one per input, that each is a valid
//! [`Embedding`](crate::Embedding) (non-empty, finite) and that all have
//! the model's length (known for the published models, else learned from
//! the first answer), and tag each with the model name. Larger batches are
//! split into several requests; an answer is read up to a size derived from
//! the batch and the dimension, so a broken server cannot exhaust memory.
//!
//! Every request runs under one [`RetryPolicy`]: HTTP 408, 425, 429, 500,
//! 502, 503, 504 and network errors are retried with exponential backoff
//! (500 ms, ×2, ±30 % jitter, at most 30 s per wait), each attempt times
//! out after 30 s and the request after 90 s in all, a `Retry-After` is
//! honoured up to 60 s; 400, 401, 403, 404, 422 (and any other status) fail
//! at once. Errors: [`Error::HttpStatus`] for an
//! error answer (status and the service's message),
//! [`Error::Http`] for a network failure or an unusable
//! answer. `Debug` of each provider shows the API key as `<redacted>`, and
//! no error message contains it.
//!
//! txtfp 0.3.2 documented these providers but had dropped them; the names,
//! constructors and call shapes follow its documentation.

#[macro_use]
mod api;
mod batch;
mod clock;
mod http;
mod retry;

#[cfg(feature = "cohere")]
mod cohere;
#[cfg(feature = "openai")]
mod openai;
#[cfg(feature = "voyage")]
mod voyage;

pub use clock::{Clock, SystemClock};
#[cfg(feature = "cohere")]
pub use cohere::{
    COHERE_BASE_URL, COHERE_DEFAULT_MODEL, COHERE_MAX_BATCH, CohereInputType, CohereProvider,
};
#[cfg(feature = "openai")]
pub use openai::{OPENAI_BASE_URL, OPENAI_DEFAULT_MODEL, OPENAI_MAX_BATCH, OpenAiProvider};
pub use retry::{RETRYABLE_STATUSES, RetryPolicy};
#[cfg(feature = "voyage")]
pub use voyage::{
    VOYAGE_BASE_URL, VOYAGE_DEFAULT_MODEL, VOYAGE_MAX_BATCH, VoyageInputType, VoyageProvider,
};

use crate::{Error, Result};

/// The first of `names` set in the environment (and non-empty).
fn env_key(names: &[&str]) -> Result<String> {
    names
        .iter()
        .find_map(|n| std::env::var(n).ok().filter(|v| !v.is_empty()))
        .ok_or_else(|| Error::Config(format!("{} is not set", names.join(" / "))))
}

#[cfg(test)]
mod tests;
