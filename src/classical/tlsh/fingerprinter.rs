//! [`TlshFingerprinter`]: canonicalize, then digest the UTF-8 bytes.

use super::{ALGORITHM_CONFIG, TlshFingerprint, TlshStreaming, TlshTextStreaming};
use crate::canonical::Canonicalizer;
use crate::classical::{Fingerprinter, StreamingFingerprinter};
use crate::{Error, Result};
use alloc::string::String;

/// TLSH 128/1 of canonicalized text (or of raw bytes with
/// [`Self::sketch_bytes`]).
///
/// TLSH has no tokenizer: it slides a 5-byte window over the bytes, so it is
/// sensitive to byte-level edits and needs at least
/// [`TLSH_MIN_INPUT_BYTES`](super::TLSH_MIN_INPUT_BYTES) bytes with some
/// variety. `&self` methods only: one instance can be shared across threads.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, TlshFingerprinter};
/// let fp = TlshFingerprinter::default();
/// let a = fp.fingerprint("The Quick Brown Fox jumps over the lazy dog, again and again and again!")?;
/// let b = fp.fingerprint("the quick brown fox jumps over the lazy dog, again and again and again!")?;
/// assert_eq!(a, b); // case folded before hashing
/// assert_eq!(fp.config_hash(), 0xbf8601d776c043cd);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct TlshFingerprinter {
    canon: Canonicalizer,
}

impl TlshFingerprinter {
    /// A fingerprinter that canonicalizes with `canon` before hashing.
    pub fn new(canon: Canonicalizer) -> Self {
        Self { canon }
    }

    /// The canonicalizer applied by [`Fingerprinter::fingerprint`].
    pub fn canonicalizer(&self) -> &Canonicalizer {
        &self.canon
    }

    /// TLSH of `bytes` as they are (no canonicalization).
    ///
    /// ```
    /// use txtfp::TlshFingerprinter;
    /// let fp = TlshFingerprinter::default();
    /// let err = fp.sketch_bytes(&[b'a'; 200]).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid input: tlsh build failed (insufficient entropy)");
    /// ```
    ///
    /// # Errors
    /// `InvalidInput`: `"tlsh requires at least 50 bytes, got {n}"`;
    /// `"tlsh build failed (insufficient entropy)"` when the byte
    /// statistics are too flat (e.g. one byte repeated); inputs over
    /// `u32::MAX` bytes.
    pub fn sketch_bytes(&self, bytes: &[u8]) -> Result<TlshFingerprint> {
        let mut s = TlshStreaming::new();
        s.update(bytes)?;
        s.finalize()
    }

    /// [`Fingerprinter::fingerprint`] canonicalizing into `buf` (its
    /// contents are replaced) instead of a fresh string.
    ///
    /// # Errors
    /// As [`Fingerprinter::fingerprint`].
    pub fn fingerprint_with_buffer(
        &self,
        input: &str,
        buf: &mut String,
    ) -> Result<TlshFingerprint> {
        self.canon.check()?;
        if input.is_empty() {
            return Err(Error::InvalidInput("empty document".into()));
        }
        self.canon.canonicalize_into(input, buf);
        self.sketch_bytes(buf.as_bytes())
    }

    /// A [`TlshStreaming`] (raw bytes, no canonicalization): its digest
    /// equals [`Self::sketch_bytes`] of everything fed.
    pub fn streaming_bytes(&self) -> TlshStreaming {
        TlshStreaming::new()
    }

    /// A [`TlshTextStreaming`] with this canonicalizer: its digest equals
    /// [`Fingerprinter::fingerprint`] of the text fed, which it never holds
    /// whole.
    pub fn streaming(&self) -> TlshTextStreaming {
        TlshTextStreaming::new(self.canon.clone())
    }

    /// `XXH3_64(canonicalizer | "tlsh" | "tlsh-128-1")` (see
    /// [`crate::config_hash`]); `0xbf8601d776c043cd` with the default
    /// canonicalizer. It describes [`Fingerprinter::fingerprint`]'s digests;
    /// digests of raw bytes have no canonicalizer.
    pub fn config_hash(&self) -> u64 {
        crate::config_hash(&self.canon, "tlsh", ALGORITHM_CONFIG)
    }
}

impl Fingerprinter for TlshFingerprinter {
    type Output = TlshFingerprint;

    /// Canonicalize `input`, then [`Self::sketch_bytes`] of its UTF-8.
    ///
    /// # Errors
    /// `InvalidInput("empty document")` for `""` (checked before
    /// canonicalizing, as 0.3.2: text that canonicalizes to nothing gets the
    /// length error), the canonicalizer's configuration errors, then those of
    /// [`Self::sketch_bytes`] on the canonical bytes.
    fn fingerprint(&self, input: &str) -> Result<TlshFingerprint> {
        self.fingerprint_with_buffer(input, &mut String::new())
    }
}
