//! Per-stage benchmarks on realistic text.
//!
//! ```sh
//! cargo bench --bench stages                    # every group, ~3 s per benchmark
//! cargo bench --bench stages -- canonicalize    # one group (criterion filter)
//! TXTFP_BENCH_CORPUS=path.jsonl cargo bench --bench stages
//! ```
//!
//! Input: `../shared/corpus/corpus-small.jsonl` (one JSON object per line
//! with a `"text"` field) next to the crate, or the file named by
//! `TXTFP_BENCH_CORPUS`. Without either, a generated mix of English-like and
//! multilingual text is used and a note says so on stderr; numbers from the
//! two inputs are not comparable.
//!
//! Text stages report bytes of input per second (`Throughput::Bytes`, the
//! original document bytes, also for stages that read canonical text), so
//! stages can be compared with each other. Signature comparisons and LSH
//! operations have no text input; they report signatures (or pairs) per
//! second (`Throughput::Elements`).

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use txtfp::classical::minhash::{FastMinHashFingerprinter, FastMinHashStreaming};
use txtfp::{
    Canonicalizer, Fingerprinter, HashFamily, LshCandidateIndex, LshIndex, LshIndexBuilder,
    MinHashFingerprinter, MinHashSig, MinHashStreaming, ShingleTokenizer, SimHash64,
    SimHashFingerprinter, StreamingFingerprinter, Tokenizer, Weighting, WordTokenizer, hamming,
    jaccard,
};

/// Bytes of text per benchmark input set: large enough to average over many
/// documents, small enough that one iteration stays in the millisecond range.
const SET_BYTES: usize = 512 * 1024;

/// Chunk size of the streaming benchmark (a typical read buffer).
///
/// Groups whose iteration takes milliseconds use flat sampling (the same
/// iteration count in every sample), so 20 samples fit the 3 s budget.
const STREAM_CHUNK: usize = 4096;

type Shingle5 = ShingleTokenizer<WordTokenizer>;

fn shingle5() -> Shingle5 {
    ShingleTokenizer::new(5, WordTokenizer).expect("k = 5 is a valid shingle size")
}

// ---------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------

struct Corpus {
    /// Documents without a single non-ASCII byte.
    ascii: Vec<String>,
    /// Documents with at least one non-ASCII character.
    non_ascii: Vec<String>,
    /// Documents in corpus order, both kinds: what the sketch stages see.
    mix: Vec<String>,
    /// Every document, for building LSH indexes of realistic size.
    all: Vec<String>,
}

fn corpus() -> Corpus {
    let path = std::env::var("TXTFP_BENCH_CORPUS").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/corpus/corpus-small.jsonl"
        )
        .to_string()
    });
    let all = match load_jsonl(&path) {
        Ok(docs) if !docs.is_empty() => {
            eprintln!("stages: {} documents from {path}", docs.len());
            docs
        }
        Ok(_) => {
            eprintln!("stages: {path} has no documents; using a GENERATED text mix instead");
            generated_mix()
        }
        Err(e) => {
            eprintln!("stages: cannot read {path} ({e}); using a GENERATED text mix instead");
            generated_mix()
        }
    };
    let take = |pred: &dyn Fn(&String) -> bool| -> Vec<String> {
        let mut out = Vec::new();
        let mut bytes = 0;
        for d in all.iter().filter(|d| pred(d)) {
            if bytes >= SET_BYTES {
                break;
            }
            bytes += d.len();
            out.push(d.clone());
        }
        out
    };
    let ascii = take(&|d| d.is_ascii());
    let non_ascii = take(&|d| !d.is_ascii());
    let mix = take(&|_| true);
    eprintln!(
        "stages: sets of {} ASCII docs ({} B), {} non-ASCII docs ({} B), {} mixed docs ({} B)",
        ascii.len(),
        bytes(&ascii),
        non_ascii.len(),
        bytes(&non_ascii),
        mix.len(),
        bytes(&mix)
    );
    Corpus {
        ascii,
        non_ascii,
        mix,
        all,
    }
}

fn load_jsonl(path: &str) -> Result<Vec<String>, String> {
    let raw = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut docs = Vec::new();
    for (n, line) in raw.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        match v.get("text").and_then(|t| t.as_str()) {
            Some(t) if !t.is_empty() => docs.push(t.to_string()),
            Some(_) => {}
            None => return Err(format!("line {}: no string field \"text\"", n + 1)),
        }
    }
    Ok(docs)
}

