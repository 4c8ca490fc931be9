//! Fingerprinting many documents: [`FingerprintBatch`].
//!
//! Every built-in fingerprinter canonicalizes into a scratch `String`
//! before it tokenizes. One document at a time, that buffer is allocated
//! and freed per call; a batch keeps one per thread and reuses it, which is
//! all the batch forms add to a loop of `fingerprint` calls: the results
//! are the same, in input order, one `Result` per document.

use alloc::string::String;
use alloc::vec::Vec;

use super::Fingerprinter;
use crate::Result;

/// Batch and parallel forms of [`Fingerprinter::fingerprint`] that reuse a
/// scratch buffer per thread. Implemented by every built-in fingerprinter.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, WordTokenizer};
/// use txtfp::classical::FingerprintBatch;
/// let fp = MinHashFingerprinter::<_, 32>::new(Canonicalizer::default(), WordTokenizer);
/// let docs = ["the first document", "", "the second document"];
/// let sigs = fp.fingerprint_batch(&docs);
/// assert_eq!(sigs.len(), 3);
/// assert_eq!(sigs[0].as_ref().unwrap(), &fp.fingerprint(docs[0])?);
/// assert!(sigs[1].is_err()); // an empty document, as `fingerprint` says
/// // Lazily, over any iterator of texts:
/// let n = fp.fingerprint_iter(docs.iter().map(|d| d.to_uppercase())).filter(Result::is_ok).count();
/// assert_eq!(n, 2);
/// # Ok::<(), txtfp::Error>(())
/// ```
pub trait FingerprintBatch: Fingerprinter {
    /// [`fingerprint`](Fingerprinter::fingerprint) of `input`, using
    /// `scratch` (whose contents are replaced) instead of a fresh buffer.
    ///
    /// # Errors
    /// As [`Fingerprinter::fingerprint`].
    fn fingerprint_reusing(&self, input: &str, scratch: &mut String) -> Result<Self::Output>;

    /// Every input's result, in order, with one scratch buffer.
    fn fingerprint_batch<S: AsRef<str>>(&self, inputs: &[S]) -> Vec<Result<Self::Output>> {
        let mut scratch = String::new();
        inputs
            .iter()
            .map(|s| self.fingerprint_reusing(s.as_ref(), &mut scratch))
            .collect()
    }

    /// Every input's result, lazily and in order, with one scratch buffer.
    fn fingerprint_iter<I>(&self, inputs: I) -> impl Iterator<Item = Result<Self::Output>>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut scratch = String::new();
        inputs
            .into_iter()
            .map(move |s| self.fingerprint_reusing(s.as_ref(), &mut scratch))
    }

    /// [`fingerprint_batch`](Self::fingerprint_batch) on the rayon pool
    /// (feature `parallel`): one scratch buffer per worker, results in input
    /// order.
    ///
    /// ```
    /// use txtfp::{Canonicalizer, SimHashFingerprinter, WordTokenizer};
    /// use txtfp::classical::FingerprintBatch;
    /// let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
    /// let docs: Vec<String> = (0..100).map(|i| format!("document number {i}")).collect();
    /// let par = fp.par_fingerprint(&docs);
    /// assert_eq!(par.len(), 100);
    /// assert!(par.iter().zip(fp.fingerprint_batch(&docs)).all(|(a, b)| a.as_ref().ok() == b.as_ref().ok()));
    /// ```
    #[cfg(feature = "parallel")]
    fn par_fingerprint<S>(&self, inputs: &[S]) -> Vec<Result<Self::Output>>
    where
        Self: Sync,
        Self::Output: Send,
        S: AsRef<str> + Sync,
    {
        // A slice is an indexed parallel iterator of `&S`: same order.
        self.par_fingerprint_iter(inputs)
    }

    /// The results of a parallel iterator of texts (feature `parallel`), in
    /// its order when it is indexed, with one scratch buffer per worker.
    #[cfg(feature = "parallel")]
    fn par_fingerprint_iter<I>(&self, inputs: I) -> Vec<Result<Self::Output>>
    where
        Self: Sync,
        Self::Output: Send,
        I: rayon::iter::IntoParallelIterator,
        I::Item: AsRef<str>,
    {
        use rayon::prelude::*;
        inputs
            .into_par_iter()
            .map_init(String::new, |scratch, s| {
                self.fingerprint_reusing(s.as_ref(), scratch)
            })
            .collect()
    }
}

#[cfg(feature = "minhash")]
impl<T: crate::Tokenizer, const H: usize> FingerprintBatch for crate::MinHashFingerprinter<T, H> {
    fn fingerprint_reusing(&self, input: &str, scratch: &mut String) -> Result<Self::Output> {
        self.fingerprint_with_buffer(input, scratch)
    }
}

#[cfg(feature = "minhash")]
impl<T: crate::Tokenizer, const H: usize> FingerprintBatch
    for crate::classical::minhash::FastMinHashFingerprinter<T, H>
{
    fn fingerprint_reusing(&self, input: &str, scratch: &mut String) -> Result<Self::Output> {
        self.fingerprint_with_buffer(input, scratch)
    }
}

#[cfg(feature = "simhash")]
impl<T: crate::Tokenizer> FingerprintBatch for crate::SimHashFingerprinter<T> {
    fn fingerprint_reusing(&self, input: &str, scratch: &mut String) -> Result<Self::Output> {
        self.fingerprint_with_buffer(input, scratch)
    }
}

#[cfg(feature = "interop")]
impl FingerprintBatch for crate::classical::simhash::SimHashDocV1 {
    fn fingerprint_reusing(&self, input: &str, scratch: &mut String) -> Result<Self::Output> {
        self.fingerprint_with_buffer(input, scratch)
    }
}

#[cfg(feature = "tlsh")]
impl FingerprintBatch for crate::TlshFingerprinter {
    fn fingerprint_reusing(&self, input: &str, scratch: &mut String) -> Result<Self::Output> {
        self.fingerprint_with_buffer(input, scratch)
    }
}

#[cfg(test)]
mod tests;
