//! `txtfp dedup` on a corpus of any size: the library's out-of-core engine
//! over a resolved, streamed corpus, then a last pass that writes each
//! shard's kept records in its own format.
//!
//! Chosen for several inputs, a directory of JSONL or Parquet shards,
//! compressed input, input larger than [`AUTO_BYTES`], or when `--memory`
//! or `--work-dir` is given.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use txtfp::corpus::{
    Compression, Corpus, Format, Key, ReadOptions, ResolveOptions, WriteOptions, Writer,
};
use txtfp::dedup::Similarity;
use txtfp::dedup::external::{CorpusSource, DedupIndex, ExternalOptions, ExternalReport, SkipLog};

use crate::args::{DedupArgs, OutputCompression};
use crate::error::{CliError, CliResult};
use crate::input::{DUPLICATE_EXAMPLES, DuplicateIds};
use crate::progress::Progress;

/// Input (as stored) above which a single file is deduplicated out of core.
pub const AUTO_BYTES: u64 = 256 << 20;

/// Resolves the inputs and tells whether the out-of-core engine must run.
pub fn plan(a: &DedupArgs) -> CliResult<Option<Corpus>> {
    let forced =
        a.memory.is_some() || a.work_dir.is_some() || a.inputs.len() > 1 || a.against.is_some();
    let simple = a.inputs.len() == 1 && a.inputs[0].as_os_str() == "-";
    if simple && !forced {
        return Ok(None);
    }
    let corpus = match Corpus::resolve(&a.inputs, &ResolveOptions::default()) {
        Ok(c) => c,
        Err(e) if forced => return Err(CliError::Failed(e.to_string())),
        // One plain input: the in-memory reader reports it as before.
        Err(_) => return Ok(None),
    };
    let shards = corpus.shards();
    // A folder's JSONL and Parquet files are shards; the in-memory reader
    // would take each for one text document.
    let folder_of_shards =
        a.inputs[0].is_dir() && shards.iter().any(|s| s.format() != Format::Text);
    let needed = forced
        || folder_of_shards
        || shards.len() > 1
        || shards.iter().any(|s| s.compression() != Compression::None)
        || corpus.total_bytes() > AUTO_BYTES;
    Ok(needed.then_some(corpus))
}

