//! Spans of 1–8 bytes hashed eight at a time with AVX-512 (F and DQ).
//!
//! Most words are 1–8 bytes long: XXH3's 1–3 and 4–8 byte classes. Eight
//! spans are loaded at once; the lanes of a word with 8 bytes of text from
//! its start gather those bytes (read past its end, which the class
//! formulas never look at). Both class formulas run on all eight lanes, with
//! the bytes they read picked out by variable shifts, and a mask keeps each
//! lane's own class; the hashes are compressed into the output. No sorting
//! and no branch per word. The 64×64→128-bit multiply of the 4–8 byte
//! class, which AVX-512 lacks, is built from four 32×32→64-bit multiplies.
//! The span tests of SimHash's `TokenHasher` (which dispatches here) hold
//! the result to XXH3.

use core::arch::x86_64::*;

use super::hash::{load_spans, mul_64x64_128};
use crate::arch::x86_64::Avx512Dq;
use crate::classical::simhash::token_hash::{
    PRIME_MX2, PRIME64_1, PRIME64_2, PRIME64_3, SPAN_BATCH,
};

/// [`short_spans_avx512`] on a CPU proven to have AVX-512F and DQ.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the kernel's own argument list, plus the proof
pub(crate) fn short_spans(
    _: Avx512Dq,
    flip_1to3: u64,
    flip_4to8: u64,
    text: &[u8],
    starts: &[usize],
    ends: &[usize],
    out: &mut [u64; SPAN_BATCH],
    others: &mut [u8; SPAN_BATCH],
) -> (usize, usize) {
    // SAFETY: an `Avx512Dq` proof exists only if the CPU has AVX-512F and
    // AVX-512DQ, the features the kernel is compiled for.
    unsafe { short_spans_avx512(flip_1to3, flip_4to8, text, starts, ends, out, others) }
}

/// Hashes the spans `text[starts[i]..ends[i]]`, `i < min(len, SPAN_BATCH)`,
/// that are 1–8 bytes long with 8 bytes of `text` from their start: their
/// low XXH3-128 halves (seed folded into `flip_1to3` and `flip_4to8` as
/// `TokenHasher` does) go to the front of `out`, in order. The indices of
/// the other spans go to the front of `others`. Returns both counts.
#[target_feature(enable = "avx512f,avx512dq")]
fn short_spans_avx512(
    flip_1to3: u64,
    flip_4to8: u64,
    text: &[u8],
    starts: &[usize],
    ends: &[usize],
    out: &mut [u64; SPAN_BATCH],
    others: &mut [u8; SPAN_BATCH],
) -> (usize, usize) {
    let n = starts.len().min(ends.len()).min(SPAN_BATCH);
    // A lane may gather when its start is at most `text.len() - 8`.
    let last_gather = text.len().checked_sub(8);
    let (mut k, mut no) = (0usize, 0usize);
    let mut g = 0;
    while g < n {
        let (valid, s, e) = load_spans(&starts[..n], &ends[..n], g);
        let n8 = _mm512_sub_epi64(e, s);
        let short_len = _mm512_cmplt_epu64_mask(
            _mm512_sub_epi64(n8, _mm512_set1_epi64(1)),
            _mm512_set1_epi64(8),
        );
        let in_text = match last_gather {
            Some(l) => _mm512_cmple_epu64_mask(s, _mm512_set1_epi64(l as i64)),
            None => 0,
        };
        let short = valid & short_len & in_text;
        // SAFETY: a lane in `short` reads text[s..s + 8] with
        // s <= text.len() - 8; the other lanes are not read.
        let w = unsafe {
            _mm512_mask_i64gather_epi64::<1>(_mm512_setzero_si512(), short, s, text.as_ptr().cast())
        };
        let h = short_words(flip_1to3, flip_4to8, w, n8);
        // SAFETY: `k` counts the lanes stored so far, at most one per span
        // before this group; `k + popcount(short) <= n <= SPAN_BATCH`.
        unsafe { _mm512_mask_compressstoreu_epi64(out.as_mut_ptr().add(k).cast(), short, h) };
        k += short.count_ones() as usize;
        let mut rest = valid & !short;
        while rest != 0 {
            // `no` counts the spans put aside, so `no < n <= SPAN_BATCH`.
            others[no % SPAN_BATCH] = (g + rest.trailing_zeros() as usize) as u8;
            no += 1;
            rest &= rest - 1;
        }
        g += 8;
    }
    (k, no)
}

/// The hashes of eight words: lane `i` hashes the first `n[i]` (1..=8)
/// bytes of `w[i]` (little-endian). Lanes with other lengths give
/// unspecified values.
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
fn short_words(flip_1to3: u64, flip_4to8: u64, w: __m512i, n: __m512i) -> __m512i {
    let set = |x: u64| _mm512_set1_epi64(x as i64);
    // The byte at index `k` of each lane's word, as a shift count in bits.
    let at = |k: __m512i| _mm512_slli_epi64::<3>(k);
    let byte = set(0xff);
    let low32 = set(0xffff_ffff);
    let one = set(1);

    // 1–3 bytes: first, middle and last byte with the length, then XXH64's
    // final mix.
    let c1 = _mm512_and_si512(w, byte);
    let c2 = _mm512_and_si512(_mm512_srlv_epi64(w, at(_mm512_srli_epi64::<1>(n))), byte);
    let c3 = _mm512_and_si512(_mm512_srlv_epi64(w, at(_mm512_sub_epi64(n, one))), byte);
    let combined = _mm512_or_si512(
        _mm512_or_si512(_mm512_slli_epi64::<16>(c1), _mm512_slli_epi64::<24>(c2)),
        _mm512_or_si512(c3, _mm512_slli_epi64::<8>(n)),
    );
    let mut a = _mm512_xor_si512(combined, set(flip_1to3));
    a = _mm512_xor_si512(a, _mm512_srli_epi64::<33>(a));
    a = _mm512_mullo_epi64(a, set(PRIME64_2));
    a = _mm512_xor_si512(a, _mm512_srli_epi64::<29>(a));
    a = _mm512_mullo_epi64(a, set(PRIME64_3));
    a = _mm512_xor_si512(a, _mm512_srli_epi64::<32>(a));

    // 4–8 bytes: the first and the last four bytes. For shorter words the
    // shift count wraps to a huge value and the shift gives 0; those lanes
    // take the other result anyway.
    let first = _mm512_and_si512(w, low32);
    let last = _mm512_and_si512(_mm512_srlv_epi64(w, at(_mm512_sub_epi64(n, set(4)))), low32);
    let x = _mm512_xor_si512(
        _mm512_or_si512(first, _mm512_slli_epi64::<32>(last)),
        set(flip_4to8),
    );
    let y = _mm512_add_epi64(set(PRIME64_1), _mm512_slli_epi64::<2>(n));
    let (lo, hi) = mul_64x64_128(x, y);
    let hi = _mm512_add_epi64(hi, _mm512_slli_epi64::<1>(lo));
    let mut b = _mm512_xor_si512(lo, _mm512_srli_epi64::<3>(hi));
    b = _mm512_xor_si512(b, _mm512_srli_epi64::<35>(b));
    b = _mm512_mullo_epi64(b, set(PRIME_MX2));
    b = _mm512_xor_si512(b, _mm512_srli_epi64::<28>(b));

    let short = _mm512_cmplt_epu64_mask(n, set(4));
    _mm512_mask_blend_epi64(short, b, a)
}
