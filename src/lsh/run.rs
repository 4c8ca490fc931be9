//! A sorted run: the compact, read-mostly half of a key table.
//!
//! Entries `(key, slot)` are kept sorted by key in two parallel arrays
//! (12 bytes an entry, no per-entry padding or control bytes), with a
//! directory over the top bits of the key: `dir[b]` is the first entry whose
//! key starts with bit prefix `b`. Keys are hash digests, so a prefix bucket
//! holds about eight entries and a lookup is one directory read plus a short
//! binary search inside one or two cache lines.
//!
//! The same layout is what the index file stores, so a memory-mapped index
//! queries its runs in place through [`RunRef`].

use alloc::vec::Vec;

/// Most directory bits: 2²⁸ + 1 entries (1 GiB) covers 2³¹ keys.
pub(crate) const MAX_DIR_BITS: u32 = 28;

/// Directory bits for a run of `n` keys: about eight keys per bucket.
pub(crate) fn dir_bits(n: usize) -> u32 {
    if n < 64 {
        0
    } else {
        (usize::BITS - 1 - n.leading_zeros() - 3).min(MAX_DIR_BITS)
    }
}

/// Directory bucket of `key` under `bits` prefix bits.
#[inline]
fn bucket(key: u64, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        (key >> (64 - bits)) as usize
    }
}

/// One entry: a 64-bit key split in two halves (so the entry is 12 bytes
/// with 4-byte alignment, and a bucket's keys and slots share cache lines).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Entry {
    key_lo: u32,
    key_hi: u32,
    slot: u32,
}

impl Entry {
    #[inline]
    pub(crate) fn new(key: u64, slot: u32) -> Self {
        Self {
            key_lo: key as u32,
            key_hi: (key >> 32) as u32,
            slot,
        }
    }

    #[inline]
    pub(crate) fn key(&self) -> u64 {
        u64::from(self.key_lo) | (u64::from(self.key_hi) << 32)
    }

    #[inline]
    pub(crate) fn slot(&self) -> u32 {
        self.slot
    }
}

/// Builds the directory of `entries` sorted by key, for `bits` prefix bits.
pub(crate) fn build_dir(entries: &[Entry], bits: u32) -> Vec<u32> {
    let buckets = 1usize << bits;
    let mut dir = Vec::with_capacity(buckets + 1);
    let mut i = 0usize;
    for b in 0..buckets {
        while i < entries.len() && bucket(entries[i].key(), bits) < b {
            i += 1;
        }
        dir.push(i as u32);
    }
    dir.push(entries.len() as u32);
    dir
}

/// Where a key lies in a run: its directory bucket and an estimated entry.
#[derive(Clone, Copy, Default)]
pub(crate) struct Probe {
    lo: u32,
    hi: u32,
    guess: u32,
}

/// A borrowed sorted run, from memory or from a mapped file.
///
/// Lookups never panic, whatever the arrays hold: out-of-range directory
/// entries read as empty buckets. (Files are validated when opened; this is
/// the second line of defence.)
#[derive(Clone, Copy)]
pub(crate) struct RunRef<'a> {
    pub(crate) entries: &'a [Entry],
    pub(crate) dir: &'a [u32],
    pub(crate) bits: u32,
}

impl<'a> RunRef<'a> {
    /// Where `key` should be: its directory bucket `lo..hi` and, inside it,
    /// the entry its next 16 bits point at (keys are hash digests, so they
    /// are spread evenly inside a bucket). Positions may be invalid on a
    /// damaged run; [`find`](Self::find) copes.
    #[inline]
    pub(crate) fn locate(&self, key: u64) -> Probe {
        let b = bucket(key, self.bits);
        let (lo, hi) = match (self.dir.get(b), self.dir.get(b + 1)) {
            (Some(&lo), Some(&hi)) if lo <= hi => (lo, hi),
            _ => (0, 0),
        };
        let frac = ((key << self.bits) >> 48) as u32;
        let guess = lo + (((hi - lo) as u64 * u64::from(frac)) >> 16) as u32;
        Probe { lo, hi, guess }
    }

