//! Global store batch ingest as the store grows: documents per second for
//! each step of documents ingested, the slowest batch of the step (a
//! checkpoint, or a merge when merges are not in the background), and the
//! store's bytes on disk per document, on the embedded backend with every
//! kind on.
//!
//! ```sh
//! scripts/gen_corpus.sh --source corpus-large.jsonl --out gen-3g --size 3GB
//! zstd -dc gen-3g/part-*.jsonl.zst | head -1000000 > gen-1m.jsonl
//! cargo run --release --features store --example store_growth -- gen-1m.jsonl 100000 1024
//! ```
//! Arguments: a JSONL file (`id`, `text`, optional `src`), the step in
//! documents, the batch size, and optionally `max_candidates` (members read
//! per lookup key; default 10,000).

use std::io::BufRead;
use std::time::Instant;

use txtfp::store::{GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: store_growth FILE [STEP] [BATCH] [MAX_CANDIDATES]")?;
    let step: usize = args.next().map_or(Ok(50_000), |s| s.parse())?;
    let batch: usize = args.next().map_or(Ok(1024), |s| s.parse())?;
    let cap: Option<usize> = args.next().map(|s| s.parse()).transpose()?;
    let dir = std::env::temp_dir().join(format!("txtfp-store-growth-{}", std::process::id()));
    let mut cfg = GlobalStoreConfig::default();
    cfg.root_path = dir.clone();
    if let Some(cap) = cap {
        cfg.max_candidates = cap;
    }
    let store = GlobalFingerprintStore::open(cfg)?;
    println!("stored\tdocs/s\tMB/s\tslowest batch ms\tdisk bytes/doc");
    let (mut stored, mut step_docs, mut step_bytes) = (0usize, 0usize, 0usize);
    let mut slowest = 0f64;
    let mut t = Instant::now();
    let mut pending: Vec<IncomingDocument> = Vec::with_capacity(batch);
    let mut lines = std::io::BufReader::new(std::fs::File::open(&path)?).lines();
    loop {
        let line = lines.next().transpose()?;
        if let Some(line) = &line {
            let v: serde_json::Value = serde_json::from_str(line)?;
            let id = match &v["id"] {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let text = v["text"].as_str().unwrap_or_default().to_owned();
            let src = v["src"].as_str().unwrap_or("corpus").to_owned();
            step_bytes += text.len();
            pending.push(IncomingDocument::new(id, text, src));
        }
        if pending.len() == batch || (line.is_none() && !pending.is_empty()) {
            let started = Instant::now();
            let results = store.ingest_batch(&pending)?;
            slowest = slowest.max(started.elapsed().as_secs_f64() * 1e3);
            for r in results {
                if let Err(e) = r
                    && !matches!(e, txtfp::Error::InvalidInput(_))
                {
                    return Err(e.into());
                }
            }
            stored += pending.len();
            step_docs += pending.len();
            pending.clear();
        }
        if step_docs >= step || (line.is_none() && step_docs > 0) {
            let s = t.elapsed().as_secs_f64();
            let disk: u64 = std::fs::read_dir(&dir)?
                .filter_map(|e| e.ok()?.metadata().ok())
                .map(|m| m.len())
                .sum();
            println!(
                "{stored}\t{:.0}\t{:.2}\t{slowest:.0}\t{:.0}",
                step_docs as f64 / s,
                step_bytes as f64 / 1e6 / s,
                disk as f64 / stored as f64
            );
            (step_docs, step_bytes, slowest) = (0, 0, 0.0);
            t = Instant::now();
        }
        if line.is_none() {
            break;
        }
    }
    drop(store);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
