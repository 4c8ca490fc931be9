use super::*;

#[test]
fn ascii_prefix_len_counts_leading_ascii() {
    let s = "0123456789abcdefghijklmnopqrstuvwxyz0123\u{e9}xyz";
    for start in 0..=40 {
        assert_eq!(ascii_prefix_len(&s.as_bytes()[start..]), 40 - start);
    }
    assert_eq!(ascii_prefix_len(b""), 0);
    assert_eq!(ascii_prefix_len("\u{e9}".as_bytes()), 0);
    assert_eq!(ascii_prefix_len(b"abcdefgh"), 8);
}

proptest::proptest! {
    #[test]
    fn ascii_prefix_len_is_position(b in proptest::collection::vec(
        proptest::prop_oneof![9 => 0u8..128, 1 => 128u8..=255], 0..80)) {
        let want = b.iter().position(|x| !x.is_ascii()).unwrap_or(b.len());
        proptest::prop_assert_eq!(ascii_prefix_len(&b), want);
    }
}
