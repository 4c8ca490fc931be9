//! The portable lane update of SimHash's term-frequency votes, the `Scalar`
//! level of the `votes` module of [`crate::classical::simhash`].

/// `SPREAD[v]` has byte `k` equal to bit `k` of `v`: one byte lane per bit.
pub(crate) const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut v = 0;
    while v < 256 {
        let mut k = 0;
        while k < 8 {
            t[v] |= (((v >> k) & 1) as u64) << (8 * k);
            k += 1;
        }
        v += 1;
    }
    t
};

/// The portable lane update of SimHash's `BitCounter::add_all`: byte `k` of
/// `lanes[j]` gains one per hash of `run` with bit `8j + k` set. The caller
/// keeps every byte below 256.
#[inline]
pub(crate) fn add_run(lanes: &mut [u64; 8], run: &[u64]) {
    for &h in run {
        for (j, lane) in lanes.iter_mut().enumerate() {
            *lane += SPREAD[((h >> (8 * j)) & 0xff) as usize];
        }
    }
}

#[cfg(test)]
mod tests;
