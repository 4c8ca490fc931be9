//! Index benchmark: insert, batch insert, query throughput and bytes per
//! document of `LshIndex` on precomputed signatures, one JSON line per
//! figure.
//!
//! ```sh
//! # signatures of a corpus (MinHash k = 5 words, H = 128), 16 bands × 8 rows:
//! cargo run --release --features parallel,mmap --example index_bench -- \
//!     --input corpus-large.jsonl
//! # one million synthetic signatures with 10 % planted near-duplicates:
//! cargo run --release --features parallel,mmap --example index_bench -- --synthetic 1000000
//! ```
//!
//! Options: `--bands B --rows R` (B × R = 128; default 16 × 8),
//! `--threshold T` (verified queries, default 0.8), `--threads N` (adds
//! parallel batch insert and query rows), `--min-seconds S` (default 2),
//! `--only OP,OP` (run only the named rows: insert, extend,
//! candidate_index_extend, candidate_index_query (with its batch form),
//! query_with_threshold, query_batch_with_threshold, query_candidates,
//! parallel, file).
//! Single-thread rows count the calling thread's CPU time (Linux
//! `/proc/thread-self/schedstat`; wall time elsewhere), so they hold on a
//! shared machine; the multi-thread rows are wall time.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde_json::{Value, json};
use txtfp::{
    Canonicalizer, Fingerprinter, LshCandidateIndex, LshIndex, MinHashFingerprinter, MinHashSig,
    ShingleTokenizer, WordTokenizer,
};

type Sigs = Vec<(u64, MinHashSig<128>)>;

fn args() -> Result<HashMap<String, String>, String> {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let mut kv = HashMap::new();
    let mut it = raw.iter();
    while let Some(a) = it.next() {
        let k = a
            .strip_prefix("--")
            .ok_or_else(|| format!("unexpected `{a}`"))?;
        let v = it.next().ok_or_else(|| format!("--{k} needs a value"))?;
        kv.insert(k.to_string(), v.clone());
    }
    Ok(kv)
}

fn num<T: std::str::FromStr>(kv: &HashMap<String, String>, k: &str, d: T) -> Result<T, String> {
    kv.get(k).map_or(Ok(d), |v| {
        v.parse().map_err(|_| format!("bad --{k}: `{v}`"))
    })
}

fn corpus_sigs(path: &str) -> Result<Sigs, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("open {path}: {e}"))?;
    let mut texts = Vec::new();
    for line in BufReader::new(f).lines() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        if let Some(Value::String(s)) = v.get("text") {
            texts.push(s.clone());
        }
    }
    let fp = MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        },
    );
    Ok(texts
        .par_iter()
        .enumerate()
        .filter_map(|(i, t)| fp.fingerprint(t).ok().map(|s| (i as u64, s)))
        .collect())
}

/// `n` random signatures; every tenth is a copy of an earlier one with 5–20 %
/// of its slots redrawn.
fn synthetic_sigs(n: usize) -> Sigs {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut out: Sigs = Vec::with_capacity(n);
    for id in 0..n as u64 {
        let mut s = MinHashSig::<128>::empty();
        if id % 10 == 9 {
            let src = (next() % id) as usize;
            s = out[src].1;
            let redraw = 6 + next() % 20;
            for _ in 0..redraw {
                s.hashes[(next() % 128) as usize] = next();
            }
        } else {
            s.hashes = std::array::from_fn(|_| next());
        }
        out.push((id * 7 + 3, s));
    }
    out
}

/// Nanoseconds this thread has run on a CPU (Linux schedstat), so figures
/// hold on a loaded machine; wall time elsewhere.
fn cpu_now() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// This thread's CPU time spent in `work` (wall time where the CPU clock is
/// unavailable, and always when `cpu` is false). Passes set up their fresh
/// index before calling it, so neither the allocation of the new index nor
/// the drop of the previous one is counted.
fn timed(cpu: bool, work: impl FnOnce()) -> Duration {
    let before = cpu.then(cpu_now).flatten();
    let s = Instant::now();
    work();
    let wall = s.elapsed();
    match (before, cpu.then(cpu_now).flatten()) {
        (Some(a), Some(b)) => Duration::from_nanos(b - a),
        _ => wall,
    }
}

