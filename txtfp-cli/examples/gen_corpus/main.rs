//! Scale corpora for the out-of-core dedup benchmarks: any number of
//! gigabytes of documents made from a real-text JSONL corpus, with planted
//! duplicates and their exact Jaccard, written as sharded `.jsonl.zst`.
//!
//! ```sh
//! cargo run --release -p txtfp-cli --no-default-features --example gen_corpus -- \
//!     --source corpus-large.jsonl --out scale-5g --size 5GB --seed 1
//! ```
//!
//! `scripts/gen_corpus.sh` wraps this; BENCHMARKS.md ("Scale corpora")
//! describes what is planted and the output layout. Nothing of the source
//! ships with the repository: a corpus is rebuilt from the source file and
//! the seed.
//!
//! Every document is a pure function of `(seed, slot)`, so shards are made
//! in parallel and independently: a duplicate whose source lives in another
//! shard regenerates that source instead of looking it up. The output bytes
//! depend on the source, the seed and the parameters only, not on the
//! number of threads.

mod doc;
mod pool;
mod rng;
mod shard;
#[cfg(test)]
mod tests;

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use clap::Parser;
use rayon::prelude::*;
use serde_json::json;

use crate::doc::{EditRate, Plan};
use crate::pool::Pool;
use crate::rng::{Rng, stream};
use crate::shard::{HIST_BINS, ShardStats, doc_id, truth_part_name, write_shard};

/// Bumped whenever the same arguments would give different bytes.
const GENERATOR_VERSION: u32 = 1;
/// Base documents generated to estimate the mean line length, which sets the
/// number of documents (to about 1.5 % of the target size).
const ESTIMATE_SAMPLES: u64 = 4096;

/// Builds a scale corpus: sharded `part-NNNNN.jsonl.zst` documents
/// (`{"id": ..., "text": ...}` lines), `truth.jsonl` (one line per planted
/// duplicate with its exact word 5-shingle Jaccard against its source) and
/// `manifest.json`.
#[derive(Parser, Debug)]
#[command(name = "gen_corpus")]
pub struct Args {
    /// JSONL corpus whose "text" fields supply the sentences (optional
    /// "lang" and "src" fields keep each document in one language).
    #[arg(long, value_name = "FILE")]
    pub source: PathBuf,
    /// Output folder (created).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Uncompressed JSONL size to aim at: 300KB, 20MB, 5GB, 1GiB, ... (SI
    /// units are powers of 1000).
    #[arg(long, value_name = "SIZE", default_value = "1GB", value_parser = parse_size)]
    pub size: u64,
    /// Number of shards [default: size / --shard-size, rounded up].
    #[arg(long, value_name = "K", conflicts_with = "shard_size")]
    pub shards: Option<usize>,
    /// Uncompressed size per shard when --shards is not given.
    #[arg(long, value_name = "SIZE", default_value = "256MB", value_parser = parse_size)]
    pub shard_size: u64,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Share of documents that are planted duplicates of a base document.
    #[arg(long, value_name = "F", default_value_t = 0.10)]
    pub dup_frac: f64,
    /// Share of the duplicates that are exact copies.
    #[arg(long, value_name = "F", default_value_t = 0.10)]
    pub exact_share: f64,
    /// Share of the duplicates that are boilerplate members (one page
    /// repeated with one to three words changed); the rest are word-edited
    /// near-duplicates.
    #[arg(long, value_name = "F", default_value_t = 0.15)]
    pub boilerplate_share: f64,
    /// Average number of members of a boilerplate group.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub boilerplate_group: u64,
    /// Word edit rate inside base documents (substitutions, deletions,
    /// insertions and swaps in equal shares).
    #[arg(long, value_name = "F", default_value_t = 0.03)]
    pub base_edit_rate: f64,
    /// Lowest target Jaccard of an edited near-duplicate (targets are
    /// uniform from here to 1).
    #[arg(long, value_name = "J", default_value_t = 0.5)]
    pub min_jaccard: f64,
    /// Text kept from the source at most.
    #[arg(long, value_name = "SIZE", default_value = "512MB", value_parser = parse_size)]
    pub pool_max: u64,
    /// zstd level of the shards; level 1 compresses about three times as
    /// fast and ~17 % larger.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub zstd_level: i32,
    /// Worker threads [default: one per core].
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Replace a corpus already in --out.
    #[arg(long)]
    pub force: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit_scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(format!(
                "unknown unit in {s:?} (B, KB, MB, GB, TB, KiB, ...)"
            ));
        }
    };
    let n: f64 = num.parse().map_err(|_| format!("not a size: {s:?}"))?;
    let bytes = (n * unit_scale).round();
    if !(1.0..1e18).contains(&bytes) {
        return Err(format!("size out of range: {s:?}"));
    }
    Ok(bytes as u64)
}

