use super::*;
use alloc::vec::Vec;
use proptest::prelude::*;

fn reference(b: &[u8], seed: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_128_with_seed(b, seed) as u64
}

/// Deterministic pseudo-random bytes (splitmix64), so failures reproduce.
fn bytes(n: usize, mut state: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u8
        })
        .collect()
}

const SEEDS: [u64; 7] = [
    0,
    1,
    crate::classical::DEFAULT_SEED,
    0xffff_ffff,
    1 << 63,
    u64::MAX,
    0x0123_4567_89ab_cdef,
];

#[test]
fn known_value() {
    // The value HashFamily::hash128's doc example pins for "hello".
    let h = TokenHasher::new(crate::classical::DEFAULT_SEED);
    assert_eq!(h.hash(b"hello"), 0x9c165db7b53c9009);
}

#[test]
fn every_length_up_to_300_matches_xxh3() {
    for seed in SEEDS {
        let h = TokenHasher::new(seed);
        for n in 0..=300 {
            for fill in [
                bytes(n, seed ^ n as u64),
                alloc::vec![0u8; n],
                alloc::vec![0xff; n],
            ] {
                assert_eq!(
                    h.hash(&fill),
                    reference(&fill, seed),
                    "n = {n}, seed = {seed:#x}"
                );
            }
        }
    }
}

#[test]
fn class_boundaries_match_xxh3_for_many_seeds() {
    let lens = [
        0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65, 96, 97, 128, 129,
    ];
    for s in 0..2000u64 {
        let seed = s.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (s << 7);
        let h = TokenHasher::new(seed);
        for &n in &lens {
            let b = bytes(n, s);
            assert_eq!(h.hash(&b), reference(&b, seed), "n = {n}, seed = {seed:#x}");
        }
    }
}

/// One way of hashing a batch of spans.
type SpansPath = fn(&TokenHasher, &[u8], &[usize], &[usize], &mut [u64; SPAN_BATCH]) -> usize;

/// `hash_spans` as a sorted list, against the reference per span, on
/// the portable path and (where the CPU has it) the eight-span kernel.
fn check_spans(h: &TokenHasher, seed: u64, text: &[u8], spans: &[(usize, usize)]) {
    let starts: Vec<usize> = spans.iter().map(|s| s.0).collect();
    let ends: Vec<usize> = spans.iter().map(|s| s.1).collect();
    let n = spans.len().min(SPAN_BATCH);
    let mut want: Vec<u64> = spans[..n]
        .iter()
        .map(|&(s, e)| reference(text.get(s..e).unwrap_or_default(), seed))
        .collect();
    want.sort_unstable();
    let mut paths: Vec<(&str, SpansPath)> = alloc::vec![("sorted", TokenHasher::hash_spans_sorted)];
    #[cfg(target_arch = "x86_64")]
    if h.wide.is_some() {
        paths.push(("wide", |h, text, starts, ends, out| {
            let t = h.wide.expect("checked above");
            h.hash_spans_wide(t, text, starts, ends, out)
        }));
    }
    for (name, path) in paths {
        let mut out = [0u64; SPAN_BATCH];
        let k = path(h, text, &starts, &ends, &mut out);
        let mut got = out[..k].to_vec();
        got.sort_unstable();
        assert_eq!(got, want, "{name}: seed {seed:#x}, spans {spans:?}");
    }
}

/// The eight-span kernel is used wherever the CPU has AVX-512F and DQ.
#[test]
fn wide_path_follows_the_cpu() {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    assert_eq!(TokenHasher::new(0).wide, Avx512Dq::detect());
}

#[test]
fn span_batches_of_every_class_match_xxh3() {
    let text = bytes(400, 3);
    for seed in SEEDS {
        let h = TokenHasher::new(seed);
        // Every length 0..=140 at a few offsets, in full batches and a
        // partial one; and an out-of-range span, which hashes as empty.
        let spans: Vec<(usize, usize)> = (0..=140)
            .flat_map(|n| [(0, n), (7, 7 + n), (400 - n, 400)])
            .collect();
        for batch in spans.chunks(SPAN_BATCH) {
            check_spans(&h, seed, &text, batch);
        }
        let outside = [
            (3, 2),
            (390, 410),
            (398, 401),
            (396, 402),
            (395, 405),
            (0, 5),
        ];
        check_spans(&h, seed, &text, &outside);
        check_spans(&h, seed, &text, &[]);
    }
}

proptest! {
    #[test]
    fn matches_xxh3(b in prop::collection::vec(any::<u8>(), 0..=300), seed in any::<u64>()) {
        prop_assert_eq!(TokenHasher::new(seed).hash(&b), reference(&b, seed));
    }

    #[test]
    fn span_batches_match_xxh3(
        text in prop::collection::vec(any::<u8>(), 0..300),
        picks in prop::collection::vec((any::<prop::sample::Index>(), 0usize..40), 0..80),
        seed in any::<u64>(),
    ) {
        let spans: Vec<(usize, usize)> = picks
            .iter()
            .map(|(a, n)| {
                let s = a.index(text.len() + 1);
                (s, (s + n).min(text.len()))
            })
            .collect();
        check_spans(&TokenHasher::new(seed), seed, &text, &spans);
    }
}
