//! One band's hash table: band key → set of signature slots.
//!
//! Almost every bucket of a real corpus holds a single document, so the map
//! value is one `u32`: either the slot itself or, with [`SPILL`] set, the index
//! of a side vector that holds the members of a shared bucket. That keeps a
//! map entry at 16 bytes (key + value + padding) instead of the 32+ bytes of a
//! per-bucket small vector.

use alloc::vec::Vec;
use core::slice;

use hashbrown::HashMap;
use hashbrown::hash_map::Entry;

/// Marks a map value as an index into [`BandTable::spill`]. Slots are kept
/// below it (see [`MAX_SLOTS`]).
const SPILL: u32 = 1 << 31;

/// Most signatures an index can hold at once: slot numbers must leave the
/// [`SPILL`] bit free.
#[cfg(not(test))]
pub(crate) const MAX_SLOTS: usize = (SPILL - 1) as usize;
/// Small enough for unit tests to reach the full-index paths.
#[cfg(test)]
pub(crate) const MAX_SLOTS: usize = 1 << 16;

/// Buckets of one band. Membership is a set: a slot appears at most once per
/// bucket (the index guarantees it never links a slot twice).
///
/// The map uses hashbrown's default, randomly seeded hasher even though band
/// keys are already XXH3 digests: band keys are a deterministic function of
/// caller-supplied text, so an identity hasher would let crafted documents pile
/// into one probe sequence.
#[derive(Clone, Default)]
pub(crate) struct BandTable {
    heads: HashMap<u64, u32>,
    spill: Vec<Vec<u32>>,
    /// Indices of emptied `spill` vectors, reused before growing `spill`.
    spill_free: Vec<u32>,
}

impl BandTable {
    /// Adds `slot` to the bucket of `key`. The caller guarantees the slot is
    /// not already in that bucket.
    pub(crate) fn insert(&mut self, key: u64, slot: u32) {
        debug_assert!(slot < SPILL);
        match self.heads.entry(key) {
            Entry::Vacant(v) => {
                v.insert(slot);
            }
            Entry::Occupied(mut o) => {
                let head = *o.get();
                if head & SPILL != 0 {
                    self.spill[(head & !SPILL) as usize].push(slot);
                } else {
                    let pair = alloc::vec![head, slot];
                    let index = match self.spill_free.pop() {
                        Some(i) => {
                            self.spill[i as usize] = pair;
                            i
                        }
                        None => {
                            // At most one spill vector per bucket and at most
                            // one bucket per slot, so this stays below SPILL.
                            self.spill.push(pair);
                            (self.spill.len() - 1) as u32
                        }
                    };
                    *o.get_mut() = index | SPILL;
                }
            }
        }
    }

    /// Removes `slot` from the bucket of `key`, dropping the bucket when it
    /// empties. Returns whether the slot was there. (The index removes
    /// lazily; this keeps the table usable as a plain multimap in tests.)
    #[cfg(test)]
    pub(crate) fn remove(&mut self, key: u64, slot: u32) -> bool {
        let Some(head) = self.heads.get_mut(&key) else {
            return false;
        };
        if *head & SPILL == 0 {
            if *head != slot {
                return false;
            }
            self.heads.remove(&key);
            return true;
        }
        let index = (*head & !SPILL) as usize;
        let members = &mut self.spill[index];
        let Some(pos) = members.iter().position(|&s| s == slot) else {
            return false;
        };
        members.swap_remove(pos);
        if let [last] = members[..] {
            // Back to the inline form; free the vector's memory, keep its index.
            *head = last;
            self.spill[index] = Vec::new();
            self.spill_free.push(index as u32);
        }
        true
    }

    /// Members of the bucket of `key` (empty if none), in no particular order.
    pub(crate) fn get(&self, key: u64) -> &[u32] {
        match self.heads.get(&key) {
            None => &[],
            Some(head) if *head & SPILL == 0 => slice::from_ref(head),
            Some(head) => &self.spill[(*head & !SPILL) as usize],
        }
    }

    /// Total bucket entries (test invariant checks).
    #[cfg(test)]
    #[allow(dead_code)]
    pub(crate) fn entries(&self) -> usize {
        self.heads
            .values()
            .map(|&h| {
                if h & SPILL == 0 {
                    1
                } else {
                    self.spill[(h & !SPILL) as usize].len()
                }
            })
            .sum()
    }

    /// Moves every entry into `out` and leaves the table empty (keeping the
    /// map's capacity for the next round of inserts).
    pub(crate) fn drain_into(&mut self, out: &mut Vec<(u64, u32)>) {
        self.collect_into(out);
        self.heads.clear();
        self.spill.clear();
        self.spill_free.clear();
    }

    /// Appends every entry to `out`.
    pub(crate) fn collect_into(&self, out: &mut Vec<(u64, u32)>) {
        for (&key, &head) in &self.heads {
            if head & SPILL == 0 {
                out.push((key, head));
            } else {
                out.extend(
                    self.spill[(head & !SPILL) as usize]
                        .iter()
                        .map(|&s| (key, s)),
                );
            }
        }
    }

    /// Heap bytes held (an estimate of hashbrown's layout: entry plus one
    /// control byte per bucket).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.heads.capacity() * (16 + 1)
            + self.spill.capacity() * 24
            + self.spill.iter().map(|v| v.capacity() * 4).sum::<usize>()
            + self.spill_free.capacity() * 4
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.heads.shrink_to_fit();
        self.spill.shrink_to_fit();
        self.spill_free.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests;
