//! Hostile input against the global store, as a benchmark: documents per
//! second for each step of a crowded workload and the process's peak
//! memory, on the embedded backend with every kind on.
//!
//! ```sh
//! cargo run --release --features store --example store_hostile -- chunk 1000000
//! cargo run --release --features store --example store_hostile -- simhash 100000
//! cargo run --release --features store --example store_hostile -- big 64
//! ```
//! Workloads: `chunk N`, N documents whose first chunk is the same 64 words
//! (each links to the first holder; chunks of 64 words); `simhash N`, N
//! documents of the same 256 words and 48 of their own, whose SimHashes
//! crowd the same buckets (and whose MinHash bands crowd too);
//! `big MIB`, one document of MIB mebibytes, its copy, and one byte over the
//! cap (refused). Optional third argument: `max_candidates` (default: the
//! config's).

use std::time::Instant;

use txtfp::store::{GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};

/// `n` words of a deterministic stream.
fn words(seed: u64, n: usize) -> String {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut out = String::with_capacity(n * 8);
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&format!("w{:x}", x % 100_000));
    }
    out
}

/// Document `i` of a workload.
fn document(kind: &str, i: usize, shared: &str) -> IncomingDocument {
    let text = match kind {
        "chunk" => format!("{shared} {}", words(1000 + i as u64, 192)),
        // The same 256 words (boilerplate) and 48 of its own: the shared
        // words hold most SimHash bits, so the documents crowd the same
        // buckets while their own words move them past the radius.
        _ => format!("{shared} {}", words(1000 + i as u64, 48)),
    };
    IncomingDocument::new(format!("d{i:07}"), text, "web")
}

/// A `/proc/self/status` field in MiB: `VmHWM` (peak resident, mapped
/// segment pages included), `RssAnon` (the process's own memory now).
fn status_mib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

fn peak_rss_mib() -> u64 {
    status_mib("VmHWM:")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: store_hostile chunk|simhash|big N [MAX_CANDIDATES]";
    let kind = args.next().ok_or(usage)?;
    let n: usize = args.next().ok_or(usage)?.parse()?;
    let dir = std::env::temp_dir().join(format!("txtfp-store-hostile-{}", std::process::id()));
    let mut cfg = GlobalStoreConfig::default();
    cfg.root_path = dir.clone();
    if let Some(m) = args.next() {
        cfg.max_candidates = m.parse()?;
    }
    if kind == "big" {
        cfg.max_doc_bytes = n << 20;
    }
    if kind == "chunk" {
        // One chunk is the shared 64 words, the other three each document's
        // own.
        cfg.chunk_size = 64;
    }
    let store = GlobalFingerprintStore::open(cfg)?;
    if kind == "big" {
        let cap = n << 20;
        let mut text = words(7, cap / 7);
        text.truncate(cap);
        while text.len() < cap {
            text.push(' ');
        }
        for (id, t) in [("big", &text), ("big-copy", &text)] {
            let t0 = Instant::now();
            let d = store.ingest(&IncomingDocument::new(id, t.clone(), "web"))?;
            println!(
                "{id}\t{:?}\t{:.2} s\tpeak {} MiB",
                d.action,
                t0.elapsed().as_secs_f64(),
                peak_rss_mib()
            );
        }
        text.push('x');
        let t0 = Instant::now();
        let e = store.ingest(&IncomingDocument::new("over", text, "web"));
        println!(
            "over\t{}\t{:.3} s",
            e.err().map_or("accepted".into(), |e| e.to_string()),
            t0.elapsed().as_secs_f64()
        );
    } else {
        let shared = words(1, if kind == "chunk" { 64 } else { 256 });
        let step = (n / 10).div_ceil(1024).max(1) * 1024;
        println!("stored\tdocs/s\tp99 batch ms\tpeak MiB\tanon MiB\tactions");
        let (mut done, mut t, mut lat) = (0usize, Instant::now(), Vec::new());
        let mut actions = std::collections::BTreeMap::<String, usize>::new();
        while done < n {
            let batch: Vec<_> = (done..(done + 1024).min(n))
                .map(|i| document(&kind, i, &shared))
                .collect();
            let b0 = Instant::now();
            for r in store.ingest_batch(&batch)? {
                *actions.entry(format!("{:?}", r?.action)).or_default() += 1;
            }
            lat.push(b0.elapsed().as_secs_f64() * 1e3);
            done += batch.len();
            if done % step == 0 || done == n {
                lat.sort_by(f64::total_cmp);
                let p99 = lat[(lat.len() * 99 / 100).min(lat.len() - 1)];
                println!(
                    "{done}\t{:.0}\t{p99:.0}\t{}\t{}\t{actions:?}",
                    lat.len() as f64 * 1024.0 / t.elapsed().as_secs_f64(),
                    peak_rss_mib(),
                    status_mib("RssAnon:")
                );
                (t, lat) = (Instant::now(), Vec::new());
            }
        }
    }
    drop(store);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