fn main() -> ExitCode {
    let args = Args::parse();
    match generate(&args) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen_corpus: {e}");
            ExitCode::from(1)
        }
    }
}

fn check(args: &Args) -> Result<(), String> {
    let share = |name: &str, v: f64, max: f64| {
        if (0.0..=max).contains(&v) {
            Ok(())
        } else {
            Err(format!("--{name} {v}: must be between 0 and {max}"))
        }
    };
    // Above one half, most slots are duplicates and sources get scarce.
    share("dup-frac", args.dup_frac, 0.5)?;
    share("exact-share", args.exact_share, 1.0)?;
    share("boilerplate-share", args.boilerplate_share, 1.0)?;
    share(
        "exact-share + --boilerplate-share",
        args.exact_share + args.boilerplate_share,
        1.0,
    )?;
    share("base-edit-rate", args.base_edit_rate, 0.5)?;
    share("min-jaccard", args.min_jaccard, 1.0)?;
    if args.boilerplate_group == 0 {
        return Err("--boilerplate-group must be at least 1".into());
    }
    if args.shards == Some(0) {
        return Err("--shards must be at least 1".into());
    }
    if !(1..=19).contains(&args.zstd_level) {
        return Err(format!(
            "--zstd-level {}: must be between 1 and 19",
            args.zstd_level
        ));
    }
    if args.threads == Some(0) {
        return Err("--threads must be at least 1".into());
    }
    Ok(())
}

/// Whether `name` is one of the files a run writes.
fn is_ours(name: &str) -> bool {
    name == "truth.jsonl"
        || name == "manifest.json"
        || (name.starts_with("part-") && name.ends_with(".jsonl.zst"))
        || (name.starts_with("truth-") && name.ends_with(".part"))
}

