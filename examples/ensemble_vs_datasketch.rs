//! Containment search on a corpus: `LshEnsemble` build and query rates and
//! its recall and precision against exact containment, as one JSON object
//! on stdout. `scripts/bench/vs_datasketch_ensemble.py` runs it and times
//! datasketch's `MinHashLSHEnsemble` on the very same sets.
//!
//! ```sh
//! cargo run --release --features lsh --example ensemble_vs_datasketch -- \
//!     CORPUS.jsonl SETS.bin [QUERIES]
//! ```
//!
//! Every document becomes the set of its 5-word shingles (canonicalized,
//! `ShingleTokenizer { k: 5, inner: WordTokenizer }`, each shingle's
//! XXH3-64) and a 128-slot MinHash of the same shingles. Every 20th
//! document is held out of the index. Queries (300 by default) are
//! contiguous runs of a quarter to a half of a document's lines (sentences
//! when it has fewer than four lines): four in five from indexed documents,
//! one in five from held-out ones. The exact containment `|Q ∩ X| / |Q|`
//! of every query in every indexed set is the truth. `SETS.bin` receives
//! the sets (little endian: `u32` count, then per set a `u64` key, a `u32`
//! length and the sorted shingle hashes; then the queries the same way) so
//! the peer indexes identical sets.
//!
//! Times are this thread's CPU time (Linux schedstat), one core.

use std::io::{BufRead, BufReader, Write};
use std::time::Instant;

use serde_json::{Value, json};
use txtfp::lsh::ensemble::{LshEnsemble, LshEnsembleBuilder, Partitioning};
use txtfp::{
    Canonicalizer, Fingerprinter, MinHashFingerprinter, MinHashSig, ShingleTokenizer, Tokenizer,
    WordTokenizer,
};

const THRESHOLDS: [f64; 5] = [0.5, 0.6, 0.7, 0.8, 0.9];

fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| {
            // Wall time where the CPU clock is unavailable.
            static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
            START.get_or_init(Instant::now).elapsed().as_nanos() as u64
        })
}

fn seconds(work: impl FnOnce()) -> f64 {
    let t0 = cpu_ns();
    work();
    (cpu_ns() - t0) as f64 * 1e-9
}

struct Set {
    hashes: Vec<u64>,
    sig: MinHashSig<128>,
}

struct Maker {
    canon: Canonicalizer,
    tok: ShingleTokenizer<WordTokenizer>,
    fp: MinHashFingerprinter<ShingleTokenizer<WordTokenizer>, 128>,
}

impl Maker {
    fn set(&self, text: &str) -> Option<Set> {
        let sig = self.fp.fingerprint(text).ok()?;
        let canonical = self.canon.canonicalize(text);
        let mut hashes = Vec::new();
        self.tok.for_each_token(&canonical, &mut |s| {
            hashes.push(xxhash_rust::xxh3::xxh3_64(s.as_bytes()))
        });
        hashes.sort_unstable();
        hashes.dedup();
        (!hashes.is_empty()).then_some(Set { hashes, sig })
    }
}

/// A contiguous run of a quarter to a half of the document's lines (or
/// sentences), chosen by `pick`.
fn paragraph(text: &str, mut pick: impl FnMut(u64) -> u64) -> Option<String> {
    let mut units: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if units.len() < 4 {
        units = text.split_inclusive(". ").collect();
    }
    if units.len() < 4 {
        return None;
    }
    let n = units.len() as u64;
    let len = (n / 4 + pick(n / 4 + 1)).clamp(1, n);
    let start = pick(n - len + 1);
    Some(units[start as usize..(start + len) as usize].join("\n"))
}

fn view(v: &[(u64, Set)]) -> Vec<(u64, &[u64])> {
    v.iter().map(|(k, s)| (*k, s.hashes.as_slice())).collect()
}

