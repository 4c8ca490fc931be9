//! Shingles of 17–64 bytes hashed eight at a time with AVX-512 (F and DQ).
//!
//! A word 5-shingle is almost always 17–64 bytes long, XXH3-128's two
//! 16-byte-block classes (one round for 17–32 bytes, two for 33–64). A batch
//! is first split by class, eight spans at a time, with a register compress
//! into two lists; each list is then hashed eight lanes at a time, every
//! 16-byte block a lane reads gathered (all reads stay inside the span). The
//! 64×64→128-bit multiplies come from [`super::hash`], and
//! the `[lo, hi]` pairs go out with two masked stores. Spans of other
//! lengths, or not ranges of the text, are hashed one by one by the scalar
//! [`ShingleHasher::hash`]. The tests of [`ShingleHasher::hash_spans`] hold
//! both paths to `xxh3_128_with_seed`.
//!
//! Tried instead of the gathers: each lane's block by a masked 16-byte load
//! into its pair of lanes and two permutes. Slower (MinHash 246 → 234 MB/s);
//! likely because those loads cannot take their bytes from the window
//! buffer's recent 16-byte stores.

use core::arch::x86_64::*;
use core::mem::MaybeUninit;

use super::hash::{fold64, load_spans};
use crate::arch::x86_64::Avx512Dq;
use crate::classical::minhash::shingle_hash::{
    PRIME_MX1, PRIME64_1, PRIME64_2, PRIME64_4, SPAN_BATCH, ShingleHasher,
};

/// [`hash_spans_avx512`] on a CPU proven to have AVX-512F and DQ.
#[inline(always)]
pub(crate) fn hash_spans(
    _: Avx512Dq,
    h: &ShingleHasher,
    text: &[u8],
    starts: &[usize],
    ends: &[usize],
    out: &mut [[u64; 2]; SPAN_BATCH],
) -> usize {
    // SAFETY: an `Avx512Dq` proof exists only if the CPU has AVX-512F and
    // AVX-512DQ, the features the kernel is compiled for.
    unsafe { hash_spans_avx512(h, text, starts, ends, out) }
}

/// The 16-byte blocks of one round, as words: the front block's two words,
/// then the back block's.
struct Blocks {
    f0: __m512i,
    f1: __m512i,
    b0: __m512i,
    b1: __m512i,
}

impl Blocks {
    /// The blocks at `text[front[i]..front[i] + 16]` and
    /// `text[back[i]..back[i] + 16]` of the lanes `i` in `m`, by gathers
    /// (the other lanes are unspecified).
    ///
    /// # Safety
    /// Both ranges must lie in `text` for every lane in `m`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn gather(text: &[u8], m: __mmask8, front: __m512i, back: __m512i) -> Blocks {
        let base = text.as_ptr().cast::<i64>();
        let eight = _mm512_set1_epi64(8);
        // SAFETY: each gathered lane reads 8 bytes inside one of its two
        // blocks, which lie in `text`; masked-off lanes are not read.
        unsafe {
            Blocks {
                f0: _mm512_mask_i64gather_epi64::<1>(front, m, front, base),
                f1: _mm512_mask_i64gather_epi64::<1>(
                    front,
                    m,
                    _mm512_add_epi64(front, eight),
                    base,
                ),
                b0: _mm512_mask_i64gather_epi64::<1>(front, m, back, base),
                b1: _mm512_mask_i64gather_epi64::<1>(front, m, _mm512_add_epi64(back, eight), base),
            }
        }
    }
}

/// `h.hash(text[starts[i]..ends[i]])` (of the empty input where that is
/// not a range of `text`) for `i < min(starts.len(), ends.len(),
/// SPAN_BATCH)`, written to the front of `out` in an unspecified order;
/// returns how many.
#[target_feature(enable = "avx512f,avx512dq")]
fn hash_spans_avx512(
    h: &ShingleHasher,
    text: &[u8],
    starts: &[usize],
    ends: &[usize],
    out: &mut [[u64; 2]; SPAN_BATCH],
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
        let (valid, s, e) = load_spans(&starts[..n], &ends[..n], g);
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
            let (lo, hi) = h.hash(text.get(starts[j]..ends[j]).unwrap_or_default());
            out[k % SPAN_BATCH] = [lo, hi];
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
/// Entries from `len` on are uninitialized and never read: zeroing the four
/// arrays per batch was 1.3 % of the default MinHash's profile (as
/// `memset`).
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
    out: &mut [[u64; 2]; SPAN_BATCH],
    mut k: usize,
) -> usize {
    let set = |x: u64| _mm512_set1_epi64(x as i64);
    let keys: [__m512i; 8] = core::array::from_fn(|i| set(h.keys[i]));
    let n = spans.len.min(SPAN_BATCH);
    let mut g = 0;
    while g < n {
        let m: __mmask8 = ((1u16 << (n - g).min(8)) - 1) as u8;
        let (s, e) = spans.load(g, m);
        let len = _mm512_sub_epi64(e, s);
        let mut acc = (
            _mm512_mullo_epi64(len, set(PRIME64_1)),
            _mm512_setzero_si512(),
        );
        // The outer round's blocks start at s and e - 16, the inner
        // round's (`LONG` only) 16 bytes further in from each end.
        // SAFETY: every span has s + 17 <= e <= text.len() (s + 33 <= e
        // for `LONG`), so each 16-byte block read lies in text[s..e];
        // masked-off lanes are not read.
        let (outer, inner) = unsafe {
            (
                Blocks::gather(text, m, s, _mm512_sub_epi64(e, set(16))),
                LONG.then(|| {
                    Blocks::gather(
                        text,
                        m,
                        _mm512_add_epi64(s, set(16)),
                        _mm512_sub_epi64(e, set(32)),
                    )
                }),
            )
        };
        if let Some(inner) = inner {
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
        let lo = avalanche(_mm512_add_epi64(l, r));
        let hi = _mm512_sub_epi64(_mm512_setzero_si512(), avalanche(mix));
        // `[lo, hi]` pairs of lanes 0–3, then of lanes 4–7.
        let first = _mm512_permutex2var_epi64(lo, _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), hi);
        let second =
            _mm512_permutex2var_epi64(lo, _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), hi);
        let count = (n - g).min(8);
        // Two words per lane: lanes 0..count of the pairs, split in halves.
        let words = (1u32 << (2 * count)) - 1;
        let at = k.min(SPAN_BATCH - count);
        // SAFETY: `[u64; 2]` arrays are two contiguous u64; the masked
        // stores write only the `2 · count` words of pairs `at..at + count`,
        // inside `out` (`k + count <= SPAN_BATCH` by the caller's bound, so
        // `at == k`).
        unsafe {
            let p = out.as_mut_ptr().add(at).cast::<i64>();
            _mm512_mask_storeu_epi64(p.cast(), words as u8, first);
            _mm512_mask_storeu_epi64(p.add(8).cast(), (words >> 8) as u8, second);
        }
        k += count;
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
