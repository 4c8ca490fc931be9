//! Command-line arguments (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Text fingerprints and near-duplicate removal (MinHash, SimHash, TLSH).
///
/// Exit codes: 0 success (skipped bad records included), 1 error,
/// 2 usage error.
#[derive(Debug, Parser)]
#[command(name = "txtfp", version, about, long_about = None)]
pub struct Cli {
    /// Worker threads for fingerprinting (default: one per core).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(usize))]
    pub threads: Option<usize>,

    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the signature of each input (files, or stdin for none or `-`).
    Fingerprint(FingerprintArgs),
    /// Compare two inputs: MinHash Jaccard, SimHash Hamming, TLSH distance.
    Compare(CompareArgs),
    /// Remove near-duplicates from a JSONL file, a folder of text files
    /// (one document per file) or a Parquet file (feature `parquet`).
    Dedup(DedupArgs),
    /// A dedup index of a corpus, for later `dedup --against` runs.
    #[command(subcommand)]
    Index(IndexCommand),
    /// The global fingerprint store: ingest, query, metrics (feature `store`).
    #[cfg(feature = "store")]
    #[command(subcommand)]
    Store(crate::store::StoreCommand),
}

/// Which signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Algo {
    /// MinHash, 128 slots, over word k-shingles (Jaccard).
    Minhash,
    /// The opt-in fast MinHash scheme, 128 slots (schema 0x4601; never
    /// comparable with `minhash` signatures).
    MinhashFast,
    /// 64-bit SimHash over words or word k-shingles (Hamming).
    Simhash,
    /// TLSH 128/1 of the canonical text (at least 50 bytes).
    Tlsh,
}

/// The deduplication methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DedupAlgo {
    /// MinHash + banded LSH, pairs verified against `--threshold`.
    Minhash,
    /// The same with the opt-in fast MinHash scheme (about 1.8× faster
    /// signatures, estimates at least as accurate).
    MinhashFast,
    /// SimHash, pairs within `--max-hamming` bits.
    Simhash,
}

/// How `fingerprint` prints signatures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON object per input (signature in hex).
    Json,
    /// `SIGNATURE<TAB>NAME` lines, signature in lower-case hex.
    Hex,
    /// `SIGNATURE<TAB>NAME` lines, signature in RFC 4648 base32.
    Base32,
}

/// Tokenization options shared by the subcommands.
#[derive(Clone, Debug, Args)]
pub struct TokenArgs {
    /// Word shingle size: 5 for MinHash and 1 (single words) for SimHash
    /// when not given.
    #[arg(short = 'k', long = "shingle", value_name = "K")]
    pub shingle: Option<usize>,
}

impl TokenArgs {
    /// The shingle size for `algo`.
    pub fn k_for(&self, minhash: bool) -> usize {
        self.shingle.unwrap_or(if minhash { 5 } else { 1 })
    }
}

/// `txtfp fingerprint`.
#[derive(Debug, Args)]
pub struct FingerprintArgs {
    /// Text files; none or `-` reads stdin.
    pub files: Vec<PathBuf>,
    /// Signature type.
    #[arg(long, value_enum, default_value_t = Algo::Minhash)]
    pub algo: Algo,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    /// Inputs are JSONL: print one signature per record, of its text column.
    #[arg(long)]
    pub jsonl: bool,
    /// With `--jsonl`: the column holding the text.
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub text_column: String,
    /// With `--jsonl`: the column holding the id (the line number when absent).
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_column: String,
    /// With `--jsonl`: stop at the first bad record instead of skipping it.
    #[arg(long)]
    pub strict: bool,
    /// Refuse an input longer than SIZE (`64MiB`, `2G`, bytes). Files are
    /// read in bounded memory whatever their length; text without ASCII
    /// whitespace followed by ASCII is held in memory, up to SIZE (default
    /// 256 MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_bytes: Option<usize>,
    #[command(flatten)]
    pub tokens: TokenArgs,
}