/// A method's out-of-core run (`MinHashDedup::run_external` or
/// `SimHashDedup::run_external`).
pub type RunExternal<'a> =
    dyn Fn(&CorpusSource<'_>, &ExternalOptions) -> txtfp::Result<ExternalReport> + 'a;

/// Runs the out-of-core engine over `corpus` with `dedup`, the method
/// `method` describes.
pub fn run(
    a: &DedupArgs,
    corpus: Corpus,
    dedup: &RunExternal<'_>,
    method: serde_json::Value,
) -> CliResult {
    let start = Instant::now();
    // Without an output the run only updates its index (`index build`).
    let out_dir = match (&a.kept, &a.output, &a.against) {
        (Some(k), _, _) => Some(k.clone()),
        (None, Some(o), _) => Some(o.join("kept")),
        (None, None, Some(_)) if a.update_index => None,
        (None, None, _) => {
            return Err(CliError::Usage(
                "out-of-core dedup (several inputs, compressed or large input, --memory, \
                 --work-dir or --against) writes the kept shards into a folder: give --output DIR"
                    .into(),
            ));
        }
    };
    let base = a
        .output
        .clone()
        .or_else(|| out_dir.clone())
        .or_else(|| a.against.clone())
        .unwrap_or_default();
    let work_dir = a.work_dir.clone().unwrap_or_else(|| match &out_dir {
        Some(_) => base.join("work"),
        None => base.join(".work"),
    });
    for w in corpus.warnings() {
        eprintln!("txtfp: {w}");
    }
    // Made first: a bad level or two shards with one output file fail
    // before the corpus is read.
    let compression = a.output_compression.map(|c| match c {
        OutputCompression::None => Compression::None,
        OutputCompression::Gz => Compression::Gzip,
        OutputCompression::Zst => Compression::Zstd,
    });
    let writer = match &out_dir {
        Some(out_dir) => Some(
            Writer::new(
                &corpus,
                out_dir,
                &WriteOptions::default()
                    .compression(compression)
                    .level(a.output_level),
            )
            .map_err(|e| CliError::Failed(e.to_string()))?,
        ),
        None => None,
    };
    let read_opts = ReadOptions::default()
        .text_column(&a.text_column)
        .id_column(Some(&a.id_column));
    let skip_log = work_dir.join("skips.json");
    let source = CorpusSource::new(&corpus, read_opts.clone())
        .strict(a.strict)
        .with_log_file(&skip_log);
    let progress = Arc::new(Progress::new(corpus.total_bytes(), a.quiet));
    let bar = Arc::clone(&progress);
    let mut options = ExternalOptions::new(&work_dir)
        .with_progress(Arc::new(move |p| bar.stage(p.stage, p.done, p.total)));
    if let Some(m) = a.memory {
        options = options.with_memory(m);
    }
    if let Some(index) = &a.against {
        options = options.against(index).update_index(a.update_index);
    }
    let report = dedup(&source, &options);
    let report = report.map_err(|e| match e {
        txtfp::Error::Io(_) => resumable(CliError::from(e), None, &work_dir),
        other => CliError::from(other),
    })?;
    // A resumed run may not have read the corpus: the first pass's log is
    // in the work directory.
    let skips = SkipLog::load(&skip_log).unwrap_or_else(|_| source.skips());
    warn_skipped(&skips);
    if report.stats.documents == 0 && skips.count > 0 {
        progress.finish();
        return Err(CliError::no_valid_record(
            skips.count,
            skips
                .listed
                .first()
                .map(|(place, reason)| format!("{place}: {reason}")),
        ));
    }
    // Ids are checked in the work directory, within the run's budget.
    let found = report
        .duplicate_ids(
            a.memory.unwrap_or(txtfp::dedup::external::DEFAULT_MEMORY),
            DUPLICATE_EXAMPLES,
        )
        .map_err(|e| resumable(CliError::from(e), Some("id check"), &work_dir))?;
    let duplicates = DuplicateIds {
        count: found.count,
        examples: found.examples,
    };
    let inputs: Vec<String> = a.inputs.iter().map(|p| p.display().to_string()).collect();
    duplicates.warn(&inputs.join(", "));

    let index = match &a.against {
        Some(dir) => Some(DedupIndex::open(dir)?),
        None => None,
    };
    let write_start = Instant::now();
    let written = match &writer {
        Some(writer) => write_outputs(
            a,
            &corpus,
            &read_opts,
            &report,
            index.as_ref(),
            writer,
            &progress,
        )
        .map_err(|e| resumable(e, Some("write"), &work_dir))?,
        None => Written::default(),
    };
    let write_seconds = write_start.elapsed().as_secs_f64();
    progress.finish();

    let seconds = start.elapsed().as_secs_f64();
    let json = report_json(
        a,
        &corpus,
        &report,
        &skips,
        &duplicates,
        method,
        &work_dir,
        index.as_ref(),
        written,
        write_seconds,
        seconds,
    );
    let report_path = a
        .report
        .clone()
        .or_else(|| a.output.as_ref().map(|o| o.join("report.json")));
    if let Some(p) = &report_path {
        let mut text = serde_json::to_vec_pretty(&json)
            .map_err(|e| CliError::Failed(format!("report: {e}")))?;
        text.push(b'\n');
        std::fs::write(p, text).map_err(|e| {
            resumable(
                CliError::write(&p.display().to_string(), e),
                Some("write"),
                &work_dir,
            )
        })?;
    }
    if !a.keep_work {
        std::fs::remove_dir_all(&work_dir)
            .map_err(|e| CliError::Failed(format!("{}: cannot remove: {e}", work_dir.display())))?;
    }
    if !a.quiet {
        summary(
            &corpus,
            &report,
            &skips,
            index.as_ref(),
            seconds,
            write_seconds,
        );
        match &out_dir {
            Some(d) => eprintln!("  kept records in {}", d.display()),
            None => eprintln!("  indexed into {}", base.display()),
        }
    }
    Ok(())
}

fn summary(
    corpus: &Corpus,
    report: &ExternalReport,
    skips: &SkipLog,
    index: Option<&DedupIndex>,
    seconds: f64,
    write_seconds: f64,
) {
    let st = &report.stats;
    eprintln!(
        "txtfp dedup: {} shards ({:.1} MB): {} documents, {} bad records skipped",
        corpus.shards().len(),
        corpus.total_bytes() as f64 / 1e6,
        st.documents,
        skips.count
    );
    eprintln!(
        "  kept {}, dropped {} ({} clusters of near-duplicates, {} empty documents)",
        st.kept, st.dropped, st.clusters, st.empty
    );
    if let Some(index) = index {
        eprintln!(
            "  index {}: {} duplicates of indexed documents dropped, {} documents added \
             ({} indexed in all)",
            index.dir().display(),
            report.indexed_duplicates,
            report.index_added,
            index.documents()
        );
    }
    let stages: Vec<String> = report
        .stages
        .iter()
        .map(|s| {
            format!(
                "{} {:.2}{}",
                s.name,
                s.seconds,
                if s.resumed { " (resumed)" } else { "" }
            )
        })
        .collect();
    eprintln!(
        "  {seconds:.2} s ({}, write {write_seconds:.2}), {:.1} MB/s, {} threads",
        stages.join(", "),
        report.bytes as f64 / 1e6 / seconds.max(1e-9),
        rayon::current_num_threads()
    );
}

/// The kept shards, `clusters.jsonl` and `duplicates.jsonl`.
fn write_outputs(
    a: &DedupArgs,
    corpus: &Corpus,
    read_opts: &ReadOptions,
    report: &ExternalReport,
    index: Option<&DedupIndex>,
    writer: &Writer,
    progress: &Progress,
) -> CliResult<Written> {
    progress.stage("write", 0, corpus.total_bytes());
    let written = write_kept(corpus, read_opts, report, writer, progress)?;
    let clusters_path = a
        .clusters
        .clone()
        .or_else(|| a.output.as_ref().map(|o| o.join("clusters.jsonl")));
    let duplicates_path = a.output.as_ref().map(|o| o.join("duplicates.jsonl"));
    write_clusters(
        report,
        index,
        clusters_path.as_deref(),
        duplicates_path.as_deref(),
    )?;
    Ok(written)
}

/// A run stopped by a failing read or write (a full disk, a file size
/// limit) after its work directory was set up: the message names the stage
/// when the library did not, and says that the same command resumes after
/// the stages already finished.
fn resumable(e: CliError, stage: Option<&str>, work_dir: &Path) -> CliError {
    match e {
        CliError::Failed(m) => CliError::Failed(format!(
            "{}{m}\ntxtfp: {}: the finished stages are kept there; free space (or remove the \
             cause) and run the same command again to resume",
            stage.map(|s| format!("{s} stage: ")).unwrap_or_default(),
            work_dir.display()
        )),
        other => other,
    }
}

fn warn_skipped(skips: &SkipLog) {
    for (place, reason) in skips.listed.iter().take(20) {
        eprintln!("txtfp: skipped {place}: {reason}");
    }
    if skips.count > 20 {
        eprintln!(
            "txtfp: ... and {} more bad records (listed in the report)",
            skips.count - 20
        );
    }
}

/// Bytes and records the write pass wrote.
#[derive(Default)]
struct Written {
    records: u64,
    bytes: u64,
}

/// Writes every shard's kept records, shards in parallel. Each shard reads
/// the decisions from its first document on; a row offered by the writer
/// whose key is not the next decision's was skipped as a bad record.
fn write_kept(
    corpus: &Corpus,
    read_opts: &ReadOptions,
    report: &ExternalReport,
    writer: &Writer,
    progress: &Progress,
) -> CliResult<Written> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    remove_stale_temporaries(writer.out_dir())?;
    let done = AtomicU64::new(0);
    let results: Vec<CliResult<(u64, u64)>> = corpus
        .shards()
        .par_iter()
        .map(|shard| {
            let first = CorpusSource::key_of(Key {
                shard: shard.index(),
                row: 0,
            });
            let mut decisions = report.decisions_from(report.position_of_key(first)?)?;
            let mut next = decisions.next().transpose()?;
            let mut failure: Option<txtfp::Error> = None;
            let summary = writer
                .write_shard(shard, read_opts, |row| {
                    let key = CorpusSource::key_of(Key {
                        shard: shard.index(),
                        row,
                    });
                    match &next {
                        Some(d) if d.key == key => {
                            let keep = d.keep;
                            next = match decisions.next().transpose() {
                                Ok(n) => n,
                                Err(e) => {
                                    failure.get_or_insert(e);
                                    None
                                }
                            };
                            keep
                        }
                        _ => false,
                    }
                })
                .map_err(|e| CliError::Failed(e.to_string()))?;
            if let Some(e) = failure {
                return Err(e.into());
            }
            let d = done.fetch_add(shard.size(), Ordering::Relaxed) + shard.size();
            progress.stage("write", d, corpus.total_bytes());
            Ok((summary.rows_written, summary.bytes_written))
        })
        .collect();
    let mut written = Written::default();
    for r in results {
        let (records, bytes) = r?;
        written.records += records;
        written.bytes += bytes;
    }
    Ok(written)
}

