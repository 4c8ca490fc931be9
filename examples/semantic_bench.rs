//! Embedding throughput of `LocalProvider` (feature `semantic`):
//! one text per call vs `embed_batch` (batch 32), and 1 vs 2 threads sharing
//! one provider. Texts are ~128 tokens (the model's limit), so every run does
//! full-length work.
//!
//! ```sh
//! eval "$(scripts/setup-onnx.sh)"
//! cargo run --release --features semantic --example semantic_bench [-- TEXTS ROUNDS [threads]]
//! ```
//!
//! Prints sentences/s per configuration (best of ROUNDS, default 3) and the
//! ratios batched / single and 2 threads / 1 thread, for full-length
//! (128-token) texts and for short (~16-token) ones. Run it on an otherwise
//! idle machine: with other processes on the cores the thread ratios mean
//! nothing. `threads` runs only the 1-vs-2-threads part;
//! `SEMANTIC_BENCH_NO_SPIN=1` turns ONNX Runtime's thread spinning off.

use std::path::PathBuf;
use std::time::Instant;

use txtfp::{LocalProvider, Pooling};

const WORDS: &[&str] = &[
    "the",
    "market",
    "river",
    "system",
    "quietly",
    "measured",
    "distance",
    "between",
    "old",
    "new",
    "ideas",
    "about",
    "language",
    "and",
    "memory",
    "often",
    "change",
    "when",
    "people",
    "travel",
    "north",
    "during",
    "winter",
    "because",
    "trains",
    "run",
    "late",
    "while",
    "engineers",
    "repair",
    "signals",
    "near",
    "bridges",
    "that",
    "cross",
    "wide",
    "valleys",
    "full",
    "of",
    "orchards",
];

/// Deterministic pseudo-sentences of `words` words (xorshift-picked).
fn texts(n: usize, words: usize) -> Vec<String> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            (0..words)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    WORDS[(x % WORDS.len() as u64) as usize]
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn setting(name: &str) -> Option<PathBuf> {
    if let Some(v) = std::env::var_os(name).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(v));
    }
    let env_sh = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/onnx/env.sh");
    std::fs::read_to_string(env_sh).ok()?.lines().find_map(|l| {
        l.strip_prefix("export ")?
            .strip_prefix(name)?
            .strip_prefix('=')
            .map(PathBuf::from)
    })
}

/// Best sentences/s over `rounds` runs of `f`, which embeds `n` texts.
fn best(rounds: usize, n: usize, mut f: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            n as f64 / t.elapsed().as_secs_f64()
        })
        .fold(0.0, f64::max)
}

fn provider(model: &std::path::Path, intra: Option<usize>, sessions: usize) -> LocalProvider {
    let mut b = LocalProvider::builder()
        .model_id("sentence-transformers/all-MiniLM-L6-v2")
        .onnx_path(model.join("model.onnx"))
        .tokenizer_path(model.join("tokenizer.json"))
        .pooling(Pooling::Mean)
        .max_sessions(sessions)
        .batch_size(32);
    if let Some(n) = intra {
        b = b.intra_threads(n);
    }
    if std::env::var_os("SEMANTIC_BENCH_NO_SPIN").is_some() {
        b = b.intra_op_spinning(false);
    }
    b.build().expect("provider")
}

fn main() -> Result<(), txtfp::Error> {
    let only_threads = std::env::args().any(|a| a == "threads");
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(128);
    let rounds = args.get(1).copied().unwrap_or(3);
    let (Some(ort), Some(model)) = (setting("TXTFP_ORT_DYLIB"), setting("TXTFP_MODEL_DIR")) else {
        eprintln!("set TXTFP_ORT_DYLIB and TXTFP_MODEL_DIR: eval \"$(scripts/setup-onnx.sh)\"");
        std::process::exit(2);
    };
    txtfp::semantic::local::init_onnx_runtime(&ort)?;
    // ~110 words -> truncated at 128 tokens: full-length sequences.
    let texts = texts(n, 110);
    let short = self::texts(4 * n, 12); // ~16 tokens with [CLS]/[SEP]
    println!(
        "best of {rounds}; cores: {:?}",
        std::thread::available_parallelism()
    );

    let sets: &[(&str, &Vec<String>)] = if only_threads {
        &[]
    } else {
        &[("128 tokens", &texts), ("~16 tokens", &short)]
    };
    for &(what, set) in sets {
        for intra in [None, Some(1)] {
            let p = provider(&model, intra, 1);
            p.embed_batch(&set[..8])?; // warm-up
            let single = best(rounds, set.len(), || {
                for t in set.iter() {
                    p.embed_document(t).unwrap();
                }
            });
            let batched = best(rounds, set.len(), || {
                p.embed_batch(set).unwrap();
            });
            let label = intra.map_or("ort default".to_string(), |k| k.to_string());
            println!(
                "{} texts of {what}, intra_threads={label:<12} single: {single:7.1} sent/s   embed_batch(32): {batched:7.1} sent/s   batched/single = {:.2}x",
                set.len(),
                batched / single
            );
        }
    }

    // Two threads sharing one provider (two sessions, one intra thread each).
    let p = provider(&model, Some(1), 2);
    let half = n / 2;
    std::thread::scope(|s| {
        for chunk in texts.chunks(half) {
            let p = &p;
            s.spawn(move || p.embed_batch(&chunk[..4]).unwrap()); // open both sessions
        }
    });
    println!("{n} texts of 128 tokens, one provider (intra_threads=1, max_sessions=2):");
    for (name, batched) in [("single", false), ("embed_batch", true)] {
        let run = |part: &[String]| {
            if batched {
                p.embed_batch(part).unwrap();
            } else {
                for t in part {
                    p.embed_document(t).unwrap();
                }
            }
        };
        let one = best(rounds, n, || run(&texts));
        let two = best(rounds, n, || {
            std::thread::scope(|s| {
                for chunk in texts.chunks(half) {
                    s.spawn(|| run(chunk));
                }
            })
        });
        println!(
            "{name:<11} 1 thread: {one:7.1} sent/s   2 threads: {two:7.1} sent/s   2/1 = {:.2}x",
            two / one
        );
    }
    Ok(())
}
