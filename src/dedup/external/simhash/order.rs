//! The order a SimHash table sorts signatures in.
//!
//! A table makes candidates of the signatures that agree under its mask. A
//! bit permutation that moves the mask's bits to the top (in their order)
//! and the other bits below them sorts those signatures next to each other,
//! as one range of the permuted values, and keeps signatures distinct. So a
//! table's records are plain `(permuted signature, document)` pairs with
//! one record per signature, sorted and looked up like a band's keys, and a
//! group of one table is a range of them. Hamming distances are the same
//! after the permutation, as long as every mask compared with is permuted
//! too.

/// The permutation of one table's mask.
#[derive(Clone, Debug)]
pub(crate) struct KeyOrder {
    /// Runs of adjacent bits that move together: `(from, len, to)`, the
    /// bits `from..from + len` go to `to..to + len`.
    moves: Vec<(u32, u32, u32)>,
    /// Bits of the mask: the top `width` bits of a permuted value.
    width: u32,
}

impl KeyOrder {
    pub(crate) fn new(mask: u64) -> Self {
        let width = mask.count_ones();
        // Destinations, highest source bit first: the mask's bits from 63
        // down, then the others from 63 - width down.
        let (mut top, mut low) = (64u32, 64 - width);
        let mut moves: Vec<(u32, u32, u32)> = Vec::new();
        for bit in (0..64u32).rev() {
            let to = if mask >> bit & 1 == 1 {
                top -= 1;
                top
            } else {
                low -= 1;
                low
            };
            match moves.last_mut() {
                Some((from, len, dest)) if *from == bit + 1 && *dest == to + 1 => {
                    *from = bit;
                    *dest = to;
                    *len += 1;
                }
                _ => moves.push((bit, 1, to)),
            }
        }
        Self { moves, width }
    }

    /// `x` permuted.
    #[inline]
    pub(crate) fn apply(&self, x: u64) -> u64 {
        self.moves.iter().fold(0, |out, &(from, len, to)| {
            out | ((x >> from) & (u64::MAX >> (64 - len))) << to
        })
    }

    /// The group of a permuted value: its mask bits.
    #[inline]
    pub(crate) fn group(&self, permuted: u64) -> u64 {
        permuted.checked_shr(64 - self.width).unwrap_or(0)
    }

    /// The permuted values of `group`, smallest and largest.
    pub(crate) fn bounds(&self, group: u64) -> (u64, u64) {
        let lo = group.checked_shl(64 - self.width).unwrap_or(0);
        (lo, lo | u64::MAX.checked_shr(self.width).unwrap_or(0))
    }

    /// The bits outside the mask, permuted: the low `64 - width` bits.
    pub(crate) fn free(&self) -> u64 {
        u64::MAX.checked_shr(self.width).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit by bit, as the module documentation defines it.
    fn naive(mask: u64, x: u64) -> u64 {
        let (mut top, mut low) = (64, 64 - mask.count_ones());
        let mut out = 0u64;
        for bit in (0..64).rev() {
            let to = if mask >> bit & 1 == 1 {
                top -= 1;
                top
            } else {
                low -= 1;
                low
            };
            out |= (x >> bit & 1) << to;
        }
        out
    }

    fn xorshift(mut s: u64) -> impl FnMut() -> u64 {
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    #[test]
    fn equals_the_bitwise_permutation_and_groups_by_mask() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut masks = vec![0, u64::MAX, 1, 1 << 63, 0xffff_0000_0000_ffff];
        for k in 0..=7 {
            masks.extend(crate::lsh::SimHashLayout::for_distance(k).unwrap().masks());
        }
        masks.extend((0..64).map(|_| next()));
        for &mask in &masks {
            let order = KeyOrder::new(mask);
            assert_eq!(order.free(), naive(mask, !mask), "{mask:016x}");
            for _ in 0..200 {
                let (a, b) = (next(), next());
                let (pa, pb) = (order.apply(a), order.apply(b));
                assert_eq!(pa, naive(mask, a), "{mask:016x} {a:016x}");
                assert_eq!((pa ^ pb).count_ones(), (a ^ b).count_ones());
                assert_eq!(order.apply(a & mask), pa & !order.free());
                assert_eq!(order.group(pa) == order.group(pb), a & mask == b & mask);
                let (lo, hi) = order.bounds(order.group(pa));
                assert!(lo <= pa && pa <= hi);
                // Another signature with a's bits under the mask falls in
                // the same range.
                let c = (a & mask) | (b & !mask);
                assert!((lo..=hi).contains(&order.apply(c)));
            }
        }
    }
}
