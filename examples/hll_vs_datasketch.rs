//! Distinct 5-word shingles of a corpus counted with HyperLogLog and
//! HyperLogLog++, for `scripts/bench/vs_datasketch_hll.py`, which times
//! datasketch on the same shingles and prints both side by side.
//!
//! ```sh
//! cargo run --release --features hll --example hll_vs_datasketch -- \
//!     CORPUS.jsonl [SHINGLES_OUT] [PRECISIONS, default 8,12,14] [MAX_DOCS, default all]
//! ```
//!
//! Shingles: the crate's pipeline (`Canonicalizer::default()`,
//! `ShingleTokenizer::new(5, WordTokenizer)`), as MinHash sketches them.
//! With `SHINGLES_OUT`, every document's shingles are written one per line,
//! documents separated by an empty line, so the peer counts the very same
//! strings. Prints one JSON object: the exact counts, and per precision and
//! variant the insert rate (single thread, from the prepared strings), the
//! count overall and its relative error, and per document the mean
//! absolute relative error. Timings are the best of three runs.

use std::collections::HashSet;
use std::io::Write;
use std::time::Instant;

use txtfp::classical::hll::{Hll, Variant};
use txtfp::{Canonicalizer, ShingleTokenizer, Tokenizer, WordTokenizer};

fn load_texts(path: &str) -> Vec<String> {
    let raw = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    raw.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            Some(v.get("text")?.as_str()?.to_string())
        })
        .collect()
}

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(v);
    }
    (best, out.expect("at least one run"))
}

fn measure<V: Variant>(p: u8, docs: &[Vec<&str>], exact_all: usize, exact_doc: &[usize]) -> String {
    let items: usize = docs.iter().map(Vec::len).sum();
    let bytes: usize = docs.iter().flatten().map(|s| s.len()).sum();
    let (t_all, sketch) = best_of(3, || {
        let mut h = Hll::<V>::new(p).expect("valid precision");
        for s in docs.iter().flatten() {
            h.insert_str(s);
        }
        h
    });
    let est_all = sketch.count();
    let (t_doc, counts) = best_of(3, || {
        docs.iter()
            .map(|d| {
                let mut h = Hll::<V>::new(p).expect("valid precision");
                for s in d {
                    h.insert_str(s);
                }
                h.count()
            })
            .collect::<Vec<f64>>()
    });
    let (mut err_sum, mut n_docs) = (0.0, 0usize);
    for (&est, &exact) in counts.iter().zip(exact_doc) {
        if exact > 0 {
            err_sum += (est - exact as f64).abs() / exact as f64;
            n_docs += 1;
        }
    }
    format!(
        concat!(
            "{{\"variant\":\"{}\",\"p\":{},\"items\":{},\"bytes\":{},",
            "\"overall_secs\":{:.6},\"overall_items_per_sec\":{:.1},\"overall_mb_per_sec\":{:.2},",
            "\"overall_estimate\":{:.1},\"overall_rel_error\":{:.6},",
            "\"per_doc_secs\":{:.6},\"per_doc_items_per_sec\":{:.1},\"per_doc_mean_abs_rel_error\":{:.6},",
            "\"relative_error_bound\":{:.6}}}"
        ),
        V::NAME,
        p,
        items,
        bytes,
        t_all,
        items as f64 / t_all,
        bytes as f64 / t_all / 1e6,
        est_all,
        (est_all - exact_all as f64) / exact_all as f64,
        t_doc,
        items as f64 / t_doc,
        err_sum / n_docs.max(1) as f64,
        sketch.relative_error(),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(corpus) = args.first() else {
        eprintln!("usage: hll_vs_datasketch CORPUS.jsonl [SHINGLES_OUT] [PRECISIONS]");
        std::process::exit(2);
    };
    let precisions: Vec<u8> = args
        .get(2)
        .map(|s| {
            s.split(',')
                .map(|p| p.trim().parse().expect("precision"))
                .collect()
        })
        .unwrap_or_else(|| vec![8, 12, 14]);
    let mut texts = load_texts(corpus);
    if let Some(max) = args.get(3).and_then(|s| s.parse::<usize>().ok())
        && max > 0
    {
        texts.truncate(max);
    }
    let text_bytes: usize = texts.iter().map(String::len).sum();
    let canon = Canonicalizer::default();
    let tok = ShingleTokenizer::new(5, WordTokenizer).expect("k = 5 is valid");

    let t = Instant::now();
    let owned: Vec<Vec<String>> = texts
        .iter()
        .map(|text| {
            let canonical = canon.canonicalize(text);
            let mut out = Vec::new();
            tok.for_each_token(&canonical, &mut |s| out.push(s.to_string()));
            out
        })
        .collect();
    let t_shingle = t.elapsed().as_secs_f64();
    // The shingles side by side in one buffer, as a tokenizer leaves them
    // in its input, rather than one heap allocation each: the timed loops
    // then measure the sketch, not the allocator's scattering.
    let arena: String = owned.iter().flatten().map(String::as_str).collect();
    let mut at = 0;
    let docs: Vec<Vec<&str>> = owned
        .iter()
        .map(|d| {
            d.iter()
                .map(|s| {
                    at += s.len();
                    &arena[at - s.len()..at]
                })
                .collect()
        })
        .collect();
    drop(owned);

    // End to end: canonicalize, shingle and count each document (the
    // per-source use), HyperLogLog++ at p = 12.
    let (t_e2e, _) = best_of(3, || {
        texts
            .iter()
            .map(|text| {
                let mut h = txtfp::classical::hll::HyperLogLogPlusPlus::new(12).expect("p");
                h.insert_text(&canon, &tok, text);
                h.count()
            })
            .sum::<f64>()
    });

    if let Some(out) = args.get(1) {
        let mut w = std::io::BufWriter::new(std::fs::File::create(out).expect("create shingles"));
        for d in &docs {
            for s in d {
                writeln!(w, "{s}").expect("write");
            }
            writeln!(w).expect("write");
        }
        w.flush().expect("flush");
    }

    let exact_all = docs.iter().flatten().collect::<HashSet<_>>().len();
    let exact_doc: Vec<usize> = docs
        .iter()
        .map(|d| d.iter().collect::<HashSet<_>>().len())
        .collect();

    let mut results = Vec::new();
    for &p in &precisions {
        results.push(measure::<txtfp::classical::hll::Classic>(
            p, &docs, exact_all, &exact_doc,
        ));
        results.push(measure::<txtfp::classical::hll::PlusPlus>(
            p, &docs, exact_all, &exact_doc,
        ));
    }
    println!(
        "{{\"docs\":{},\"text_bytes\":{},\"shingles\":{},\"exact_distinct\":{},\"shingle_secs\":{:.6},\"end_to_end_hllpp_p12_secs\":{:.6},\"end_to_end_mb_per_sec\":{:.2},\"results\":[{}]}}",
        docs.len(),
        text_bytes,
        docs.iter().map(Vec::len).sum::<usize>(),
        exact_all,
        t_shingle,
        t_e2e,
        text_bytes as f64 / t_e2e / 1e6,
        results.join(",")
    );
}
