//! The storage engine shared by the LSH and SimHash indexes: caller ids
//! mapped to dense slots, and `T` key tables from a `u64` key to the slots
//! filed under it.
//!
//! Each key table is an LSM pair: a sorted [`Run`] (12 bytes an entry) and a
//! small hash [`BandTable`] that takes single inserts. When the hash tables
//! hold more than half as many slots as the runs, both are merged into new
//! runs; the copying this costs is amortised to a few entry moves per insert.
//!
//! Removal is lazy: a removed slot is marked dead, its entries stay where
//! they are and are skipped by queries, and the next merge drops them. Only
//! then does the slot become free for reuse, so a live slot's entries are
//! never confused with those of an earlier owner of the same slot.

use alloc::vec::Vec;

use hashbrown::HashMap;

use super::bulk::file_batch;
use super::prefetch::prefetch;
use super::run::{Entry, Probe, Run};
use super::table::{BandTable, MAX_SLOTS};

/// Slots the hash tables take before a merge is considered at all.
#[cfg(not(test))]
const MIN_DELTA: usize = 4096;
/// Tiny in unit tests, so that every path (hash tables, runs, merges with
/// dead slots) runs on small indexes.
#[cfg(test)]
const MIN_DELTA: usize = 3;

/// Ids, slots and key tables.
#[derive(Clone)]
pub(crate) struct Core {
    /// Id of each slot (stale for dead and free slots).
    ids: Vec<u64>,
    /// One bit per slot: set while the slot holds a live id.
    live: Vec<u64>,
    slot_of: HashMap<u64, u32>,
    /// Slots dead but still present in some table entry.
    dead: Vec<u32>,
    /// Slots ready for reuse.
    free: Vec<u32>,
    runs: Vec<Run>,
    deltas: Vec<BandTable>,
    /// Slots whose entries sit in `deltas`.
    delta_slots: usize,
}

impl Core {
    pub(crate) fn new(tables: usize) -> Self {
        Self {
            ids: Vec::new(),
            live: Vec::new(),
            slot_of: HashMap::new(),
            dead: Vec::new(),
            free: Vec::new(),
            runs: (0..tables).map(|_| Run::default()).collect(),
            deltas: (0..tables).map(|_| BandTable::default()).collect(),
            delta_slots: 0,
        }
    }

    pub(crate) fn tables(&self) -> usize {
        self.runs.len()
    }

    pub(crate) fn len(&self) -> usize {
        self.slot_of.len()
    }

    /// Slots ever handed out (live, dead or free): the length the owner's
    /// per-slot arrays must have.
    pub(crate) fn slot_count(&self) -> usize {
        self.ids.len()
    }

    pub(crate) fn slot(&self, id: u64) -> Option<u32> {
        self.slot_of.get(&id).copied()
    }

    pub(crate) fn id(&self, slot: u32) -> u64 {
        self.ids[slot as usize]
    }

    /// Where the id of `slot` is stored (for prefetching it).
    pub(crate) fn id_ref(&self, slot: u32) -> &u64 {
        &self.ids[slot as usize]
    }

    pub(crate) fn is_live(&self, slot: u32) -> bool {
        let s = slot as usize;
        self.live
            .get(s / 64)
            .is_some_and(|w| w & (1 << (s % 64)) != 0)
    }

    pub(crate) fn id_slots(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.slot_of.iter().map(|(&id, &slot)| (id, slot))
    }

    /// Whether `n` new ids fit beside the live ones.
    pub(crate) fn fits(&self, n: usize) -> bool {
        self.len().saturating_add(n) <= MAX_SLOTS
    }

