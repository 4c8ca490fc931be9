//! [`CorpusError`]: what can stop resolving, reading or writing a corpus.
//!
//! A bad *record* is not an error: it is a [`Skip`](super::Skip) and reading
//! goes on. An error ends the shard (or the whole call): the file is
//! missing, unreadable, truncated, corrupt or changed.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why a corpus could not be resolved, read or written. Every message names
/// the file (and the line or row when one is known).
///
/// `txtfp::Error` wraps it as `Error::Corpus`, so `?` works in functions
/// returning [`crate::Result`].
///
/// ```
/// use txtfp::corpus::{Corpus, CorpusError, ResolveOptions};
/// let err = Corpus::resolve(["no/such/dir"], &ResolveOptions::default()).unwrap_err();
/// assert!(matches!(err, CorpusError::Input { .. }));
/// assert!(err.to_string().starts_with("no/such/dir: "));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum CorpusError {
    /// An input (a path, a glob pattern, an `@list` file or one of its
    /// lines) could not be resolved.
    Input {
        /// The input as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The inputs resolved to no shard at all.
    Empty {
        /// The inputs, joined by spaces.
        inputs: String,
        /// What was found but not read, and why (symbolic links, FIFOs, ...).
        left_out: Vec<super::Warning>,
    },
    /// A file could not be opened, read, created, written or renamed.
    Io {
        /// The file.
        file: String,
        /// What was being done (`"open"`, `"read"`, `"write"`, ...).
        action: &'static str,
        /// The operating system's error.
        source: io::Error,
    },
    /// Reading a shard failed part way, after the records before `line`
    /// were delivered: a truncated or corrupt gzip or zstd stream, or a read
    /// error.
    Read {
        /// The shard's file.
        file: String,
        /// The last line read whole (0: none).
        line: u64,
        /// Decompressed bytes read before the failure.
        offset: u64,
        /// What failed.
        reason: String,
    },
    /// A Parquet file could not be read or written: a corrupt footer, a
    /// missing or unsupported column, a page that does not decode.
    Parquet {
        /// The file.
        file: String,
        /// What is wrong, with the row or row group when known.
        reason: String,
    },
    /// A shard's size or modification time differs from when the corpus
    /// was resolved, so its rows may no longer match earlier passes.
    Changed {
        /// The file.
        file: String,
    },
    /// Standard input was read a second time; it can be read only once.
    StdinReread,
    /// Two shards would be written to the same output file.
    OutputClash {
        /// The output file both map to.
        output: PathBuf,
        /// The first shard.
        first: String,
        /// The second shard.
        second: String,
    },
}

impl CorpusError {
    pub(crate) fn io(file: impl fmt::Display, action: &'static str, source: io::Error) -> Self {
        CorpusError::Io {
            file: file.to_string(),
            action,
            source,
        }
    }

    pub(crate) fn input(input: impl fmt::Display, reason: impl fmt::Display) -> Self {
        CorpusError::Input {
            input: input.to_string(),
            reason: reason.to_string(),
        }
    }

    pub(crate) fn parquet(file: impl fmt::Display, reason: impl fmt::Display) -> Self {
        CorpusError::Parquet {
            file: file.to_string(),
            reason: reason.to_string(),
        }
    }
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorpusError::Input { input, reason } => write!(f, "{input}: {reason}"),
            CorpusError::Empty { inputs, left_out } => {
                write!(f, "no input file found in {inputs}")?;
                match left_out.as_slice() {
                    [] => Ok(()),
                    [one] => write!(f, " (left out: {one})"),
                    [first, rest @ ..] => {
                        write!(f, " (left out: {first}, and {} more)", rest.len())
                    }
                }
            }
            CorpusError::Io {
                file,
                action,
                source,
            } => write!(f, "{file}: cannot {action}: {source}"),
            CorpusError::Read {
                file,
                line,
                offset,
                reason,
            } => write!(
                f,
                "{file}: {reason} (after line {line}, decompressed byte {offset}; the lines before it were read)"
            ),
            CorpusError::Parquet { file, reason } => write!(f, "{file}: {reason}"),
            CorpusError::Changed { file } => write!(
                f,
                "{file}: changed since the input was resolved (size or modification time)"
            ),
            CorpusError::StdinReread => {
                write!(f, "<stdin>: standard input can be read only once")
            }
            CorpusError::OutputClash {
                output,
                first,
                second,
            } => write!(
                f,
                "{}: both {first} and {second} would be written there",
                output.display()
            ),
        }
    }
}

impl std::error::Error for CorpusError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CorpusError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
