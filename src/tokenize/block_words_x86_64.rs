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
//! still classed one by one, in order.

use core::arch::x86_64::*;

use super::mixed_words::WIDE_TABLES;

/// Lead bytes of the characters of a block the kernel classed, bit `j`
/// for byte `base + j`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Common {
    /// 2-byte plain letters (Latin, Greek, Cyrillic, Arabic...).
    pub(super) letters2: u64,
    /// 3-byte plain letters (pages of Hangul syllables, Latin extended
    /// additional).
    pub(super) letters3: u64,
    /// 3-byte characters that are words on their own (pages of Han).
    pub(super) singles3: u64,
}

/// The characters among `lead` (first bytes of non-ASCII characters of the
/// block at `b[base..]`, each lying inside `b`) that the tables class.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) fn common(b: &[u8], base: usize, lead: u64) -> Common {
    let rem = b.len().saturating_sub(base);
    if rem == 0 || lead == 0 {
        return Common::default();
    }
    let t = &WIDE_TABLES;
    // SAFETY: the table loads read 64 bytes inside the 256- and 64-byte
    // arrays of `t`; the masked loads touch only the bytes whose mask bit
    // is set, `b[base..base + min(rem, 64)]` and one byte further on,
    // all inside `b` (`base < b.len()`, so `base + 1` is at most one past
    // the end, a valid base for an empty access).
    let (l0, l1, l2, l3, pages, v0, v1) = unsafe {
        let p = t.letters2.as_ptr();
        let s = b.as_ptr().add(base);
        (
            _mm512_loadu_si512(p.cast()),
            _mm512_loadu_si512(p.add(64).cast()),
            _mm512_loadu_si512(p.add(128).cast()),
            _mm512_loadu_si512(p.add(192).cast()),
            _mm512_loadu_si512(t.pages.as_ptr().cast()),
            _mm512_maskz_loadu_epi8(low(rem), s.cast()),
            _mm512_maskz_loadu_epi8(low(rem - 1), s.add(1).cast()),
        )
    };
    let byte = |x: u8| _mm512_set1_epi8(x as i8);
    let bit = _mm512_set1_epi64(0x8040_2010_0804_0201u64 as i64);
    let is = |mask: u8, value: u8| {
        _mm512_cmpeq_epi8_mask(_mm512_and_si512(v0, byte(mask)), byte(value)) & lead
    };
    // 2-byte: bitmap byte `u >> 3` = (b0 & 0x1F) << 3 | (b1 & 0x3F) >> 3,
    // bit `u & 7` = b1 & 7.
    let idx2 = _mm512_or_si512(
        _mm512_and_si512(_mm512_slli_epi16(v0, 3), byte(0xF8)),
        _mm512_and_si512(_mm512_srli_epi16(v1, 3), byte(0x07)),
    );
    let byte2 = _mm512_mask_blend_epi8(
        _mm512_movepi8_mask(idx2),
        _mm512_permutex2var_epi8(l0, idx2, l1),
        _mm512_permutex2var_epi8(l2, idx2, l3),
    );
    let bit2 = _mm512_shuffle_epi8(bit, _mm512_and_si512(v1, byte(7)));
    let letters2 = _mm512_test_epi8_mask(byte2, bit2) & is(0xE0, 0xC0);
    // 3-byte: page `u >> 8`; its byte (b0 & 0x0F) << 1 | b1 >> 5 & 1, its
    // bit b1 >> 2 & 7. The letter pages are 32 bytes further on.
    let idx3 = _mm512_or_si512(
        _mm512_and_si512(_mm512_slli_epi16(v0, 1), byte(0x1E)),
        _mm512_and_si512(_mm512_srli_epi16(v1, 5), byte(0x01)),
    );
    let bit3 = _mm512_shuffle_epi8(bit, _mm512_and_si512(_mm512_srli_epi16(v1, 2), byte(7)));
    let single_page = _mm512_permutexvar_epi8(idx3, pages);
    let letter_page = _mm512_permutexvar_epi8(_mm512_or_si512(idx3, byte(32)), pages);
    let lead3 = is(0xF0, 0xE0);
    Common {
        letters2,
        letters3: _mm512_test_epi8_mask(letter_page, bit3) & lead3,
        singles3: _mm512_test_epi8_mask(single_page, bit3) & lead3,
    }
}