/// Runs `pass` (which returns its [`timed`] span) until `min` has been
/// measured, after one warm-up; documents per second.
fn rate(min: Duration, docs: usize, mut pass: impl FnMut() -> Duration) -> f64 {
    pass();
    let (mut total, mut passes) = (Duration::ZERO, 0u32);
    while passes == 0 || total < min {
        total += pass();
        passes += 1;
    }
    docs as f64 * passes as f64 / total.as_secs_f64()
}

fn main() {
    if let Err(e) = run() {
        eprintln!("index_bench: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let kv = args()?;
    let bands: usize = num(&kv, "bands", 16)?;
    let rows: usize = num(&kv, "rows", 8)?;
    let t: f32 = num(&kv, "threshold", 0.8)?;
    let threads: usize = num(&kv, "threads", 1)?;
    let min = Duration::from_secs_f64(num(&kv, "min-seconds", 2.0)?);
    let (source, sigs) = match (kv.get("input"), kv.get("synthetic")) {
        (Some(p), None) => (p.clone(), corpus_sigs(p)?),
        (None, Some(n)) => {
            let n: usize = n.parse().map_err(|_| format!("bad --synthetic `{n}`"))?;
            (format!("synthetic-{n}"), synthetic_sigs(n))
        }
        _ => return Err("give --input FILE or --synthetic N".into()),
    };
    let n = sigs.len();
    let only: Option<Vec<String>> = kv
        .get("only")
        .map(|v| v.split(',').map(str::to_string).collect());
    let want = |op: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == op));
    let new = || LshIndex::<128>::with_bands_rows(bands, rows).expect("checked");
    new_index_check(bands, rows)?;
    let line = |op: &str, value: f64, unit: &str| {
        println!(
            "{}",
            json!({"op": op, "value": (value * 10.0).round() / 10.0, "unit": unit,
                   "docs": n, "bands": bands, "rows": rows, "source": source})
        );
    };

    let mut idx = new();
    if want("insert") {
        let r = rate(min, n, || {
            idx = new();
            timed(true, || {
                for (id, sig) in &sigs {
                    idx.insert(*id, *sig);
                }
            })
        });
        line("insert", r, "docs/s");
    }
    if want("extend") {
        let r = rate(min, n, || {
            idx = new();
            timed(true, || idx.extend(sigs.iter().copied()))
        });
        line("extend", r, "docs/s");
        idx.compact();
        line(
            "memory_with_signatures",
            (idx.memory_usage() / n.max(1)) as f64,
            "bytes/doc",
        );
    } else {
        idx = new();
        idx.extend(sigs.iter().copied());
    }
    let lean_new = || LshCandidateIndex::<128>::with_bands_rows(bands, rows).expect("checked");
    if want("candidate_index_extend") || want("candidate_index_query") {
        let mut lean = lean_new();
        let r = rate(min, n, || {
            lean = lean_new();
            timed(true, || {
                lean.try_extend(sigs.iter().map(|(id, sig)| (*id, sig)))
                    .expect("fresh ids")
            })
        });
        if want("candidate_index_extend") {
            line("candidate_index_extend", r, "docs/s");
            lean.compact();
            line(
                "memory_without_signatures",
                (lean.memory_usage() / n.max(1)) as f64,
                "bytes/doc",
            );
        }
        if want("candidate_index_query") {
            let r = rate(min, n, || {
                timed(true, || {
                    let c: usize = sigs.iter().map(|(_, q)| lean.query(q).len()).sum();
                    std::hint::black_box(c);
                })
            });
            line("candidate_index_query", r, "docs/s");
            let queries: Vec<MinHashSig<128>> = sigs.iter().map(|(_, q)| *q).collect();
            let r = rate(min, n, || {
                timed(true, || {
                    std::hint::black_box(lean.query_batch(&queries));
                })
            });
            line("candidate_index_query_batch", r, "docs/s");
        }
    }

    if want("query_with_threshold") {
        let mut found = 0usize;
        let r = rate(min, n, || {
            timed(true, || {
                found = sigs
                    .iter()
                    .map(|(_, q)| idx.query_with_threshold(q, t).len())
                    .sum();
            })
        });
        line("query_with_threshold", r, "docs/s");
        line(
            "verified_matches_per_query",
            found as f64 / n.max(1) as f64,
            "ids",
        );
    }
    if want("query_batch_with_threshold") {
        let queries: Vec<MinHashSig<128>> = sigs.iter().map(|(_, q)| *q).collect();
        let r = rate(min, n, || {
            timed(true, || {
                std::hint::black_box(idx.query_batch_with_threshold(&queries, t));
            })
        });
        line("query_batch_with_threshold", r, "docs/s");
    }
    if want("query_candidates") {
        let r = rate(min, n, || {
            timed(true, || {
                let c: usize = sigs.iter().map(|(_, q)| idx.query(q).len()).sum();
                std::hint::black_box(c);
            })
        });
        line("query_candidates", r, "docs/s");
    }

    if threads > 1 && want("parallel") {
        parallel_rows(&sigs, &idx, threads, min, t, &line, &new)?;
    }
    if want("file") {
        file_rows(&sigs, &idx, min, t, &line)?;
    }
    Ok(())
}

