//! The portable MinHash kernels, the `Scalar` level of
//! [`crate::classical::minhash`]'s `Kernel`.

/// `slots[i] = min(slots[i], lo +ₘ i ×ₘ hi)` for every `i`: `lo + i·hi` is
/// built by repeated addition (equal mod 2^64), which drops the multiply
/// from the loop.
#[inline]
pub(crate) fn update_slots(slots: &mut [u64], lo: u64, hi: u64) {
    let mut h = lo;
    for slot in slots.iter_mut() {
        if h < *slot {
            *slot = h;
        }
        h = h.wrapping_add(hi);
    }
}

/// Number of `i` with `a[i] == b[i]`, over the shorter length.
#[inline]
pub(crate) fn count_equal(a: &[u64], b: &[u64]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x == y).count()
}