fn write_sets(out: &mut impl Write, sets: &[(u64, &[u64])]) -> std::io::Result<()> {
    out.write_all(&(sets.len() as u32).to_le_bytes())?;
    for (key, hashes) in sets {
        out.write_all(&key.to_le_bytes())?;
        out.write_all(&(hashes.len() as u32).to_le_bytes())?;
        for h in *hashes {
            out.write_all(&h.to_le_bytes())?;
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(corpus), Some(sets_path)) = (args.first(), args.get(1)) else {
        return Err("usage: ensemble_vs_datasketch CORPUS.jsonl SETS.bin [QUERIES]".into());
    };
    let n_queries: usize = args.get(2).map_or(Ok(300), |s| s.parse())?;
    let maker = Maker {
        canon: Canonicalizer::default(),
        tok: ShingleTokenizer::new(5, WordTokenizer)?,
        fp: MinHashFingerprinter::new(
            Canonicalizer::default(),
            ShingleTokenizer::new(5, WordTokenizer)?,
        ),
    };
    let mut texts = Vec::new();
    for line in BufReader::new(std::fs::File::open(corpus)?).lines() {
        let v: Value = serde_json::from_str(&line?)?;
        texts.push(v["text"].as_str().unwrap_or_default().to_owned());
    }
    // Indexed documents keep their corpus position as key.
    let mut indexed: Vec<(u64, Set)> = Vec::new();
    let mut held_out: Vec<usize> = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        if i % 20 == 19 {
            held_out.push(i);
        } else if let Some(set) = maker.set(text) {
            indexed.push((i as u64, set));
        }
    }

    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut pick = |m: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        if m == 0 { 0 } else { rng % m }
    };
    let mut queries: Vec<(u64, Set)> = Vec::new();
    let mut attempts = 0;
    while queries.len() < n_queries && attempts < 100 * n_queries {
        attempts += 1;
        let negative = queries.len() % 5 == 4;
        let doc = if negative {
            held_out[pick(held_out.len() as u64) as usize]
        } else {
            indexed[pick(indexed.len() as u64) as usize].0 as usize
        };
        let Some(text) = paragraph(&texts[doc], &mut pick) else {
            continue;
        };
        if let Some(set) = maker.set(&text) {
            queries.push((doc as u64, set));
        }
    }

    // Exact containment through an inverted index of the indexed sets.
    let mut postings: std::collections::HashMap<u64, Vec<u32>> = Default::default();
    for (slot, (_, set)) in indexed.iter().enumerate() {
        for &h in &set.hashes {
            postings.entry(h).or_default().push(slot as u32);
        }
    }
    let truth: Vec<Vec<Vec<u64>>> = queries
        .iter()
        .map(|(_, q)| {
            let mut hits: std::collections::HashMap<u32, u64> = Default::default();
            for h in &q.hashes {
                for &slot in postings.get(h).map_or(&[][..], |v| v) {
                    *hits.entry(slot).or_default() += 1;
                }
            }
            THRESHOLDS
                .iter()
                .map(|&t| {
                    let mut ids: Vec<u64> = hits
                        .iter()
                        .filter(|&(_, &n)| n as f64 / q.hashes.len() as f64 >= t)
                        .map(|(&slot, _)| indexed[slot as usize].0)
                        .collect();
                    ids.sort_unstable();
                    ids
                })
                .collect()
        })
        .collect();

    let mut file = std::io::BufWriter::new(std::fs::File::create(sets_path)?);
    let (idx_view, q_view) = (view(&indexed), view(&queries));
    write_sets(&mut file, &idx_view)?;
    write_sets(&mut file, &q_view)?;
    file.flush()?;

    // Build: best of three, from the signatures and sizes.
    let mut index: Option<LshEnsemble<128>> = None;
    let mut build_s = f64::INFINITY;
    for _ in 0..3 {
        let mut built = None;
        let s = seconds(|| {
            let mut b = LshEnsembleBuilder::<128>::new().partitions(16).max_rows(8);
            for (key, set) in &indexed {
                b.insert(*key, &set.sig, set.hashes.len() as u64)
                    .expect("sizes are positive");
            }
            built = Some(b.build().expect("valid parameters"));
        });
        build_s = build_s.min(s);
        index = built;
    }
    let index = index.expect("built three times");
    // The same sets with misses weighed nine times a false candidate.
    let mut b = LshEnsembleBuilder::<128>::new().weights(0.1, 0.9);
    for (key, set) in &indexed {
        b.insert(*key, &set.sig, set.hashes.len() as u64)?;
    }
    let recall_first = b.build()?;
    // The same sets cut into equal-count partitions, for comparison.
    let mut b = LshEnsembleBuilder::<128>::new()
        .partitions(16)
        .max_rows(8)
        .partitioning(Partitioning::EquiDepth);
    for (key, set) in &indexed {
        b.insert(*key, &set.sig, set.hashes.len() as u64)?;
    }
    let equi_depth = b.build()?;

    let mut rows = Vec::new();
    for (k, &t) in THRESHOLDS.iter().enumerate() {
        let mut results: Vec<Vec<u64>> = Vec::new();
        let mut estimated: Vec<Vec<u64>> = Vec::new();
        // The first pass fills the banding cache; the timed pass is warm,
        // as datasketch's query tables are computed at construction.
        let cold_s = seconds(|| {
            for (_, q) in &queries {
                let got = index
                    .query(&q.sig, q.hashes.len() as u64, t)
                    .expect("valid");
                std::hint::black_box(got);
            }
        });
        let query_s = seconds(|| {
            for (_, q) in &queries {
                results.push(
                    index
                        .query(&q.sig, q.hashes.len() as u64, t)
                        .expect("valid"),
                );
            }
        });
        let est_s = seconds(|| {
            for (_, q) in &queries {
                let got = index
                    .query_estimated(&q.sig, q.hashes.len() as u64, t)
                    .expect("valid");
                estimated.push(got.into_iter().map(|e| e.0).collect());
            }
        });
        let score = |found: &[Vec<u64>]| {
            let (mut tp, mut n_found, mut n_true) = (0usize, 0usize, 0usize);
            for (qi, got) in found.iter().enumerate() {
                let want = &truth[qi][k];
                tp += got
                    .iter()
                    .filter(|id| want.binary_search(id).is_ok())
                    .count();
                n_found += got.len();
                n_true += want.len();
            }
            (
                tp as f64 / n_true.max(1) as f64,
                tp as f64 / n_found.max(1) as f64,
                n_true,
                n_found,
            )
        };
        let (recall, precision, n_true, n_found) = score(&results);
        let (est_recall, est_precision, _, _) = score(&estimated);
        let weighted: Vec<Vec<u64>> = queries
            .iter()
            .map(|(_, q)| {
                recall_first
                    .query(&q.sig, q.hashes.len() as u64, t)
                    .expect("valid")
            })
            .collect();
        let weighted_est: Vec<Vec<u64>> = queries
            .iter()
            .map(|(_, q)| {
                let got = recall_first.query_estimated(&q.sig, q.hashes.len() as u64, t);
                got.expect("valid").into_iter().map(|e| e.0).collect()
            })
            .collect();
        let equi: Vec<Vec<u64>> = queries
            .iter()
            .map(|(_, q)| {
                equi_depth
                    .query(&q.sig, q.hashes.len() as u64, t)
                    .expect("valid")
            })
            .collect();
        let (e_recall, e_precision, _, _) = score(&equi);
        let (w_recall, w_precision, _, _) = score(&weighted);
        let (we_recall, we_precision, _, _) = score(&weighted_est);
        rows.push(json!({
            "threshold": t,
            "query_s": query_s,
            "query_cold_s": cold_s,
            "query_estimated_s": est_s,
            "recall": recall,
            "precision": precision,
            "true_pairs": n_true,
            "candidates": n_found,
            "estimated_recall": est_recall,
            "estimated_precision": est_precision,
            "equi_depth": { "recall": e_recall, "precision": e_precision },
            "weighted_0.1_0.9": {
                "recall": w_recall,
                "precision": w_precision,
                "estimated_recall": we_recall,
                "estimated_precision": we_precision,
            },
        }));
    }
    let out = json!({
        "docs": indexed.len(),
        "queries": queries.len(),
        "negative_queries": queries.len() / 5,
        "mean_query_size": queries.iter().map(|q| q.1.hashes.len()).sum::<usize>() as f64
            / queries.len().max(1) as f64,
        "partitions": index.partition_bounds(),
        "equi_depth_partitions": equi_depth.partition_bounds(),
        "build_s": build_s,
        "thresholds": rows,
        "truth": truth,
    });
    println!("{out}");
    Ok(())
}
