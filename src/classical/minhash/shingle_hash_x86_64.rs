//! Shingles of 17–64 bytes hashed eight at a time with AVX-512 (F and DQ).
//!
//! A word 5-shingle is almost always 17–64 bytes long, XXH3-128's two
//! 16-byte-block classes. Eight spans are loaded at once and every 16-byte
//! block a lane reads is gathered; the 33–64 byte lanes run the inner round
//! too, under a mask. All reads stay inside each span. The 64×64→128-bit
//! multiplies come from [`crate::classical::hash_x86_64`]. Spans of other
//! lengths, or not ranges of the text, are hashed one by one by the scalar
//! [`ShingleHasher::hash`]. The tests of [`ShingleHasher::hash_spans`] hold
//! both paths to `xxh3_128_with_seed`.

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::shingle_hash::{PRIME_MX1, PRIME64_1, PRIME64_2, PRIME64_4, SPAN_BATCH, ShingleHasher};
use crate::classical::hash_x86_64::fold64;

/// The 16-byte blocks of one round, as words: the front block's two words,
/// then the back block's.
struct Blocks {
    f0: __m512i,
    f1: __m512i,
    b0: __m512i,
    b1: __m512i,
}

/// `h.hash(text[starts[i]..ends[i]])` (of the empty input where that is
/// not a range of `text`) for `i < min(starts.len(), ends.len(),
/// SPAN_BATCH)`, written to the front of `out` in an unspecified order;
/// returns how many.
#[target_feature(enable = "avx512f,avx512dq")]
pub(super) fn hash_spans_avx512(
    h: &ShingleHasher,
    text: &[u8],
    starts: &[usize],
    ends: &[usize],
    out: &mut [(u64, u64); SPAN_BATCH],
) -> usize {
    let n = starts.len().min(ends.len()).min(SPAN_BATCH);
    let set = |x: u64| _mm512_set1_epi64(x as i64);
    let text_len = set(text.len() as u64);
    // The spans of each block class, split without a branch per span; the
    // eight spare entries take the full-width stores of the last group.
    let mut short = Spans::new();
    let mut long = Spans::new();
    let mut k = 0;
    let mut g = 0;
    while g < n {
        let valid: __mmask8 = if n - g >= 8 {
            0xff
        } else {
            (1u8 << (n - g)) - 1
        };
        // SAFETY: the lanes in `valid` are `g..min(g + 8, n)`, inside both
        // slices; masked-off lanes are not read.
        let (s, e) = unsafe {
            (
                _mm512_maskz_loadu_epi64(valid, starts.as_ptr().add(g).cast()),
                _mm512_maskz_loadu_epi64(valid, ends.as_ptr().add(g).cast()),
            )
        };
        let len = _mm512_sub_epi64(e, s);
        // A range of text (e <= text.len(), and 17 <= len makes s < e) of
        // 17–32 or 33–64 bytes.
        let in_text = valid & _mm512_cmple_epu64_mask(e, text_len);
        let m0 = in_text & _mm512_cmplt_epu64_mask(_mm512_sub_epi64(len, set(17)), set(16));
        let m1 = in_text & _mm512_cmplt_epu64_mask(_mm512_sub_epi64(len, set(33)), set(32));
        short.push(m0, s, e);
        long.push(m1, s, e);
        let mut rest = valid & !(m0 | m1);
        while rest != 0 {
            let j = g + rest.trailing_zeros() as usize;
            // `k` counts the hashes written so far, at most one per span.
            out[k % SPAN_BATCH] = h.hash(text.get(starts[j]..ends[j]).unwrap_or_default());
            k += 1;
            rest &= rest - 1;
        }
        g += 8;
    }
    // SAFETY: `short` holds only spans with 17 <= len <= 32 and
    // e <= text.len(), `long` only spans with 33 <= len <= 64 and
    // e <= text.len(); together with `k` they are at most n <= SPAN_BATCH.
    unsafe {
        k = class_spans::<false>(h, text, &short, out, k);
        class_spans::<true>(h, text, &long, out, k)
    }
}

/// Spans of one class as two arrays of u64, filled eight lanes at a time.
/// Entries from `len` on are uninitialized: zeroing the four arrays of a
/// batch cost more than hashing a tenth of it.
struct Spans {
    s: MaybeUninit<[u64; SPAN_BATCH + 8]>,
    e: MaybeUninit<[u64; SPAN_BATCH + 8]>,
    len: usize,
}

impl Spans {
    fn new() -> Self {
        Spans {
            s: MaybeUninit::uninit(),
            e: MaybeUninit::uninit(),
            len: 0,
        }
    }

    /// Appends the lanes of `s` and `e` in `m`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn push(&mut self, m: __mmask8, s: __m512i, e: __m512i) {
        // At most SPAN_BATCH lanes are ever pushed in all (one per span),
        // and a full-width store needs 8 entries from `len` on.
        let at = self.len.min(SPAN_BATCH);
        // SAFETY: `at + 8 <= SPAN_BATCH + 8` entries of each array; the
        // stores write through raw pointers, which uninitialized memory
        // allows.
        unsafe {
            let ps = self.s.as_mut_ptr().cast::<u64>().add(at);
            let pe = self.e.as_mut_ptr().cast::<u64>().add(at);
            _mm512_storeu_si512(ps.cast(), _mm512_maskz_compress_epi64(m, s));
            _mm512_storeu_si512(pe.cast(), _mm512_maskz_compress_epi64(m, e));
        }
        self.len += m.count_ones() as usize;
    }

    /// Entries `g..g + 8` in the lanes of `m`, which must lie below `len`
    /// (zero elsewhere).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn load(&self, g: usize, m: __mmask8) -> (__m512i, __m512i) {
        let g = g.min(SPAN_BATCH);
        // SAFETY: `g + 8 <= SPAN_BATCH + 8` entries; only the lanes in `m`,
        // entries below `len` and so written by `push`, are read.
        unsafe {
            (
                _mm512_maskz_loadu_epi64(m, self.s.as_ptr().cast::<u64>().add(g).cast()),
                _mm512_maskz_loadu_epi64(m, self.e.as_ptr().cast::<u64>().add(g).cast()),
            )
        }
    }
}