/// A deterministic stand-in corpus: mostly English-like prose (ASCII), with
/// a share of documents in other scripts and with typographic characters, so
/// that both canonicalizer paths are exercised.
fn generated_mix() -> Vec<String> {
    const EN: &[&str] = &[
        "the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be",
        "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have",
        "an", "had", "they", "you", "were", "their", "one", "all", "we", "can", "her", "has",
        "there", "been", "if", "more", "when", "will", "would", "who", "so", "no", "method",
        "index", "value", "function", "returns", "document", "server", "request", "version",
        "support", "default", "option", "example", "number", "string", "between", "system",
    ];
    const OTHER: &[&str] = &[
        "Straße",
        "Größe",
        "über",
        "café",
        "naïve",
        "élève",
        "façade",
        "Ärger",
        "ﬁle",
        "“quoted”",
        "it’s",
        "—",
        "Москва",
        "русский",
        "текст",
        "Ελληνικά",
        "σοφός",
        "日本語",
        "中文分词",
        "한국어",
        "ภาษาไทย",
        "العربية",
        "①",
        "ＡＢＣ",
        "😀",
        "👍🏽",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..2000)
        .map(|i| {
            let foreign = i % 5 == 0;
            let mut doc = String::new();
            while doc.len() < 2700 {
                let r = next();
                let w = if foreign && r % 3 == 0 {
                    OTHER[(r >> 8) as usize % OTHER.len()]
                } else {
                    EN[(r >> 8) as usize % EN.len()]
                };
                doc.push_str(w);
                doc.push_str(match r >> 40 & 15 {
                    0 => ". ",
                    1 => ", ",
                    2 => "\n\n",
                    _ => " ",
                });
            }
            doc
        })
        .collect()
}

fn bytes(docs: &[String]) -> u64 {
    docs.iter().map(|d| d.len() as u64).sum()
}

// ---------------------------------------------------------------------------
// Text stages
// ---------------------------------------------------------------------------

fn canonicalize(c: &mut Criterion, corpus: &Corpus) {
    let canon = Canonicalizer::default();
    let mut g = c.benchmark_group("canonicalize");
    for (name, docs) in [
        ("ascii_docs", &corpus.ascii),
        ("non_ascii_docs", &corpus.non_ascii),
    ] {
        if docs.is_empty() {
            eprintln!("stages: no {name} in the corpus; skipping canonicalize/{name}");
            continue;
        }
        g.throughput(Throughput::Bytes(bytes(docs)));
        let mut buf = String::new();
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0;
                for d in docs {
                    canon.canonicalize_into(black_box(d), &mut buf);
                    n += buf.len();
                }
                n
            })
        });
    }
    g.finish();
}

fn tokenize(c: &mut Criterion, corpus: &Corpus) {
    let canon = Canonicalizer::default();
    // Tokenizers read canonical text; canonicalize once, outside the timing.
    let canonical: Vec<String> = corpus.mix.iter().map(|d| canon.canonicalize(d)).collect();
    let mut g = c.benchmark_group("tokenize");
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Bytes(bytes(&corpus.mix)));
    fn count_tokens(tok: &dyn Tokenizer, docs: &[String]) -> usize {
        let mut n = 0;
        for d in docs {
            tok.for_each_token(black_box(d), &mut |t| n += t.len());
        }
        n
    }
    g.bench_function("word", |b| {
        b.iter(|| count_tokens(&WordTokenizer, &canonical))
    });
    g.finish();
    // The UTF-8 mask scanner alone: documents with non-ASCII characters.
    let canonical_non_ascii: Vec<String> = corpus
        .non_ascii
        .iter()
        .map(|d| canon.canonicalize(d))
        .collect();
    let mut g = c.benchmark_group("tokenize");
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Bytes(bytes(&corpus.non_ascii)));
    g.bench_function("word_non_ascii", |b| {
        b.iter(|| count_tokens(&WordTokenizer, &canonical_non_ascii))
    });
    g.finish();
    let mut g = c.benchmark_group("tokenize");
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Bytes(bytes(&corpus.mix)));
    let sh = shingle5();
    g.bench_function("shingle_k5", |b| b.iter(|| count_tokens(&sh, &canonical)));
    g.finish();
}

fn minhash(c: &mut Criterion, corpus: &Corpus) {
    let mut g = c.benchmark_group("minhash");
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Bytes(bytes(&corpus.mix)));
    for (name, family) in [
        ("k5_h128_xxh3", HashFamily::Xxh3_64),
        ("k5_h128_murmur", HashFamily::MurmurHash3_x64_128),
    ] {
        let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), shingle5())
            .with_hasher(family);
        let mut buf = String::new();
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for d in &corpus.mix {
                    if let Ok(sig) = fp.fingerprint_with_buffer(black_box(d), &mut buf) {
                        acc ^= sig.hashes[0];
                    }
                }
                acc
            })
        });
    }
    // The opt-in fast scheme (own wire tag), same shingles and H.
    let fast = FastMinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), shingle5());
    let mut buf = String::new();
    g.bench_function("fast_k5_h128", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for d in &corpus.mix {
                if let Ok(sig) = fast.fingerprint_with_buffer(black_box(d), &mut buf) {
                    acc ^= sig.hashes[0];
                }
            }
            acc
        })
    });
    g.finish();
}

