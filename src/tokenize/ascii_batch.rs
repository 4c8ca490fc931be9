//! ASCII word spans handed out in batches, as arrays of starts and ends.
//!
//! [`ascii_scan`](super::ascii_scan) turns each 64-byte block into a mask of
//! word starts and a mask of word ends. Walking them word by word costs a
//! loop iteration per word and a mispredicted loop exit per block. Here each
//! mask is flattened into an array instead: the first 16 positions of a
//! block are written unconditionally (positions past the mask's count are
//! junk, overwritten later), so the usual block costs no branch on its word
//! count. The `k`-th end closes the `k`-th start, across blocks, so the two
//! arrays pair up by index; complete pairs are handed out in batches.

use super::ascii_scan::for_each_block;
use super::ascii_words::{ALNUM, CLASS};

/// Pairs handed out at once (at least; a batch can hold up to one block's
/// words more).
pub(crate) const WORD_BATCH: usize = 64;

/// Positions written unconditionally per mask and block.
const UNROLL: usize = 16;

/// Room in each array: a batch, one block's worth (up to 32 words in 64
/// bytes), the unconditional writes past it and the carried start.
const CAP: usize = WORD_BATCH + 64 + UNROLL + 1;

/// Appends the positions `base + j` of the set bits `j` of `m` to
/// `out[*n..]`, in order. Needs `*n + max(UNROLL, popcount) <= CAP`.
#[inline(always)]
fn flatten(mut m: u64, base: usize, out: &mut [usize; CAP], n: &mut usize) {
    let count = m.count_ones() as usize;
    let at = *n;
    if let Some(head) = out.get_mut(at..at + UNROLL) {
        for slot in head {
            *slot = base + m.trailing_zeros() as usize;
            m &= m.wrapping_sub(1);
        }
    }
    let mut k = at + UNROLL;
    while m != 0 {
        if let Some(slot) = out.get_mut(k) {
            *slot = base + m.trailing_zeros() as usize;
        }
        m &= m - 1;
        k += 1;
    }
    *n = at + count;
}

/// Word starts and ends waiting to be handed out.
struct Queue {
    starts: [usize; CAP],
    ends: [usize; CAP],
    /// Entries in each array; `ns - ne` is 0 or 1 (the open word).
    ns: usize,
    ne: usize,
    /// Whether a queued start may be a run of bare `_`.
    bare: bool,
}

impl Queue {
    /// Hands the `ne` complete pairs to `f` (without runs of bare `_`) and
    /// moves the open start, if any, to the front.
    #[inline(never)]
    fn hand_out<F: FnMut(&[usize], &[usize])>(&mut self, s: &[u8], f: &mut F) {
        let mut done = self.ne.min(CAP);
        if self.bare {
            // A run starting with `_` is a word only with a letter or digit.
            let mut kept = 0;
            for i in 0..done {
                let (a, b) = (self.starts[i], self.ends[i]);
                let word = s.get(a..b).unwrap_or_default();
                if word.first() != Some(&b'_')
                    || word.iter().any(|&x| CLASS[x as usize] & ALNUM != 0)
                {
                    self.starts[kept] = a;
                    self.ends[kept] = b;
                    kept += 1;
                }
            }
            // The open start (if any) follows the kept pairs.
            if self.ns > done {
                self.starts[kept] = self.starts[done];
            }
            self.ns = kept + (self.ns - done);
            done = kept;
            self.bare = false;
        }
        if done > 0 {
            f(&self.starts[..done], &self.ends[..done]);
        }
        // At most one start is still open; it is checked when its word closes.
        if self.ns > done {
            self.starts[0] = self.starts[done];
            self.bare = s.get(self.starts[0]) == Some(&b'_');
        }
        self.ns -= done;
        self.ne = 0;
    }
}

/// Calls `f(starts, ends)` with the byte ranges `starts[i]..ends[i]` of the
/// UAX #29 words of the ASCII text `s`, in order and in batches (each
/// non-empty): the words of `unicode_words`, which drops segments without a
/// letter or digit.
#[inline(always)]
pub(crate) fn for_each_ascii_word_batch<F: FnMut(&[usize], &[usize])>(s: &[u8], mut f: F) {
    let mut q = Queue {
        starts: [0; CAP],
        ends: [0; CAP],
        ns: 0,
        ne: 0,
        bare: false,
    };
    for_each_block(s, |base, starts, ends, m| {
        // `word` is letters, digits and `_`.
        q.bare |= starts & m.word & !(m.letter | m.digit) != 0;
        flatten(starts, base, &mut q.starts, &mut q.ns);
        flatten(ends, base, &mut q.ends, &mut q.ne);
        if q.ne >= WORD_BATCH {
            q.hand_out(s, &mut f);
        }
    });
    if q.ns > q.ne {
        // The last word runs to the end of the text.
        q.ends[q.ne % CAP] = s.len();
        q.ne += 1;
    }
    q.hand_out(s, &mut f);
}

#[cfg(test)]
mod tests;
