//! `txtfp store ingest | query | metrics` (feature `store`): the global
//! fingerprint store from the command line.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use txtfp::store::{GlobalFingerprintStore, GlobalStoreConfig};

use crate::error::{CliError, CliResult};
use crate::input::read_text;

/// The store subcommands.
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Add documents (JSONL, also `.gz` / `.zst`, a folder, `-`) to the
    /// store, streamed in batches; one decision (JSON) per document on
    /// stdout or in `--decisions`.
    Ingest(IngestArgs),
    /// Stored documents near each input text (files, or stdin for none or `-`).
    Query(QueryArgs),
    /// The store's counts and rates.
    Metrics(MetricsArgs),
    /// Convert a store of the earlier embedded format (`store.redb`) in
    /// place; the old file is kept as `store.redb.migrated`.
    Migrate(MigrateArgs),
}

/// Which store.
#[derive(Debug, Args)]
pub struct StoreOpts {
    /// TOML configuration of the store (see `GlobalStoreConfig`).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Directory of the embedded store (default settings, or overrides the
    /// `root_path` of `--config`).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

/// `txtfp store ingest`.
#[derive(Debug, Args)]
pub struct IngestArgs {
    /// A JSONL file (plain, gzip or zstd; `-` for stdin), a Parquet file
    /// (feature `parquet`) or a folder of text files (each one document).
    pub input: PathBuf,
    #[command(flatten)]
    pub store: StoreOpts,
    /// Source of every document (used when `--source-column` is absent
    /// from a record).
    #[arg(long, default_value = "cli", value_name = "NAME")]
    pub source: String,
    /// JSONL column holding each document's source.
    #[arg(long, value_name = "NAME")]
    pub source_column: Option<String>,
    /// JSONL column holding the text.
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub text_column: String,
    /// JSONL column holding the id (a JSON string, or any JSON value's text).
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_column: String,
    /// Write the decisions here instead of stdout. Each batch's decisions
    /// are written as soon as the store has committed the batch.
    #[arg(long, value_name = "FILE")]
    pub decisions: Option<PathBuf>,
    /// Documents per store transaction (a batch is also sent once it holds
    /// 64 MiB of text). Decisions do not depend on it.
    #[arg(long, default_value_t = 1024, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub batch: u64,
    /// Stop at the first bad record or rejected document. The documents
    /// before it are ingested; a rejected document's batch is ingested
    /// whole (its decisions written) before the run stops.
    #[arg(long)]
    pub strict: bool,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// `txtfp store query`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// Text files; none or `-` reads stdin.
    pub files: Vec<PathBuf>,
    /// Refuse a text longer than SIZE (default 256 MiB): each query text is
    /// held in memory.
    #[arg(long, value_name = "SIZE", value_parser = crate::args::parse_size)]
    pub max_bytes: Option<usize>,
    #[command(flatten)]
    pub store: StoreOpts,
}

/// `txtfp store migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    #[command(flatten)]
    pub store: StoreOpts,
}

/// `txtfp store metrics`.
#[derive(Debug, Args)]
pub struct MetricsArgs {
    #[command(flatten)]
    pub store: StoreOpts,
    /// Print the metrics as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs a store subcommand.
pub fn run(cmd: &StoreCommand) -> CliResult {
    match cmd {
        StoreCommand::Ingest(a) => ingest(a),
        StoreCommand::Query(a) => query(a),
        StoreCommand::Metrics(a) => metrics(a),
        StoreCommand::Migrate(a) => migrate(a),
    }
}

fn open(opts: &StoreOpts) -> CliResult<GlobalFingerprintStore> {
    let mut cfg = match &opts.config {
        Some(p) => GlobalStoreConfig::from_path(p)
            .map_err(|e| CliError::Failed(format!("{}: {e}", p.display())))?,
        None if opts.root.is_some() => GlobalStoreConfig::default(),
        None => {
            return Err(CliError::Usage(
                "name the store with --root DIR or --config FILE".into(),
            ));
        }
    };
    if let Some(root) = &opts.root {
        cfg.root_path = root.clone();
    }
    GlobalFingerprintStore::open(cfg)
        .map_err(|e| CliError::Failed(format!("cannot open the store: {e}")))
}

fn ingest(a: &IngestArgs) -> CliResult {
    let store = open(&a.store)?;
    crate::ingest::run(a, &store)
}

/// The default `--max-bytes` of `store query`.
const DEFAULT_MAX_QUERY: u64 = 256 << 20;

fn query(a: &QueryArgs) -> CliResult {
    let store = open(&a.store)?;
    let stdin = [PathBuf::from("-")];
    let files: &[PathBuf] = if a.files.is_empty() { &stdin } else { &a.files };
    let mut out = std::io::stdout().lock();
    for path in files {
        let (name, text) = read_text(path, a.max_bytes.map_or(DEFAULT_MAX_QUERY, |m| m as u64))?;
        let matches = store
            .query(&text)
            .map_err(|e| CliError::Failed(format!("{name}: {e}")))?;
        let line = serde_json::json!({ "name": name, "matches": matches });
        writeln!(out, "{line}").map_err(|e| CliError::write("<stdout>", e))?;
    }
    Ok(())
}

fn migrate(a: &MigrateArgs) -> CliResult {
    let root = match (&a.store.root, &a.store.config) {
        (Some(r), _) => r.clone(),
        (None, Some(p)) => {
            GlobalStoreConfig::from_path(p)
                .map_err(|e| CliError::Failed(format!("{}: {e}", p.display())))?
                .root_path
        }
        (None, None) => {
            return Err(CliError::Usage(
                "name the store with --root DIR or --config FILE".into(),
            ));
        }
    };
    let m = txtfp::store::backend::EmbeddedBackend::migrate(&root)
        .map_err(|e| CliError::Failed(format!("cannot convert the store: {e}")))?;
    eprintln!(
        "txtfp store migrate: {}: {} documents and {} chunk owners converted; the earlier file is kept as {}",
        root.display(),
        m.documents,
        m.chunks,
        m.kept_as.display()
    );
    Ok(())
}

fn metrics(a: &MetricsArgs) -> CliResult {
    let store = open(&a.store)?;
    let m = store
        .metrics()
        .map_err(|e| CliError::Failed(format!("cannot read the metrics: {e}")))?;
    let mut out = std::io::stdout().lock();
    let text = if a.json {
        format!("{}\n", m.to_json())
    } else {
        let mut s = format!(
            "documents {}: kept {}, duplicates {} ({:.1} %), superseded {}, cross-source duplicates {} ({:.1} %)\n\
             linked {}, partial {}, chunks {} (reused {}, {:.1} %)\n",
            m.docs,
            m.kept,
            m.duplicates,
            100.0 * m.duplication_rate(),
            m.superseded,
            m.cross_source_duplicates,
            100.0 * m.cross_dataset_collision_rate(),
            m.linked,
            m.partial,
            m.chunks,
            m.chunks_reused,
            100.0 * m.chunk_reuse_rate(),
        );
        for src in &m.sources {
            s += &format!(
                "  source {}: {} documents, kept {}, duplicates {}\n",
                src.source, src.docs, src.kept, src.duplicates
            );
        }
        s
    };
    out.write_all(text.as_bytes())
        .map_err(|e| CliError::write("<stdout>", e))
}
