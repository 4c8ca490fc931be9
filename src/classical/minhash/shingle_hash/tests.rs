extern crate std;

use super::*;
use alloc::vec::Vec;
use proptest::prelude::*;

fn reference(b: &[u8], seed: u64) -> [u64; 2] {
    let v = xxhash_rust::xxh3::xxh3_128_with_seed(b, seed);
    [v as u64, (v >> 64) as u64]
}

#[test]
fn every_length_up_to_300_matches_xxh3() {
    for seed in [0, 1, crate::classical::DEFAULT_SEED, u64::MAX, 1 << 63] {
        let h = ShingleHasher::new(seed);
        for n in 0..=300usize {
            let bytes: Vec<u8> = (0..n)
                .map(|i| (i * 131 + n * 7).wrapping_add(seed as usize) as u8)
                .collect();
            for fill in [bytes, alloc::vec![0xff; n]] {
                let (lo, hi) = h.hash(&fill);
                assert_eq!(
                    [lo, hi],
                    reference(&fill, seed),
                    "n = {n}, seed = {seed:#x}"
                );
            }
        }
    }
}

/// Every span of 0–70 bytes ending anywhere in a 150-byte text, and
/// some ending past it, in batches: the eight-lane kernel (where the CPU
/// has it) and the class-sorted path both give XXH3's hashes.
#[test]
fn every_span_near_the_end_matches_xxh3() {
    let text: Vec<u8> = (0..150u32).map(|i| (i * 73 + 11) as u8).collect();
    let mut spans = Vec::new();
    for len in 0..=70usize {
        for end in (0..=152usize).filter(|e| *e >= len) {
            spans.push((end - len, end));
        }
    }
    #[cfg(target_arch = "x86_64")]
    let wide = Avx512Dq::detect();
    #[cfg(not(target_arch = "x86_64"))]
    let wide: Option<()> = None;
    if wide.is_none() {
        std::println!(
            "every_span_near_the_end_matches_xxh3: AVX-512DQ kernel skipped (CPU lacks it)"
        );
    }
    for seed in [0, crate::classical::DEFAULT_SEED, u64::MAX] {
        let h = ShingleHasher::new(seed);
        for chunk in spans.chunks(SPAN_BATCH - 3) {
            let starts: Vec<usize> = chunk.iter().map(|s| s.0).collect();
            let ends: Vec<usize> = chunk.iter().map(|s| s.1).collect();
            let mut want: Vec<[u64; 2]> = chunk
                .iter()
                .map(|&(a, b)| reference(text.get(a..b).unwrap_or_default(), seed))
                .collect();
            want.sort_unstable();
            let mut out = [[0; 2]; SPAN_BATCH];
            let k = h.hash_spans_sorted(&text, &starts, &ends, &mut out);
            let mut got = out[..k].to_vec();
            got.sort_unstable();
            assert_eq!(got, want, "sorted path, seed {seed:#x}");
            #[cfg(target_arch = "x86_64")]
            if let Some(t) = wide {
                let k = avx512::shingle_hash::hash_spans(t, &h, &text, &starts, &ends, &mut out);
                let mut got = out[..k].to_vec();
                got.sort_unstable();
                assert_eq!(got, want, "kernel, seed {seed:#x}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    /// A batch gives the hash of every span once (order aside),
    /// spans that are not ranges of the text included.
    #[test]
    fn batch_equals_one_by_one(
        text in proptest::collection::vec(any::<u8>(), 0..400),
        spans in proptest::collection::vec((0usize..420, 0usize..90), 0..80),
        seed in any::<u64>(),
    ) {
        let h = ShingleHasher::new(seed);
        let starts: Vec<usize> = spans.iter().map(|s| s.0).collect();
        let ends: Vec<usize> = spans.iter().map(|s| s.0 + s.1).collect();
        let mut out = [[0; 2]; SPAN_BATCH];
        let k = h.hash_spans(&text, &starts, &ends, &mut out);
        let mut got = out[..k].to_vec();
        let mut want: Vec<[u64; 2]> = starts.iter().zip(&ends).take(SPAN_BATCH)
            .map(|(&s, &e)| reference(text.get(s..e).unwrap_or_default(), seed))
            .collect();
        got.sort_unstable();
        want.sort_unstable();
        prop_assert_eq!(got, want);
    }
}
