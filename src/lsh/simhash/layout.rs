//! [`SimHashLayout`]: which bits of a fingerprint each table keys on.

use alloc::format;
use alloc::vec::Vec;

use crate::{Error, Result};

/// Most tables a layout may have. Every table costs about 12 bytes per stored
/// fingerprint, so this bounds an index at about 3 KiB per document.
pub const MAX_TABLES: usize = 256;

/// Largest radius [`SimHashLayout::custom`] verifies (by enumerating every
/// pattern of that many differing bits: C(64, 4) = 635 376 of them).
pub const MAX_VERIFIED_DISTANCE: u32 = 4;

/// Largest radius [`SimHashLayout::for_distance`] (and so
/// [`SimHashIndex::with_max_distance`](crate::SimHashIndex::with_max_distance))
/// picks a layout for. Larger radii are possible with
/// [`blocks`](SimHashLayout::blocks), at a growing cost per query.
pub const MAX_AUTO_DISTANCE: u32 = 7;

/// The tables of a [`SimHashIndex`](crate::SimHashIndex): one bit mask per
/// table, and the radius `k` the masks are complete for.
///
/// A fingerprint is filed in table `t` under its bits `f & masks[t]`, and a
/// query looks up the same bits of the probe. Two fingerprints that differ in
/// the bit set `D` meet in table `t` exactly when `masks[t] & D == 0`, so the
/// index finds every neighbour within distance `k` when the layout is
/// *complete*: every set of at most `k` bit positions is avoided by some
/// mask. The constructors guarantee that; more, shorter masks find the same
/// neighbours with fewer tables but more candidates to check per query.
///
/// ```
/// use txtfp::lsh::SimHashLayout;
/// let l = SimHashLayout::manku_k3();
/// assert_eq!((l.tables(), l.max_distance(), l.min_key_bits()), (16, 3, 28));
/// let l = SimHashLayout::blocks(5, 3)?; // C(5, 3) = 10 tables of 2 blocks
/// assert_eq!((l.tables(), l.min_key_bits()), (10, 25));
/// // Keying on the low half only cannot see a difference in the low half:
/// assert!(SimHashLayout::custom(vec![0xffff_ffff], 1).is_err());
/// assert!(SimHashLayout::custom(vec![0xffff_ffff, !0xffff_ffff], 1).is_ok());
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SimHashLayout {
    masks: Vec<u64>,
    k: u32,
}

impl Default for SimHashLayout {
    /// [`SimHashLayout::manku_k3`].
    fn default() -> Self {
        Self::manku_k3()
    }
}

impl SimHashLayout {
    /// The layout of Manku, Jain and Das Sarma (WWW 2007, §3.1.1) for
    /// radius 3: 16 tables of 28-bit keys. The 64 bits are cut into four
    /// 16-bit blocks; a table takes one of them, plus one of four 12-bit
    /// blocks of the remaining 48 bits. Three differing bits leave one 16-bit
    /// block clean, and then one of the 12-bit blocks of the rest.
    ///
    /// The same as `two_level(4, 4, 3)`.
    pub fn manku_k3() -> Self {
        Self::two_level(4, 4, 3).expect("4 blocks, 4 sub-blocks, k = 3 is a valid layout")
    }

    /// The layout [`SimHashIndex::with_max_distance`](crate::SimHashIndex::with_max_distance)
    /// uses for radius `k`: the fewest tables whose keys still have about 20
    /// bits (so a table hands a query about one unrelated candidate per
    /// million stored fingerprints), as far as that is possible.
    ///
    /// | `k` | layout | tables | key bits |
    /// |---|---|---|---|
    /// | 0 | `blocks(1, 0)` | 1 | 64 |
    /// | 1 | `blocks(2, 1)` | 2 | 32 |
    /// | 2 | `blocks(3, 2)` | 3 | 21–22 |
    /// | 3 | `manku_k3()` | 16 | 28 |
    /// | 4 | `blocks(6, 4)` | 15 | 20–22 |
    /// | 5 | `blocks(7, 5)` | 21 | 18–19 |
    /// | 6 | `blocks(8, 6)` | 28 | 16 |
    /// | 7 | `blocks(9, 7)` | 36 | 14–15 |
    ///
    /// For radius 3, `blocks(5, 3)` (10 tables of 25–26 bits) takes less
    /// memory than the default at a similar query cost.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `k` exceeds [`MAX_AUTO_DISTANCE`].
    pub fn for_distance(k: u32) -> Result<Self> {
        match k {
            0..=2 => Self::blocks(k as usize + 1, k),
            3 => Ok(Self::manku_k3()),
            4..=MAX_AUTO_DISTANCE => Self::blocks(k as usize + 2, k),
            _ => Err(Error::Config(format!(
                "SimHashLayout::for_distance: no default layout for max distance {k}; \
                 the limit is {MAX_AUTO_DISTANCE} (use SimHashLayout::blocks for more)"
            ))),
        }
    }

