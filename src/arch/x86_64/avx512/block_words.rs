//! The common non-ASCII characters of a `block_words` block, classed 64
//! bytes at a time with AVX-512 (F, BW, VBMI).
//!
//! The scalar walk decodes each character and looks its class up, about a
//! dozen instructions per Cyrillic letter or Han ideograph. Here the whole
//! block is classed at once: two loads give every byte with the byte after
//! it, which fixes a 2-byte character's bit in a 2048-bit letter table and
//! a 3-byte character's 256-code-point page, and byte permutes look both
//! up ([`WIDE_TABLES`]). What the tables settle (plain letters below
//! U+0800, Hangul syllables, Han) joins the masks in bulk; everything else
//! (digits, marks, punctuation, kana, the first complex character) is
//! still classed one by one, in order. The lookups are shared with the
//! canonicalizer ([`super::utf8`]).

use super::utf8;
use crate::arch::x86_64::Avx512Vbmi;
use crate::tokenize::mixed_words::WIDE_TABLES;

/// Lead bytes of the characters of a block the kernel classed, bit `j`
/// for byte `base + j`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Common {
    /// 2-byte plain letters (Latin, Greek, Cyrillic, Arabic...).
    pub(crate) letters2: u64,
    /// 3-byte plain letters (pages of Hangul syllables, Latin extended
    /// additional).
    pub(crate) letters3: u64,
    /// 3-byte characters that are words on their own (pages of Han).
    pub(crate) singles3: u64,
}

/// [`common_vbmi`] on a CPU proven to have AVX-512 F, BW and VBMI.
#[inline(always)]
pub(crate) fn common(_: Avx512Vbmi, b: &[u8], base: usize, lead: u64) -> Common {
    // SAFETY: an `Avx512Vbmi` proof exists only if the CPU has AVX-512F,
    // BW and VBMI, the features the kernel is compiled for.
    unsafe { common_vbmi(b, base, lead) }
}

/// The characters among `lead` (first bytes of non-ASCII characters of the
/// block at `b[base..]`, each lying inside `b`) that the tables class.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn common_vbmi(b: &[u8], base: usize, lead: u64) -> Common {
    if base >= b.len() || lead == 0 {
        return Common::default();
    }
    let t = &WIDE_TABLES;
    let x = utf8::load(b, base);
    let lead3 = utf8::bytes_like(&x, 0xF0, 0xE0) & lead;
    Common {
        letters2: utf8::two_byte_bits(&x, &t.letters2) & utf8::bytes_like(&x, 0xE0, 0xC0) & lead,
        // The letter pages are 32 bytes further on.
        letters3: utf8::page_bits(&x, &t.pages, 32) & lead3,
        singles3: utf8::page_bits(&x, &t.pages, 0) & lead3,
    }
}

#[cfg(test)]
mod tests;