/// `txtfp compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// First input (a file, or `-` for stdin).
    pub a: PathBuf,
    /// Second input (a file, or `-` for stdin).
    pub b: PathBuf,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Refuse an input longer than SIZE (`64MiB`, `2G`, bytes). Files are
    /// read in bounded memory whatever their length; text without ASCII
    /// whitespace followed by ASCII is held in memory, up to SIZE (default
    /// 256 MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_bytes: Option<usize>,
    #[command(flatten)]
    pub tokens: TokenArgs,
}

/// Compression of the kept shards of an out-of-core run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputCompression {
    /// Plain files.
    None,
    /// gzip.
    Gz,
    /// Zstandard.
    Zst,
}

/// `1GiB`, `512MiB`, `2G`, `300M`, `64KiB`, `4096`: a byte count.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size like 1GiB, 512MiB or 2G"))?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "kib" => 1024.0,
        "m" | "mb" => 1e6,
        "mib" => 1024.0 * 1024.0,
        "g" | "gb" => 1e9,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tb" => 1e12,
        "tib" => 1024.0f64.powi(4),
        _ => return Err(format!("{s:?}: unknown unit (use KiB, MiB, GiB, K, M, G)")),
    };
    let bytes = value * scale;
    if !(1.0..=usize::MAX as f64).contains(&bytes) {
        return Err(format!("{s:?} is out of range"));
    }
    Ok(bytes as usize)
}

/// What a deduplication run does with documents that have no token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Empty {
    /// Keep them, compared with nothing.
    Keep,
    /// Drop them.
    Drop,
}

/// `txtfp dedup`.
#[derive(Debug, Args)]
pub struct DedupArgs {
    /// Inputs: `.jsonl` files (also `.gz` / `.zst`, `-` for stdin),
    /// `.parquet` files, folders (their JSONL and Parquet files are shards,
    /// their other files documents), glob patterns (`data/*.jsonl.zst`) and
    /// `@FILE` lists. Several inputs, compressed or large input, `--memory`
    /// or `--work-dir` run the out-of-core engine (MinHash).
    #[arg(required = true, num_args = 1.., value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Method.
    #[arg(long, value_enum, default_value_t = DedupAlgo::Minhash)]
    pub algo: DedupAlgo,
    /// MinHash: pairs with Jaccard at or above this are duplicates.
    #[arg(long, default_value_t = 0.8, value_name = "J")]
    pub threshold: f32,
    /// SimHash: pairs at this Hamming distance or less are duplicates (0 to 7).
    #[arg(long, default_value_t = 3, value_name = "BITS")]
    pub max_hamming: u32,
    /// MinHash: verify candidates by the signatures' estimated Jaccard
    /// instead of the exact Jaccard of the token sets (faster, about 0.97
    /// precision and recall).
    #[arg(long)]
    pub estimated: bool,
    /// Column (JSONL key or Parquet field) holding the text.
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub text_column: String,
    /// Column holding the id; when a record has none, its line (row) number.
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_column: String,
    /// Documents without a single token.
    #[arg(long, value_enum, default_value_t = Empty::Keep)]
    pub empty: Empty,
    /// Write kept.jsonl, clusters.jsonl and report.json into this folder.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Where the kept records go (default: DIR/kept.jsonl with --output,
    /// else stdout).
    #[arg(long, value_name = "FILE")]
    pub kept: Option<PathBuf>,
    /// Where the clusters go (JSONL; default DIR/clusters.jsonl).
    #[arg(long, value_name = "FILE")]
    pub clusters: Option<PathBuf>,
    /// Where the JSON report goes (default DIR/report.json).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Stop at the first bad record (malformed JSON, missing text column,
    /// invalid UTF-8, unreadable file) instead of skipping it.
    #[arg(long)]
    pub strict: bool,
    /// Out of core: the memory budget of the run's buffers (`1GiB`,
    /// `512MiB`, `2G`, bytes; default 1 GiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<usize>,
    /// Out of core: the work directory (default DIR/work under --output). A
    /// run started again with the same arguments resumes there.
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Out of core: keep the work directory after a successful run.
    #[arg(long)]
    pub keep_work: bool,
    /// Out of core: compression of the kept shards (default: each input's
    /// own).
    #[arg(long, value_enum, value_name = "C")]
    pub output_compression: Option<OutputCompression>,
    /// Out of core: drop the documents that duplicate one in the dedup
    /// index in this folder (`txtfp index build`); `duplicates.jsonl` names
    /// the indexed original. The run's own documents are decided as in one
    /// run over the indexed corpus and this input together.
    #[arg(long, value_name = "DIR")]
    pub against: Option<PathBuf>,
    /// With `--against`: then add this run's documents to the index.
    #[arg(long, requires = "against")]
    pub update_index: bool,
    /// Out of core: compression level of the kept JSONL shards (zstd -7 to
    /// 22, default 1; gzip 0 to 9, default 6).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub output_level: Option<i32>,
    /// No progress bar and no summary on stderr (warnings still show).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub tokens: TokenArgs,
    /// Then check the kept documents against the global fingerprint store
    /// in this folder (embedded; created when missing) and record them
    /// there: those the store holds a duplicate of, from any earlier run,
    /// are dropped too (feature `store`).
    #[cfg(feature = "store")]
    #[arg(long, value_name = "DIR")]
    pub store: Option<PathBuf>,
    /// With `--store`: the source recorded with each document.
    #[cfg(feature = "store")]
    #[arg(long, default_value = "cli", value_name = "NAME")]
    pub source: String,
}