/// Removes the temporary files a killed write pass left under `dir`
/// (`.NAME.txtfp-tmp-PID`), so a resumed run leaves only final files.
fn remove_stale_temporaries(dir: &Path) -> CliResult {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        match entry.file_type() {
            Ok(t) if t.is_dir() => remove_stale_temporaries(&path)?,
            Ok(t) if t.is_file() && name.starts_with('.') && name.contains(".txtfp-tmp-") => {
                std::fs::remove_file(&path).map_err(|e| {
                    CliError::Failed(format!("{}: cannot remove: {e}", path.display()))
                })?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// `clusters.jsonl`: `{"cluster":I,"kept":ID,"size":N,"members":[ID,...]}`;
/// `duplicates.jsonl`: one line per dropped document,
/// `{"id":ID,"duplicate_of":ID,"cluster":I,"matched":ID,"jaccard":J}` (or
/// `"hamming":D` for SimHash).
fn write_clusters(
    report: &ExternalReport,
    index: Option<&DedupIndex>,
    clusters: Option<&Path>,
    duplicates: Option<&Path>,
) -> CliResult {
    let ids = report.ids()?;
    let index_ids = index.map(DedupIndex::ids).transpose()?;
    if let Some(path) = clusters {
        let mut out = create(path)?;
        for c in report.clusters()? {
            let c = c?;
            let mut line = format!(
                "{{\"cluster\":{},\"kept\":{},\"size\":{},\"members\":[",
                c.number,
                ids.get(c.kept)?,
                c.members.len()
            );
            for (i, m) in c.members.iter().enumerate() {
                if i > 0 {
                    line.push(',');
                }
                line.push_str(&ids.get(*m)?);
            }
            line.push_str("]}\n");
            out.write_all(line.as_bytes())
                .map_err(|e| CliError::write(&path.display().to_string(), e))?;
        }
        out.flush()
            .map_err(|e| CliError::write(&path.display().to_string(), e))?;
    }
    if let Some(path) = duplicates {
        let mut out = create(path)?;
        for d in report.decisions()? {
            let d = d?;
            if let (Some(x), Some(index_ids)) = (&d.indexed, &index_ids) {
                let mut line = format!(
                    "{{\"id\":{},\"duplicate_of\":{},\"indexed\":true",
                    ids.get(d.position)?,
                    index_ids.get(x.position)?
                );
                if let Some((m, sim)) = x.link {
                    line.push_str(&format!(",\"matched\":{}", index_ids.get(m)?));
                    push_similarity(&mut line, sim);
                }
                line.push_str("}\n");
                out.write_all(line.as_bytes())
                    .map_err(|e| CliError::write(&path.display().to_string(), e))?;
                continue;
            }
            let (Some(kept), Some(cluster)) = (d.duplicate_of, d.cluster) else {
                continue;
            };
            let mut line = format!(
                "{{\"id\":{},\"duplicate_of\":{},\"cluster\":{cluster}",
                ids.get(d.position)?,
                ids.get(kept)?
            );
            if let Some(m) = d.matched {
                line.push_str(&format!(",\"matched\":{}", ids.get(m)?));
            }
            if let Some(sim) = d.similarity {
                push_similarity(&mut line, sim);
            }
            line.push_str("}\n");
            out.write_all(line.as_bytes())
                .map_err(|e| CliError::write(&path.display().to_string(), e))?;
        }
        out.flush()
            .map_err(|e| CliError::write(&path.display().to_string(), e))?;
    }
    Ok(())
}

/// `,"jaccard":J` (four decimals) or `,"hamming":D`, as the in-memory
/// run's files give them.
fn push_similarity(line: &mut String, sim: Similarity) {
    match sim {
        Similarity::Jaccard(j) => {
            line.push_str(&format!(
                ",\"jaccard\":{}",
                (f64::from(j) * 1e4).round() / 1e4
            ));
        }
        Similarity::Hamming(h) => line.push_str(&format!(",\"hamming\":{h}")),
        _ => {}
    }
}

fn create(path: &Path) -> CliResult<std::io::BufWriter<std::fs::File>> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|e| CliError::Failed(format!("{}: cannot create: {e}", parent.display())))?;
    }
    std::fs::File::create(path)
        .map(|f| std::io::BufWriter::with_capacity(1 << 20, f))
        .map_err(|e| CliError::Failed(format!("{}: cannot create: {e}", path.display())))
}

