//! The AVX-512BW lane kernel of SimHash's term-frequency votes (the
//! `votes` module of [`crate::classical::simhash`] dispatches to it).

use core::arch::x86_64::*;

use crate::arch::x86_64::Avx512Bw;

/// Byte `i` of `lanes` gains one per hash of `run` with bit `i` set, as
/// [`crate::arch::scalar::votes::add_run`] does; the caller keeps every
/// count below 256.
#[inline(always)]
pub(crate) fn add_run(_: Avx512Bw, lanes: &mut [u64; 8], run: &[u64]) {
    // SAFETY: an `Avx512Bw` proof exists only if the CPU has AVX-512F and
    // AVX-512BW.
    unsafe { add_run_avx512bw(lanes, run) }
}

/// Byte `i` of `lanes` (little-endian, so byte `k` of `lanes[j]` for
/// `i = 8j + k`) gains one per hash of `run` with bit `i` set: `vpmovm2b`
/// makes the hash a vector of 0 / −1 bytes, subtracting it adds the votes.
/// Bytes wrap mod 256; the caller (SimHash's `BitCounter::add_all`) keeps
/// every count below 256.
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn add_run_avx512bw(lanes: &mut [u64; 8], run: &[u64]) {
    // SAFETY: `lanes` is 64 readable bytes; loadu has no alignment requirement.
    let mut acc = unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) };
    for &h in run {
        acc = _mm512_sub_epi8(acc, _mm512_movm_epi8(h));
    }
    // SAFETY: `lanes` is 64 writable bytes, borrowed exclusively.
    unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), acc) };
}
