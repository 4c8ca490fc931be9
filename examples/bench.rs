//! End-to-end throughput, with the same arguments and the same JSON line as
//! the reference harness's `bench` command (`../shared/tools/txtfp-ref`), so
//! the two can run side by side on the same corpus:
//!
//! ```sh
//! cargo run --release --example bench -- --input corpus.jsonl --algo minhash --threads 1
//! ```
//!
//! `--algo`: minhash | minhash-murmur | minhash-fast | simhash | canonical | words |
//! lsh-insert | lsh-query, and tlsh / tlsh-bytes (raw bytes, as py-tlsh hashes them;
//! `--features tlsh`). `words` is the front end every word-based sketch shares:
//! canonicalization plus UAX #29 words, with no hashing.
//! Options: `--threads N` (rayon pool), `--min-seconds S` (default 2),
//! `--limit N`, `--threshold T` (LSH, default 0.8), `--docs ascii|non-ascii`
//! (only the documents that are, or are not, pure ASCII) or
//! `--docs sparse|latin|heavy` (non-ASCII bytes: under 1 %, 1 to 30 %, 30 % or
//! more).

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde_json::{Value, json};
use txtfp::{
    Canonicalizer, Fingerprinter, HashFamily, LshIndex, LshIndexBuilder, MinHashFingerprinter,
    MinHashSig, ShingleTokenizer, SimHashFingerprinter, Tokenizer, WordTokenizer,
};

type Shingle = ShingleTokenizer<WordTokenizer>;

fn args() -> Result<HashMap<String, String>, String> {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let mut kv = HashMap::new();
    let mut i = 0;
    while i < raw.len() {
        let name = raw[i]
            .strip_prefix("--")
            .ok_or_else(|| format!("unexpected `{}`", raw[i]))?;
        if let Some((k, v)) = name.split_once('=') {
            kv.insert(k.to_string(), v.to_string());
            i += 1;
        } else {
            let v = raw
                .get(i + 1)
                .ok_or_else(|| format!("--{name} needs a value"))?;
            kv.insert(name.to_string(), v.clone());
            i += 2;
        }
    }
    Ok(kv)
}

fn num<T: std::str::FromStr>(kv: &HashMap<String, String>, k: &str, d: T) -> Result<T, String> {
    kv.get(k).map_or(Ok(d), |v| {
        v.parse().map_err(|_| format!("bad value for --{k}: `{v}`"))
    })
}

fn load(path: &str) -> Result<Vec<String>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("open {path}: {e}"))?;
    let mut out = Vec::new();
    for (n, line) in BufReader::new(f).lines().enumerate() {
        let line = line.map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line).map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        match v.get("text") {
            Some(Value::String(s)) => out.push(s.clone()),
            _ => return Err(format!("{path}:{}: missing string field \"text\"", n + 1)),
        }
    }
    Ok(out)
}

fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// One untimed warm-up pass, then passes until `min` of timed work.
fn timed_loop(min: Duration, mut pass: impl FnMut() -> (u64, Duration)) -> (u64, f64, u64) {
    let (mut ck, _) = pass();
    let mut total = Duration::ZERO;
    let mut passes = 0u64;
    while passes == 0 || total < min {
        let (c, d) = pass();
        ck ^= c.rotate_left((passes as u32 + 1) % 64);
        total += d;
        passes += 1;
    }
    (passes, total.as_secs_f64(), ck)
}