#[allow(clippy::too_many_arguments)]
fn report_json(
    a: &DedupArgs,
    corpus: &Corpus,
    report: &ExternalReport,
    skips: &SkipLog,
    duplicates: &DuplicateIds,
    method: serde_json::Value,
    work_dir: &Path,
    index: Option<&DedupIndex>,
    written: Written,
    write_seconds: f64,
    seconds: f64,
) -> serde_json::Value {
    let st = &report.stats;
    let round3 = |x: f64| (x * 1e3).round() / 1e3;
    let stages: Vec<serde_json::Value> = report
        .stages
        .iter()
        .map(|s| {
            serde_json::json!({
                "stage": s.name,
                "seconds": round3(s.seconds),
                "resumed": s.resumed,
                "peak_rss_bytes": s.peak_rss,
                "work_dir_bytes": s.work_dir_bytes,
            })
        })
        .collect();
    let work_bytes = report
        .stages
        .iter()
        .map(|s| s.work_dir_bytes)
        .max()
        .unwrap_or(0);
    serde_json::json!({
        "engine": "out-of-core",
        "inputs": a.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "shards": corpus.shards().len(),
        "warnings": corpus.warnings().iter().map(ToString::to_string).collect::<Vec<_>>(),
        "bytes": corpus.total_bytes(),
        "method": method,
        "memory_bytes": a.memory.unwrap_or(txtfp::dedup::external::DEFAULT_MEMORY),
        "work_dir": PathBuf::from(work_dir).display().to_string(),
        "work_dir_bytes": work_bytes,
        "work_dir_bytes_per_document": if st.documents > 0 { work_bytes as f64 / st.documents as f64 } else { 0.0 },
        "documents": st.documents,
        "kept": st.kept,
        "dropped": st.dropped,
        "empty": st.empty,
        "clusters": st.clusters,
        "candidate_pairs": st.candidate_pairs,
        "compared_pairs": st.compared_pairs,
        "verified_pairs": st.verified_pairs,
        "skipped": skips.count,
        "duplicate_ids": duplicates.count,
        "duplicate_id_examples": duplicates.examples_json(),
        "skipped_records": skips.listed.iter().map(|(place, reason)| serde_json::json!({ "place": place, "reason": reason })).collect::<Vec<_>>(),
        "written_records": written.records,
        "written_bytes": written.bytes,
        "seconds": round3(seconds),
        "mb_per_s": ((corpus.total_bytes() as f64 / 1e6 / seconds.max(1e-9)) * 10.0).round() / 10.0,
        "threads": rayon::current_num_threads(),
        "stages": stages,
        "write_seconds": round3(write_seconds),
        "index": index.map(|i| serde_json::json!({
            "dir": i.dir().display().to_string(),
            "update": a.update_index,
            "indexed_duplicates": report.indexed_duplicates,
            "added": report.index_added,
            "documents": i.documents(),
            "generation": i.generation(),
            "disk_bytes": i.disk_bytes(),
        })),
    })
}