    /// Makes room for `additional` new ids without rehashing.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.slot_of.reserve(additional);
        self.ids.reserve(additional.saturating_sub(self.free.len()));
    }

    /// Errors unless every id of `ids` is new and distinct and all fit (the
    /// all-or-nothing check of `try_extend` and `merge`); `who` names the
    /// caller in the message.
    pub(crate) fn check_fresh(
        &self,
        ids: impl ExactSizeIterator<Item = u64>,
        who: &str,
    ) -> crate::Result<()> {
        let n = ids.len();
        let mut seen: hashbrown::HashSet<u64> = hashbrown::HashSet::with_capacity(n);
        for id in ids {
            if self.slot_of.contains_key(&id) {
                return Err(crate::Error::InvalidInput(alloc::format!(
                    "{who}: id {id} already exists; remove() first"
                )));
            }
            if !seen.insert(id) {
                return Err(crate::Error::InvalidInput(alloc::format!(
                    "{who}: id {id} occurs more than once in the batch"
                )));
            }
        }
        if !self.fits(n) {
            return Err(super::index::full_error(n));
        }
        Ok(())
    }

    /// Gives each id of `ids` a fresh slot, in order, all or nothing: the
    /// one-pass form of [`check_fresh`](Self::check_fresh) followed by
    /// [`alloc`](Self::alloc). On a bad id every slot taken so far is given
    /// back, and the error is `check_fresh`'s. `who` names the caller.
    pub(crate) fn alloc_fresh(
        &mut self,
        ids: impl ExactSizeIterator<Item = u64> + Clone,
        who: &str,
    ) -> crate::Result<Vec<u32>> {
        let mut taken: Vec<(u64, bool, u32)> = Vec::with_capacity(ids.len());
        if self.fits(ids.len()) {
            self.reserve(ids.len());
            for id in ids.clone() {
                if self.slot_of.contains_key(&id) {
                    break;
                }
                match self.alloc(id) {
                    Some((fresh, slot)) => taken.push((id, fresh, slot)),
                    None => break,
                }
            }
        }
        if taken.len() == ids.len() {
            return Ok(taken.into_iter().map(|(_, _, slot)| slot).collect());
        }
        // Undo in reverse, so fresh slots pop off the end of `ids`.
        for &(id, fresh, slot) in taken.iter().rev() {
            self.slot_of.remove(&id);
            let s = slot as usize;
            self.live[s / 64] &= !(1 << (s % 64));
            if fresh {
                self.ids.pop();
            } else {
                self.free.push(slot);
            }
        }
        self.check_fresh(ids, who)?;
        // `check_fresh` only passes what `alloc` refused when the index is
        // full of live ids.
        Err(super::index::full_error(taken.len().max(1)))
    }

    /// Gives `id` (not present) a slot, live but in no table yet. `None` when
    /// the index is full. Returns whether the slot is new (the owner must push
    /// to its per-slot arrays) and the slot.
    pub(crate) fn alloc(&mut self, id: u64) -> Option<(bool, u32)> {
        debug_assert!(!self.slot_of.contains_key(&id));
        if self.free.is_empty() && self.ids.len() >= MAX_SLOTS {
            if self.dead.is_empty() {
                return None;
            }
            self.compact();
        }
        let (fresh, slot) = match self.free.pop() {
            Some(slot) => {
                self.ids[slot as usize] = id;
                (false, slot)
            }
            None => {
                if self.ids.len() >= MAX_SLOTS {
                    return None;
                }
                self.ids.push(id);
                if self.ids.len() > self.live.len() * 64 {
                    self.live.push(0);
                }
                (true, (self.ids.len() - 1) as u32)
            }
        };
        let s = slot as usize;
        self.live[s / 64] |= 1 << (s % 64);
        self.slot_of.insert(id, slot);
        Some((fresh, slot))
    }

    /// Files a live `slot` under `keys` (one per table) in the hash tables.
    pub(crate) fn link(&mut self, slot: u32, keys: impl IntoIterator<Item = u64>) {
        for (delta, key) in self.deltas.iter_mut().zip(keys) {
            delta.insert(key, slot);
        }
        self.delta_slots += 1;
    }

    /// Merges the hash tables into the runs once they are large enough.
    pub(crate) fn maybe_compact(&mut self) {
        let base = self.runs.first().map_or(0, Run::len);
        let limit = MIN_DELTA.max(base / 2);
        if self.delta_slots > limit || self.dead.len() > limit {
            self.compact();
        }
    }

    /// Removes `id`; returns its slot (now dead, not reusable until the next
    /// merge, so the owner's per-slot data stays readable until then).
    pub(crate) fn kill(&mut self, id: u64) -> Option<u32> {
        let slot = self.slot_of.remove(&id)?;
        let s = slot as usize;
        self.live[s / 64] &= !(1 << (s % 64));
        self.dead.push(slot);
        Some(slot)
    }

    /// Appends to `out` the live slots filed under `keys` (one key per table;
    /// a slot appears once per table that matches).
    pub(crate) fn candidates(&self, keys: impl IntoIterator<Item = u64>, out: &mut Vec<u32>) {
        let mut staged = Vec::with_capacity(self.tables());
        self.stage(keys, &mut staged);
        self.collect(&staged, out);
    }

    /// First half of a lookup: locates each key in its table's run and
    /// prefetches the entries the directory points at, so that the cache
    /// misses of every table (and, in a batch, of the queries ahead) are in
    /// flight together.
    fn stage(&self, keys: impl IntoIterator<Item = u64>, staged: &mut Vec<(u64, Probe)>) {
        staged.clear();
        for (run, key) in self.runs.iter().zip(keys) {
            let run = run.as_ref();
            let probe = run.locate(key);
            if let Some(e) = run.guessed(probe) {
                prefetch(e);
            }
            staged.push((key, probe));
        }
    }

    /// Second half of a lookup: the live slots under each staged key.
    fn collect(&self, staged: &[(u64, Probe)], out: &mut Vec<u32>) {
        for (t, &(key, probe)) in staged.iter().enumerate() {
            for e in self.runs[t].as_ref().find(key, probe) {
                if self.is_live(e.slot()) {
                    out.push(e.slot());
                }
            }
            if self.delta_slots != 0 {
                for &slot in self.deltas[t].get(key) {
                    if self.is_live(slot) {
                        out.push(slot);
                    }
                }
            }
        }
    }

    /// Candidates of many queries, as a pipeline four queries deep:
    /// `keys_of(q, keys)` writes the key of query `q` for every table. While
    /// query `q` is handed to `each(q, slots)` (its distinct live slots,
    /// ascending; queries in order), the slots of `q + 1` are collected and
    /// shown to `ahead` (which may prefetch what the caller will read of
    /// them), the entries `q + 2` will read are prefetched, and so are the
    /// directory words of `q + 3`: every step finds its data in cache.
    pub(crate) fn candidates_each(
        &self,
        queries: usize,
        keys_of: impl Fn(usize, &mut [u64]),
        ahead: impl Fn(&[u32]),
        mut each: impl FnMut(usize, &[u32]),
    ) {
        const DEPTH: usize = 4;
        let tables = self.tables();
        let mut keys: [Vec<u64>; DEPTH] = Default::default();
        let mut staged: [Vec<(u64, Probe)>; DEPTH] = Default::default();
        let mut slots: [Vec<u32>; DEPTH] = Default::default();
        let prepare = |q: usize, keys: &mut Vec<u64>| {
            keys.resize(tables, 0);
            keys_of(q, keys);
            for (run, &key) in self.runs.iter().zip(keys.iter()) {
                if let Some(w) = run.as_ref().dir_word(key) {
                    prefetch(w);
                }
            }
        };
        let collect = |staged: &[(u64, Probe)], out: &mut Vec<u32>| {
            out.clear();
            self.collect(staged, out);
            out.sort_unstable();
            out.dedup();
            ahead(out);
        };
        // Fill the pipeline: queries 0..3 prepared, 0..2 staged, 0 collected.
        for (q, keys) in keys.iter_mut().enumerate().take(queries.min(DEPTH - 1)) {
            prepare(q, keys);
        }
        for (keys, staged) in keys.iter().zip(&mut staged).take(queries.min(DEPTH - 2)) {
            self.stage(keys.iter().copied(), staged);
        }
        if queries > 0 {
            collect(&staged[0], &mut slots[0]);
        }
        for q in 0..queries {
            if q + 3 < queries {
                prepare(q + 3, &mut keys[(q + 3) % DEPTH]);
            }
            if q + 2 < queries {
                let i = (q + 2) % DEPTH;
                self.stage(keys[i].iter().copied(), &mut staged[i]);
            }
            if q + 1 < queries {
                let i = (q + 1) % DEPTH;
                collect(&staged[i], &mut slots[i]);
            }
            each(q, &slots[q % DEPTH]);
        }
    }

    /// Merges every hash table into its run, drops dead entries and frees
    /// their slots.
    pub(crate) fn compact(&mut self) {
        let live = &self.live;
        let keep = |s: u32| live[s as usize / 64] & (1 << (s % 64)) != 0;
        for (run, delta) in self.runs.iter_mut().zip(&mut self.deltas) {
            file_batch(run, delta, keep, &[], &[]);
        }
        self.delta_slots = 0;
        self.free.append(&mut self.dead);
    }

    /// Files fresh live `slots`: `key_of(i, t)` is the key of `slots[i]` in
    /// table `t`. A small batch goes to the hash tables; a large one is
    /// sorted and merged straight into the runs, one table at a time (one
    /// rayon task per table when `par`, under `parallel`), each table
    /// computing its own keys, so nothing before the sort is serial.
    pub(crate) fn link_computed(
        &mut self,
        slots: &[u32],
        par: bool,
        key_of: impl Fn(usize, usize) -> u64 + Sync,
    ) {
        let tables = self.tables();
        let base = self.runs.first().map_or(0, Run::len);
        if slots.len() < MIN_DELTA.max(base / 8) {
            for (i, &slot) in slots.iter().enumerate() {
                self.link(slot, (0..tables).map(|t| key_of(i, t)));
            }
            self.maybe_compact();
            return;
        }
        // Keys are computed slot by slot (one read of each signature) into
        // blocks of `BLOCK` slots, each block table by table, so a table's
        // keys are `n / BLOCK` contiguous segments.
        const BLOCK: usize = 2048;
        let n = slots.len();
        let mut keys = alloc::vec![0u64; n * tables];
        let fill = |c: usize, out: &mut [u64]| {
            let len = out.len() / tables;
            for j in 0..len {
                for t in 0..tables {
                    out[t * len + j] = key_of(c * BLOCK + j, t);
                }
            }
        };
        #[cfg(feature = "parallel")]
        if par {
            use rayon::prelude::*;
            keys.par_chunks_mut(BLOCK * tables)
                .enumerate()
                .for_each(|(c, out)| fill(c, out));
        } else {
            keys.chunks_mut(BLOCK * tables)
                .enumerate()
                .for_each(|(c, out)| fill(c, out));
        }
        #[cfg(not(feature = "parallel"))]
        keys.chunks_mut(BLOCK * tables)
            .enumerate()
            .for_each(|(c, out)| fill(c, out));
        let (keys, live) = (&keys, &self.live);
        let file = |t: usize, run: &mut Run, delta: &mut BandTable| {
            let mut table_keys: Vec<u64> = Vec::with_capacity(n);
            for block in keys.chunks(BLOCK * tables) {
                let len = block.len() / tables;
                table_keys.extend_from_slice(&block[t * len..(t + 1) * len]);
            }
            let keep = |s: u32| live[s as usize / 64] & (1 << (s % 64)) != 0;
            file_batch(run, delta, keep, &table_keys, slots);
        };
        #[cfg(feature = "parallel")]
        if par {
            use rayon::prelude::*;
            self.runs
                .par_iter_mut()
                .zip(self.deltas.par_iter_mut())
                .enumerate()
                .for_each(|(t, (run, delta))| file(t, run, delta));
        } else {
            for (t, (run, delta)) in self.runs.iter_mut().zip(&mut self.deltas).enumerate() {
                file(t, run, delta);
            }
        }
        #[cfg(not(feature = "parallel"))]
        for (t, (run, delta)) in self.runs.iter_mut().zip(&mut self.deltas).enumerate() {
            let _ = par;
            file(t, run, delta);
        }
        self.delta_slots = 0;
        self.free.append(&mut self.dead);
    }

    /// Heap bytes held by the engine (ids, maps, tables), for the memory
    /// figures of the benchmarks.
    pub(crate) fn heap_bytes(&self) -> usize {
        let map = self.slot_of.capacity() * (12 + 1);
        self.ids.capacity() * 8
            + self.live.capacity() * 8
            + map
            + (self.dead.capacity() + self.free.capacity()) * 4
            + self.runs.iter().map(Run::heap_bytes).sum::<usize>()
            + self.deltas.iter().map(BandTable::heap_bytes).sum::<usize>()
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.ids.shrink_to_fit();
        self.live.shrink_to_fit();
        self.slot_of.shrink_to_fit();
        self.dead.shrink_to_fit();
        self.free.shrink_to_fit();
        for d in &mut self.deltas {
            d.shrink_to_fit();
        }
    }

    /// Rebuilds a compact engine from dense, validated parts: `ids[s]` is the
    /// id of slot `s` (all distinct) and `runs[t]` is table `t`.
    pub(crate) fn from_parts(ids: Vec<u64>, runs: Vec<Run>) -> Self {
        let n = ids.len();
        let mut live = alloc::vec![u64::MAX; n / 64];
        if !n.is_multiple_of(64) {
            live.push((1u64 << (n % 64)) - 1);
        }
        let slot_of = ids
            .iter()
            .enumerate()
            .map(|(s, &id)| (id, s as u32))
            .collect();
        let tables = runs.len();
        Self {
            ids,
            live,
            slot_of,
            dead: Vec::new(),
            free: Vec::new(),
            runs,
            deltas: (0..tables).map(|_| BandTable::default()).collect(),
            delta_slots: 0,
        }
    }

    /// Entries of table `t` (run and hash table) of live slots, in no
    /// particular order.
    pub(crate) fn live_entries(&self, t: usize) -> Vec<(u64, u32)> {
        let mut out: Vec<(u64, u32)> = Vec::with_capacity(self.runs[t].len());
        self.deltas[t].collect_into(&mut out);
        out.extend(self.runs[t].as_ref().iter());
        out.retain(|&(_, s)| self.is_live(s));
        out
    }
}