    /// The entries with key `key`, searched from `probe` (of
    /// [`locate`](Self::locate)).
    #[inline]
    pub(crate) fn find(&self, key: u64, probe: Probe) -> &'a [Entry] {
        let Some(seg) = self.entries.get(probe.lo as usize..probe.hi as usize) else {
            return &[];
        };
        let start = if seg.len() <= 32 {
            // Walk from the guess: usually zero or one step, in the cache
            // line `locate`'s caller has already touched.
            let mut i = (probe.guess - probe.lo) as usize;
            if i < seg.len() && seg[i].key() < key {
                while i < seg.len() && seg[i].key() < key {
                    i += 1;
                }
            } else {
                while i > 0 && seg[i - 1].key() >= key {
                    i -= 1;
                }
            }
            i
        } else {
            // A crowded bucket (crafted keys): stay logarithmic.
            seg.partition_point(|e| e.key() < key)
        };
        // Equal keys are rare beyond one (only near-duplicates share a
        // band), so walk rather than search.
        let mut end = start;
        while end < seg.len() && seg[end].key() == key {
            end += 1;
        }
        &seg[start..end]
    }

    /// The directory word `locate(key)` reads first, if any (to start its
    /// cache miss early).
    #[inline]
    pub(crate) fn dir_word(&self, key: u64) -> Option<&'a u32> {
        self.dir.get(bucket(key, self.bits))
    }

    /// The entry at `probe.guess`, if any (to start its cache miss early).
    #[inline]
    pub(crate) fn guessed(&self, probe: Probe) -> Option<&'a Entry> {
        self.entries.get(probe.guess as usize)
    }

    /// The entries with key `key`.
    #[cfg(any(test, feature = "mmap"))]
    #[inline]
    pub(crate) fn get(&self, key: u64) -> &'a [Entry] {
        self.find(key, self.locate(key))
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// All entries as `(key, slot)`, in key order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, u32)> + 'a {
        self.entries.iter().map(|e| (e.key(), e.slot()))
    }

    /// Whether the run is well formed for an index of `n_slots` slots:
    /// sorted keys, slots in range, and the directory of the keys. Linear
    /// time; used on files before they are trusted.
    pub(crate) fn is_valid(&self, n_slots: usize) -> bool {
        self.bits <= MAX_DIR_BITS
            && self.entries.windows(2).all(|w| w[0].key() <= w[1].key())
            && self.entries.iter().all(|e| (e.slot() as usize) < n_slots)
            && self.dir.len() == (1usize << self.bits) + 1
            && self.dir == build_dir(self.entries, self.bits)
    }
}

/// An owned sorted run.
#[derive(Clone, Default)]
pub(crate) struct Run {
    entries: Vec<Entry>,
    dir: Vec<u32>,
    bits: u32,
}

impl Run {
    /// A run of `entries`, which must be sorted by key.
    pub(crate) fn from_sorted(entries: Vec<Entry>) -> Self {
        debug_assert!(entries.windows(2).all(|w| w[0].key() <= w[1].key()));
        let bits = dir_bits(entries.len());
        let dir = build_dir(&entries, bits);
        Self { entries, dir, bits }
    }

    /// A run of sorted `entries` whose directory for `bits` is `dir`.
    pub(crate) fn from_parts(entries: Vec<Entry>, dir: Vec<u32>, bits: u32) -> Self {
        debug_assert!(entries.windows(2).all(|w| w[0].key() <= w[1].key()));
        debug_assert!(bits == dir_bits(entries.len()) && dir == build_dir(&entries, bits));
        Self { entries, dir, bits }
    }

    pub(crate) fn as_ref(&self) -> RunRef<'_> {
        RunRef {
            entries: &self.entries,
            dir: &self.dir,
            bits: self.bits,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.entries.capacity() * core::mem::size_of::<Entry>() + self.dir.capacity() * 4
    }

    /// `base` merged with `added` (sorted by key), keeping the entries whose
    /// slot passes `keep`.
    pub(crate) fn merged(base: RunRef<'_>, added: &[Entry], keep: impl Fn(u32) -> bool) -> Self {
        let mut out: Vec<Entry> = Vec::with_capacity(base.len() + added.len());
        let bk = base.entries;
        let (mut i, mut j) = (0, 0);
        while i < bk.len() && j < added.len() {
            let e = if bk[i].key() <= added[j].key() {
                i += 1;
                bk[i - 1]
            } else {
                j += 1;
                added[j - 1]
            };
            if keep(e.slot()) {
                out.push(e);
            }
        }
        out.extend(bk[i..].iter().filter(|e| keep(e.slot())));
        out.extend(added[j..].iter().filter(|e| keep(e.slot())));
        out.shrink_to_fit();
        Self::from_sorted(out)
    }
}

#[cfg(test)]
mod tests;
