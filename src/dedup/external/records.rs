//! The record kinds of the runs, with their sort orders.

use super::runs::Rec;

/// A document's key in one band (for SimHash: its signature, or its
/// signature in a table's key order): sorted by key, then position, so a
/// bucket's smallest position (its representative) comes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct BandRec {
    pub(crate) key: u64,
    pub(crate) pos: u32,
}

impl Rec for BandRec {
    const SIZE: usize = 12;
    const KIND: u32 = 1;
    fn put(&self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.key.to_le_bytes());
        out[8..12].copy_from_slice(&self.pos.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        Self {
            key: u64_at(b, 0),
            pos: u32_at(b, 8),
        }
    }
}

/// A document's content key (XXH3-128 of its text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ContentRec {
    pub(crate) hash: u128,
    pub(crate) pos: u32,
}

impl Rec for ContentRec {
    const SIZE: usize = 20;
    const KIND: u32 = 2;
    fn put(&self, out: &mut [u8]) {
        out[..16].copy_from_slice(&self.hash.to_le_bytes());
        out[16..20].copy_from_slice(&self.pos.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        let mut h = [0u8; 16];
        h.copy_from_slice(&b[..16]);
        Self {
            hash: u128::from_le_bytes(h),
            pos: u32_at(b, 16),
        }
    }
}

/// A candidate pair, sorted by its later document so the verification pass
/// meets the pairs in input order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct PairRec {
    pub(crate) later: u32,
    pub(crate) rep: u32,
}

impl Rec for PairRec {
    const SIZE: usize = 8;
    const KIND: u32 = 3;
    fn put(&self, out: &mut [u8]) {
        out[..4].copy_from_slice(&self.later.to_le_bytes());
        out[4..8].copy_from_slice(&self.rep.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        Self {
            later: u32_at(b, 0),
            rep: u32_at(b, 4),
        }
    }
}

/// A verified link seen from one of its ends: sorted by that end, then by
/// similarity (highest first), then by the other end, so the first record
/// of a document is its best match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct EdgeRec {
    pub(crate) doc: u32,
    /// `u32::MAX - similarity.to_bits()`: similarities are non-negative
    /// floats, whose bit patterns sort like their values.
    pub(crate) inv_sim: u32,
    pub(crate) other: u32,
}

impl EdgeRec {
    /// The two records of the link `a`–`b`.
    pub(crate) fn both(a: u32, b: u32, sim: f32) -> [Self; 2] {
        let inv_sim = u32::MAX - sim.to_bits();
        [
            Self {
                doc: a,
                inv_sim,
                other: b,
            },
            Self {
                doc: b,
                inv_sim,
                other: a,
            },
        ]
    }

    /// The link's similarity value.
    pub(crate) fn similarity(&self) -> f32 {
        f32::from_bits(u32::MAX - self.inv_sim)
    }
}

impl Rec for EdgeRec {
    const SIZE: usize = 12;
    const KIND: u32 = 4;
    fn put(&self, out: &mut [u8]) {
        out[..4].copy_from_slice(&self.doc.to_le_bytes());
        out[4..8].copy_from_slice(&self.inv_sim.to_le_bytes());
        out[8..12].copy_from_slice(&self.other.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        Self {
            doc: u32_at(b, 0),
            inv_sim: u32_at(b, 4),
            other: u32_at(b, 8),
        }
    }
}

/// A cluster member, sorted by cluster then position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct MemberRec {
    pub(crate) cluster: u32,
    pub(crate) pos: u32,
}

impl Rec for MemberRec {
    const SIZE: usize = 8;
    const KIND: u32 = 5;
    fn put(&self, out: &mut [u8]) {
        out[..4].copy_from_slice(&self.cluster.to_le_bytes());
        out[4..8].copy_from_slice(&self.pos.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        Self {
            cluster: u32_at(b, 0),
            pos: u32_at(b, 4),
        }
    }
}

/// A document's id, hashed (XXH3-128 of its text): sorted by hash, then
/// position, so the documents sharing an id are adjacent, the first of them
/// first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct IdRec {
    pub(crate) hash: u128,
    pub(crate) pos: u32,
}

impl Rec for IdRec {
    const SIZE: usize = 20;
    // Apart from the stages' kinds (1, 2, ...): this check is not a stage.
    const KIND: u32 = 16;
    fn put(&self, out: &mut [u8]) {
        out[..16].copy_from_slice(&self.hash.to_le_bytes());
        out[16..20].copy_from_slice(&self.pos.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        let mut h = [0u8; 16];
        h.copy_from_slice(&b[..16]);
        Self {
            hash: u128::from_le_bytes(h),
            pos: u32_at(b, 16),
        }
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}
