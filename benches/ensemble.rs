//! LSH Ensemble: build and containment queries on generated sets.
//!
//! ```sh
//! cargo bench --features lsh --bench ensemble
//! ```
//!
//! 5 000 sets of 20..2 000 distinct words, each a random stretch of a
//! 100 000-word vocabulary, fingerprinted once (128 slots); 200 queries of
//! half to all of a set. `build` reports sets per second, the query groups
//! queries per second (warm banding cache).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use txtfp::lsh::ensemble::{LshEnsemble, LshEnsembleBuilder};
use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, MinHashSig, WordTokenizer};

type Entry = (u64, MinHashSig<128>, u64);

fn data() -> (Vec<Entry>, Vec<(MinHashSig<128>, u64)>) {
    let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
    let words = |a: u64, b: u64| -> String { (a..b).map(|i| format!("w{i} ")).collect() };
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |m: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % m
    };
    let mut sets = Vec::new();
    let mut ranges = Vec::new();
    for id in 0..5_000u64 {
        let (len, start) = (20 + next(1_980), next(100_000));
        let sig = fp
            .fingerprint(&words(start, start + len))
            .expect("non-empty");
        sets.push((id, sig, len));
        ranges.push((start, start + len));
    }
    let queries = (0..200)
        .map(|_| {
            let (s, e) = ranges[next(ranges.len() as u64) as usize];
            let len = ((e - s) * (5 + next(6)) / 10).max(5);
            let start = s + next(e - s - len + 1);
            let sig = fp
                .fingerprint(&words(start, start + len))
                .expect("non-empty");
            (sig, len)
        })
        .collect();
    (sets, queries)
}

fn build(sets: &[Entry]) -> LshEnsemble<128> {
    let mut b = LshEnsembleBuilder::<128>::new();
    for (id, sig, size) in sets {
        b.insert(*id, sig, *size).expect("positive size");
    }
    b.build().expect("valid parameters")
}

fn ensemble(c: &mut Criterion) {
    let (sets, queries) = data();
    let mut g = c.benchmark_group("ensemble");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_millis(500));
    g.throughput(Throughput::Elements(sets.len() as u64));
    g.bench_function("build", |b| b.iter(|| black_box(build(&sets))));
    let index = build(&sets);
    g.throughput(Throughput::Elements(queries.len() as u64));
    for t in [0.5, 0.9] {
        g.bench_function(format!("query_t{t}"), |b| {
            b.iter(|| {
                for (sig, size) in &queries {
                    black_box(index.query(sig, *size, t).expect("valid"));
                }
            })
        });
        g.bench_function(format!("query_estimated_t{t}"), |b| {
            b.iter(|| {
                for (sig, size) in &queries {
                    black_box(index.query_estimated(sig, *size, t).expect("valid"));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, ensemble);
criterion_main!(benches);
