//! The bins of one document: element hashes in, slot values out.
//!
//! Round 0 is one-permutation hashing: each element goes to one bin
//! ([`bin_of`] of its hash) and each bin keeps the smallest value, the
//! element's low [`VALUE_BITS`] bits. Bins left empty are then filled by
//! further rounds over the same elements, each sending every element to a
//! fresh random bin (Dahlgaard, Knudsen and Thorup's *fast similarity
//! sketching*). A value carries its round above the element's bits, so a
//! later round can only fill a bin every earlier round left empty, and the
//! rounds stop as soon as no bin is empty: the result is the same as with
//! endless rounds. Each slot holds the first (round, element bits) that
//! reached it, a rule that treats every element alike whatever else the
//! document holds, which is what makes `P[slot equal] = J` exact.

use alloc::vec::Vec;

use super::hash::{Keys, VALUE_BITS, VALUE_MASK, bin_of, round_hash};

/// No element reached this bin yet. Every real value is smaller: a value is
/// at most `round << 40 | (2⁴⁰ − 1)` with `round < 2²⁴`.
pub(super) const EMPTY: u64 = u64::MAX;

/// Rounds after which the last empty bins (if any) are filled by copying,
/// so that no input loops for long. With a single element, a bin is still
/// empty after `R` rounds with probability `(1 − 1/H)^R ≈ e^(−R/H)`: for
/// `R = 64·H + 64` the fallback never runs in practice. (At most 2²⁴ − 2
/// rounds, so the round fits above the 40 value bits.)
pub(super) fn max_rounds(h: usize) -> u64 {
    (64 * h as u64 + 64).min((1 << (64 - VALUE_BITS)) - 2)
}

/// Sketch state: the bins and the element hashes seen (rounds after the
/// first need them again; 8 bytes per token).
pub(super) struct FastSketch<const H: usize> {
    pub(super) bins: [u64; H],
    pub(super) elems: Vec<u64>,
    pub(super) keys: Keys,
}

impl<const H: usize> FastSketch<H> {
    pub(super) fn new(seed: u64, capacity: usize) -> Self {
        Self {
            bins: [EMPTY; H],
            elems: Vec::with_capacity(capacity),
            keys: Keys::new(seed),
        }
    }

    /// Round 0 over every element hash in `elems`.
    pub(super) fn bin_all(&mut self) {
        for &x in &self.elems {
            place(&mut self.bins, x);
        }
    }

    /// Runs the filling rounds and returns the slots, or `None` when no
    /// element was pushed.
    pub(super) fn finish(self) -> Option<[u64; H]> {
        self.finish_with_cap(max_rounds(H))
    }

    pub(super) fn finish_with_cap(mut self, cap: u64) -> Option<[u64; H]> {
        if self.elems.is_empty() {
            return None;
        }
        let mut empty = self.bins.iter().filter(|&&v| v == EMPTY).count();
        let mut pair = 0u64;
        // Rounds 2q+1 and 2q+2 share one hash: its high half picks the bin
        // of the first, its low half the bin of the second. Within a round
        // the element's own low bits order the candidates.
        while empty > 0 && 2 * pair < cap {
            // Repeats change no minimum; dropping them bounds the rounds of
            // a text that repeats a few shingles a million times. Sorting
            // costs more than the rounds of an ordinary document, so it
            // happens only when empty slots are unlikely without repeats:
            // many elements yet a slot left empty by round 0, or elements
            // left after eight rounds.
            let n = self.elems.len();
            if (pair == 0 && n > 8 * H) || (pair == 4 && n > 32) {
                self.elems.sort_unstable();
                self.elems.dedup();
            }
            let (ta, tb) = ((2 * pair + 1) << VALUE_BITS, (2 * pair + 2) << VALUE_BITS);
            for &x in &self.elems {
                let g = round_hash(x, pair, self.keys.round);
                let v = x & VALUE_MASK;
                for (slot, tag) in [(bin_of(g, H), ta), (bin_of(g << 32, H), tb)] {
                    let slot = &mut self.bins[slot];
                    if tag | v < *slot {
                        empty -= usize::from(*slot == EMPTY);
                        *slot = tag | v;
                    }
                }
            }
            pair += 1;
        }
        if empty > 0 {
            fill_from_next(&mut self.bins);
        }
        Some(self.bins)
    }
}

/// Round 0 for one element hash `x`.
#[inline(always)]
pub(super) fn place<const H: usize>(bins: &mut [u64; H], x: u64) {
    if H > 0 {
        let slot = &mut bins[bin_of(x, H)];
        *slot = (*slot).min(x & VALUE_MASK);
    }
}

/// The fallback after [`max_rounds`]: each empty bin takes the value of the
/// next nonempty bin (circularly). Deterministic, so equal documents still
/// get equal signatures.
fn fill_from_next(bins: &mut [u64]) {
    let n = bins.len();
    let Some(first) = bins.iter().position(|&v| v != EMPTY) else {
        return;
    };
    // Walk backwards from the first nonempty bin so each empty bin sees the
    // nearest nonempty bin after it.
    let mut carry = bins[first];
    for step in 1..=n {
        let i = (first + n - step) % n;
        if bins[i] == EMPTY {
            bins[i] = carry;
        } else {
            carry = bins[i];
        }
    }
}