/// An index's live contents renumbered for a file: slot = rank of the id.
pub(crate) struct Dense {
    /// `(id, in-memory slot)` by ascending id.
    pub(crate) order: Vec<(u64, u32)>,
    /// Each table's run over the new slots, equal keys in slot order.
    pub(crate) runs: Vec<Run>,
}

impl Core {
    /// The live contents renumbered by ascending id (a mapped file then
    /// finds an id by binary search and needs no id map), with equal keys in
    /// slot order, so a file depends on nothing but the stored pairs.
    pub(crate) fn dense(&self) -> Dense {
        let mut order: Vec<(u64, u32)> = self.id_slots().collect();
        order.sort_unstable();
        let mut rank = alloc::vec![u32::MAX; self.slot_count()];
        for (r, &(_, slot)) in order.iter().enumerate() {
            rank[slot as usize] = r as u32;
        }
        let runs = (0..self.tables())
            .map(|t| {
                let mut entries = self.live_entries(t);
                for e in &mut entries {
                    e.1 = rank[e.1 as usize];
                }
                sort_entries(&mut entries);
                Run::from_sorted(entries.iter().map(|&(k, s)| Entry::new(k, s)).collect())
            })
            .collect();
        Dense { order, runs }
    }
}

/// Sorts `(key, slot)` entries by key, then slot: a canonical order (used
/// where the result must not depend on insertion history, e.g. saving).
pub(crate) fn sort_entries(entries: &mut Vec<(u64, u32)>) {
    sort_by_key(entries);
    // Runs of equal keys are short: fix their slot order in place.
    let mut i = 0;
    while i < entries.len() {
        let mut j = i + 1;
        while j < entries.len() && entries[j].0 == entries[i].0 {
            j += 1;
        }
        if j - i > 1 {
            entries[i..j].sort_unstable_by_key(|e| e.1);
        }
        i = j;
    }
}