/// Hashes the spans of one class (`LONG`: 33–64 bytes, else 17–32) into
/// `out` from index `k` on; returns the new count.
///
/// # Safety
/// Every span must be a range of `text` of its class's length, and
/// `k + spans.len <= SPAN_BATCH`.
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn class_spans<const LONG: bool>(
    h: &ShingleHasher,
    text: &[u8],
    spans: &Spans,
    out: &mut [(u64, u64); SPAN_BATCH],
    mut k: usize,
) -> usize {
    let set = |x: u64| _mm512_set1_epi64(x as i64);
    let keys: [__m512i; 8] = core::array::from_fn(|i| set(h.keys[i]));
    let base = text.as_ptr().cast::<i64>();
    let n = spans.len.min(SPAN_BATCH);
    let mut g = 0;
    while g < n {
        let m: __mmask8 = if n - g >= 8 {
            0xff
        } else {
            (1u8 << (n - g)) - 1
        };
        let (s, e) = spans.load(g, m);
        let len = _mm512_sub_epi64(e, s);
        let at = |v: __m512i, d: i64| _mm512_add_epi64(v, _mm512_set1_epi64(d));
        // SAFETY (both gathers): the lanes in `m` are spans with
        // s + 17 <= e <= text.len() (s + 33 <= e for `LONG`); every 8-byte
        // read is inside text[s..e]. Masked-off lanes are not read.
        let outer = unsafe {
            Blocks {
                f0: _mm512_mask_i64gather_epi64::<1>(s, m, s, base),
                f1: _mm512_mask_i64gather_epi64::<1>(s, m, at(s, 8), base),
                b0: _mm512_mask_i64gather_epi64::<1>(s, m, at(e, -16), base),
                b1: _mm512_mask_i64gather_epi64::<1>(s, m, at(e, -8), base),
            }
        };
        let mut acc = (
            _mm512_mullo_epi64(len, set(PRIME64_1)),
            _mm512_setzero_si512(),
        );
        if LONG {
            let inner = unsafe {
                Blocks {
                    f0: _mm512_mask_i64gather_epi64::<1>(s, m, at(s, 16), base),
                    f1: _mm512_mask_i64gather_epi64::<1>(s, m, at(s, 24), base),
                    b0: _mm512_mask_i64gather_epi64::<1>(s, m, at(e, -32), base),
                    b1: _mm512_mask_i64gather_epi64::<1>(s, m, at(e, -24), base),
                }
            };
            acc = round(acc, &inner, &keys[4..8]);
        }
        let (l, r) = round(acc, &outer, &keys[0..4]);
        let mix = _mm512_add_epi64(
            _mm512_add_epi64(
                _mm512_mullo_epi64(l, set(PRIME64_1)),
                _mm512_mullo_epi64(r, set(PRIME64_4)),
            ),
            _mm512_mullo_epi64(_mm512_sub_epi64(len, set(h.seed)), set(PRIME64_2)),
        );
        let mut lo = [0u64; 8];
        let mut hi = [0u64; 8];
        // SAFETY: `lo` and `hi` are 64 writable bytes each; unaligned.
        unsafe {
            _mm512_storeu_si512(lo.as_mut_ptr().cast(), avalanche(_mm512_add_epi64(l, r)));
            _mm512_storeu_si512(
                hi.as_mut_ptr().cast(),
                _mm512_sub_epi64(_mm512_setzero_si512(), avalanche(mix)),
            );
        }
        for i in 0..(n - g).min(8) {
            out[k % SPAN_BATCH] = (lo[i], hi[i]);
            k += 1;
        }
        g += 8;
    }
    k
}

/// One 32-byte round of XXH3-128 (17–128 bytes) on eight lanes, against the
/// four key words `k`.
#[target_feature(enable = "avx512f")]
#[inline]
fn round(acc: (__m512i, __m512i), b: &Blocks, k: &[__m512i]) -> (__m512i, __m512i) {
    let front = fold64(_mm512_xor_si512(b.f0, k[0]), _mm512_xor_si512(b.f1, k[1]));
    let back = fold64(_mm512_xor_si512(b.b0, k[2]), _mm512_xor_si512(b.b1, k[3]));
    (
        _mm512_xor_si512(_mm512_add_epi64(acc.0, front), _mm512_add_epi64(b.b0, b.b1)),
        _mm512_xor_si512(_mm512_add_epi64(acc.1, back), _mm512_add_epi64(b.f0, b.f1)),
    )
}

/// XXH3's `avalanche` on each lane.
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
fn avalanche(h: __m512i) -> __m512i {
    let h = _mm512_xor_si512(h, _mm512_srli_epi64::<37>(h));
    let h = _mm512_mullo_epi64(h, _mm512_set1_epi64(PRIME_MX1 as i64));
    _mm512_xor_si512(h, _mm512_srli_epi64::<32>(h))
}