/// Bits `0..n` set (all of them for `n >= 64`).
#[inline(always)]
fn low(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

#[cfg(test)]
mod tests {
    use alloc::string::String;
    use alloc::vec::Vec;

    use proptest::prelude::*;

    use super::*;
    use crate::tokenize::mixed_words::{ALNUM, PLAIN, class_at, is_plain_letter};

    /// What the kernel must report for the block at `base`, from the
    /// scalar classes: every 2-byte plain letter; a 3-byte character when
    /// every code point of its page has its class (letters, or words on
    /// their own); nothing else.
    fn expected(s: &str, base: usize, lead: u64) -> Common {
        let b = s.as_bytes();
        let page_is = |u: u32, want: &dyn Fn(u16) -> bool| {
            ((u >> 8) << 8..((u >> 8) + 1) << 8).all(|v| {
                let c = char::from_u32(v).map_or(0, |c| {
                    let mut buf = [0u8; 4];
                    class_at(c.encode_utf8(&mut buf).as_bytes(), 0).0
                });
                want(c)
            })
        };
        let mut want = Common::default();
        for j in (0..64).filter(|j| lead >> j & 1 != 0) {
            let (class, len) = class_at(b, base + j);
            let u = s[base + j..].chars().next().map_or(0, u32::from);
            let bit = 1u64 << j;
            match len {
                2 if is_plain_letter(class) => want.letters2 |= bit,
                3 if page_is(u, &|c| is_plain_letter(c)) => want.letters3 |= bit,
                3 if page_is(u, &|c| c == PLAIN | ALNUM) => want.singles3 |= bit,
                _ => {}
            }
        }
        want
    }

    /// Lead bytes of the non-ASCII characters starting in `s[base..base + 64]`.
    fn leads(s: &str, base: usize) -> u64 {
        let b = s.as_bytes();
        (0..64.min(b.len() - base))
            .filter(|&j| b[base + j] >= 0xC0)
            .fold(0, |m, j| m | 1 << j)
    }

    fn check(s: &str) -> Result<(), TestCaseError> {
        if !crate::cpu::has_avx512vbmi() {
            return Ok(());
        }
        for base in (0..s.len()).filter(|&i| s.is_char_boundary(i)) {
            // A block keeps only the characters that lie inside it.
            let mut end = (base + 64).min(s.len());
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            let lead = leads(s, base)
                & if end - base >= 64 {
                    !0
                } else {
                    (1 << (end - base)) - 1
                };
            // SAFETY: the CPU has AVX-512 F, BW and VBMI (checked above).
            let got = unsafe { common(s.as_bytes(), base, lead) };
            prop_assert_eq!(got, expected(s, base, lead), "block at {} of {:?}", base, s);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn kernel_classes_equal_scalar(parts in proptest::collection::vec(prop_oneof![
            "[a-z .]{0,20}",
            "[éÉжЖΩαß٣ءب\u{301}\u{5D0}·]{0,20}",
            "[中文字한국어\u{4DBF}\u{4DC0}ぁアー、\u{1E00}\u{2019}\u{3005}]{0,20}",
            "[😀]{0,2}",
        ], 0..8)) {
            check(&parts.concat())?;
        }
    }

    /// Every code point below U+10000 once, each after an ASCII letter.
    #[test]
    fn every_code_point() {
        let mut s = String::new();
        for c in (0x80..0x1_0000).filter_map(char::from_u32) {
            s.push('a');
            s.push(c);
        }
        let starts: Vec<usize> = (0..s.len())
            .step_by(61)
            .filter(|&i| s.is_char_boundary(i))
            .collect();
        for base in starts {
            let mut end = (base + 64).min(s.len());
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            let lead = leads(&s, base)
                & if end - base >= 64 {
                    !0
                } else {
                    (1 << (end - base)) - 1
                };
            if crate::cpu::has_avx512vbmi() {
                // SAFETY: the CPU has AVX-512 F, BW and VBMI.
                let got = unsafe { common(s.as_bytes(), base, lead) };
                assert_eq!(got, expected(&s, base, lead), "block at {base}");
            }
        }
    }
}