/// Sorts `(key, slot)` entries by key (equal keys in any order). Keys are
/// hash digests, so one scatter by the top key bits into buckets of about
/// two entries, finished by an insertion sort, does it in linear time. A
/// skewed (crafted) key set only makes the buckets' sorts longer.
pub(crate) fn sort_by_key(entries: &mut Vec<(u64, u32)>) {
    let n = entries.len();
    if n < 256 {
        entries.sort_unstable_by_key(|e| e.0);
        return;
    }
    let bits = (super::run::dir_bits(n) + 2).min(30);
    let shift = 64 - bits;
    let mut counts = alloc::vec![0u32; (1usize << bits) + 1];
    for e in entries.iter() {
        counts[(e.0 >> shift) as usize + 1] += 1;
    }
    for i in 1..counts.len() {
        counts[i] += counts[i - 1];
    }
    let mut out = alloc::vec![(0u64, 0u32); n];
    {
        let next = &mut counts[..1usize << bits];
        for &e in entries.iter() {
            let b = (e.0 >> shift) as usize;
            out[next[b] as usize] = e;
            next[b] += 1;
        }
    }
    // `counts[b]` now holds the end of bucket `b`, i.e. the start of `b + 1`.
    let mut start = 0usize;
    for &end in &counts[..1usize << bits] {
        let bucket = &mut out[start..end as usize];
        if bucket.len() > 16 {
            bucket.sort_unstable_by_key(|e| e.0);
        } else {
            for i in 1..bucket.len() {
                let mut j = i;
                while j > 0 && bucket[j - 1].0 > bucket[j].0 {
                    bucket.swap(j - 1, j);
                    j -= 1;
                }
            }
        }
        start = end as usize;
    }
    *entries = out;
}

#[cfg(test)]
mod tests;

/// `len`, `is_empty` and `contains` of an index type that keeps its ids in
/// a `core: Core` field, documented as holding `$item`s.
macro_rules! core_accessors {
    ($item:literal) => {
        #[doc = concat!("Number of stored ", $item, "s.")]
        pub fn len(&self) -> usize {
            self.core.len()
        }

        #[doc = concat!("Whether the index holds no ", $item, ".")]
        pub fn is_empty(&self) -> bool {
            self.core.len() == 0
        }

        #[doc = concat!("Whether a ", $item, " is stored under `id`.")]
        pub fn contains(&self, id: u64) -> bool {
            self.core.slot(id).is_some()
        }
    };
}
pub(crate) use core_accessors;
