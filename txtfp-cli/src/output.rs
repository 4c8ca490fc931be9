//! What `txtfp dedup` writes: the kept records, the clusters (JSONL), the
//! JSON report, and a readable summary on stderr.

use std::io::Write;
use std::path::Path;

use txtfp::DedupReport;
use txtfp::dedup::Similarity;

use crate::args::DedupArgs;
use crate::error::{CliError, CliResult};
use crate::input::{Doc, DuplicateIds, Record, Skip};
use crate::sink::Sink;

/// Bad records listed one by one in the report.
pub const MAX_LISTED_SKIPS: usize = 1000;

/// The three outputs, created before the input is read so that a bad path
/// fails at once.
pub struct Outputs {
    kept: Sink,
    clusters: Option<Sink>,
    report: Option<Sink>,
}

/// Figures of the run for the report.
pub struct Summary<'a> {
    pub input: String,
    pub format: &'static str,
    pub bytes: u64,
    pub method: String,
    pub method_json: serde_json::Value,
    pub seconds: f64,
    pub threads: usize,
    pub skipped: &'a [Skip],
    /// Records repeating an earlier record's id.
    pub duplicate_ids: &'a DuplicateIds,
    /// Seconds per phase (read, parse, dedup, store, write).
    pub timings: &'a [(&'static str, f64)],
    /// The `global_store` section (`--store`).
    pub global: Option<serde_json::Value>,
}

/// Names of what was written, for the summary.
pub struct Written {
    names: Vec<String>,
}

impl Outputs {
    /// Resolves `--output` / `--kept` / `--clusters` / `--report` and
    /// creates the files. Refuses to overwrite the input.
    pub fn open(a: &DedupArgs) -> CliResult<Outputs> {
        let in_dir = |name: &str| a.output.as_ref().map(|d| d.join(name));
        let kept = a.kept.clone().or_else(|| in_dir("kept.jsonl"));
        let clusters = a.clusters.clone().or_else(|| in_dir("clusters.jsonl"));
        let report = a.report.clone().or_else(|| in_dir("report.json"));
        if let Some(dir) = &a.output {
            std::fs::create_dir_all(dir)
                .map_err(|e| CliError::Failed(format!("{}: cannot create: {e}", dir.display())))?;
        }
        for p in [&kept, &clusters, &report].into_iter().flatten() {
            refuse_input(p, &a.inputs[0])?;
        }
        Ok(Outputs {
            kept: match &kept {
                Some(p) if p.as_os_str() != "-" => Sink::file(p)?,
                _ => Sink::stdout(),
            },
            clusters: clusters.as_deref().map(Sink::file).transpose()?,
            report: report.as_deref().map(Sink::file).transpose()?,
        })
    }

