//! The ASCII class masks of a block, the `Scalar` level of the word
//! scanners of [`crate::tokenize`] (and the definition the SIMD versions are
//! tested against).

use crate::tokenize::ascii_scan::Masks;
use crate::tokenize::ascii_words::{CLASS, DIGIT, LETTER, MID_DIGITS, MID_LETTERS, WORD};

/// The class masks of a block of at most 64 bytes (bits past its end
/// clear). The definition: one lookup in the class table per byte.
#[inline]
pub(crate) fn class_masks(b: &[u8]) -> Masks {
    debug_assert!(b.len() <= 64);
    let mut m = Masks::default();
    for (j, &x) in b.iter().enumerate() {
        let c = CLASS[x as usize];
        let bit = |flag: u8| u64::from(c & flag != 0) << j;
        m.word |= bit(WORD);
        m.letter |= bit(LETTER);
        m.digit |= bit(DIGIT);
        m.mid_letters |= bit(MID_LETTERS);
        m.mid_digits |= bit(MID_DIGITS);
        m.high |= u64::from(x >= 0x80) << j;
        m.lead |= u64::from(x >= 0xC0) << j;
    }
    m
}
