//! The out-of-core engine against the in-memory one on a JSONL corpus: time,
//! peak memory of each stage, work-directory bytes, and whether the two
//! agree on every decision.
//!
//! ```sh
//! cargo run --release --features external --example external_dedup -- \
//!     CORPUS.jsonl [MEMORY_MIB] [WORK_DIR]
//! ```
//!
//! `CORPUS.jsonl` holds `{"text": ...}` lines (e.g. corpus-large.jsonl made
//! by the shared corpus generator). Without `MEMORY_MIB` the budget is
//! 1024 MiB. The in-memory run is skipped when `TXTFP_SKIP_MEMORY=1`;
//! `TXTFP_ALGO=simhash` runs `SimHashDedup` (radius 3) instead of
//! `MinHashDedup`.

use std::io::BufRead;
use std::time::Instant;

use txtfp::DedupReport;
use txtfp::dedup::external::{ExternalOptions, ExternalReport, TextSource};
use txtfp::dedup::{EmptyDocuments, MinHashDedup, SimHashDedup};

/// A method's in-memory run.
type InMemory = Box<dyn Fn(&[String]) -> txtfp::Result<DedupReport>>;
/// The same method's out-of-core run.
type External =
    Box<dyn Fn(&TextSource<'_, String>, &ExternalOptions) -> txtfp::Result<ExternalReport>>;

/// The two runs of one method: in memory, and out of core.
struct Method {
    in_memory: InMemory,
    external: External,
}

fn method() -> Method {
    if std::env::var("TXTFP_ALGO").as_deref() == Ok("simhash") {
        let d = SimHashDedup::new().with_empty_documents(EmptyDocuments::Keep);
        let e = d.clone();
        Method {
            in_memory: Box::new(move |t| d.run_texts(t)),
            external: Box::new(move |s, o| e.run_external(s, o)),
        }
    } else {
        let d = MinHashDedup::new().with_empty_documents(EmptyDocuments::Keep);
        let e = d.clone();
        Method {
            in_memory: Box::new(move |t| d.run_texts(t)),
            external: Box::new(move |s, o| e.run_external(s, o)),
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .ok_or("usage: external_dedup CORPUS.jsonl [MEMORY_MIB] [WORK_DIR]")?;
    let memory: usize = args.get(1).map_or(Ok(1024), |m| m.parse())?;
    let work = args.get(2).map_or_else(
        || std::env::temp_dir().join(format!("txtfp-external-bench-{}", std::process::id())),
        std::path::PathBuf::from,
    );
    let _ = std::fs::remove_dir_all(&work);
    let mut texts = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(path)?).lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        texts.push(v["text"].as_str().unwrap_or_default().to_string());
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    let mb = bytes as f64 / 1e6;
    println!(
        "{} documents, {mb:.1} MB of text, {} threads",
        texts.len(),
        rayon::current_num_threads()
    );
    let dedup = method();

    let mem = if std::env::var("TXTFP_SKIP_MEMORY").as_deref() == Ok("1") {
        None
    } else {
        let t = Instant::now();
        let report = (dedup.in_memory)(&texts)?;
        let s = t.elapsed().as_secs_f64();
        println!(
            "in memory:   {s:7.2} s  {:7.1} MB/s  kept {}  clusters {}",
            mb / s,
            report.stats.kept,
            report.stats.clusters
        );
        Some(report)
    };

    let t = Instant::now();
    let opts = ExternalOptions::new(&work).with_memory(memory << 20);
    let ext = (dedup.external)(&TextSource::new(&texts), &opts)?;
    let s = t.elapsed().as_secs_f64();
    println!(
        "out of core: {s:7.2} s  {:7.1} MB/s  kept {}  clusters {}",
        mb / s,
        ext.stats.kept,
        ext.stats.clusters
    );
    for st in &ext.stages {
        println!(
            "  {:8} {:7.2} s  peak RSS {:6.0} MiB  work dir {:8.1} MB",
            st.name,
            st.seconds,
            st.peak_rss.unwrap_or(0) as f64 / (1 << 20) as f64,
            st.work_dir_bytes as f64 / 1e6
        );
    }
    println!(
        "  candidates {}  verified {}",
        ext.stats.candidate_pairs, ext.stats.verified_pairs
    );
    if let Some(mem) = mem {
        let mut differ = 0usize;
        for (m, e) in mem.decisions.iter().zip(ext.decisions()?) {
            let e = e?;
            if (m.keep, m.duplicate_of) != (e.keep, e.duplicate_of) {
                differ += 1;
            }
        }
        println!("decisions that differ: {differ}");
    }
    std::fs::remove_dir_all(&work)?;
    Ok(())
}
