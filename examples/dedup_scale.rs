//! How a deduplication run scales with large groups of repeated documents:
//! the case of one boilerplate page copied a million times.
//!
//! ```sh
//! cargo build --release --features parallel --example dedup_scale
//! /usr/bin/time -v target/release/examples/dedup_scale near 1000000
//! /usr/bin/time -v target/release/examples/dedup_scale identical 10000000
//! ```
//!
//! Arguments: the corpus (`near`: a 100-word text with one word replaced
//! per document, so any two documents have Jaccard about 0.8 over word
//! 5-shingles and share many bands; `identical`: the same short text every
//! time), the number of documents, and the method (`minhash`, the default
//! `MinHashDedup`; `estimated`, the same with estimated verification;
//! `simhash`, the default `SimHashDedup`). Prints the wall time of the run
//! alone (the corpus is built first) and its counts.

use std::time::Instant;

use txtfp::dedup::{DedupReport, MinHashDedup, SimHashDedup, Verification};

const USAGE: &str = "usage: dedup_scale near|identical N [minhash|estimated|simhash]";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let corpus = args.next().ok_or(USAGE)?;
    let n: usize = args.next().ok_or(USAGE)?.parse()?;
    let method = args.next().unwrap_or_else(|| "minhash".into());

    let base: Vec<String> = (0..100).map(|i| format!("w{i}")).collect();
    let owned: Vec<String> = match corpus.as_str() {
        "near" => (0..n)
            .map(|d| {
                let mut words = base.clone();
                let at = d % words.len();
                words[at] = format!("x{d}");
                words.join(" ")
            })
            .collect(),
        "identical" => Vec::new(),
        _ => return Err(USAGE.into()),
    };
    let boilerplate = "All rights reserved. Terms of use and privacy policy apply to this site.";
    let texts: Vec<&str> = if corpus == "near" {
        owned.iter().map(String::as_str).collect()
    } else {
        vec![boilerplate; n]
    };
    let bytes: usize = texts.iter().map(|t| t.len()).sum();

    let start = Instant::now();
    let report: DedupReport = match method.as_str() {
        "minhash" => MinHashDedup::new().run_texts(&texts)?,
        "estimated" => MinHashDedup::new()
            .with_verification(Verification::Estimated)
            .run_texts(&texts)?,
        "simhash" => SimHashDedup::new().run_texts(&texts)?,
        _ => return Err(USAGE.into()),
    };
    let secs = start.elapsed().as_secs_f64();
    let s = report.stats;
    let largest = report.clusters.iter().map(|c| c.members.len()).max();
    println!(
        "{corpus} {method}: {n} documents ({:.0} MB) in {secs:.2} s; kept {}, clusters {}, \
         largest {}, candidate pairs {} ({:.2} per document), verified {}",
        bytes as f64 / 1e6,
        s.kept,
        s.clusters,
        largest.unwrap_or(0),
        s.candidate_pairs,
        s.candidate_pairs as f64 / n.max(1) as f64,
        s.verified_pairs,
    );
    Ok(())
}
