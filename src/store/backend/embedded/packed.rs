//! Blocks of segment entries, bit-packed: a segment's additions take about
//! half the bytes of plain `key << 32 | doc` words.
//!
//! A block holds up to [`BLOCK`](super::segment::BLOCK) entries, sorted:
//! `first key (4) | base doc (4) | key bits (1) | doc bits (1)`, then, least
//! significant bit first, the first entry's `doc - base` and, for each
//! later entry, its key's difference from the one before and its
//! `doc - base`. Base is the block's smallest doc. Keys are 32-bit digests,
//! so in a table of `n` keys consecutive ones differ by about `2^32 / n`;
//! docs span the documents the segment covers. Both widths are the
//! block's largest.

/// Bytes before a block's bits.
const HEAD: usize = 10;

/// Bits needed for `v`.
fn width(v: u32) -> u8 {
    (32 - v.leading_zeros()) as u8
}

/// Appends the block of `entries` (sorted, 1 to 64 of them) to `out`.
pub(crate) fn encode(entries: &[u64], out: &mut Vec<u8>) {
    let Some(&first) = entries.first() else {
        return;
    };
    let key = |e: u64| (e >> 32) as u32;
    let base = entries.iter().map(|&e| e as u32).min().unwrap_or(0);
    let mut kb = 0u8;
    for w in entries.windows(2) {
        kb = kb.max(width(key(w[1]).wrapping_sub(key(w[0]))));
    }
    let db = entries
        .iter()
        .map(|&e| width((e as u32).wrapping_sub(base)))
        .max()
        .unwrap_or(0);
    out.extend_from_slice(&key(first).to_le_bytes());
    out.extend_from_slice(&base.to_le_bytes());
    out.push(kb);
    out.push(db);
    let mut bits = Bits::default();
    bits.put((first as u32).wrapping_sub(base), db, out);
    for w in entries.windows(2) {
        bits.put(key(w[1]).wrapping_sub(key(w[0])), kb, out);
        bits.put((w[1] as u32).wrapping_sub(base), db, out);
    }
    bits.finish(out);
}

/// The length in bytes of a block of `n` entries of key and doc widths
/// `kb` and `db`.
fn block_len(n: usize, kb: u8, db: u8) -> usize {
    let bits = n.saturating_sub(1) * usize::from(kb) + n * usize::from(db);
    HEAD + bits.div_ceil(8)
}

/// Decodes the block of `n` entries at the start of `bytes` into `out`
/// (cleared first). Returns its length in bytes, or `None` when `bytes` is
/// too short or the header impossible (a damaged block: never a panic).
pub(crate) fn decode(bytes: &[u8], n: usize, out: &mut Vec<u64>) -> Option<usize> {
    out.clear();
    let mut entries = Entries::new(bytes, n)?;
    for _ in 0..n {
        out.push(entries.next()??);
    }
    Some(entries.len)
}

/// The entries of one block, decoded one at a time (a lookup stops at the
/// first key past the one it wants). Yields `Some(None)` when the bits run
/// out early (a damaged block).
pub(crate) struct Entries<'a> {
    bits: Reader<'a>,
    key: u32,
    base: u32,
    kb: u8,
    db: u8,
    left: usize,
    first: bool,
    /// The block's length in bytes.
    pub(crate) len: usize,
}

impl<'a> Entries<'a> {
    /// The block of `n` entries at the start of `bytes`; `None` when the
    /// header is impossible or `bytes` shorter than the block.
    pub(crate) fn new(bytes: &'a [u8], n: usize) -> Option<Self> {
        let head = bytes.get(..HEAD)?;
        let key = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let base = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
        let (kb, db) = (head[8], head[9]);
        if kb > 32 || db > 32 || n == 0 {
            return None;
        }
        let len = block_len(n, kb, db);
        Some(Self {
            bits: Reader::new(bytes.get(HEAD..len)?),
            key,
            base,
            kb,
            db,
            left: n,
            first: true,
            len,
        })
    }
}

impl Iterator for Entries<'_> {
    type Item = Option<u64>;

    fn next(&mut self) -> Option<Option<u64>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if !core::mem::take(&mut self.first) {
            match self.bits.take(self.kb) {
                Some(d) => self.key = self.key.wrapping_add(d),
                None => return Some(None),
            }
        }
        Some(
            self.bits
                .take(self.db)
                .map(|d| entry(self.key, self.base.wrapping_add(d))),
        )
    }
}

