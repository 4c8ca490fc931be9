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
    /// A tokenizer file could not be loaded or a text could not be tokenized
    /// (`semantic`).
    #[cfg(feature = "semantic-core")]
    Tokenizer(String),
    /// ONNX Runtime failed: loading the runtime library or the model, or
    /// running it (`semantic`).
    #[cfg(feature = "semantic-core")]
    Onnx(String),
    /// A provider returned fewer embeddings than it was given inputs.
    #[cfg(feature = "semantic-core")]
    EmptyEmbedding,
    /// A cloud embedding request got no usable answer: a network failure or
    /// timeout (after the retries), or a 2xx response that is not what the
    /// API documents (not JSON, wrong counts, bad vectors) (`openai`,
    /// `voyage`, `cohere`).
    #[cfg(any(feature = "openai", feature = "voyage", feature = "cohere"))]
    Http(String),
    /// A cloud embedding service answered with an error status: at once for
    /// permanent ones (400, 401, 403, 404, 422, ...), after the retries for
    /// transient ones (408, 425, 429, 5xx). Displays as
    /// `http error: OpenAI returned 401: <the service's message>`.
    #[cfg(any(feature = "openai", feature = "voyage", feature = "cohere"))]
    HttpStatus {
        /// `"OpenAI"`, `"Voyage"` or `"Cohere"`.
        provider: &'static str,
        /// The HTTP status code.
        status: u16,
        /// The service's error message (or the status reason), plus a note
        /// on the attempts made when retries ran out.
        message: String,
    },
    /// A global fingerprint store was written with hash parameters that
    /// differ from the configuration it is opened with (`store`). Mixing
    /// them would silently compare incomparable fingerprints, so the store
    /// refuses to open. Displays as
    /// `store parameter mismatch: minhash_ngram is 5 in the store, 3 in the config`.
    #[cfg(feature = "store")]
    StoreParamsMismatch {
        /// The configuration key that differs (e.g. `"minhash_ngram"`).
        field: String,
        /// The value the store was created with.
        stored: String,
        /// The value of the configuration being opened.
        configured: String,
    },
    /// The global fingerprint store's backend failed: the embedded
    /// database (including "already open in another process") or the
    /// Redis connection, or too many conflicting concurrent writers
    /// (`store`).
    #[cfg(feature = "store")]
    Store(String),
    /// A corpus could not be resolved, read or written (`corpus`); the
    /// message names the file and the line or row. Displays as the
    /// [`CorpusError`](crate::corpus::CorpusError)'s own message.
    #[cfg(feature = "corpus")]
    Corpus(crate::corpus::CorpusError),
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
            #[cfg(feature = "semantic-core")]
            Error::Tokenizer(m) => write!(f, "tokenizer error: {m}"),
            #[cfg(feature = "semantic-core")]
            Error::Onnx(m) => write!(f, "onnx error: {m}"),
            #[cfg(feature = "semantic-core")]
            Error::EmptyEmbedding => write!(f, "provider returned no embeddings"),
            #[cfg(any(feature = "openai", feature = "voyage", feature = "cohere"))]
            Error::Http(m) => write!(f, "http error: {m}"),
            #[cfg(any(feature = "openai", feature = "voyage", feature = "cohere"))]
            Error::HttpStatus {
                provider,
                status,
                message,
            } => write!(f, "http error: {provider} returned {status}: {message}"),
            #[cfg(feature = "store")]
            Error::StoreParamsMismatch {
                field,
                stored,
                configured,
            } => write!(
                f,
                "store parameter mismatch: {field} is {stored} in the store, {configured} in the config"
            ),
            #[cfg(feature = "store")]
            Error::Store(m) => write!(f, "store error: {m}"),
            #[cfg(feature = "corpus")]
            Error::Corpus(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for Error {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            #[cfg(feature = "std")]
            Error::Io(e) => Some(e),
            #[cfg(feature = "corpus")]
            Error::Corpus(e) => Some(e),
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

#[cfg(feature = "corpus")]
impl From<crate::corpus::CorpusError> for Error {
    fn from(e: crate::corpus::CorpusError) -> Self {
        Error::Corpus(e)
    }
}
