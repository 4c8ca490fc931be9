//! `SimHashIndex` benchmarks: single inserts, batch inserts and queries on
//! random 64-bit fingerprints with planted near-duplicates.
//!
//! ```sh
//! cargo bench --bench simhash_index                  # every group
//! cargo bench --bench simhash_index -- query         # one group (criterion filter)
//! TXTFP_SIMIDX_DOCS=100000 cargo bench --bench simhash_index
//! ```
//!
//! Data: `TXTFP_SIMIDX_DOCS` documents (default 1 000 000); one in ten is a
//! copy of an earlier document with 0–4 bits flipped, so queries have real
//! neighbours to find. Inserts are measured into an empty index, of the
//! first 100 000 documents and of all of them; queries on an index of all of
//! them, with probes that are half stored fingerprints, a quarter planted
//! neighbours of stored ones at distance 1–3, and a quarter fresh random
//! values. Every benchmark runs on the calling thread only, and reports
//! documents (or probes) per second.
//!
//! Before the query groups, the bytes per document of each index after
//! `compact()` (`memory_usage() / len()`) are printed to stderr.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use txtfp::{SimHash64, SimHashIndex};

/// Documents inserted per iteration of the insert benchmarks.
const INSERT_DOCS: usize = 100_000;
/// Probes per iteration of the query benchmarks.
const PROBES: usize = 10_000;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `f` with `d` distinct random bits flipped.
fn flip(f: u64, d: u32, state: &mut u64) -> u64 {
    let mut mask = 0u64;
    while mask.count_ones() < d {
        mask |= 1 << (splitmix(state) % 64);
    }
    f ^ mask
}

fn docs() -> usize {
    std::env::var("TXTFP_SIMIDX_DOCS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000)
}

/// `(id, fingerprint)` pairs, one in ten a near-duplicate of an earlier one.
fn data(n: usize) -> Vec<(u64, SimHash64)> {
    let mut state = 0x5eed;
    let mut out: Vec<(u64, SimHash64)> = Vec::with_capacity(n);
    for id in 0..n as u64 {
        let f = if id > 0 && splitmix(&mut state).is_multiple_of(10) {
            let src = out[(splitmix(&mut state) % id) as usize].1.0;
            let d = (splitmix(&mut state) % 5) as u32;
            flip(src, d, &mut state)
        } else {
            splitmix(&mut state)
        };
        out.push((id, SimHash64(f)));
    }
    out
}

fn probes(items: &[(u64, SimHash64)]) -> Vec<SimHash64> {
    let mut state = 0xfeed;
    (0..PROBES)
        .map(|i| {
            let stored = items[(splitmix(&mut state) % items.len() as u64) as usize]
                .1
                .0;
            SimHash64(match i % 4 {
                0 | 1 => stored,
                2 => flip(stored, 1 + (splitmix(&mut state) % 3) as u32, &mut state),
                _ => splitmix(&mut state),
            })
        })
        .collect()
}

fn insert(c: &mut Criterion, items: &[(u64, SimHash64)]) {
    let mut g = c.benchmark_group("simhash_index_insert");
    g.sampling_mode(SamplingMode::Flat);
    let mut sizes = vec![INSERT_DOCS.min(items.len())];
    if items.len() > INSERT_DOCS {
        sizes.push(items.len());
    }
    for n in sizes {
        let items = &items[..n];
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(format!("insert_k3/{n}"), |b| {
            b.iter_batched(
                SimHashIndex::new,
                |mut idx| {
                    for &(id, h) in items {
                        idx.insert(id, h);
                    }
                    idx
                },
                BatchSize::PerIteration,
            )
        });
        g.bench_function(format!("extend_k3/{n}"), |b| {
            b.iter_batched(
                SimHashIndex::new,
                |mut idx| {
                    idx.extend(items.iter().copied());
                    idx
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

fn query(c: &mut Criterion, items: &[(u64, SimHash64)]) {
    let probes = probes(items);
    for k in [3u32, 0, 1, 2, 4, 5, 6, 7] {
        let mut idx = SimHashIndex::with_max_distance(k).expect("k <= 7");
        idx.extend(items.iter().copied());
        idx.compact();
        let hits: usize = probes.iter().map(|p| idx.query(p).len()).sum();
        eprintln!(
            "simhash_index k = {k}: {} docs, {} tables, {} bytes/doc after compact, {:.2} hits/probe",
            idx.len(),
            idx.layout().tables(),
            idx.memory_usage() / idx.len().max(1),
            hits as f64 / probes.len() as f64
        );
        let mut g = c.benchmark_group("simhash_index_query");
        g.throughput(Throughput::Elements(probes.len() as u64));
        g.bench_function(format!("k{k}"), |b| {
            b.iter(|| {
                let mut n = 0usize;
                for p in &probes {
                    n += black_box(idx.query(black_box(p))).len();
                }
                n
            })
        });
        g.finish();
    }
}

fn benches(c: &mut Criterion) {
    let items = data(docs());
    insert(c, &items);
    query(c, &items);
}

criterion_group! {
    name = simhash_index;
    config = Criterion::default()
        .measurement_time(Duration::from_secs(3))
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(simhash_index);
