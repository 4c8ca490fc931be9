//! Streaming MinHash (placeholder until the streaming engine lands).
use super::MinHashFingerprinter;
use crate::tokenize::Tokenizer;

/// Streaming MinHash over byte chunks.
pub struct MinHashStreaming<T: Tokenizer, const H: usize> {
    inner: MinHashFingerprinter<T, H>,
}

impl<T: Tokenizer, const H: usize> MinHashStreaming<T, H> {
    /// Wrap an offline fingerprinter.
    pub fn new(inner: MinHashFingerprinter<T, H>) -> Self {
        Self { inner }
    }
    /// The wrapped fingerprinter.
    pub fn fingerprinter(&self) -> &MinHashFingerprinter<T, H> {
        &self.inner
    }
}
