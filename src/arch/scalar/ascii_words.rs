//! The word-character mask of a block, the `Scalar` level of the ASCII
//! word iterator of [`crate::tokenize`] (`ascii_words`).

use crate::tokenize::ascii_words::{CLASS, WORD};

/// Bit `j` set iff `b[j]` is a word character; `b` holds at most 64 bytes.
/// The definition, and the path for the tail of a block.
#[inline]
pub(crate) fn word_mask(b: &[u8]) -> u64 {
    debug_assert!(b.len() <= 64);
    let mut m = 0u64;
    for (j, &x) in b.iter().enumerate() {
        m |= ((CLASS[x as usize] & WORD) as u64) << j;
    }
    m
}
