use super::*;
use alloc::vec::Vec;

/// Every length up to 7 and every byte position: the zero-padded copy.
#[test]
fn load_partial_is_the_padded_word() {
    let src: Vec<u8> = (1..=8u8).map(|i| i.wrapping_mul(37) | 0x80).collect();
    for n in 0..8 {
        let mut pad = [0u8; 8];
        pad[..n].copy_from_slice(&src[..n]);
        assert_eq!(load_partial(&src[..n]), u64::from_le_bytes(pad), "n = {n}");
    }
}

/// The in-text fast paths equal the definition for every word length
/// (both chunk counts and the long path) at every distance from the
/// end of the text, and for words that are not at the hinted offset.
#[test]
fn word_hash_at_equals_word_hash() {
    let text: Vec<u8> = (0..80u32).map(|i| (i * 37 + 11) as u8).collect();
    for key in [0, 1, u64::MAX, 0x0123_4567_89ab_cdef] {
        for s in 0..text.len() {
            for e in s..text.len().min(s + 40) {
                let w = &text[s..e];
                let want = word_hash(w, key);
                assert_eq!(word_hash_at(&text, s, w, key), want, "s = {s}, e = {e}");
                let elsewhere = w.to_vec();
                assert_eq!(
                    word_hash_at(&text, s, &elsewhere, key),
                    want,
                    "copy, s = {s}, e = {e}"
                );
            }
        }
    }
}
