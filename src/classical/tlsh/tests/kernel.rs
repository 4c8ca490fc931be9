//! The histogram kernels and the digest against the tlsh2 crate (a port of
//! the reference TLSH) and the reference's length-code formula.

use alloc::vec::Vec;

use proptest::prelude::*;

use super::super::histogram::Histogram;
use super::super::tables::{LENGTH_TOP, length_code};
use super::super::{TlshStreaming, build};
use crate::classical::StreamingFingerprinter;

/// tlsh2's digest of `data`, as text.
fn reference(data: &[u8]) -> Option<alloc::string::String> {
    let t = tlsh2::TlshBuilder128_1::build_from(data)?;
    Some(alloc::string::String::from_utf8(t.hash().to_vec()).unwrap())
}

fn ours(data: &[u8]) -> Option<alloc::string::String> {
    let mut h = Histogram::default();
    h.update(data);
    build(&h).ok().map(|d| d.into_string())
}

/// Bytes with some structure: text-like runs over a small alphabet, so
/// digests exist and buckets repeat.
fn texty() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(b" etaoinshrdlu\nETAO.,0123".to_vec()),
        0..3000,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn digests_equal_tlsh2(data in texty()) {
        prop_assert_eq!(ours(&data), reference(&data).filter(|_| data.len() >= 50));
    }

    #[test]
    fn random_bytes_equal_tlsh2(data in prop::collection::vec(any::<u8>(), 50..1500)) {
        prop_assert_eq!(ours(&data), reference(&data));
    }

    /// Kernel and scalar steps agree on the raw statistics for every split
    /// of the input into chunks (the kernel runs only on chunks of ≥ 68
    /// bytes, at chunk-dependent offsets).
    #[test]
    fn chunking_does_not_change_the_statistics(
        data in texty(),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let mut plain = Histogram::default();
        plain.scalar(&data);
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(data.len() + 1)).collect();
        cuts.sort_unstable();
        let mut fed = Histogram::default();
        let mut s = TlshStreaming::new();
        let mut at = 0;
        for c in cuts.into_iter().chain([data.len()]) {
            fed.update(&data[at..c]);
            s.update(&data[at..c]).unwrap();
            at = c;
        }
        // The kernel counts only the buckets the digest reads.
        prop_assert_eq!(&fed.counts[..128], &plain.counts[..128]);
        prop_assert_eq!(fed.checksum, plain.checksum);
        prop_assert_eq!(fed.len, plain.len);
        prop_assert_eq!(s.digest().ok().map(|d| d.into_string()), ours(&data));
    }
}

#[test]
fn long_inputs_equal_tlsh2() {
    // Several kernel blocks, odd tails, and lengths on both sides of
    // length-code thresholds.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let data: Vec<u8> = (0..300_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b"the quick brown fox jumps over a lazy dog\n"[(x % 42) as usize]
        })
        .collect();
    for &top in LENGTH_TOP.iter().filter(|&&t| t > 50 && t < 299_999) {
        for len in [top as usize, top as usize + 1] {
            assert_eq!(ours(&data[..len]), reference(&data[..len]), "len {len}");
        }
    }
    for len in [50, 64, 67, 68, 69, 131, 132, 133, 1000, 4099, 299_999] {
        assert_eq!(ours(&data[..len]), reference(&data[..len]), "len {len}");
    }
}

/// The table is the reference's formula: `⌊logf(len) / c − d⌋` in three
/// regimes, with single-precision log of the length.
#[test]
fn length_codes_follow_the_reference_formula() {
    fn formula(len: u32) -> i64 {
        let l = f64::from((len as f32).ln());
        let v = if len <= 656 {
            l / 0.405_465_1
        } else if len <= 3199 {
            l / 0.262_364_26 - 8.727_77
        } else {
            l / 0.095_310_18 - 62.5472
        };
        v.floor() as i64
    }
    for (i, &top) in LENGTH_TOP.iter().enumerate() {
        assert_eq!(formula(top), i as i64, "top of code {i}");
        if top < u32::MAX {
            assert_eq!(formula(top + 1), i as i64 + 1, "above the top of code {i}");
        }
        assert_eq!(length_code(top), i as u8);
        assert_eq!(length_code(top + 1), i as u8 + 1);
    }
    assert_eq!(length_code(u32::MAX), 170);
    assert_eq!(formula(u32::MAX), 170);
}
