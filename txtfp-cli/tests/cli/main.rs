//! The `txtfp` binary run the way a user runs it: one module per
//! subcommand area, every check against the library's own results.

mod dedup;
mod errors;
mod fingerprint;
mod index;
mod outofcore;
mod parquet;
mod store;
mod support;