fn new_index_check(bands: usize, rows: usize) -> Result<(), String> {
    LshIndex::<128>::with_bands_rows(bands, rows)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Multi-thread rows (wall time): batch insert and verified queries.
fn parallel_rows(
    sigs: &Sigs,
    idx: &LshIndex<128>,
    threads: usize,
    min: Duration,
    t: f32,
    line: &dyn Fn(&str, f64, &str),
    new: &dyn Fn() -> LshIndex<128>,
) -> Result<(), String> {
    let n = sigs.len();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| e.to_string())?;
    let mut fresh = new();
    let r = rate(min, n, || {
        fresh = new();
        timed(false, || {
            pool.install(|| fresh.extend_par(sigs.iter().copied()))
        })
    });
    line(&format!("extend_par_{threads}_threads"), r, "docs/s");
    let r = rate(min, n, || {
        timed(false, || {
            let c: usize = pool.install(|| {
                sigs.par_iter()
                    .map(|(_, q)| idx.query_with_threshold(q, t).len())
                    .sum()
            });
            std::hint::black_box(c);
        })
    });
    line(
        &format!("query_with_threshold_{threads}_threads"),
        r,
        "docs/s",
    );
    // The same batch call on one thread and on the pool, wall time both, so
    // the ratio is the scaling.
    let queries: Vec<MinHashSig<128>> = sigs.iter().map(|(_, q)| *q).collect();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| e.to_string())?;
    for (label, p) in [("1_thread", &one), (&*format!("{threads}_threads"), &pool)] {
        let r = rate(min, n, || {
            timed(false, || {
                std::hint::black_box(p.install(|| idx.query_batch_with_threshold_par(&queries, t)));
            })
        });
        line(
            &format!("query_batch_with_threshold_par_{label}"),
            r,
            "docs/s",
        );
    }
    let mut fresh = new();
    let r = rate(min, n, || {
        fresh = new();
        timed(false, || {
            one.install(|| fresh.extend_par(sigs.iter().copied()))
        })
    });
    line("extend_par_1_thread", r, "docs/s");
    Ok(())
}

/// Save, load, memory-mapped open and mapped queries.
fn file_rows(
    sigs: &Sigs,
    idx: &LshIndex<128>,
    min: Duration,
    t: f32,
    line: &dyn Fn(&str, f64, &str),
) -> Result<(), String> {
    let n = sigs.len();
    let path = std::env::temp_dir().join(format!("txtfp-index-bench-{}.idx", std::process::id()));
    let s = Instant::now();
    idx.save(&path).map_err(|e| e.to_string())?;
    line("save", s.elapsed().as_secs_f64() * 1e3, "ms");
    let size = std::fs::metadata(&path).map_err(|e| e.to_string())?.len();
    line("file", size as f64 / n.max(1) as f64, "bytes/doc");
    let s = Instant::now();
    let loaded = LshIndex::<128>::load(&path).map_err(|e| e.to_string())?;
    line("load", s.elapsed().as_secs_f64() * 1e3, "ms");
    drop(loaded);
    let s = Instant::now();
    let mapped = txtfp::lsh::MappedLshIndex::<128>::open(&path).map_err(|e| e.to_string())?;
    line("open_mmap", s.elapsed().as_secs_f64() * 1e3, "ms");
    let r = rate(min, n, || {
        timed(true, || {
            let c: usize = sigs
                .iter()
                .map(|(_, q)| mapped.query_with_threshold(q, t).len())
                .sum();
            std::hint::black_box(c);
        })
    });
    line("mmap_query_with_threshold", r, "docs/s");
    drop(mapped);
    let _ = std::fs::remove_file(&path);
    Ok(())
}
