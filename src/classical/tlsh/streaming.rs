//! [`TlshStreaming`]: TLSH of raw bytes arriving in chunks.

use core::fmt;

use super::histogram::Histogram;
use super::{TlshFingerprint, build, check_max_len};
use crate::Result;
use crate::classical::StreamingFingerprinter;

/// TLSH 128/1 of a byte stream, in constant memory (a 256-counter histogram,
/// a 4-byte window and the checksum): the digest equals
/// [`TlshFingerprinter::sketch_bytes`](super::TlshFingerprinter::sketch_bytes)
/// of the concatenated chunks, however the stream is cut.
///
/// It hashes the bytes **as they are**: no UTF-8 check and no
/// canonicalization (TLSH works on any bytes, and canonicalizing a stream
/// would cost the constant memory). For the digest
/// [`Fingerprinter::fingerprint`](crate::Fingerprinter::fingerprint) gives,
/// feed the canonical text. 0.3.2 had no streaming TLSH.
///
/// ```
/// use txtfp::{StreamingFingerprinter, TlshFingerprinter};
/// use txtfp::classical::tlsh::TlshStreaming;
/// let data = b"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod";
/// let mut s = TlshStreaming::new();
/// for piece in data.chunks(7) {
///     s.update(piece)?;
/// }
/// assert_eq!(s.finalize()?, TlshFingerprinter::default().sketch_bytes(data)?);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct TlshStreaming {
    hist: Histogram,
}

impl TlshStreaming {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes fed so far.
    pub fn bytes_seen(&self) -> u64 {
        self.hist.len
    }

    /// The digest of the bytes fed so far, leaving the stream open for more.
    ///
    /// # Errors
    /// As [`StreamingFingerprinter::finalize`].
    pub fn digest(&self) -> Result<TlshFingerprint> {
        build(&self.hist)
    }
}

impl StreamingFingerprinter for TlshStreaming {
    type Output = TlshFingerprint;

    /// Feed `chunk` (any bytes).
    ///
    /// # Errors
    /// `InvalidInput` when the stream would exceed
    /// [`TLSH_MAX_INPUT_BYTES`](super::TLSH_MAX_INPUT_BYTES); the chunk is
    /// then not fed and the stream is unchanged.
    fn update(&mut self, chunk: &[u8]) -> Result<()> {
        check_max_len(self.hist.len.saturating_add(chunk.len() as u64))?;
        self.hist.update(chunk);
        Ok(())
    }

    /// The digest.
    ///
    /// # Errors
    /// `InvalidInput`: `"tlsh requires at least 50 bytes, got {n}"`, or
    /// `"tlsh build failed (insufficient entropy)"`.
    fn finalize(self) -> Result<TlshFingerprint> {
        self.digest()
    }

    fn reset(&mut self) {
        *self = Self::default();
    }
}

impl fmt::Debug for TlshStreaming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlshStreaming")
            .field("bytes_seen", &self.hist.len)
            .finish_non_exhaustive()
    }
}

/// `write` feeds the bytes; a chunk that would pass the length limit fails
/// with `ErrorKind::InvalidInput` (the [`crate::Error`] as its source).
#[cfg(feature = "std")]
impl std::io::Write for TlshStreaming {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
