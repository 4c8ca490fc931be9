extern crate std;
use alloc::vec::Vec;

use proptest::prelude::*;
use unicode_segmentation::UnicodeSegmentation;

use super::*;

fn spans(s: &str) -> Vec<&str> {
    let mut v = Vec::new();
    for_each_ascii_word(s.as_bytes(), |a, b| v.push(&s[a..b]));
    v
}

fn reference(s: &str) -> Vec<&str> {
    s.unicode_words().collect()
}

#[test]
fn examples() {
    let long = "ab".repeat(40) + " x" + &"_".repeat(70) + " 1" + &"9".repeat(63);
    for s in [
        "don't go!",
        "v1.2 RC3 3.14 1,000,000",
        "hello_world foo-bar e-mail a.b.c U.S.A.",
        "a:b a::b 1:2 1;2 a;b 1.a a.1 'x' x' _ __a_ a_1 1_a ___",
        "",
        "   ",
        "a",
        "_",
        "a..b 1..2 1,,2 .5 5. a' 'a",
        long.as_str(),
    ] {
        assert_eq!(spans(s), reference(s), "{s:?}");
    }
}

/// Mid characters and word ends at every offset around block edges.
#[test]
fn block_edges() {
    for pad in 55..75 {
        for tail in ["a.b", "1,2", "a'b c", "ab", "__", "_a", "a:", "1.", "x y"] {
            let s = " ".repeat(pad) + tail;
            assert_eq!(spans(&s), reference(&s), "{s:?}");
            let s = "q".repeat(pad) + tail;
            assert_eq!(spans(&s), reference(&s), "{s:?}");
        }
    }
}

proptest! {
    #[test]
    fn sse2_masks_equal_scalar(b in proptest::collection::vec(0u8..=255, 0..=64)) {
        prop_assert_eq!(class_masks(&b), scalar::class_masks(&b));
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = Sse2::detect() {
            let mut full = [0u8; 64];
            full[..b.len()].copy_from_slice(&b);
            prop_assert_eq!(sse2::ascii_scan::class_masks(t, &full), scalar::class_masks(&full));
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_masks_equal_scalar(b in proptest::array::uniform32(0u8..=255), c in proptest::array::uniform32(0u8..=255)) {
        let mut full = [0u8; 64];
        full[..32].copy_from_slice(&b);
        full[32..].copy_from_slice(&c);
        if let Some(t) = Avx512Bw::detect() {
            prop_assert_eq!(avx512::ascii_scan::class_masks(t, &full), scalar::class_masks(&full));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    #[test]
    fn equals_unicode_words(s in "[a-cA-C0-2_:.',;\" \t\r\n!@#$%&*()=+/?<>\\-]{0,200}") {
        prop_assert_eq!(spans(&s), reference(&s));
    }

    #[test]
    fn equals_unicode_words_on_long_text(s in "([a-z0-9_]{0,12}[ .,:';_\n-]{0,3}){0,60}") {
        prop_assert_eq!(spans(&s), reference(&s));
    }

    #[test]
    fn equals_unicode_words_on_any_ascii(s in proptest::collection::vec(0u8..128, 0..300)) {
        let s = alloc::string::String::from_utf8(s).unwrap();
        prop_assert_eq!(spans(&s), reference(&s));
    }
}