    /// Writes the kept records and the clusters.
    pub fn write(
        &mut self,
        buffer: &[u8],
        docs: &[Doc<'_>],
        report: &DedupReport,
        a: &DedupArgs,
    ) -> CliResult<Written> {
        let mut names = Vec::new();
        let mut line = String::new();
        let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
        for d in &report.decisions {
            if !d.keep {
                continue;
            }
            let doc = &docs[d.id as usize];
            match &doc.record {
                // Input lines: merged into runs, written at the end.
                Record::Line(r) => {
                    match spans.last_mut() {
                        Some(last) if last.end == r.start => last.end = r.end,
                        _ => spans.push(r.clone()),
                    }
                    continue;
                }
                Record::Json(s) => self.kept.put(s.as_bytes())?,
                Record::IdText => {
                    line.clear();
                    line.push('{');
                    line.push_str(&json_string(&a.id_column));
                    line.push(':');
                    line.push_str(&doc.id);
                    line.push(',');
                    line.push_str(&json_string(&a.text_column));
                    line.push(':');
                    line.push_str(&json_string(&doc.text));
                    line.push('}');
                    self.kept.put(line.as_bytes())?;
                }
            }
            self.kept.put(b"\n")?;
        }
        if !spans.is_empty() {
            // The last line of a file may lack its line break.
            let unterminated = spans
                .last()
                .is_some_and(|s| buffer[..s.end].last() != Some(&b'\n'));
            let tail: &[u8] = if unterminated { b"\n" } else { b"" };
            self.kept.put_spans(buffer, &spans, tail)?;
        }
        names.push(self.kept.name.clone());
        if let Some(sink) = &mut self.clusters {
            for (i, c) in report.clusters.iter().enumerate() {
                line.clear();
                cluster_line(&mut line, i, c, docs, report);
                line.push('\n');
                sink.put(line.as_bytes())?;
            }
            names.push(sink.name.clone());
        }
        Ok(Written { names })
    }

    /// Flushes everything, writes the report and prints the summary.
    pub fn finish(
        self,
        written: &Written,
        report: &DedupReport,
        s: &Summary<'_>,
        quiet: bool,
    ) -> CliResult {
        self.kept.close()?;
        if let Some(c) = self.clusters {
            c.close()?;
        }
        let mut names = written.names.clone();
        if let Some(mut r) = self.report {
            let mut json = serde_json::to_vec_pretty(&report_json(report, s))
                .map_err(|e| CliError::Failed(format!("report: {e}")))?;
            json.push(b'\n');
            r.put(&json)?;
            names.push(r.name.clone());
            r.close()?;
        }
        if !quiet {
            print_summary(report, s, &names);
        }
        Ok(())
    }
}

/// Fails when `out` is the input file (it would be truncated before it is read).
fn refuse_input(out: &Path, input: &Path) -> CliResult {
    if input.as_os_str() == "-" || out.as_os_str() == "-" {
        return Ok(());
    }
    let same = match (std::fs::canonicalize(out), std::fs::canonicalize(input)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(CliError::Usage(format!(
            "{}: refusing to overwrite the input",
            out.display()
        )));
    }
    Ok(())
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// `{"cluster":I,"kept":ID,"size":N,"members":[ID,...],"duplicates":[{"id":ID,"jaccard":J},...]}`
/// with the ids as they are in the input.
fn cluster_line(
    line: &mut String,
    i: usize,
    c: &txtfp::dedup::Cluster,
    docs: &[Doc<'_>],
    report: &DedupReport,
) {
    use std::fmt::Write as _;
    let id = |pos: u64| docs[pos as usize].id.as_ref();
    let _ = write!(
        line,
        "{{\"cluster\":{i},\"kept\":{},\"size\":{},\"members\":[",
        id(c.kept),
        c.members.len()
    );
    for (n, &m) in c.members.iter().enumerate() {
        if n > 0 {
            line.push(',');
        }
        line.push_str(id(m));
    }
    line.push_str("],\"duplicates\":[");
    let mut first = true;
    for &m in &c.members {
        let d = &report.decisions[m as usize];
        if d.keep {
            continue;
        }
        if !first {
            line.push(',');
        }
        first = false;
        let _ = write!(line, "{{\"id\":{}", id(m));
        match d.similarity {
            Some(Similarity::Jaccard(j)) => {
                let _ = write!(line, ",\"jaccard\":{}", round4(j));
            }
            Some(Similarity::Hamming(h)) => {
                let _ = write!(line, ",\"hamming\":{h}");
            }
            _ => {}
        }
        line.push('}');
    }
    line.push_str("]}");
}

fn round4(x: f32) -> f64 {
    (f64::from(x) * 1e4).round() / 1e4
}

fn report_json(report: &DedupReport, s: &Summary<'_>) -> serde_json::Value {
    let st = &report.stats;
    let listed: Vec<serde_json::Value> = s
        .skipped
        .iter()
        .take(MAX_LISTED_SKIPS)
        .map(|k| serde_json::json!({ "place": k.place, "reason": k.reason }))
        .collect();
    serde_json::json!({
        "input": s.input,
        "format": s.format,
        "bytes": s.bytes,
        "method": s.method_json,
        "documents": st.documents,
        "kept": st.kept,
        "dropped": st.dropped,
        "empty": st.empty,
        "clusters": st.clusters,
        "candidate_pairs": st.candidate_pairs,
        "compared_pairs": st.compared_pairs,
        "verified_pairs": st.verified_pairs,
        "skipped": s.skipped.len(),
        "skipped_records": listed,
        "duplicate_ids": s.duplicate_ids.count,
        "duplicate_id_examples": s.duplicate_ids.examples_json(),
        "seconds": (s.seconds * 1e3).round() / 1e3,
        "mb_per_s": (mb_per_s(s.bytes, s.seconds) * 10.0).round() / 10.0,
        "threads": s.threads,
        "phase_seconds": s
            .timings
            .iter()
            .map(|(k, v)| ((*k).to_string(), serde_json::json!((v * 1e3).round() / 1e3)))
            .collect::<serde_json::Map<_, _>>(),
        "global_store": s.global,
    })
}

fn mb_per_s(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 / 1e6 / seconds
    } else {
        0.0
    }
}

fn print_summary(report: &DedupReport, s: &Summary<'_>, names: &[String]) {
    let st = &report.stats;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "txtfp dedup: {} ({}, {}): {} documents, {} bad records skipped",
        s.input,
        s.format,
        human_bytes(s.bytes),
        st.documents,
        s.skipped.len()
    );
    let _ = writeln!(
        err,
        "  kept {}, dropped {} ({} clusters of near-duplicates, {} empty documents)",
        st.kept, st.dropped, st.clusters, st.empty
    );
    if let Some(g) = &s.global {
        let _ = writeln!(
            err,
            "  global store {}: {} checked, {} dropped as duplicates of stored documents",
            g["root"].as_str().unwrap_or_default(),
            g["checked"],
            g["dropped"]
        );
    }
    let _ = writeln!(err, "  method: {}", s.method);
    let phases: Vec<String> = s
        .timings
        .iter()
        .map(|(k, v)| format!("{k} {v:.2}"))
        .collect();
    let _ = writeln!(
        err,
        "  {:.2} s ({}), {:.1} MB/s, {} threads",
        s.seconds,
        phases.join(", "),
        mb_per_s(s.bytes, s.seconds),
        s.threads
    );
    let _ = writeln!(err, "  wrote {}", names.join(", "));
}

/// `12.3 MB`, `45.6 kB`, `789 B`.
fn human_bytes(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{:.1} kB", n as f64 / 1e3),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}
