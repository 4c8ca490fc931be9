//! The CLI's error: a message for stderr and the exit code it maps to.
//!
//! One table for every subcommand (USAGE.md, "Exit codes"): 0 success,
//! bad records skipped and counted included; 1 a runtime error, or an input
//! whose every record was bad; 2 a usage error.

use std::fmt;

/// Why a subcommand stopped.
#[derive(Debug)]
pub enum CliError {
    /// Bad arguments found after parsing (exit code 2, like clap's own).
    Usage(String),
    /// Anything else that stops the run (exit code 1). The message names the
    /// file (and line) at fault.
    Failed(String),
    /// The reader of stdout went away; the run ends quietly with code 0.
    BrokenPipe,
}

impl CliError {
    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Failed(_) => 1,
            CliError::BrokenPipe => 0,
        }
    }

    /// An I/O error while writing `what`.
    pub fn write(what: &str, e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Failed(format!("{what}: cannot write: {e}"))
        }
    }

    /// Every record of the input was bad (exit code 1: nothing came out of
    /// the run). `first` is the first bad record and why.
    pub fn no_valid_record(bad: u64, first: Option<String>) -> Self {
        CliError::Failed(format!(
            "no readable record in the input ({bad} bad records; the first: {})",
            first.unwrap_or_default()
        ))
    }

    /// An I/O error while reading `what`.
    pub fn read(what: &str, e: std::io::Error) -> Self {
        CliError::Failed(format!("{what}: cannot read: {e}"))
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) => write!(f, "usage: {m}"),
            CliError::Failed(m) => f.write_str(m),
            CliError::BrokenPipe => f.write_str("broken pipe"),
        }
    }
}

impl From<txtfp::Error> for CliError {
    fn from(e: txtfp::Error) -> Self {
        match e {
            txtfp::Error::Config(_) => CliError::Usage(e.to_string()),
            other => CliError::Failed(other.to_string()),
        }
    }
}

/// Shorthand for the subcommands' results.
pub type CliResult<T = ()> = Result<T, CliError>;
