//! `txtfp`: fingerprint, compare and deduplicate text from the command line.
//!
//! ```sh
//! txtfp fingerprint a.txt b.txt              # one JSON line per file (MinHash)
//! txtfp compare a.txt b.txt                  # Jaccard, Hamming, TLSH distance
//! txtfp dedup corpus.jsonl --output out/     # kept.jsonl, clusters.jsonl, report.json
//! ```
//!
//! Exit codes (one table for every subcommand, USAGE.md "Exit codes"): 0
//! success (bad records skipped and counted are still a success), 1 an
//! error (unreadable input, a bad record under `--strict`, a failed write,
//! an input without one valid record), 2 a usage error (unknown option, bad
//! value).

mod args;
mod compare;
mod dedup;
mod error;
mod fingerprint;
#[cfg(feature = "store")]
mod global;
mod index;
#[cfg(feature = "store")]
mod ingest;
mod input;
mod jsonl;
mod outofcore;
mod output;
#[cfg(feature = "parquet")]
mod parquet_input;
mod progress;
mod sink;
#[cfg(feature = "store")]
mod store;
mod stream;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};
use crate::error::CliError;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(n) = cli.threads {
        // Before any parallel work: the global pool is built once.
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
        {
            eprintln!("txtfp: cannot start {n} threads: {e}");
            return ExitCode::from(1);
        }
    }
    let result = match cli.command {
        Command::Fingerprint(a) => fingerprint::run(&a),
        Command::Compare(a) => compare::run(&a),
        Command::Dedup(a) => dedup::run(&a),
        Command::Index(c) => index::run(&c),
        #[cfg(feature = "store")]
        Command::Store(a) => store::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `txtfp fingerprint big/* | head` closes the pipe early: not an error.
        Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "txtfp: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
