//! Find near-duplicate documents in a JSONL file and print each pair with
//! its estimated Jaccard similarity.
//!
//! ```sh
//! cargo run --release --example near_duplicates                        # bundled sample
//! cargo run --release --example near_duplicates -- docs.jsonl 0.7      # your file, threshold
//! ```
//!
//! Input lines: `{"id": <any JSON>, "text": "..."}`. Pipeline: default
//! canonicalizer → word 5-shingles → MinHash (128 slots) → banded LSH with
//! bands/rows chosen for the threshold → candidates verified by the
//! signature Jaccard.

use std::io::{BufRead, Write};

use txtfp::{
    Canonicalizer, Fingerprinter, LshIndex, LshIndexBuilder, MinHashFingerprinter,
    ShingleTokenizer, WordTokenizer, jaccard,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    match run() {
        // `near_duplicates | head` closes the pipe early: not an error.
        Err(e)
            if e.downcast_ref::<std::io::Error>().map(|e| e.kind())
                == Some(std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(())
        }
        other => other,
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/examples/data/sample.jsonl").into()
    });
    let threshold: f32 = match args.next() {
        Some(t) => t
            .parse()
            .map_err(|_| format!("threshold must be a number, got `{t}`"))?,
        None => 0.5,
    };

    let mut ids = Vec::new();
    let mut texts = Vec::new();
    for (n, line) in std::io::BufReader::new(std::fs::File::open(&path)?)
        .lines()
        .enumerate()
    {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line)?;
        let text = v["text"]
            .as_str()
            .ok_or_else(|| format!("{path}:{}: no \"text\"", n + 1))?;
        ids.push(match v.get("id") {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => n.to_string(),
        });
        texts.push(text.to_string());
    }

    let fp = MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        },
    );
    let builder = LshIndexBuilder::for_threshold(threshold, 128)?;
    let mut index: LshIndex<128> = builder.try_build()?;
    let mut sigs = Vec::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        match fp.fingerprint(text) {
            Ok(sig) => {
                index.insert(i as u64, sig);
                sigs.push(Some(sig));
            }
            Err(e) => {
                eprintln!("skipping {}: {e}", ids[i]);
                sigs.push(None);
            }
        }
    }

    let mut pairs = Vec::new();
    for (i, sig) in sigs.iter().enumerate() {
        let Some(sig) = sig else { continue };
        for j in index.query_with_threshold(sig, threshold) {
            let j = j as usize;
            if j > i
                && let Some(other) = &sigs[j]
            {
                pairs.push((jaccard(sig, other), i, j));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} documents, LSH {} bands x {} rows, threshold {threshold}: {} near-duplicate pairs",
        texts.len(),
        builder.bands,
        builder.rows,
        pairs.len()
    )?;
    for (j, a, b) in pairs {
        writeln!(out, "{j:.3}  {}  {}", ids[a], ids[b])?;
    }
    Ok(())
}
