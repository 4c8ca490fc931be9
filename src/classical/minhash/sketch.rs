//! The running minima of one document, shared by the offline fingerprinter
//! and the streaming path.
//!
//! Each token costs one 128-bit hash and `H` slot updates; the updates are
//! queued and run [`BATCH`] tokens at a time ([`Kernel::update_batch`]). A
//! slot is a minimum over the token set, so batching does not change the
//! signature.

use super::MinHashSig;
use super::fingerprinter::empty_document;
use super::kernel::Kernel;
use super::shingle_hash::{SPAN_BATCH, ShingleHasher};
use crate::Result;
use crate::classical::{HashFamily, TokenSketch};

/// Tokens hashed before their slot updates run as one batch.
const BATCH: usize = 32;

/// Tokens in, [`MinHashSig`] out.
pub struct MinHashSketch<const H: usize> {
    slots: [u64; H],
    family: HashFamily,
    seed: u64,
    // Detected once per sketch rather than once per token.
    kernel: Kernel,
    any: bool,
    /// Token hashes not yet folded into `slots` (see [`Kernel::update_batch`]).
    pending: [[u64; 2]; BATCH],
    npending: usize,
}

impl<const H: usize> MinHashSketch<H> {
    pub(crate) fn new(family: HashFamily, seed: u64) -> Self {
        Self::with_kernel(family, seed, Kernel::detect())
    }

    pub(super) fn with_kernel(family: HashFamily, seed: u64, kernel: Kernel) -> Self {
        Self {
            slots: [u64::MAX; H],
            family,
            seed,
            kernel,
            any: false,
            pending: [[0; 2]; BATCH],
            npending: 0,
        }
    }

    /// [`MinHashSketch::push_bytes`] of `text[starts[i]..ends[i]]` for
    /// every `i` (as [`for_each_token_batch`] hands them out). With the
    /// default family the batch is hashed by [`ShingleHasher::hash_spans`];
    /// a slot is a minimum, so the order of the tokens does not matter.
    ///
    /// [`for_each_token_batch`]: crate::tokenize::fused::for_each_token_batch
    #[inline]
    pub(crate) fn push_spans(&mut self, text: &[u8], starts: &[usize], ends: &[usize]) {
        if self.family != HashFamily::Xxh3_64 {
            for (&s, &e) in starts.iter().zip(ends) {
                self.push_bytes(text.get(s..e).unwrap_or_default());
            }
            return;
        }
        // Eight key words: cheap next to a batch of up to 64 hashes.
        let hasher = ShingleHasher::new(self.seed);
        let mut hashes = [[0; 2]; SPAN_BATCH];
        for (starts, ends) in starts.chunks(SPAN_BATCH).zip(ends.chunks(SPAN_BATCH)) {
            let k = hasher.hash_spans(text, starts, ends, &mut hashes);
            self.any |= k > 0;
            self.kernel.update_batch(&mut self.slots, &hashes[..k]);
        }
    }

    /// [`TokenSketch::push`] of a token given as its UTF-8 bytes.
    #[inline(always)]
    pub(crate) fn push_bytes(&mut self, token: &[u8]) {
        self.any = true;
        let (lo, hi) = self.family.hash128(token, self.seed);
        self.pending[self.npending] = [lo, hi];
        self.npending += 1;
        if self.npending == BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.kernel
            .update_batch(&mut self.slots, &self.pending[..self.npending]);
        self.npending = 0;
    }
}

impl<const H: usize> TokenSketch for MinHashSketch<H> {
    type Output = MinHashSig<H>;

    #[inline]
    fn push(&mut self, token: &str) {
        self.push_bytes(token.as_bytes());
    }

    fn finish(mut self) -> Result<MinHashSig<H>> {
        self.flush();
        if !self.any {
            return Err(empty_document());
        }
        let mut sig = MinHashSig::empty();
        sig.hashes = self.slots;
        Ok(sig)
    }
}

#[cfg(test)]
mod tests;
