//! How the cost of MinHash (text → signature) grows with the number of
//! slots H and with the document size, single thread.
//!
//! ```sh
//! cargo run --release --example scaling -- corpus-large.jsonl > scaling.csv
//! python3 scripts/plot_scaling.py scaling.csv docs/scaling.svg
//! ```
//!
//! Documents of a given size are cut from the corpus text laid end to end
//! (at a character boundary), so every size sees the same mix of languages.
//! Prints CSV: `series,x,mb_per_s,ns_per_doc`.

use std::io::BufRead;
use std::time::{Duration, Instant};

use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, ShingleTokenizer, WordTokenizer};

/// Text bytes timed per measurement (at least).
const BUDGET: usize = 24 << 20;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/work/corpus-out/corpus-large.jsonl".into());
    let mut text = String::new();
    for line in std::io::BufReader::new(std::fs::File::open(&path)?).lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        if let Some(t) = v["text"].as_str() {
            text.push_str(t);
            text.push('\n');
        }
        if text.len() > 64 << 20 {
            break;
        }
    }
    println!("series,x,mb_per_s,ns_per_doc");
    let docs_4k = cut(&text, 4096);
    macro_rules! slots {
        ($($h:literal),*) => {$(
            let (mbs, ns) = measure::<$h>(&docs_4k);
            println!("slots,{},{mbs:.1},{ns:.0}", $h);
        )*};
    }
    slots!(16, 32, 64, 128, 256, 512);
    for size in [
        64usize,
        256,
        1 << 10,
        4 << 10,
        16 << 10,
        64 << 10,
        256 << 10,
        1 << 20,
    ] {
        let (mbs, ns) = measure::<128>(&cut(&text, size));
        println!("doc_bytes,{size},{mbs:.1},{ns:.0}");
    }
    Ok(())
}

/// Consecutive pieces of `text` of about `size` bytes, `BUDGET` bytes in all.
fn cut(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut at, mut total) = (0, 0);
    while total < BUDGET {
        if at + size > text.len() {
            at = 0;
        }
        let mut end = at + size;
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[at..end]);
        total += end - at;
        at = end;
    }
    out
}

/// Best of three passes: (MB/s, ns per document).
fn measure<const H: usize>(docs: &[&str]) -> (f64, f64) {
    let fp = MinHashFingerprinter::<_, H>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        },
    );
    let bytes: usize = docs.iter().map(|d| d.len()).sum();
    let mut best = Duration::MAX;
    let mut sink = 0u64;
    for _ in 0..3 {
        let start = Instant::now();
        for d in docs {
            if let Ok(sig) = fp.fingerprint(d) {
                sink ^= sig.hashes[0];
            }
        }
        best = best.min(start.elapsed());
    }
    std::hint::black_box(sink);
    let secs = best.as_secs_f64();
    (bytes as f64 / 1e6 / secs, secs * 1e9 / docs.len() as f64)
}