fn simhash(c: &mut Criterion, corpus: &Corpus) {
    let mut g = c.benchmark_group("simhash");
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Bytes(bytes(&corpus.mix)));
    for (name, weighting) in [
        ("word_tf", Weighting::Tf),
        ("word_uniform", Weighting::Uniform),
    ] {
        let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer)
            .with_weighting(weighting);
        let mut buf = String::new();
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for d in &corpus.mix {
                    if let Ok(s) = fp.fingerprint_with_buffer(black_box(d), &mut buf) {
                        acc ^= s.bits();
                    }
                }
                acc
            })
        });
    }
    // Streaming Tf: tokens one at a time through the queued vote kernel.
    let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
    g.bench_function("word_tf_streaming_4k_chunks", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for d in &corpus.mix {
                let mut s = fp.clone().into_streaming();
                for chunk in black_box(d.as_bytes()).chunks(STREAM_CHUNK) {
                    if s.update(chunk).is_err() {
                        break;
                    }
                }
                if let Ok(sig) = s.finalize() {
                    acc ^= sig.bits();
                }
            }
            acc
        })
    });
    g.finish();
}

fn streaming(c: &mut Criterion, corpus: &Corpus) {
    let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), shingle5());
    let fast = FastMinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), shingle5());
    let mut g = c.benchmark_group("streaming");
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Bytes(bytes(&corpus.mix)));
    g.bench_function("minhash_k5_h128_4k_chunks", |b| {
        b.iter(|| {
            stream_all(
                &corpus.mix,
                || MinHashStreaming::new(fp.clone()),
                |s| s.hashes[0],
            )
        })
    });
    g.bench_function("fast_minhash_k5_h128_4k_chunks", |b| {
        b.iter(|| {
            stream_all(
                &corpus.mix,
                || FastMinHashStreaming::new(fast.clone()),
                |s| s.hashes[0],
            )
        })
    });
    g.finish();
}

/// Streams every document in chunks of `STREAM_CHUNK` through a fresh
/// `make()`, folding one word of each signature into a checksum.
fn stream_all<S: StreamingFingerprinter>(
    docs: &[String],
    make: impl Fn() -> S,
    word: impl Fn(&S::Output) -> u64,
) -> u64 {
    let mut acc = 0u64;
    for d in docs {
        let mut s = make();
        for chunk in black_box(d.as_bytes()).chunks(STREAM_CHUNK) {
            if s.update(chunk).is_err() {
                break;
            }
        }
        if let Ok(sig) = s.finalize() {
            acc ^= word(&sig);
        }
    }
    acc
}

// ---------------------------------------------------------------------------
// Signature stages
// ---------------------------------------------------------------------------

/// MinHash<128> (k = 5 word shingles, defaults) of every document that has
/// enough words, in corpus order.
fn minhash_sigs(docs: &[String]) -> Vec<MinHashSig<128>> {
    let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), shingle5());
    docs.iter().filter_map(|d| fp.fingerprint(d).ok()).collect()
}

fn compare(c: &mut Criterion, corpus: &Corpus) {
    let sigs = minhash_sigs(&corpus.mix);
    let simhashes: Vec<SimHash64> = {
        let fp = SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer);
        corpus
            .mix
            .iter()
            .filter_map(|d| fp.fingerprint(d).ok())
            .collect()
    };
    let mut g = c.benchmark_group("compare");
    // Each signature against its successor (cyclically): realistic, mostly
    // dissimilar pairs, so early-exit tricks would not flatter the numbers.
    g.throughput(Throughput::Elements(sigs.len() as u64));
    g.bench_function("jaccard_h128", |b| {
        b.iter(|| {
            let mut acc = 0.0f32;
            for (i, a) in sigs.iter().enumerate() {
                acc += jaccard(black_box(a), &sigs[(i + 1) % sigs.len()]);
            }
            acc
        })
    });
    g.throughput(Throughput::Elements(simhashes.len() as u64));
    g.bench_function("hamming_64", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for (i, &a) in simhashes.iter().enumerate() {
                acc += hamming(black_box(a), simhashes[(i + 1) % simhashes.len()]);
            }
            acc
        })
    });
    g.finish();
}

