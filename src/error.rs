//! The crate's one error type.
//!
//! Every fallible call returns [`Result<T>`]. The `Display` strings of the
//! variants that txtfp 0.3.2 also has are kept byte-identical (callers match on
//! them, and the golden files record them); new variants say what was wrong
//! and with which value.

use alloc::string::String;
use core::fmt;

/// Crate-wide result alias.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// Everything that can go wrong in txtfp.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, WordTokenizer};
/// let fp = MinHashFingerprinter::<_, 16>::new(Canonicalizer::default(), WordTokenizer);
/// let err = fp.fingerprint("   ").unwrap_err();
/// assert_eq!(err.to_string(), "invalid input: empty document");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The input (a document, a byte buffer, a parameter) was rejected.
    InvalidInput(String),
    /// Two embeddings come from different models.
    ModelMismatch {
        /// Model id of the left operand.
        a: String,
        /// Model id of the right operand.
        b: String,
    },
    /// Two vectors have different lengths.
    DimensionMismatch {
        /// Length of the left operand.
        a: usize,
        /// Length of the right operand.
        b: usize,
    },
    /// A configuration is invalid (LSH bands/rows, thresholds, builders).
    Config(String),
    /// An I/O error (std only).
    #[cfg(feature = "std")]
    Io(std::io::Error),
    /// Serialized bytes carry a schema version this build does not read.
    SchemaMismatch {
        /// The schema version this build writes and reads.
        expected: u16,
        /// The schema version found in the input.
        actual: u16,
    },
    /// A configuration asks for something that needs a Cargo feature this
    /// build was compiled without (e.g. the confusable skeleton without
    /// `security`).
    FeatureDisabled(&'static str),
    /// Streaming input was not valid UTF-8; `offset` is the byte offset of the
    /// first bad byte counted from the start of the stream.
    InvalidUtf8 {
        /// Offset of the first invalid byte in the whole stream.
        offset: u64,
    },
    /// A saved index (or other stored structure) is truncated, damaged or not
    /// what it claims to be; the message says which check failed.
    Corrupt(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidInput(m) => write!(f, "invalid input: {m}"),
            Error::ModelMismatch { a, b } => write!(f, "model id mismatch: a = {a}, b = {b}"),
            Error::DimensionMismatch { a, b } => write!(f, "dimension mismatch: a = {a}, b = {b}"),
            Error::Config(m) => write!(f, "config error: {m}"),
            #[cfg(feature = "std")]
            Error::Io(e) => write!(f, "io error: {e}"),
            Error::SchemaMismatch { expected, actual } => {
                write!(
                    f,
                    "schema version mismatch: expected {expected}, got {actual}"
                )
            }
            Error::FeatureDisabled(name) => {
                write!(f, "feature `{name}` not enabled at compile time")
            }
            Error::InvalidUtf8 { offset } => {
                write!(
                    f,
                    "invalid input: invalid UTF-8 in stream at byte offset {offset}"
                )
            }
            Error::Corrupt(m) => write!(f, "corrupt data: {m}"),
        }
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            #[cfg(feature = "std")]
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(feature = "std")]
impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}
