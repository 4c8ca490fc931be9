extern crate std;
use alloc::vec::Vec;

use proptest::prelude::*;
use unicode_segmentation::UnicodeSegmentation;

use super::*;

fn fast(s: &str) -> Vec<&str> {
    AsciiWords::new(s).collect()
}

fn reference(s: &str) -> Vec<&str> {
    s.unicode_words().collect()
}

#[test]
fn examples() {
    for s in [
        "don't go!",
        "v1.2 RC3 3.14 1,000,000",
        "hello_world foo-bar e-mail a.b.c U.S.A.",
        "$100 #tag @user x=1",
        "a:b a::b 1:2 1;2 a;b 1.a a.1 'x' x' _ __a_ a_1 1_a ___",
        "",
        "   ",
        "a..b 1..2 1,,2 .5 5. a' 'a",
        "tab\tnl\ncr\r\nff\x0cvt\x0bend",
    ] {
        assert_eq!(fast(s), reference(s), "{s:?}");
    }
}

proptest! {
    #[test]
    fn word_mask_equals_scalar(b in proptest::collection::vec(0u8..128, 0..=64)) {
        prop_assert_eq!(word_mask(&b), scalar::word_mask(&b));
    }
}

#[test]
fn word_mask_every_byte() {
    // Each ASCII byte in each lane of a full block, and in the tail.
    for x in 0u8..128 {
        for len in [64, 50, 17, 16, 3] {
            let mut b = [b' '; 64];
            for j in 0..len {
                b[j] = x;
                assert_eq!(
                    word_mask(&b[..len]),
                    scalar::word_mask(&b[..len]),
                    "{x} at {j}/{len}"
                );
                b[j] = b' ';
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    #[test]
    fn equals_unicode_words_on_ascii(s in "[a-cA-C0-2_:.',;\" \t\r\n\x0b\x0c!@#$%&*()=+/?<>\\-]{0,40}") {
        prop_assert_eq!(fast(&s), reference(&s));
    }

    #[test]
    fn equals_unicode_words_on_long_ascii(s in "([a-z0-9_]{0,12}[ .,:';_\n-]{0,3}){0,30}") {
        prop_assert_eq!(fast(&s), reference(&s));
    }

    #[test]
    fn equals_unicode_words_on_any_ascii(s in proptest::collection::vec(0u8..128, 0..200)) {
        let s = alloc::string::String::from_utf8(s).unwrap();
        prop_assert_eq!(fast(&s), reference(&s));
    }
}