fn entry(key: u32, doc: u32) -> u64 {
    (u64::from(key) << 32) | u64::from(doc)
}

/// A bit writer, least significant bit first.
#[derive(Default)]
struct Bits {
    acc: u64,
    used: u32,
}

impl Bits {
    fn put(&mut self, v: u32, width: u8, out: &mut Vec<u8>) {
        if width == 0 {
            return;
        }
        let v = u64::from(v) & ((1u64 << width) - 1);
        self.acc |= v << self.used;
        self.used += u32::from(width);
        while self.used >= 8 {
            out.push(self.acc as u8);
            self.acc >>= 8;
            self.used -= 8;
        }
    }

    fn finish(self, out: &mut Vec<u8>) {
        if self.used > 0 {
            out.push(self.acc as u8);
        }
    }
}

/// A bit reader over a block's bits.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    acc: u64,
    have: u32,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            at: 0,
            acc: 0,
            have: 0,
        }
    }

    fn take(&mut self, width: u8) -> Option<u32> {
        if width == 0 {
            return Some(0);
        }
        let width = u32::from(width);
        if self.have < width {
            if let Some(word) = self.bytes.get(self.at..self.at + 8) {
                // Eight bytes at once: keep the whole bytes that fit above
                // the bits held (at least 56 bits held after).
                let mut w = [0u8; 8];
                w.copy_from_slice(word);
                self.acc |= u64::from_le_bytes(w) << self.have;
                self.at += ((63 - self.have) / 8) as usize;
                self.have |= 56;
            } else {
                while self.have < width {
                    let b = *self.bytes.get(self.at)?;
                    self.at += 1;
                    self.acc |= u64::from(b) << self.have;
                    self.have += 8;
                }
            }
        }
        let v = (self.acc & ((1u64 << width) - 1)) as u32;
        self.acc >>= width;
        self.have -= width;
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest::proptest! {
        /// Any sorted block decodes to itself, whatever its keys and docs
        /// (widths 0 to 32), and takes the length it says.
        #[test]
        fn blocks_round_trip(
            mut entries in proptest::collection::vec(
                prop_oneof![
                    any::<u64>(),
                    (0u64..4, 0u64..4).prop_map(|(k, d)| k << 32 | d),
                    (0u64..1 << 20, 0u64..1 << 20).prop_map(|(k, d)| k << 44 | d),
                ],
                1..65,
            ),
            tail in proptest::collection::vec(any::<u8>(), 0..4),
        ) {
            entries.sort_unstable();
            entries.dedup();
            let mut bytes = Vec::new();
            encode(&entries, &mut bytes);
            let len = bytes.len();
            bytes.extend_from_slice(&tail);
            let mut out = Vec::new();
            proptest::prop_assert_eq!(decode(&bytes, entries.len(), &mut out), Some(len));
            proptest::prop_assert_eq!(&out, &entries);
            // Cut short: refused, not a panic.
            proptest::prop_assert_eq!(decode(&bytes[..len - 1], entries.len(), &mut out), None);
        }

        /// Garbage decodes to something or nothing, never a panic.
        #[test]
        fn garbage_never_panics(
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
            n in 0usize..70,
        ) {
            let mut out = Vec::new();
            if let Some(len) = decode(&bytes, n, &mut out) {
                proptest::prop_assert!(len <= bytes.len());
                proptest::prop_assert_eq!(out.len(), n);
            }
        }
    }

    #[test]
    fn a_table_of_spread_keys_packs_to_about_half() {
        // 64 entries of keys about 2^32 / 1M apart, docs within 1M.
        let mut seed = 1u64;
        let mut e: Vec<u64> = (0..64)
            .map(|i| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                ((i as u64 * 4_295) << 32) | ((seed >> 44) % 1_000_000)
            })
            .collect();
        e.sort_unstable();
        let mut bytes = Vec::new();
        encode(&e, &mut bytes);
        assert!(bytes.len() < 64 * 8 / 2 + 20, "{} bytes", bytes.len());
    }
}
