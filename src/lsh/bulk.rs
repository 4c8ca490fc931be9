//! Filing a large batch into one key table.
//!
//! The batch's `(key, slot)` pairs are sorted straight into 12-byte run
//! entries by one counting scatter over the top key bits. The scatter's
//! bucket starts are the run's directory, so a table that was empty gets its
//! finished run from a count, a scatter and short insertion sorts, with no
//! intermediate buffer. A table that already holds entries merges the sorted
//! batch into its run in one linear pass.

use alloc::vec::Vec;

use super::run::{Entry, Run, dir_bits};
use super::table::BandTable;

/// Extra scatter bits below the directory's: sub-buckets of about two
/// entries, so the insertion sorts that finish them are a step or two.
const SUB_BITS: u32 = 2;

/// Batches smaller than this are sorted by comparison (the prefix tables
/// would cost more than they save).
const MIN_SCATTER: usize = 256;

/// `entries` (any order) sorted by key, and the directory of the sorted run
/// for `bits` prefix bits. `keys[i]` is the key of `slots[i]`.
pub(crate) fn sort_batch(keys: &[u64], slots: &[u32], bits: u32) -> (Vec<Entry>, Vec<u32>) {
    debug_assert_eq!(keys.len(), slots.len());
    let n = keys.len();
    if n < MIN_SCATTER {
        let mut entries: Vec<Entry> = keys
            .iter()
            .zip(slots)
            .map(|(&k, &s)| Entry::new(k, s))
            .collect();
        entries.sort_unstable_by_key(Entry::key);
        let dir = super::run::build_dir(&entries, bits);
        return (entries, dir);
    }
    let sub = bits + SUB_BITS;
    let shift = 64 - sub;
    // `ends[b]` counts, then (after the prefix sum) starts, then (after the
    // scatter) ends bucket `b`.
    let mut ends = alloc::vec![0u32; 1usize << sub];
    for &k in keys {
        ends[(k >> shift) as usize] += 1;
    }
    let mut sum = 0u32;
    for c in ends.iter_mut() {
        let count = *c;
        *c = sum;
        sum += count;
    }
    let mut entries = alloc::vec![Entry::default(); n];
    for (&k, &s) in keys.iter().zip(slots) {
        let b = (k >> shift) as usize;
        entries[ends[b] as usize] = Entry::new(k, s);
        ends[b] += 1;
    }
    let mut start = 0usize;
    for &end in &ends {
        let bucket = &mut entries[start..end as usize];
        if bucket.len() > 24 {
            // Crafted keys that share a prefix: stay n log n.
            bucket.sort_unstable_by_key(Entry::key);
        } else {
            insertion_sort(bucket);
        }
        start = end as usize;
    }
    // Directory bucket `d` starts where sub-bucket `d << SUB_BITS` does, that
    // is where sub-bucket `(d << SUB_BITS) - 1` ends.
    let mut dir = Vec::with_capacity((1usize << bits) + 1);
    dir.push(0);
    dir.extend((1..1usize << bits).map(|d| ends[(d << SUB_BITS) - 1]));
    dir.push(n as u32);
    (entries, dir)
}

fn insertion_sort(bucket: &mut [Entry]) {
    for i in 1..bucket.len() {
        let e = bucket[i];
        let k = e.key();
        let mut j = i;
        while j > 0 && bucket[j - 1].key() > k {
            bucket[j] = bucket[j - 1];
            j -= 1;
        }
        bucket[j] = e;
    }
}

/// Files the batch `keys[i]` → `slots[i]` (fresh live slots) and the
/// table's hash entries into `run`, dropping entries of slots that fail
/// `keep`.
pub(crate) fn file_batch(
    run: &mut Run,
    delta: &mut BandTable,
    keep: impl Fn(u32) -> bool,
    keys: &[u64],
    slots: &[u32],
) {
    let mut spill: Vec<(u64, u32)> = Vec::new();
    delta.drain_into(&mut spill);
    spill.retain(|e| keep(e.1));
    if run.len() == 0 && spill.is_empty() {
        // The common bulk load: the sorted batch is the run.
        let bits = dir_bits(keys.len());
        let (entries, dir) = sort_batch(keys, slots, bits);
        *run = Run::from_parts(entries, dir, bits);
        return;
    }
    let (entries, _) = if spill.is_empty() {
        sort_batch(keys, slots, dir_bits(keys.len()))
    } else {
        let (mut k, mut s) = (keys.to_vec(), slots.to_vec());
        k.extend(spill.iter().map(|e| e.0));
        s.extend(spill.iter().map(|e| e.1));
        sort_batch(&k, &s, dir_bits(k.len()))
    };
    *run = Run::merged(run.as_ref(), &entries, keep);
}

#[cfg(test)]
mod tests;
