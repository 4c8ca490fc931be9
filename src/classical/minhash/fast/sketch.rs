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
    pub(super) fn finish(mut self) -> Option<[u64; H]> {
        self.fill().then_some(self.bins)
    }

    /// Runs the filling rounds on the bins in place; false when no element
    /// was pushed. (The fingerprinter then moves the bins out once, into
    /// the signature: each copy of the `8·H` bytes is a measurable part of
    /// a short document's time.)
    pub(super) fn fill(&mut self) -> bool {
        self.fill_with_cap(max_rounds(H))
    }

    #[cfg(test)]
    pub(super) fn finish_with_cap(mut self, cap: u64) -> Option<[u64; H]> {
        self.fill_with_cap(cap).then_some(self.bins)
    }

    fn fill_with_cap(&mut self, cap: u64) -> bool {
        if self.elems.is_empty() {
            return false;
        }
        let mut empty = count_empty(&self.bins);
        let mut pair = 0u64;
        // Rounds 2q+1 and 2q+2 share one hash: its high half picks the bin
        // of the first, its low half the bin of the second. Within a round
        // the element's own low bits order the candidates.
        while empty > 0 && 2 * pair < cap {
            if should_dedup(self.elems.len(), H, pair, empty) {
                self.elems.sort_unstable();
                self.elems.dedup();
            }
            let (ta, tb) = ((2 * pair + 1) << VALUE_BITS, (2 * pair + 2) << VALUE_BITS);
            // Branch-free: in the early rounds of a short document about
            // half the candidates win, so a branch per candidate would be
            // mispredicted half the time. Empty bins are counted once per
            // pair instead of per win.
            for &x in &self.elems {
                let g = round_hash(x, pair, self.keys.round);
                let v = x & VALUE_MASK;
                let a = &mut self.bins[bin_of(g, H)];
                *a = (*a).min(ta | v);
                let b = &mut self.bins[bin_of(g << 32, H)];
                *b = (*b).min(tb | v);
            }
            empty = count_empty(&self.bins);
            pair += 1;
        }
        if empty > 0 {
            fill_from_next(&mut self.bins);
        }
        true
    }
}

fn count_empty(bins: &[u64]) -> usize {
    bins.iter().filter(|&&v| v == EMPTY).count()
}

/// Whether to drop repeated elements before round pair `pair`, given `n`
/// elements, `h` bins and `empty` bins still empty. Repeats change no
/// minimum, but a text that repeats a few shingles a million times would
/// otherwise take many rounds over all its copies. Sorting costs more than
/// the rounds of an ordinary document, so it happens only when the empty
/// bins say the elements are far fewer than `n` distinct values: with `n`
/// distinct elements, `2·pair + 1` rounds leave about
/// `h·(1 − 1/h)^(n·(2·pair + 1))` bins empty, and sorting waits for more
/// than twice that plus eight. Checked before pairs 0, 4 and 16 only.
fn should_dedup(n: usize, h: usize, pair: u64, empty: usize) -> bool {
    if !matches!(pair, 0 | 4 | 16) || n <= 32 {
        return false;
    }
    let placed = (n as u64).saturating_mul(2 * pair + 1);
    let expected = (h as u64).saturating_mul(miss_q32(h as u64, placed)) >> 32;
    empty as u64 > 2 * expected + 8
}

/// `(1 − 1/h)^m` in 32.32 fixed point (`2³²` is one), by squaring.
fn miss_q32(h: u64, mut m: u64) -> u64 {
    let one = 1u64 << 32;
    let mut base = one - (one / h.max(1)).max(1);
    let mut acc = one;
    while m > 0 && acc > 0 {
        if m & 1 == 1 {
            acc = (acc * base) >> 32;
        }
        base = (base * base) >> 32;
        m >>= 1;
    }
    acc
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

#[cfg(test)]
mod tests;