    /// The single-level scheme: the 64 bits are cut into `n_blocks`
    /// contiguous blocks of near-equal width, and there is one table for each
    /// choice of `n_blocks − k` of them (`C(n_blocks, k)` tables). `k`
    /// differing bits touch at most `k` blocks, so the other blocks form one
    /// of the tables.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] unless `k < n_blocks <= 64` and the table count is
    /// at most [`MAX_TABLES`].
    pub fn blocks(n_blocks: usize, k: u32) -> Result<Self> {
        let who = "SimHashLayout::blocks";
        check_blocks(who, "n_blocks", n_blocks, k, 64)?;
        let tables = binomial(n_blocks, k as usize);
        check_tables(who, tables)?;
        let all: Vec<u64> = (0..64).map(|b| 1u64 << b).collect();
        let groups = split(&all, n_blocks);
        let masks = choose(n_blocks, n_blocks - k as usize)
            .into_iter()
            .map(|pick| pick.iter().fold(0, |m, &g| m | groups[g]))
            .collect();
        Ok(Self { masks, k })
    }

    /// The two-level scheme of Manku et al.: cut the 64 bits into `n1`
    /// blocks and take `n1 − k` of them; cut the bits of the `k` blocks left
    /// over into `n2` groups and take `n2 − k` of those. One table per pair
    /// of choices: `C(n1, k) · C(n2, k)` tables, with longer keys than
    /// [`blocks`](Self::blocks)`(n1, k)` gives.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] unless `k < n1 <= 64`, `k < n2` and `n2` is at most
    /// the number of bits left over, and the table count is at most
    /// [`MAX_TABLES`].
    pub fn two_level(n1: usize, n2: usize, k: u32) -> Result<Self> {
        let who = "SimHashLayout::two_level";
        check_blocks(who, "n1", n1, k, 64)?;
        let all: Vec<u64> = (0..64).map(|b| 1u64 << b).collect();
        let outer = split(&all, n1);
        // The narrowest leftover: the k narrowest outer blocks.
        let mut widths: Vec<u32> = outer.iter().map(|m| m.count_ones()).collect();
        widths.sort_unstable();
        let min_left: u32 = widths[..k as usize].iter().sum();
        // With k = 0 nothing is left over and every table is the full mask.
        let max_n2 = if k == 0 { 64 } else { min_left as usize };
        check_blocks(who, "n2", n2, k, max_n2)?;
        let tables = binomial(n1, k as usize).saturating_mul(binomial(n2, k as usize));
        check_tables(who, tables)?;
        let mut masks = Vec::with_capacity(tables);
        for pick1 in choose(n1, n1 - k as usize) {
            let head = pick1.iter().fold(0, |m, &g| m | outer[g]);
            let rest: Vec<u64> = all.iter().copied().filter(|b| head & b == 0).collect();
            let inner = split(&rest, n2);
            for pick2 in choose(n2, n2 - k as usize) {
                masks.push(pick2.iter().fold(head, |m, &g| m | inner[g]));
            }
        }
        Ok(Self { masks, k })
    }

    /// A layout of caller-chosen masks, accepted only after checking that
    /// every pattern of `k` differing bits is avoided by some mask.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `k` exceeds [`MAX_VERIFIED_DISTANCE`] (the
    /// check would take too long), when `masks` is empty, longer than
    /// [`MAX_TABLES`], holds a zero mask or the same mask twice, or when the
    /// masks are not complete for `k` (the message names a pattern of bits
    /// no mask avoids).
    ///
    /// ```
    /// use txtfp::lsh::SimHashLayout;
    /// // Two disjoint masks: one of them misses any single differing bit...
    /// assert!(SimHashLayout::custom(vec![0xff, 0xff00], 1).is_ok());
    /// // ...but one bit in each is seen by both.
    /// let err = SimHashLayout::custom(vec![0xff, 0xff00], 2).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "config error: SimHashLayout::custom: incomplete for max distance 2: \
    ///      no mask avoids a difference in bits [0, 8]"
    /// );
    /// ```
    pub fn custom(masks: Vec<u64>, k: u32) -> Result<Self> {
        let who = "SimHashLayout::custom";
        if k > MAX_VERIFIED_DISTANCE {
            return Err(Error::Config(format!(
                "{who}: max distance {k} cannot be verified (the limit is \
                 {MAX_VERIFIED_DISTANCE}); use SimHashLayout::blocks or two_level"
            )));
        }
        if masks.is_empty() {
            return Err(Error::Config(format!("{who}: at least one mask is needed")));
        }
        check_tables(who, masks.len())?;
        for (t, &m) in masks.iter().enumerate() {
            if m == 0 {
                return Err(Error::Config(format!(
                    "{who}: mask {t} is 0 (it would file every fingerprint under one key)"
                )));
            }
            if masks[..t].contains(&m) {
                return Err(Error::Config(format!(
                    "{who}: mask {t} ({m:#018x}) is listed twice"
                )));
            }
        }
        if let Some(pattern) = uncovered(&masks, k) {
            let bits: Vec<u32> = (0..64).filter(|b| pattern >> b & 1 == 1).collect();
            return Err(Error::Config(format!(
                "{who}: incomplete for max distance {k}: no mask avoids a difference in bits {bits:?}"
            )));
        }
        Ok(Self { masks, k })
    }

