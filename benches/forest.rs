//! `LshForest` against the exact scan (`query_exact`): build and top-10
//! query rates by collection size, to find where the forest starts to pay.
//!
//! ```sh
//! cargo bench --features lsh --bench forest
//! ```
//!
//! Input: generated signatures, 128 slots, in families of 8 near-duplicates
//! (each member re-draws 0-40 % of its family's slots, as MinHash slots of
//! sets at Jaccard 0.6-1 would differ); queries are members. Reports
//! signatures (build) or queries (query) per second.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use txtfp::MinHashSig;
use txtfp::lsh::forest::LshForest;

/// SplitMix64: deterministic inputs.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn signatures(n: usize) -> Vec<MinHashSig<128>> {
    let mut rng = Rng(n as u64);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut base = MinHashSig::<128>::empty();
        base.hashes.iter_mut().for_each(|h| *h = rng.next());
        for _ in 0..8 {
            let redraw = rng.next() % 41;
            let mut s = base;
            for h in &mut s.hashes {
                if rng.next() % 100 < redraw {
                    *h = rng.next();
                }
            }
            out.push(s);
        }
    }
    out.truncate(n);
    out
}

fn forest_of(sigs: &[MinHashSig<128>]) -> LshForest<128> {
    let mut forest = LshForest::<128>::new(8).expect("8 divides 128");
    for (i, s) in sigs.iter().enumerate() {
        forest.insert(i as u64, s).expect("valid signature");
    }
    forest.index();
    forest
}

fn build(c: &mut Criterion) {
    let sigs = signatures(50_000);
    let mut g = c.benchmark_group("forest_build");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(sigs.len() as u64));
    g.bench_function("insert_index_50k", |b| {
        b.iter(|| black_box(forest_of(&sigs)))
    });
    g.bench_function("from_bytes_50k", |b| {
        let bytes = forest_of(&sigs).to_bytes();
        b.iter_batched(
            || bytes.clone(),
            |bytes| black_box(LshForest::<128>::from_bytes(&bytes)),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn query(c: &mut Criterion) {
    let mut g = c.benchmark_group("forest_top10");
    g.measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500));
    for n in [100usize, 300, 1_000, 10_000, 50_000] {
        let sigs = signatures(n);
        let forest = forest_of(&sigs);
        let queries: Vec<&MinHashSig<128>> = sigs.iter().step_by((n / 64).max(1)).collect();
        g.throughput(Throughput::Elements(queries.len() as u64));
        g.bench_function(format!("forest/{n}"), |b| {
            b.iter(|| {
                for q in &queries {
                    black_box(forest.query(q, 10).expect("k > 0"));
                }
            })
        });
        g.bench_function(format!("exact_scan/{n}"), |b| {
            b.iter(|| {
                for q in &queries {
                    black_box(forest.query_exact(q, 10).expect("k > 0"));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, build, query);
criterion_main!(benches);