/// `txtfp index`.
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Index a corpus (read out of core) into a new folder; its documents
    /// are then found by `txtfp dedup --against DIR`.
    Build(IndexBuildArgs),
    /// Print an index's settings and size as JSON.
    Info {
        /// The index folder.
        #[arg(value_name = "DIR")]
        index: PathBuf,
    },
}

/// `txtfp index build`.
#[derive(Debug, Args)]
pub struct IndexBuildArgs {
    /// Inputs, as for `dedup`.
    #[arg(required = true, num_args = 1.., value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// The index folder (created; must be new or empty).
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// Method, as the later runs will use.
    #[arg(long, value_enum, default_value_t = DedupAlgo::Minhash)]
    pub algo: DedupAlgo,
    /// MinHash: the threshold later runs will use (it sets the banding,
    /// which the index is built for).
    #[arg(long, default_value_t = 0.8, value_name = "J")]
    pub threshold: f32,
    /// SimHash: the Hamming radius later runs will use (it sets the tables,
    /// which the index is built for).
    #[arg(long, default_value_t = 3, value_name = "BITS")]
    pub max_hamming: u32,
    /// Column (JSONL key or Parquet field) holding the text.
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub text_column: String,
    /// Column holding the id; when a record has none, its line (row) number.
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_column: String,
    /// Stop at the first bad record instead of skipping it.
    #[arg(long)]
    pub strict: bool,
    /// The memory budget (`1GiB`, `512MiB`, bytes; default 1 GiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub memory: Option<usize>,
    /// The work directory (default DIR/.work). A build started again with
    /// the same arguments resumes there.
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Where the JSON report goes (default: none).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// No progress bar and no summary on stderr (warnings still show).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub tokens: TokenArgs,
}

impl IndexBuildArgs {
    /// The `dedup` run that builds the index: every document read, none
    /// written.
    pub fn as_dedup(&self) -> DedupArgs {
        DedupArgs {
            inputs: self.inputs.clone(),
            algo: self.algo,
            threshold: self.threshold,
            max_hamming: self.max_hamming,
            estimated: false,
            text_column: self.text_column.clone(),
            id_column: self.id_column.clone(),
            empty: Empty::Keep,
            output: None,
            kept: None,
            clusters: None,
            report: self.report.clone(),
            strict: self.strict,
            memory: self.memory,
            work_dir: Some(
                self.work_dir
                    .clone()
                    .unwrap_or_else(|| self.index.join(".work")),
            ),
            keep_work: false,
            output_compression: None,
            output_level: None,
            against: Some(self.index.clone()),
            update_index: true,
            quiet: self.quiet,
            tokens: self.tokens.clone(),
            #[cfg(feature = "store")]
            store: None,
            #[cfg(feature = "store")]
            source: "cli".into(),
        }
    }
}
