//! Throughput of the CJK tokenizers on the Chinese, Japanese and Korean
//! documents of a corpus (canonicalized first, as the fingerprinters do).
//!
//! ```sh
//! cargo run --release --example cjk_bench --features cjk,japanese -- \
//!     ../shared/corpus/corpus-small.jsonl [rounds]
//! ```
//! Prints MB/s (of canonical UTF-8 input) and tokens per document set for
//! each tokenizer, best of `rounds` (default 5), and for 0.3.2's way of
//! calling jieba (one `cut` over the whole document) as a baseline.

use std::time::Instant;

use txtfp::{CjkSegmenter, CjkTokenizer, Tokenizer, WordTokenizer};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "../shared/corpus/corpus-small.jsonl".into());
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(5);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut sets: Vec<(&str, Vec<String>)> = vec![("zh", vec![]), ("ja", vec![]), ("ko", vec![])];
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        let lang = v["lang"].as_str().unwrap_or("");
        if let Some(set) = sets.iter_mut().find(|(l, _)| lang.starts_with(l)) {
            set.1
                .push(txtfp::canonicalize(v["text"].as_str().unwrap_or("")));
        }
    }
    let tokenizers: Vec<Box<dyn Tokenizer>> = vec![
        Box::new(WordTokenizer) as Box<dyn Tokenizer>,
        Box::new(CjkTokenizer::default()),
        Box::new(CjkTokenizer::default().with_hmm(true)),
        Box::new(CjkTokenizer::default().with_unicode_words(true)),
        Box::new(CjkTokenizer::new(CjkSegmenter::KoreanEojeol)),
    ]
    .into_iter()
    .chain(japanese())
    .collect();
    // txtfp 0.3.2's path, for comparison: one jieba `cut` over the whole text.
    let jieba = jieba_rs::Jieba::new();
    for (lang, docs) in &sets {
        let bytes: usize = docs.iter().map(String::len).sum();
        println!(
            "{lang}: {} documents, {:.2} MB",
            docs.len(),
            bytes as f64 / 1e6
        );
        if docs.is_empty() {
            continue;
        }
        let mut best = f64::MAX;
        for _ in 0..rounds {
            let start = Instant::now();
            let mut m = 0usize;
            for d in docs {
                for p in jieba.cut(d, false) {
                    if !p.trim().is_empty() {
                        m += p.len() & 1;
                    }
                }
            }
            std::hint::black_box(m);
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!(
            "  {:<28} {:>8.1} MB/s  (0.3.2's path: whole-text cut)",
            "jieba cut",
            bytes as f64 / 1e6 / best
        );
        for t in &tokenizers {
            // Warm-up builds the process-wide dictionaries.
            let mut n = 0usize;
            for d in docs {
                t.for_each_token(d, &mut |_| n += 1);
            }
            let mut best = f64::MAX;
            for _ in 0..rounds {
                let start = Instant::now();
                let mut m = 0usize;
                for d in docs {
                    t.for_each_token(d, &mut |tok| m += tok.len() & 1);
                }
                std::hint::black_box(m);
                best = best.min(start.elapsed().as_secs_f64());
            }
            println!(
                "  {:<28} {:>8.1} MB/s  {:>8} tokens",
                t.name(),
                bytes as f64 / 1e6 / best,
                n
            );
        }
    }
}

/// The Japanese tokenizer when its dictionary loads (feature `japanese`).
fn japanese() -> Option<Box<dyn Tokenizer>> {
    #[cfg(feature = "japanese")]
    {
        let ja = CjkTokenizer::new(CjkSegmenter::Japanese);
        let start = Instant::now();
        match ja.validate() {
            Ok(()) => {
                // Compiles IPADIC on the first run, loads the cache after.
                let ms = start.elapsed().as_secs_f64() * 1e3;
                println!("Japanese dictionary ready in {ms:.1} ms");
                return Some(Box::new(ja));
            }
            Err(e) => eprintln!("Japanese skipped: {e}"),
        }
    }
    None
}
