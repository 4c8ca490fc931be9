//! SimHash at 16, 32, 64 and 128 bits: the widths agree with each other
//! and behave as distances should; the 128-bit index equals a scan; and
//! (feature `interop`) the newsbot preset matches the vectors of the
//! `simhash` package for Python (`tests/data/newsbot-simhash.json`, made by
//! `tests/data/simhash-doc-v1-make.py`).

#![cfg(all(feature = "simhash", feature = "lsh"))]

use proptest::prelude::*;
use txtfp::classical::simhash::{SimHash16, SimHash32, SimHashBits};
use txtfp::{
    Canonicalizer, Fingerprinter, HashFamily, ShingleTokenizer, SimHash64, SimHash128,
    SimHash128Index, SimHashFingerprinter, WordTokenizer, hamming,
};

fn fp() -> SimHashFingerprinter<ShingleTokenizer<WordTokenizer>> {
    SimHashFingerprinter::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 2,
            inner: WordTokenizer,
        },
    )
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec("[a-zé東]{1,6}", 2..30).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn widths_nest_and_distances_are_bounded(a in text(), b in text()) {
        let fp = fp().with_hasher(HashFamily::MurmurHash3_x64_128);
        let (a64, b64) = (fp.fingerprint(&a).unwrap(), fp.fingerprint(&b).unwrap());
        let a16: SimHash16 = fp.fingerprint_bits(&a).unwrap();
        let b16: SimHash16 = fp.fingerprint_bits(&b).unwrap();
        let a32: SimHash32 = fp.fingerprint_bits(&a).unwrap();
        let b32: SimHash32 = fp.fingerprint_bits(&b).unwrap();
        let a128 = fp.fingerprint128(&a).unwrap();
        let b128 = fp.fingerprint128(&b).unwrap();
        // Narrow widths are the low bits; the low half of 128 is the 64.
        prop_assert_eq!(u64::from(a16.bits()), a64.bits() & 0xffff);
        prop_assert_eq!(u64::from(a32.bits()), a64.bits() & 0xffff_ffff);
        prop_assert_eq!(a128.low64(), a64);
        // Distances never exceed the width, never shrink with more bits.
        prop_assert!(a16.hamming(b16) <= 16);
        prop_assert!(a32.hamming(b32) <= 32);
        prop_assert!(a128.hamming(b128) <= 128);
        prop_assert!(a16.hamming(b16) <= a32.hamming(b32));
        prop_assert!(a32.hamming(b32) <= hamming(a64, b64));
        prop_assert_eq!(a64.hamming(b64), hamming(a64, b64));
        prop_assert!(hamming(a64, b64) <= a128.hamming(b128));
        // Identical text: distance 0, similarity 1, cosine 1 at every width.
        let again: SimHash128 = fp.fingerprint_bits(&a).unwrap();
        prop_assert_eq!(again.hamming(a128), 0);
        prop_assert_eq!(a16.similarity(a16), 1.0);
        prop_assert_eq!(a128.cosine_estimate(again), 1.0);
        let s = a128.similarity(b128);
        prop_assert!((0.0..=1.0).contains(&s));
    }

    #[test]
    fn index_128_equals_a_scan_on_real_fingerprints(
        docs in prop::collection::vec(text(), 1..25),
        probe in 0usize..25,
        k in 0u32..=8,
    ) {
        let fp = fp();
        let mut items: Vec<(u64, SimHash128)> = Vec::new();
        for (i, d) in docs.iter().enumerate() {
            items.push((i as u64, fp.fingerprint128(d).unwrap()));
            // A near-duplicate: one word appended.
            items.push((1000 + i as u64, fp.fingerprint128(&format!("{d} zz")).unwrap()));
        }
        let mut idx = SimHash128Index::with_max_distance(k).unwrap();
        idx.extend(items.iter().copied());
        let q = items[probe % items.len()].1;
        let mut want: Vec<(u64, u32)> = items
            .iter()
            .map(|&(id, h)| (id, h.hamming(q)))
            .filter(|&(_, d)| d <= k)
            .collect();
        want.sort_unstable_by_key(|&(id, d)| (d, id));
        prop_assert_eq!(idx.query_within(&q, k).unwrap(), want);
    }
}

#[test]
fn narrow_signatures_widen_without_changing_distances() {
    let (a, b) = (SimHash32(0xdead_beef), SimHash32(0x0bad_f00d));
    assert_eq!(
        hamming(SimHash64::from(a), SimHash64::from(b)),
        a.hamming(b)
    );
    let (c, d) = (SimHash16(0xbeef), SimHash16(0xf00d));
    assert_eq!(
        hamming(SimHash64::from(c), SimHash64::from(d)),
        c.hamming(d)
    );
}

#[cfg(feature = "interop")]
mod newsbot {
    use super::*;
    use serde_json::Value;
    use txtfp::classical::simhash::newsbot::{self, NewsbotHash};

    #[test]
    fn matches_the_python_simhash_package() {
        let path = format!(
            "{}/tests/data/newsbot-simhash.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let vectors = file["vectors"].as_array().unwrap();
        assert!(vectors.len() >= 60);
        for v in vectors {
            let text = match &v["text"] {
                Value::String(s) => s.clone(),
                r => r["repeat"]
                    .as_str()
                    .unwrap()
                    .repeat(r["times"].as_u64().unwrap() as usize),
            };
            let bits = v["bits"].as_u64().unwrap() as u32;
            let got = newsbot::simhash(&text, bits).unwrap();
            assert_eq!(
                got,
                v["hex"].as_str().unwrap(),
                "{bits} bits of {:?}",
                &text[..text.len().min(40)]
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn newsbot_widths_behave(a in "[ -~]{0,80}", b in "[ -~]{0,80}") {
            for bits in newsbot::WIDTHS {
                for hash in [NewsbotHash::Md5,
                             NewsbotHash::Family { family: HashFamily::Xxh3_64, seed: 7 }] {
                    let ha = newsbot::simhash_with(&a, bits, hash).unwrap();
                    let hb = newsbot::simhash_with(&b, bits, hash).unwrap();
                    prop_assert_eq!(ha.len(), (bits / 4) as usize);
                    prop_assert!(newsbot::hamming_distance(&ha, &hb).unwrap() <= bits);
                    prop_assert_eq!(newsbot::hamming_distance(&ha, &ha).unwrap(), 0);
                    // Narrow widths are the low bits of the 128-bit value.
                    let wide = newsbot::simhash_value(&a, 128, hash).unwrap();
                    let narrow = newsbot::parse_hex(&ha).unwrap();
                    let mask = if bits == 128 { u128::MAX } else { (1u128 << bits) - 1 };
                    prop_assert_eq!(narrow, wide & mask);
                    if newsbot::tokenize(&a).is_empty() {
                        prop_assert_eq!(narrow, 0);
                    }
                }
            }
        }
    }
}
