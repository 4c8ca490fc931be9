//! Global fingerprint store throughput: ingest rate (docs/s, MB/s) and
//! query latency (p50 / p99) on a JSONL corpus, for the embedded backend
//! and (with `store-redis` and `TXTFP_REDIS_URL`) the Redis backend.
//!
//! ```sh
//! cargo run --release --features store,store-redis --example store_bench -- \
//!     /work/corpus-out/corpus-large.jsonl 5000 1000
//! ```
//! Arguments: corpus path, documents to ingest, queries to time (texts
//! of ingested documents, so every query has a match).

use std::io::BufRead;
use std::time::{Duration, Instant};

use txtfp::store::{BackendKind, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "/work/corpus-out/corpus-large.jsonl".into());
    let n_docs: usize = args.next().map_or(Ok(5000), |s| s.parse())?;
    let n_queries: usize = args.next().map_or(Ok(1000), |s| s.parse())?;

    let mut docs = Vec::with_capacity(n_docs);
    for line in std::io::BufReader::new(std::fs::File::open(&path)?).lines() {
        if docs.len() == n_docs {
            break;
        }
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        let (Some(id), Some(text)) = (v["id"].as_str(), v["text"].as_str()) else {
            continue;
        };
        let source = v["src"]
            .as_str()
            .or(v["source"].as_str())
            .unwrap_or("corpus")
            .to_owned();
        docs.push(IncomingDocument::new(id, text, source));
    }
    let bytes: usize = docs.iter().map(|d| d.text.len()).sum();
    println!(
        "{} documents, {:.1} MB from {path}",
        docs.len(),
        bytes as f64 / 1e6
    );

    let dir = std::env::temp_dir().join(format!("txtfp-store-bench-{}", std::process::id()));
    let mut cfg = GlobalStoreConfig::default();
    cfg.root_path = dir.clone();
    run("embedded", cfg.clone(), &docs, bytes, n_queries)?;
    std::fs::remove_dir_all(&dir)?;

    match std::env::var("TXTFP_REDIS_URL") {
        Ok(url) if cfg!(feature = "store-redis") => {
            cfg.backend = BackendKind::Redis;
            cfg.redis_url = Some(url);
            cfg.redis_prefix = format!("bench-{}", std::process::id());
            run("redis", cfg, &docs, bytes, n_queries)?;
            println!(
                "(keys left under {{bench-{}}}:*; FLUSHDB the throwaway server)",
                std::process::id()
            );
        }
        _ => println!("redis: skipped (needs --features store-redis and TXTFP_REDIS_URL)"),
    }
    Ok(())
}

fn run(
    name: &str,
    cfg: GlobalStoreConfig,
    docs: &[IncomingDocument],
    bytes: usize,
    n_queries: usize,
) -> txtfp::Result<()> {
    // One document per call (one transaction each), then the same corpus
    // again in batches of 256 into a fresh store.
    let mut batch_cfg = cfg.clone();
    batch_cfg.root_path = cfg.root_path.join("batch");
    batch_cfg.redis_prefix.push_str("-batch");
    let store = GlobalFingerprintStore::open(cfg)?;
    let t = Instant::now();
    let mut kept = 0usize;
    let mut each: Vec<Duration> = Vec::with_capacity(docs.len());
    for d in docs {
        let t = Instant::now();
        match store.ingest(d) {
            Ok(r) => kept += usize::from(r.action.is_kept()),
            Err(txtfp::Error::InvalidInput(_)) => {}
            Err(e) => return Err(e),
        }
        each.push(t.elapsed());
    }
    report(
        name,
        "ingest",
        t.elapsed().as_secs_f64(),
        docs.len(),
        bytes,
        kept,
    );
    each.sort();
    if !each.is_empty() {
        let p = |q: f64| each[((each.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
        println!(
            "{name:>8} ingest latency: p50 {:.3} ms, p99 {:.3} ms",
            p(0.5),
            p(0.99)
        );
    }
    let batched = GlobalFingerprintStore::open(batch_cfg)?;
    let t = Instant::now();
    let mut batch_kept = 0usize;
    for part in docs.chunks(256) {
        for r in batched.ingest_batch(part)?.into_iter().flatten() {
            batch_kept += usize::from(r.action.is_kept());
        }
    }
    report(
        name,
        "batch256",
        t.elapsed().as_secs_f64(),
        docs.len(),
        bytes,
        batch_kept,
    );
    let mut lat: Vec<Duration> = Vec::with_capacity(n_queries);
    for d in docs.iter().cycle().take(n_queries.min(docs.len() * 4)) {
        let t = Instant::now();
        let _ = store.query(&d.text);
        lat.push(t.elapsed());
    }
    lat.sort();
    if !lat.is_empty() {
        let p = |q: f64| lat[((lat.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
        println!(
            "{name:>8} query:  p50 {:.3} ms, p99 {:.3} ms ({} queries)",
            p(0.5),
            p(0.99),
            lat.len()
        );
    }
    println!("{}", store.metrics()?);
    Ok(())
}

fn report(name: &str, what: &str, s: f64, n: usize, bytes: usize, kept: usize) {
    println!(
        "{name:>8} {what}: {:.0} docs/s, {:.2} MB/s ({n} docs in {s:.2} s, {kept} kept)",
        n as f64 / s,
        bytes as f64 / 1e6 / s,
    );
}
