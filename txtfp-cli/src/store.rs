//! `txtfp store ingest | query | metrics` (feature `store`): the global
//! fingerprint store from the command line.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use txtfp::store::{Action, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};

use crate::error::{CliError, CliResult};
use crate::input::{DuplicateIds, Source, display_name, plain_id, read_text};
use crate::jsonl::Columns;
use crate::progress::Progress;
use crate::sink::Sink;

/// The store subcommands.
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Add documents (JSONL, a folder, `-`) to the store; one decision
    /// (JSON) per document on stdout or in `--decisions`.
    Ingest(IngestArgs),
    /// Stored documents near each input text (files, or stdin for none or `-`).
    Query(QueryArgs),
    /// The store's counts and rates.
    Metrics(MetricsArgs),
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
    /// A JSONL file (`-` for stdin) or a folder of text files.
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
    /// Write the decisions here instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub decisions: Option<PathBuf>,
    /// Stop at the first bad record or rejected document.
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
    let cols = Columns {
        text: &a.text_column,
        id: &a.id_column,
        extra: a.source_column.as_deref(),
    };
    let source = Source::open(&a.input, cols, a.strict)?;
    let name = display_name(&a.input);
    let (docs, skipped) = source.docs(cols, a.strict)?;
    for s in &skipped {
        eprintln!("txtfp: skipped {s}");
    }
    if docs.is_empty() && !skipped.is_empty() {
        return Err(CliError::no_valid_record(
            skipped.len() as u64,
            skipped.first().map(ToString::to_string),
        ));
    }
    // A repeated id replays the first one's decision instead of being
    // ingested: worth a warning before the run.
    DuplicateIds::find(docs.iter().map(|d| d.id.as_ref())).warn(&name);
    let mut out = match &a.decisions {
        Some(p) => Sink::file(p)?,
        None => Sink::stdout(),
    };
    let progress = Progress::new(docs.iter().map(|d| d.bytes).sum(), a.quiet);
    progress.phase("ingesting");
    let mut counts = [0usize; 6];
    let mut rejected = 0usize;
    let mut first_rejected: Option<String> = None;
    // In input order, one at a time: a decision depends on every document
    // stored before it, so the order is part of the result.
    for d in &docs {
        let id = plain_id(&d.id);
        let src = d.extra.as_deref().unwrap_or(&a.source);
        let incoming = IncomingDocument::new(id.as_str(), d.text.as_ref(), src);
        let decision = match store.ingest(&incoming) {
            Ok(decision) => decision,
            Err(e @ txtfp::Error::InvalidInput(_)) if !a.strict => {
                progress.advance(d.bytes);
                let msg = format!("{name}: id {}: rejected: {e}", d.id);
                eprintln!("txtfp: {msg}");
                first_rejected.get_or_insert(msg);
                rejected += 1;
                continue;
            }
            Err(e) => {
                progress.finish();
                return Err(CliError::Failed(format!("{name}: id {}: {e}", d.id)));
            }
        };
        progress.advance(d.bytes);
        counts[action_index(decision.action)] += 1;
        let mut line = serde_json::to_vec(&decision)
            .map_err(|e| CliError::Failed(format!("decision of {id}: {e}")))?;
        line.push(b'\n');
        out.put(&line)?;
    }
    progress.finish();
    out.close()?;
    if counts.iter().sum::<usize>() == 0 && rejected + skipped.len() > 0 {
        let first = skipped.first().map(ToString::to_string).or(first_rejected);
        return Err(CliError::no_valid_record(
            (rejected + skipped.len()) as u64,
            first,
        ));
    }
    if !a.quiet {
        let names = [
            "accept",
            "drop",
            "mark_duplicate",
            "replace",
            "link",
            "mark_partial",
        ];
        let parts: Vec<String> = names
            .iter()
            .zip(counts)
            .map(|(n, c)| format!("{n} {c}"))
            .collect();
        eprintln!(
            "txtfp store ingest: {name}: {} documents ({}), {} bad records skipped, {rejected} rejected",
            docs.len(),
            parts.join(", "),
            skipped.len()
        );
    }
    Ok(())
}

fn action_index(a: Action) -> usize {
    match a {
        Action::Accept => 0,
        Action::Drop => 1,
        Action::MarkDuplicate => 2,
        Action::Replace => 3,
        Action::Link => 4,
        _ => 5,
    }
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
