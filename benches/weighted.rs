//! Weighted MinHash (ICWS) and b-bit signatures.
//!
//! ```sh
//! cargo bench --bench weighted --features weighted-minhash
//! cargo bench --bench weighted --features weighted-minhash -- sketch   # one group
//! ```
//!
//! Input: generated word-count vectors shaped like a web page's (300
//! distinct words, Zipf-like counts), so the figures need no corpus; the
//! corpus comparison is `examples/weighted_vs_datasketch.rs`. Sketches
//! report sets per second, comparisons pairs per second.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use txtfp::classical::minhash::BBitSignature;
use txtfp::classical::weighted::{WeightedMinHasher, weighted_jaccard};
use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, WordTokenizer};

/// A weighted set of `n` keys with counts `⌈40 / rank⌉`.
fn set(n: u64, salt: u64) -> Vec<(u64, f64)> {
    (1..=n)
        .map(|r| {
            (
                r.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt,
                (40.0 / r as f64).ceil(),
            )
        })
        .collect()
}

fn sketch(c: &mut Criterion) {
    let mut g = c.benchmark_group("sketch");
    g.measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(1));
    for slots in [64usize, 128, 256] {
        let wmh = WeightedMinHasher::new(slots, 1).expect("slots > 0");
        let s = set(300, 0);
        g.bench_function(format!("icws_300x{slots}"), |b| {
            b.iter(|| wmh.sketch(black_box(&s)))
        });
    }
    let wmh = WeightedMinHasher::new(128, 1).expect("slots > 0");
    let s = set(300, 0);
    g.bench_function("reference_300x128", |b| {
        b.iter(|| wmh.sketch_reference(black_box(&s)))
    });
    g.finish();
}

fn compare(c: &mut Criterion) {
    let mut g = c.benchmark_group("compare");
    g.measurement_time(Duration::from_secs(2));
    g.throughput(Throughput::Elements(1));
    let wmh = WeightedMinHasher::new(128, 1).expect("slots > 0");
    let (a, b) = (
        wmh.sketch(&set(300, 0)).unwrap(),
        wmh.sketch(&set(300, 1)).unwrap(),
    );
    g.bench_function("weighted_jaccard_128", |bn| {
        bn.iter(|| weighted_jaccard(black_box(&a), black_box(&b)))
    });
    let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
    let x = fp
        .fingerprint("the quick brown fox jumps over the lazy dog")
        .unwrap();
    let y = fp
        .fingerprint("the quick brown fox leaps over the lazy cat")
        .unwrap();
    for bits in [1u8, 2, 8] {
        g.bench_function(format!("bbit{bits}_from_sig_128"), |bn| {
            bn.iter(|| BBitSignature::from_sig(black_box(&x), bits))
        });
        let (bx, by) = (
            BBitSignature::from_sig(&x, bits).unwrap(),
            BBitSignature::from_sig(&y, bits).unwrap(),
        );
        g.bench_function(format!("bbit{bits}_jaccard_128"), |bn| {
            bn.iter(|| black_box(&bx).jaccard(black_box(&by)))
        });
    }
    g.finish();
}

criterion_group!(benches, sketch, compare);
criterion_main!(benches);
