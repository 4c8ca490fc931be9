//! Streaming SimHash (placeholder until the streaming engine lands).
use super::SimHashFingerprinter;
use crate::tokenize::Tokenizer;

/// Streaming SimHash over byte chunks.
pub struct SimHashStreaming<T: Tokenizer> {
    inner: SimHashFingerprinter<T>,
}

impl<T: Tokenizer> SimHashStreaming<T> {
    /// Wrap an offline fingerprinter.
    pub fn new(inner: SimHashFingerprinter<T>) -> Self {
        Self { inner }
    }
    /// The wrapped fingerprinter.
    pub fn fingerprinter(&self) -> &SimHashFingerprinter<T> {
        &self.inner
    }
}
