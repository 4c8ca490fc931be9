//! [`EmbeddingProvider`]: the trait every embedding backend implements.

use super::Embedding;
use crate::Result;

/// Turns an input (text for the providers in this crate) into an [`Embedding`].
///
/// The shape is the one txtfp 0.3.2 and its sibling crates share, so generic
/// code can swap providers: `Input` is the borrowed input type (`str` for
/// text), [`model_id`](Self::model_id) names the model (it is stamped into
/// every embedding, and [`semantic_similarity`](super::semantic_similarity)
/// refuses to compare embeddings of different models) and
/// [`dimension`](Self::dimension) is the length of the vectors it returns.
///
/// ```
/// use txtfp::{Embedding, EmbeddingProvider, Result};
///
/// /// A toy provider: letter counts a..z.
/// struct Letters;
/// impl EmbeddingProvider for Letters {
///     type Input = str;
///     fn embed(&self, input: &str) -> Result<Embedding> {
///         let mut v = vec![0.0f32; 26];
///         for b in input.bytes().filter(u8::is_ascii_lowercase) {
///             v[usize::from(b - b'a')] += 1.0;
///         }
///         Embedding::with_model(v, Some(self.model_id().to_string()))
///     }
///     fn model_id(&self) -> &str { "letters-v1" }
///     fn dimension(&self) -> usize { 26 }
/// }
///
/// let e = Letters.embed("abba")?;
/// assert_eq!((e.dim(), e.model_id()), (Letters.dimension(), Some("letters-v1")));
/// # Ok::<(), txtfp::Error>(())
/// ```
pub trait EmbeddingProvider: Send + Sync {
    /// What the provider embeds (`str` for text).
    type Input: ?Sized;

    /// Embed one input.
    fn embed(&self, input: &Self::Input) -> Result<Embedding>;

    /// The model id stamped into every embedding this provider returns.
    fn model_id(&self) -> &str;

    /// Length of the vectors this provider returns.
    fn dimension(&self) -> usize;
}
