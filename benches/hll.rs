//! HyperLogLog / HyperLogLog++ benchmarks: insert throughput (by hash and by
//! string), merge and count.
//!
//! ```sh
//! cargo bench --features hll --bench hll
//! cargo bench --features hll --bench hll -- insert   # one group
//! ```
//!
//! Inputs are generated (distinct strings `"shingle <i> of the corpus"`,
//! about the length of a 5-word shingle), so the figures do not depend on a
//! corpus file; `examples/hll_vs_datasketch.rs` measures on real shingles.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use txtfp::classical::hll::{Hll, HyperLogLog, HyperLogLogPlusPlus, Variant};

const ITEMS: usize = 200_000;

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn strings(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("shingle {i} of the corpus"))
        .collect()
}

fn filled<V: Variant>(p: u8, n: usize, offset: u64) -> Hll<V> {
    let mut h = Hll::<V>::new(p).expect("valid precision");
    for i in 0..n as u64 {
        h.insert_hash(splitmix(i + offset));
    }
    h
}

fn insert_group<V: Variant>(c: &mut Criterion, label: &str) {
    let hashes: Vec<u64> = (0..ITEMS as u64).map(splitmix).collect();
    let strs = strings(ITEMS);
    let str_bytes: usize = strs.iter().map(String::len).sum();
    let mut g = c.benchmark_group(format!("insert/{label}"));
    g.measurement_time(Duration::from_secs(3));
    for p in [8u8, 12, 14] {
        g.throughput(Throughput::Elements(ITEMS as u64));
        g.bench_function(format!("hash/p={p}"), |b| {
            b.iter_batched_ref(
                || Hll::<V>::new(p).expect("valid precision"),
                |h| {
                    for &x in &hashes {
                        h.insert_hash(x);
                    }
                },
                BatchSize::SmallInput,
            )
        });
        g.throughput(Throughput::Bytes(str_bytes as u64));
        g.bench_function(format!("str/p={p}"), |b| {
            b.iter_batched_ref(
                || Hll::<V>::new(p).expect("valid precision"),
                |h| {
                    for s in &strs {
                        h.insert_str(s);
                    }
                },
                BatchSize::SmallInput,
            )
        });
    }
    // Many small sketches (distinct shingles per source): HyperLogLog++
    // stays sparse, the classic sketch clears its dense registers.
    let per_doc = 300;
    g.throughput(Throughput::Elements(ITEMS as u64));
    g.bench_function("per-source-300/p=14", |b| {
        b.iter(|| {
            let mut total = 0.0;
            for chunk in hashes.chunks(per_doc) {
                let mut h = Hll::<V>::new(14).expect("valid precision");
                for &x in chunk {
                    h.insert_hash(x);
                }
                total += h.count();
            }
            black_box(total)
        })
    });
    g.finish();
}

fn inserts(c: &mut Criterion) {
    insert_group::<txtfp::classical::hll::Classic>(c, "hll");
    insert_group::<txtfp::classical::hll::PlusPlus>(c, "hll++");
}

fn merge_and_count(c: &mut Criterion) {
    let mut g = c.benchmark_group("merge");
    g.measurement_time(Duration::from_secs(2));
    for p in [12u8, 14] {
        let a = filled::<txtfp::classical::hll::Classic>(p, 100_000, 0);
        let b = filled::<txtfp::classical::hll::Classic>(p, 100_000, 1 << 40);
        g.bench_function(format!("dense/p={p}"), |bn| {
            bn.iter_batched_ref(|| a.clone(), |x| x.merge(&b), BatchSize::SmallInput)
        });
    }
    let a: HyperLogLogPlusPlus = filled(14, 1_000, 0);
    let b: HyperLogLogPlusPlus = filled(14, 1_000, 1 << 40);
    g.bench_function("sparse-1000/p=14", |bn| {
        bn.iter_batched_ref(|| a.clone(), |x| x.merge(&b), BatchSize::SmallInput)
    });
    g.finish();

    let mut g = c.benchmark_group("count");
    g.measurement_time(Duration::from_secs(2));
    for p in [12u8, 14] {
        let h: HyperLogLog = filled(p, 100_000, 0);
        g.bench_function(format!("hll/dense/p={p}"), |bn| {
            bn.iter(|| black_box(&h).count())
        });
        let h: HyperLogLogPlusPlus = filled(p, 100_000, 0);
        g.bench_function(format!("hll++/dense/p={p}"), |bn| {
            bn.iter(|| black_box(&h).count())
        });
    }
    let h: HyperLogLogPlusPlus = filled(14, 1_000, 0);
    g.bench_function("hll++/sparse-1000/p=14", |bn| {
        bn.iter(|| black_box(&h).count())
    });
    g.finish();
}

criterion_group!(benches, inserts, merge_and_count);
criterion_main!(benches);