fn main() {
    if let Err(e) = run() {
        eprintln!("bench: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let kv = args()?;
    let input = kv.get("input").ok_or("missing --input")?.clone();
    let algo = kv.get("algo").ok_or("missing --algo")?.clone();
    let threads: usize = num(&kv, "threads", 1)?;
    let min = Duration::from_secs_f64(num(&kv, "min-seconds", 2.0)?);
    let limit: usize = num(&kv, "limit", usize::MAX)?;
    let t: f32 = num(&kv, "threshold", 0.8)?;
    if threads == 0 {
        return Err("--threads must be >= 1".into());
    }
    let mut texts = load(&input)?;
    match kv.get("docs").map(String::as_str) {
        None | Some("all") => {}
        Some("ascii") => texts.retain(|t| t.is_ascii()),
        Some("non-ascii") => texts.retain(|t| !t.is_ascii()),
        Some(class @ ("sparse" | "latin" | "heavy")) => texts.retain(|t| {
            let high = t.bytes().filter(|b| !b.is_ascii()).count();
            let share = high as f64 / t.len().max(1) as f64;
            high > 0
                && match class {
                    "sparse" => share < 0.01,
                    "latin" => (0.01..0.3).contains(&share),
                    _ => share >= 0.3,
                }
        }),
        Some(other) => return Err(format!("bad value for --docs: `{other}`")),
    }
    texts.truncate(limit);
    let n = texts.len();
    let text_bytes: u64 = texts.iter().map(|s| s.len() as u64).sum();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| e.to_string())?;
    let canon = Canonicalizer::default();
    let shingle = ShingleTokenizer {
        k: 5,
        inner: WordTokenizer,
    };
    let mh: MinHashFingerprinter<Shingle, 128> = MinHashFingerprinter::new(canon.clone(), shingle);
    let mh_murmur = mh.clone().with_hasher(HashFamily::MurmurHash3_x64_128);
    let mh_fast: txtfp::classical::minhash::FastMinHashFingerprinter<Shingle, 128> =
        txtfp::classical::minhash::FastMinHashFingerprinter::new(canon.clone(), shingle);
    let sim = SimHashFingerprinter::new(canon.clone(), WordTokenizer);
    let errors = AtomicU64::new(0);
    let note_err = |_: txtfp::Error| {
        errors.fetch_add(1, Ordering::Relaxed);
        0u64
    };
    let run_docs = |f: &(dyn Fn(&str) -> u64 + Sync)| -> (u64, Duration) {
        let s = Instant::now();
        let ck = if threads == 1 {
            texts.iter().fold(0u64, |acc, d| acc ^ f(d))
        } else {
            pool.install(|| texts.par_iter().map(|d| f(d)).reduce(|| 0, |x, y| x ^ y))
        };
        (ck, s.elapsed())
    };
    let mut bytes = text_bytes;
    let mut extra = serde_json::Map::new();
    let cpu0 = cpu_seconds();
    let (passes, secs, ck) = match algo.as_str() {
        "minhash" => timed_loop(min, || {
            run_docs(&|d| {
                mh.fingerprint(d)
                    .map(|s| s.hashes[0])
                    .unwrap_or_else(note_err)
            })
        }),
        "minhash-murmur" => timed_loop(min, || {
            run_docs(&|d| {
                mh_murmur
                    .fingerprint(d)
                    .map(|s| s.hashes[0])
                    .unwrap_or_else(note_err)
            })
        }),
        "minhash-fast" => timed_loop(min, || {
            run_docs(&|d| {
                mh_fast
                    .fingerprint(d)
                    .map(|s| s.hashes[0])
                    .unwrap_or_else(note_err)
            })
        }),
        "simhash" => timed_loop(min, || {
            run_docs(&|d| {
                sim.fingerprint(d)
                    .map(|s| s.bits())
                    .unwrap_or_else(note_err)
            })
        }),
        #[cfg(feature = "tlsh")]
        "tlsh" => {
            let tlsh = txtfp::TlshFingerprinter::default();
            timed_loop(min, || {
                run_docs(&|d| {
                    tlsh.fingerprint(d)
                        .map(|t| {
                            t.as_str()
                                .bytes()
                                .fold(0u64, |a, b| a.rotate_left(5) ^ u64::from(b))
                        })
                        .unwrap_or_else(note_err)
                })
            })
        }
        // Raw bytes, no canonicalization: what py-tlsh's `tlsh.hash` does.
        #[cfg(feature = "tlsh")]
        "tlsh-bytes" => {
            let tlsh = txtfp::TlshFingerprinter::default();
            timed_loop(min, || {
                run_docs(&|d| {
                    tlsh.sketch_bytes(d.as_bytes())
                        .map(|t| {
                            t.as_str()
                                .bytes()
                                .fold(0u64, |a, b| a.rotate_left(5) ^ u64::from(b))
                        })
                        .unwrap_or_else(note_err)
                })
            })
        }
        "words" => timed_loop(min, || {
            run_docs(&|d| {
                let c = canon.canonicalize(d);
                let mut n = 0u64;
                WordTokenizer.for_each_token(&c, &mut |w| n = n.wrapping_add(w.len() as u64));
                n
            })
        }),
        "canonical" => timed_loop(min, || {
            run_docs(&|d| {
                let c = canon.canonicalize(d);
                c.len() as u64 ^ c.as_bytes().first().copied().unwrap_or(0) as u64
            })
        }),
        "lsh-insert" | "lsh-query" => {
            let builder = LshIndexBuilder::for_threshold(t, 128).map_err(|e| e.to_string())?;
            extra.insert("bands".into(), json!(builder.bands));
            extra.insert("rows".into(), json!(builder.rows));
            extra.insert("threshold".into(), json!((t as f64 * 1e6).round() / 1e6));
            let sigs: Vec<(u64, MinHashSig<128>)> = pool.install(|| {
                texts
                    .par_iter()
                    .enumerate()
                    .filter_map(|(i, d)| mh.fingerprint(d).ok().map(|s| (i as u64, s)))
                    .collect()
            });
            errors.store((n - sigs.len()) as u64, Ordering::Relaxed);
            bytes = (sigs.len() * std::mem::size_of::<MinHashSig<128>>()) as u64;
            extra.insert("sigs".into(), json!(sigs.len()));
            if algo == "lsh-insert" {
                if threads > 1 && !cfg!(feature = "parallel") {
                    return Err(
                        "--algo lsh-insert with --threads > 1 needs --features parallel".into(),
                    );
                }
                timed_loop(min, || {
                    let s = Instant::now();
                    let mut idx: LshIndex<128> = builder.build(); // for_threshold gave a valid builder
                    if threads == 1 {
                        for (id, sig) in &sigs {
                            idx.insert(*id, *sig);
                        }
                    } else {
                        #[cfg(feature = "parallel")]
                        pool.install(|| idx.extend_par(sigs.iter().copied()));
                    }
                    let d = s.elapsed();
                    (idx.len() as u64, d)
                })
            } else {
                let mut idx: LshIndex<128> = builder.try_build().map_err(|e| e.to_string())?;
                for (id, sig) in &sigs {
                    idx.insert(*id, *sig);
                }
                let q = |sig: &MinHashSig<128>| -> u64 {
                    let r = idx.query_with_threshold(sig, t);
                    (r.len() as u64) ^ r.first().copied().unwrap_or(0).rotate_left(17)
                };
                timed_loop(min, || {
                    let s = Instant::now();
                    let ck = if threads == 1 {
                        sigs.iter().fold(0u64, |a, (_, sig)| a.wrapping_add(q(sig)))
                    } else {
                        pool.install(|| {
                            sigs.par_iter()
                                .map(|(_, sig)| q(sig))
                                .reduce(|| 0, u64::wrapping_add)
                        })
                    };
                    (ck, s.elapsed())
                })
            }
        }
        o => return Err(format!("unknown --algo `{o}`")),
    };
    let units = if algo.starts_with("lsh-") {
        extra["sigs"].as_u64().unwrap_or(0)
    } else {
        n as u64
    };
    let total_docs = units as f64 * passes as f64;
    let errs = errors.load(Ordering::Relaxed);
    let mut o = json!({
        "algo": algo, "input": input, "docs": units, "bytes": bytes, "threads": threads,
        "passes": passes, "seconds": (secs * 1e4).round() / 1e4,
        "docs_per_s": (total_docs / secs * 10.0).round() / 10.0,
        "mb_per_s": ((bytes as f64 * passes as f64) / 1e6 / secs * 100.0).round() / 100.0,
        "errors_per_pass": if algo.starts_with("lsh-") { errs } else { errs / (passes + 1) },
        "checksum": format!("{ck:016x}"),
        "crate": format!("txtfp {} (this repository)", txtfp::VERSION),
    });
    if let (Some(a), Some(b)) = (cpu0, cpu_seconds()) {
        o["cpu_seconds"] = json!(((b - a) * 100.0).round() / 100.0);
    }
    for (k, v) in extra {
        o[k] = v;
    }
    println!("{o}");
    Ok(())
}