/// Creates `dir`; refuses to mix with an earlier corpus there unless `force`,
/// which removes that corpus's files (and no others).
fn prepare_out(dir: &Path, force: bool) -> Result<(), String> {
    let shown = dir.display();
    fs::create_dir_all(dir).map_err(|e| format!("{shown}: {e}"))?;
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| format!("{shown}: {e}"))? {
        let entry = entry.map_err(|e| format!("{shown}: {e}"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_ours(&name) {
            found.push(entry.path());
        }
    }
    if !found.is_empty() && !force {
        return Err(format!(
            "{shown} already holds a corpus ({} files); --force replaces it",
            found.len()
        ));
    }
    for path in found {
        fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// Mean JSONL line length of base documents, from a fixed sample.
fn mean_line_bytes(plan: &Plan<'_>) -> f64 {
    let (mut text, mut escaped) = (String::new(), Vec::new());
    let mut total = 0u64;
    for k in 0..ESTIMATE_SAMPLES {
        // Keys from their own stream: the sample is no slot of the corpus.
        plan.base_text(
            Rng::new(plan.seed, stream::ESTIMATE, k).next_u64(),
            &mut text,
        );
        escaped.clear();
        serde_json::to_writer(&mut escaped, &text).expect("writing to memory");
        // {"id":"d#########","text":...}\n
        total += escaped.len() as u64 + 28;
    }
    total as f64 / ESTIMATE_SAMPLES as f64
}

/// Builds the corpus `args` describes; returns its manifest.
pub fn generate(args: &Args) -> Result<serde_json::Value, String> {
    check(args)?;
    let started = Instant::now();
    let say = |msg: String| {
        if !args.quiet {
            eprintln!("gen_corpus: {msg}");
        }
    };
    prepare_out(&args.out, args.force)?;
    let (pool, source) = Pool::load(&args.source, args.pool_max)?;
    say(format!(
        "pool: {} pieces, {:.1} MB from {} parts of {} ({} documents), {:.1} s",
        pool.pieces,
        pool.bytes as f64 / 1e6,
        pool.parts.len(),
        args.source.display(),
        source.docs_used,
        started.elapsed().as_secs_f64()
    ));

    let mut plan = Plan {
        pool: &pool,
        seed: args.seed,
        docs: 0,
        dup_frac: args.dup_frac,
        exact_share: args.exact_share,
        boilerplate_share: args.boilerplate_share,
        groups: 1,
        base_edit: EditRate::new(args.base_edit_rate),
        min_jaccard: args.min_jaccard,
    };
    let mean = mean_line_bytes(&plan);
    let docs = ((args.size as f64 / mean).round() as u64).max(1);
    let wanted = match args.shards {
        Some(k) => k as u64,
        None => args.size.div_ceil(args.shard_size),
    };
    let per_shard = docs.div_ceil(wanted.clamp(1, docs));
    let shards = docs.div_ceil(per_shard) as usize;
    let planted = docs as f64 * args.dup_frac * args.boilerplate_share;
    plan.docs = docs;
    plan.groups = ((planted / args.boilerplate_group as f64).round() as u64).max(1);
    let id_width = docs.to_string().len().max(9);
    say(format!(
        "{docs} documents (mean line {mean:.0} B) in {shards} shards of {per_shard}"
    ));

    let done = AtomicUsize::new(0);
    let make = |i: usize| -> Result<ShardStats, String> {
        let first = i as u64 * per_shard;
        let slots = first..(first + per_shard).min(docs);
        let stats = write_shard(&plan, i, slots, &args.out, id_width, args.zstd_level)
            .map_err(|e| format!("{}: {e}", args.out.join(shard::shard_name(i)).display()))?;
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        say(format!(
            "{} done ({n}/{shards}), {:.0} s",
            stats.file,
            started.elapsed().as_secs_f64()
        ));
        Ok(stats)
    };
    let run = || {
        (0..shards)
            .into_par_iter()
            .map(make)
            .collect::<Result<Vec<_>, _>>()
    };
    let stats = match args.threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| format!("cannot start {n} threads: {e}"))?
            .install(run)?,
        None => run()?,
    };
    join_truth(&args.out, shards).map_err(|e| format!("{}: {e}", args.out.display()))?;

    let manifest = manifest(args, &plan, &pool, &source, &stats, per_shard, id_width);
    let path = args.out.join("manifest.json");
    let mut text = serde_json::to_string_pretty(&manifest).expect("JSON values serialize");
    text.push('\n');
    fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;

    let secs = started.elapsed().as_secs_f64();
    let jsonl: u64 = stats.iter().map(|s| s.jsonl_bytes).sum();
    let zst: u64 = stats.iter().map(|s| s.zst_bytes).sum();
    say(format!(
        "{:.1} MB of JSONL ({:.1} MB compressed) in {secs:.1} s: {:.0} MB/s",
        jsonl as f64 / 1e6,
        zst as f64 / 1e6,
        jsonl as f64 / 1e6 / secs
    ));
    Ok(manifest)
}

/// Joins the shards' truth parts, in shard order, into `truth.jsonl`.
fn join_truth(dir: &Path, shards: usize) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(dir.join("truth.jsonl"))?);
    for i in 0..shards {
        let part = dir.join(truth_part_name(i));
        io::copy(&mut File::open(&part)?, &mut out)?;
        fs::remove_file(part)?;
    }
    out.flush()
}