fn lsh(c: &mut Criterion, corpus: &Corpus) {
    let sigs: Vec<(u64, MinHashSig<128>)> = (0u64..).zip(minhash_sigs(&corpus.all)).collect();
    let builder = LshIndexBuilder::for_threshold(0.5, 128).expect("0.5 is a valid threshold");
    let empty: LshIndex<128> = builder.try_build().expect("for_threshold factors H");
    let mut full = empty.clone();
    for &(id, sig) in &sigs {
        full.insert(id, sig);
    }

    let mut g = c.benchmark_group("lsh_b32_r4");
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Elements(sigs.len() as u64));
    g.bench_function("insert", |b| {
        b.iter_batched(
            || empty.clone(),
            |mut idx| {
                for &(id, sig) in &sigs {
                    idx.insert(id, black_box(sig));
                }
                idx
            },
            BatchSize::LargeInput,
        )
    });
    #[cfg(feature = "parallel")]
    g.bench_function("extend_par", |b| {
        b.iter_batched(
            || empty.clone(),
            |mut idx| {
                idx.extend_par(sigs.iter().copied());
                idx
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("query", |b| {
        b.iter(|| {
            let mut n = 0;
            for (_, sig) in &sigs {
                n += full.query(black_box(sig)).len();
            }
            n
        })
    });
    g.bench_function("query_with_threshold_0.8", |b| {
        b.iter(|| {
            let mut n = 0;
            for (_, sig) in &sigs {
                n += full.query_with_threshold(black_box(sig), 0.8).len();
            }
            n
        })
    });
    g.finish();

    // The issue's figures: 16 × 8 banding, batch insert, the signature-free
    // index, and the file round trip.
    let mut g = c.benchmark_group("lsh_b16_r8");
    g.sampling_mode(SamplingMode::Flat);
    g.throughput(Throughput::Elements(sigs.len() as u64));
    let empty = LshIndex::<128>::with_bands_rows(16, 8).expect("16 × 8 = 128");
    g.bench_function("extend", |b| {
        b.iter_batched(
            || empty.clone(),
            |mut idx| {
                idx.extend(sigs.iter().copied());
                idx
            },
            BatchSize::LargeInput,
        )
    });
    let lean_empty = LshCandidateIndex::<128>::with_bands_rows(16, 8).expect("16 × 8 = 128");
    g.bench_function("candidate_index_try_extend", |b| {
        b.iter_batched(
            || lean_empty.clone(),
            |mut idx| {
                idx.try_extend(sigs.iter().map(|(id, s)| (*id, s)))
                    .expect("fresh ids");
                idx
            },
            BatchSize::LargeInput,
        )
    });
    let mut full = empty.clone();
    full.extend(sigs.iter().copied());
    full.compact();
    g.bench_function("query", |b| {
        b.iter(|| {
            let mut n = 0;
            for (_, sig) in &sigs {
                n += full.query(black_box(sig)).len();
            }
            n
        })
    });
    g.bench_function("query_with_threshold_0.8", |b| {
        b.iter(|| {
            let mut n = 0;
            for (_, sig) in &sigs {
                n += full.query_with_threshold(black_box(sig), 0.8).len();
            }
            n
        })
    });
    let queries: Vec<MinHashSig<128>> = sigs.iter().map(|(_, s)| *s).collect();
    g.bench_function("query_batch_with_threshold_0.8", |b| {
        b.iter(|| {
            full.query_batch_with_threshold(black_box(&queries), 0.8)
                .len()
        })
    });
    #[cfg(feature = "parallel")]
    g.bench_function("query_batch_with_threshold_par_0.8", |b| {
        b.iter(|| {
            full.query_batch_with_threshold_par(black_box(&queries), 0.8)
                .len()
        })
    });
    let bytes = full.to_bytes();
    g.bench_function("to_bytes", |b| b.iter(|| full.to_bytes().len()));
    g.bench_function("from_bytes", |b| {
        b.iter(|| {
            LshIndex::<128>::from_bytes(black_box(&bytes))
                .expect("own file")
                .len()
        })
    });
    g.finish();
}

fn all_stages(c: &mut Criterion) {
    let corpus = corpus();
    canonicalize(c, &corpus);
    tokenize(c, &corpus);
    minhash(c, &corpus);
    simhash(c, &corpus);
    streaming(c, &corpus);
    compare(c, &corpus);
    lsh(c, &corpus);
}

fn config() -> Criterion {
    // Short by default so the whole file runs in a few minutes on a small
    // machine; pass `--measurement-time` / `--sample-size` for more precision.
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
}

criterion_group! {
    name = stages;
    config = config();
    targets = all_stages
}
criterion_main!(stages);