    /// The radius `k` the layout is complete for.
    pub fn max_distance(&self) -> u32 {
        self.k
    }

    /// The table masks.
    pub fn masks(&self) -> &[u64] {
        &self.masks
    }

    /// Number of tables.
    pub fn tables(&self) -> usize {
        self.masks.len()
    }

    /// Bits in the shortest table key.
    pub fn min_key_bits(&self) -> u32 {
        self.masks.iter().map(|m| m.count_ones()).min().unwrap_or(0)
    }

    /// The layout of masks read from a file, if they form one this build
    /// would have made: complete by exhaustive check for `k` up to
    /// [`MAX_VERIFIED_DISTANCE`], and equal to a [`blocks`](Self::blocks) or
    /// [`two_level`](Self::two_level) layout above that. (A checksum does
    /// not stop a forged file; an incomplete layout would silently miss
    /// neighbours.)
    pub(crate) fn from_file(masks: Vec<u64>, k: u32) -> Option<Self> {
        if masks.is_empty() || masks.len() > MAX_TABLES || masks.contains(&0) || k >= 64 {
            return None;
        }
        if k <= MAX_VERIFIED_DISTANCE {
            return uncovered(&masks, k).is_none().then_some(Self { masks, k });
        }
        let t = masks.len();
        let r = k as usize;
        let flat = (r + 1..=64)
            .filter(|&n| binomial(n, r) == t)
            .filter_map(|n| Self::blocks(n, k).ok());
        let nested = (r + 1..=64).flat_map(|n1| {
            (r + 1..=64)
                .filter(move |&n2| binomial(n1, r).saturating_mul(binomial(n2, r)) == t)
                .filter_map(move |n2| Self::two_level(n1, n2, k).ok())
        });
        flat.chain(nested).find(|l| l.masks == masks)
    }
}

fn check_blocks(who: &str, name: &str, n: usize, k: u32, max: usize) -> Result<()> {
    if (k as usize) < n && n <= max {
        return Ok(());
    }
    Err(Error::Config(format!(
        "{who}: {name} = {n} must be greater than the max distance {k} and at most {max}"
    )))
}

fn check_tables(who: &str, tables: usize) -> Result<()> {
    if tables <= MAX_TABLES {
        return Ok(());
    }
    Err(Error::Config(format!(
        "{who}: {tables} tables exceed the limit of {MAX_TABLES}"
    )))
}

/// `C(n, r)`, saturating at `usize::MAX`.
pub(super) fn binomial(n: usize, r: usize) -> usize {
    if r > n {
        return 0;
    }
    let r = r.min(n - r);
    let mut acc: u128 = 1;
    for i in 0..r {
        // Exact at every step: acc is C(n, i), and C(n, i) · (n − i) is
        // divisible by i + 1.
        acc = acc * (n - i) as u128 / (i + 1) as u128;
        if acc > usize::MAX as u128 {
            return usize::MAX;
        }
    }
    acc as usize
}

/// Cuts `bits` (single-bit masks, in order) into `n` contiguous groups of
/// near-equal size; returns each group's mask.
fn split(bits: &[u64], n: usize) -> Vec<u64> {
    let len = bits.len();
    (0..n)
        .map(|i| {
            bits[i * len / n..(i + 1) * len / n]
                .iter()
                .fold(0, |m, b| m | b)
        })
        .collect()
}

/// Every `r`-element subset of `0..n`, in lexicographic order.
pub(super) fn choose(n: usize, r: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut pick: Vec<usize> = (0..r).collect();
    if r > n {
        return out;
    }
    loop {
        out.push(pick.clone());
        // The rightmost element that can still move right.
        let Some(i) = (0..r).rev().find(|&i| pick[i] < n - r + i) else {
            return out;
        };
        pick[i] += 1;
        for j in i + 1..r {
            pick[j] = pick[j - 1] + 1;
        }
    }
}

/// A set of exactly `k` bit positions (`k <= 64`) that every mask touches,
/// if there is one. Sets of fewer bits need no check: a mask that avoids a
/// set avoids its subsets.
pub(super) fn uncovered(masks: &[u64], k: u32) -> Option<u64> {
    fn walk(masks: &[u64], from: u32, left: u32, acc: u64) -> Option<u64> {
        if left == 0 {
            return masks.iter().all(|m| m & acc != 0).then_some(acc);
        }
        (from..=64 - left).find_map(|b| walk(masks, b + 1, left - 1, acc | 1 << b))
    }
    walk(masks, 0, k.min(64), 0)
}
