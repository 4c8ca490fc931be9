//! Semantic embeddings (features `semantic-core` and `semantic`).
//!
//! | item | feature | what |
//! |---|---|---|
//! | [`Embedding`], [`semantic_similarity`] | `semantic-core` | validated vectors, cosine with model/dimension guards |
//! | [`EmbeddingProvider`] | `semantic-core` | the provider trait (`Input`, `embed`, `model_id`, `dimension`) |
//! | [`Pooling`] | `semantic-core` | CLS / mean / max pooling of token states |
//! | [`ChunkingStrategy`], [`chunk_for_model`] | `semantic-core` | model-sized chunks of long text |
//! | [`LocalProvider`] | `semantic` | ONNX models run by ONNX Runtime (`ort`, loaded at run time) |
//! | `providers` (`OpenAiProvider`, `VoyageProvider`, `CohereProvider`) | `openai`, `voyage`, `cohere` | cloud embedding APIs over HTTPS (`ureq`), one retry policy |
//!
//! `semantic-core` pulls in no dependency beyond the crate's defaults;
//! `semantic` adds `ort` and `tokenizers` (a ~5 minute cold build) and
//! `hf-hub` adds downloading for [`LocalProvider::from_pretrained`] (a small
//! Hub client on the `ureq` + rustls stack the cloud providers use).

mod chunk;
mod embedding;
#[cfg(feature = "semantic")]
pub mod local;
#[cfg(any(
    feature = "openai",
    feature = "voyage",
    feature = "cohere",
    feature = "hf-hub"
))]
mod net;
mod pooling;
mod provider;
#[cfg(any(feature = "openai", feature = "voyage", feature = "cohere"))]
pub mod providers;

pub use chunk::{ChunkMode, ChunkingStrategy, chunk_for_model};
pub use embedding::{Embedding, MAX_EMBEDDING_DIM, semantic_similarity};
#[cfg(feature = "semantic")]
pub use local::{LocalProvider, LocalProviderBuilder};
pub use pooling::Pooling;
pub use provider::EmbeddingProvider;
#[cfg(feature = "openai")]
pub use providers::OpenAiProvider;
#[cfg(feature = "cohere")]
pub use providers::{CohereInputType, CohereProvider};
#[cfg(feature = "voyage")]
pub use providers::{VoyageInputType, VoyageProvider};
