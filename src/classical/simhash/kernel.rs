//! The SimHash accumulators: ±1 votes in byte lanes, and real-valued weights.
//!
//! SimHash keeps one signed counter per output bit. With ±1 votes (Tf and
//! Uniform weighting) counter `b` equals `2·ones_b − n`, where `ones_b` is how
//! many of the `n` votes had bit `b` set, so it suffices to count ones.
//! [`BitCounter`] does that with byte-wide lanes: each hash is split into its
//! 8 bytes, each byte is spread by a table into 8 one-byte lanes, and 8 plain
//! `u64` additions count all 64 bits of a token at once. The lanes are
//! widened into `u64` totals every 255 votes, before a byte can overflow.
//! That replaces txtfp 0.3.2's 64 saturating `i64` updates per token (spec P5)
//! with ~8 loads and adds, no `unsafe` and no CPU-specific code. Its counters
//! cannot saturate below 2^64 votes, where 0.3.2's `i64` ones could not either
//! below 2^63, so the signatures are identical. The lane updates of whole
//! batches (portable and SIMD) are in [`crate::arch`], picked by `votes`.

use crate::arch::scalar::votes::SPREAD;

/// Votes a lane byte can absorb before it must be widened.
const LANE_CAPACITY: u32 = 255;

/// Counts, for each of the 64 bit positions, how many added hashes had that
/// bit set; the signature bit is set iff ones outnumber zeros.
#[derive(Clone)]
pub(crate) struct BitCounter {
    /// Byte `k` of `lanes[j]` counts ones of bit `8j + k` since the last flush.
    lanes: [u64; 8],
    /// Votes in `lanes` (always `< LANE_CAPACITY` between calls).
    pending: u32,
    /// Widened one-counts per bit.
    ones: [u64; 64],
    /// Votes already widened into `ones`.
    flushed: u64,
}

impl BitCounter {
    pub(crate) const fn new() -> Self {
        Self {
            lanes: [0; 8],
            pending: 0,
            ones: [0; 64],
            flushed: 0,
        }
    }

    /// One ±1 vote per bit of `h`.
    #[inline]
    pub(crate) fn add(&mut self, h: u64) {
        for (j, lane) in self.lanes.iter_mut().enumerate() {
            *lane += SPREAD[((h >> (8 * j)) & 0xff) as usize];
        }
        self.pending += 1;
        if self.pending == LANE_CAPACITY {
            self.flush();
        }
    }

    /// One vote per hash of `hashes`, in runs that fit in the lanes:
    /// `add_run(lanes, run)` must add `run`'s ±1 votes to the lane bytes, as
    /// [`crate::arch::scalar::votes::add_run`] does; this method does the
    /// widening between runs.
    #[inline]
    pub(crate) fn add_all(
        &mut self,
        hashes: &[u64],
        mut add_run: impl FnMut(&mut [u64; 8], &[u64]),
    ) {
        let mut rest = hashes;
        while !rest.is_empty() {
            let room = (LANE_CAPACITY - self.pending) as usize;
            let (run, tail) = rest.split_at(room.min(rest.len()));
            add_run(&mut self.lanes, run);
            // `run.len() ≤ room < 256`: the cast is exact.
            self.pending += run.len() as u32;
            if self.pending == LANE_CAPACITY {
                self.flush();
            }
            rest = tail;
        }
    }

    fn flush(&mut self) {
        for (j, lane) in self.lanes.iter_mut().enumerate() {
            for k in 0..8 {
                self.ones[8 * j + k] += (*lane >> (8 * k)) & 0xff;
            }
            *lane = 0;
        }
        self.flushed += u64::from(self.pending);
        self.pending = 0;
    }

    /// Number of votes added.
    pub(crate) fn votes(&self) -> u64 {
        self.flushed + u64::from(self.pending)
    }

    /// Votes with bit `b` set, flushed or still in a lane.
    #[inline]
    fn ones(&self, b: usize) -> u64 {
        self.ones[b] + ((self.lanes[b / 8] >> (8 * (b % 8))) & 0xff)
    }

    /// Bit `b` set iff more votes had bit `b` set than clear (ties clear).
    pub(crate) fn signature(&self) -> u64 {
        let n = self.votes();
        (0..64).fold(0u64, |out, b| {
            let ones = self.ones(b);
            // ones > n − ones  ⇔  2·ones − n > 0, without overflow.
            out | (u64::from(ones > n - ones) << b)
        })
    }

    /// The signed counters `2·ones_b − n` (what 0.3.2 accumulates), for tests.
    #[cfg(test)]
    pub(crate) fn counters(&self) -> [i64; 64] {
        core::array::from_fn(|b| 2 * self.ones(b) as i64 - self.votes() as i64)
    }
}

/// Per-bit sums of real-valued weights: bit `b` is set iff the sum of `+w`
/// over hashes with bit `b` set and `−w` over the others is positive.
/// Weights are added in call order, which callers keep deterministic.
pub(crate) fn weighted_signature(votes: impl IntoIterator<Item = (u64, f64)>) -> u64 {
    let mut acc = [0f64; 64];
    for (h, w) in votes {
        for (b, a) in acc.iter_mut().enumerate() {
            // Negation is exact, so flipping the sign bit is `±w` without a branch.
            let neg = (!h >> b) & 1;
            *a += f64::from_bits(w.to_bits() ^ (neg << 63));
        }
    }
    acc.iter()
        .enumerate()
        .fold(0, |out, (b, &a)| out | (u64::from(a > 0.0) << b))
}

#[cfg(test)]
pub(super) mod tests;
