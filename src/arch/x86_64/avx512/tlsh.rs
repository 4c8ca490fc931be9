//! The TLSH triplet hashes of 64 positions at a time with AVX-512 VBMI.
//!
//! A Pearson lookup of 64 bytes is two `vpermi2b` (each indexes 128 table
//! bytes held in two registers by the low 7 bits of every index byte) and
//! a blend on the index's top bit. The six triplet hashes of a block are
//! three lookups each; the checksum's first two steps are vectorised the
//! same way, and its last step, which depends on the previous checksum,
//! runs as a scalar chain. Only buckets below 128 reach the digest, so the
//! hashes are compressed (VBMI2) to those, about half, and counted by
//! scalar increments spread over four tables, interleaved with the
//! checksum chain so that its latency hides behind them.

use core::arch::x86_64::{
    __m512i, _mm512_loadu_si512, _mm512_mask_blend_epi8, _mm512_maskz_compress_epi8,
    _mm512_movepi8_mask, _mm512_permutex2var_epi8, _mm512_set1_epi8, _mm512_storeu_si512,
    _mm512_xor_si512,
};

use crate::arch::x86_64::Avx512Vbmi2;
use crate::classical::tlsh::histogram::{CHECKSUM_SALT, Histogram, TRIPLETS};
use crate::classical::tlsh::tables::PEARSON;

/// Positions per kernel step.
pub(crate) const BLOCK: usize = 64;

/// Consumes whole blocks of `data` from `start` (which must be at least 4,
/// so that every position has its four preceding bytes in `data`) and
/// returns where it stopped (`start`, doing nothing, if `start < 4`).
pub(crate) fn run(_: Avx512Vbmi2, h: &mut Histogram, data: &[u8], start: usize) -> usize {
    if start < 4 {
        return start;
    }
    // SAFETY: an `Avx512Vbmi2` proof exists only if the CPU has AVX-512F,
    // BW, VBMI and VBMI2, the features `run_vbmi` is compiled for.
    unsafe { run_vbmi(h, data, start) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn lookup(t: &[__m512i; 4], x: __m512i) -> __m512i {
    let lo = _mm512_permutex2var_epi8(t[0], x, t[1]);
    let hi = _mm512_permutex2var_epi8(t[2], x, t[3]);
    _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi)
}

/// 64 bytes of `data` from `at`.
#[target_feature(enable = "avx512f")]
fn load(data: &[u8], at: usize) -> __m512i {
    let block = &data[at..at + BLOCK];
    // SAFETY: `block` is 64 readable bytes; the load is unaligned.
    unsafe { _mm512_loadu_si512(block.as_ptr().cast()) }
}

#[target_feature(enable = "avx512f")]
fn store(out: &mut [u8], v: __m512i) {
    let out = &mut out[..BLOCK];
    // SAFETY: `out` is 64 writable bytes; the store is unaligned.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2")]
fn run_vbmi(h: &mut Histogram, data: &[u8], start: usize) -> usize {
    let end = start + (data.len() - start) / BLOCK * BLOCK;
    let mut table = [_mm512_set1_epi8(0); 4];
    for (q, reg) in table.iter_mut().enumerate() {
        *reg = load(&PEARSON, q * BLOCK);
    }
    let salt = |s: u8| _mm512_set1_epi8(s as i8);
    let mut counts = [[0u32; 128]; 4];
    // The kept hashes of a block, back to back; room for a full last store.
    let mut kept = [0u8; 7 * BLOCK];
    let mut steps = [0u8; BLOCK];
    let mut checksum = h.checksum;
    let mut p = start;
    while p < end {
        let w = [
            load(data, p),
            load(data, p - 1),
            load(data, p - 2),
            load(data, p - 3),
            load(data, p - 4),
        ];
        let x = lookup(&table, _mm512_xor_si512(salt(CHECKSUM_SALT), w[0]));
        store(&mut steps, lookup(&table, _mm512_xor_si512(x, w[1])));
        let mut n = 0;
        for &(s, i, j) in &TRIPLETS {
            let x = lookup(&table, _mm512_xor_si512(salt(s), w[0]));
            let x = lookup(&table, _mm512_xor_si512(x, w[i]));
            let r = lookup(&table, _mm512_xor_si512(x, w[j]));
            let low = !_mm512_movepi8_mask(r);
            store(&mut kept[n..], _mm512_maskz_compress_epi8(low, r));
            n += low.count_ones() as usize;
        }
        // Three increments per checksum step covers the usual ~192 kept
        // hashes; the rest follow.
        let kept = &kept[..n];
        let mut quads = kept.chunks_exact(4);
        for &s in &steps {
            checksum = PEARSON[usize::from(s ^ checksum)];
            if let Some(q) = quads.next() {
                for (c, &b) in counts.iter_mut().zip(q) {
                    let n = &mut c[usize::from(b & 127)];
                    *n = n.wrapping_add(1);
                }
            }
        }
        for q in quads.by_ref() {
            for (c, &b) in counts.iter_mut().zip(q) {
                let n = &mut c[usize::from(b & 127)];
                *n = n.wrapping_add(1);
            }
        }
        for &b in quads.remainder() {
            let n = &mut counts[0][usize::from(b & 127)];
            *n = n.wrapping_add(1);
        }
        p += BLOCK;
    }
    for c in &counts {
        for (total, &n) in h.counts.iter_mut().zip(c) {
            *total = total.wrapping_add(n);
        }
    }
    h.checksum = checksum;
    h.advance(data, start, end);
    end
}