fn manifest(
    args: &Args,
    plan: &Plan<'_>,
    pool: &Pool,
    source: &pool::SourceInfo,
    stats: &[ShardStats],
    per_shard: u64,
    id_width: usize,
) -> serde_json::Value {
    let sum = |f: fn(&ShardStats) -> u64| stats.iter().map(f).sum::<u64>();
    let mut hist = serde_json::Map::new();
    for bin in 0..HIST_BINS {
        let label = if bin == HIST_BINS - 1 {
            "1".to_string()
        } else {
            format!("[{:.1},{:.1})", bin as f64 / 10.0, (bin + 1) as f64 / 10.0)
        };
        hist.insert(label, stats.iter().map(|s| s.hist[bin]).sum::<u64>().into());
    }
    let shards: Vec<_> = stats
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let first = i as u64 * per_shard;
            json!({
                "file": s.file,
                "docs": s.docs,
                "first_id": doc_id(first, id_width),
                "last_id": doc_id(first + s.docs - 1, id_width),
                "jsonl_bytes": s.jsonl_bytes,
                "zst_bytes": s.zst_bytes,
            })
        })
        .collect();
    json!({
        "generator": "txtfp-cli/examples/gen_corpus",
        "generator_version": GENERATOR_VERSION,
        "txtfp_version": env!("CARGO_PKG_VERSION"),
        "seed": args.seed,
        "source": {
            "path": args.source.display().to_string(),
            "bytes": source.bytes,
            "sha256": source.sha256,
            "docs": source.docs,
            "docs_used": source.docs_used,
        },
        "pool": {
            "parts": pool.parts.iter().map(|p| p.key.as_str()).collect::<Vec<_>>(),
            "pieces": pool.pieces,
            "bytes": pool.bytes,
            "window": pool::WINDOW,
        },
        "parameters": {
            "size": args.size,
            "shards": stats.len(),
            "docs_per_shard": per_shard,
            "dup_frac": args.dup_frac,
            "exact_share": args.exact_share,
            "boilerplate_share": args.boilerplate_share,
            "boilerplate_group": args.boilerplate_group,
            "base_edit_rate": args.base_edit_rate,
            "min_jaccard": args.min_jaccard,
            "pool_max": args.pool_max,
            "length": {
                "distribution": "log-normal",
                "median": doc::LEN_MEDIAN as u64,
                "sigma": doc::LEN_SIGMA,
                "min": doc::LEN_MIN as u64,
                "max": doc::LEN_MAX as u64,
            },
            "fragment": { "min": doc::FRAGMENT_MIN, "max": doc::FRAGMENT_MAX },
            "paragraph_break": doc::PARAGRAPH,
            "zstd_level": args.zstd_level,
        },
        "truth": {
            "file": "truth.jsonl",
            "pairs_are": "a = the source (a base document), b = the planted duplicate",
            "similarity": "exact Jaccard of word 5-shingle sets (txtfp default canonicalizer, \
                           WordTokenizer; tokens as the low 64 bits of their XXH3-128 with \
                           txtfp's default seed, as txtfp's exact verification builds them)",
            "pairs": sum(|s| s.pairs),
            "jaccard_histogram": hist,
        },
        "counts": {
            "docs": sum(|s| s.docs),
            "base": sum(|s| s.base),
            "near_duplicate": sum(|s| s.near),
            "exact_copy": sum(|s| s.exact),
            "boilerplate": sum(|s| s.boilerplate),
            "boilerplate_groups": plan.groups,
        },
        "bytes": {
            "jsonl": sum(|s| s.jsonl_bytes),
            "text": sum(|s| s.text_bytes),
            "zst": sum(|s| s.zst_bytes),
        },
        "shards": shards,
    })
}
