//! The lookup tables: an in-memory recent part over a stack of segments.
//!
//! Every change lands in the recent part first (a hash map per entry key);
//! a checkpoint writes the recent part as a new segment and empties it,
//! and segments of similar size are merged so that a lookup searches a
//! number of segments that grows with the logarithm of the store's size.
//! An entry is added at most once and removed at most once (a document is
//! filed once and unfiled when superseded), so a member is visible when
//! some part adds it and no part removes it, whatever the order.

use std::path::{Path, PathBuf};

use hashbrown::{HashMap, HashSet};

use super::segment::{self, Segment, TagRuns, entry};
use crate::Result;

/// The tables of one store.
pub(crate) struct Tables {
    tags: usize,
    /// Per slot (tag and key) its list of members in `nodes`, oldest
    /// first: a list per slot without an allocation per slot (most hold
    /// one member).
    heads: HashMap<u64, List>,
    /// `(doc, next)`; `next` is [`END`], a removed member's doc [`GONE`].
    nodes: Vec<(u32, u32)>,
    removes: HashSet<(u16, u64)>,
    recent: usize,
    /// Oldest first.
    segments: Vec<Segment>,
}

/// A slot's members in the recent part.
#[derive(Clone, Copy)]
struct List {
    first: u32,
    last: u32,
    /// The largest doc added.
    max: u32,
    /// Every doc added was larger than those before it (documents are
    /// filed in the order they are numbered, so nearly always): the list's
    /// first `n` are its `n` smallest.
    ascending: bool,
}

const END: u32 = u32::MAX;
const GONE: u32 = u32::MAX;

fn slot(tag: u16, key: u32) -> u64 {
    (u64::from(tag) << 32) | u64::from(key)
}

impl Tables {
    /// Tables of `tags` tags over `segments` (oldest first).
    pub(crate) fn new(tags: usize, segments: Vec<Segment>) -> Self {
        Self {
            tags,
            heads: HashMap::new(),
            nodes: Vec::new(),
            removes: HashSet::new(),
            recent: 0,
            segments,
        }
    }

    /// Entries in the recent part.
    pub(crate) fn recent(&self) -> usize {
        self.recent
    }

    /// The segments, oldest first.
    pub(crate) fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Files `doc` under `key` in `tag`.
    pub(crate) fn add(&mut self, tag: u16, key: u32, doc: u32) {
        let node = self.nodes.len() as u32;
        self.nodes.push((doc, END));
        match self.heads.entry(slot(tag, key)) {
            hashbrown::hash_map::Entry::Occupied(mut o) => {
                let l = o.get_mut();
                if let Some(n) = self.nodes.get_mut(l.last as usize) {
                    n.1 = node;
                }
                l.last = node;
                l.ascending &= doc > l.max;
                l.max = l.max.max(doc);
            }
            hashbrown::hash_map::Entry::Vacant(v) => {
                v.insert(List {
                    first: node,
                    last: node,
                    max: doc,
                    ascending: true,
                });
            }
        }
        self.recent += 1;
    }

    /// The members of a slot in the recent part, oldest first.
    fn recent_members(&self, s: u64) -> impl Iterator<Item = u32> + '_ {
        let mut at = self.heads.get(&s).map_or(END, |l| l.first);
        core::iter::from_fn(move || {
            while at != END {
                let (doc, next) = *self.nodes.get(at as usize)?;
                at = next;
                if doc != GONE {
                    return Some(doc);
                }
            }
            None
        })
    }

    /// Unfiles `doc` from `key` in `tag`.
    pub(crate) fn remove(&mut self, tag: u16, key: u32, doc: u32) {
        let mut at = self.heads.get(&slot(tag, key)).map_or(END, |l| l.first);
        while let Some(&(d, next)) = self.nodes.get(at as usize) {
            if d == doc {
                // Added since the last checkpoint: no segment holds it.
                self.nodes[at as usize].0 = GONE;
                self.recent = self.recent.saturating_sub(1);
                return;
            }
            at = next;
        }
        if self.removes.insert((tag, entry(key, doc))) {
            self.recent += 1;
        }
    }

    /// The docs filed under `key` in `tag`, ascending, at most `limit`.
    pub(crate) fn members(&self, tag: u16, key: u32, limit: usize) -> Vec<u32> {
        // Only documents superseded since they were filed are removed:
        // most tags of most stores have no removal to look up.
        let t = usize::from(tag);
        let removing: Vec<&Segment> = self
            .segments
            .iter()
            .filter(|s| s.removes_in(t) > 0)
            .collect();
        let removals = !self.removes.is_empty() || !removing.is_empty();
        // Each segment is older than the next and lists a key's docs in
        // ascending order, so the oldest `limit` overall are among the
        // first `limit` of each: a crowded key costs `limit` per segment,
        // not its size. (With removals in play the filter below may drop
        // some, so everything is read.)
        let most = if removals { usize::MAX } else { limit };
        let mut out = Vec::new();
        for s in &self.segments {
            if s.may_hold(t, key) {
                s.adds(t, key, most, &mut out);
            }
        }
        // Likewise the recent part's first `limit`, when its list is in
        // ascending order: a crowded key costs `limit`, not the thousands
        // filed since the last checkpoint.
        let s = slot(tag, key);
        let ascending = self.heads.get(&s).is_some_and(|l| l.ascending);
        let recent_most = if ascending { most } else { usize::MAX };
        out.extend(self.recent_members(s).take(recent_most));
        out.sort_unstable();
        out.dedup();
        if removals {
            out.retain(|&d| {
                !self.removes.contains(&(tag, entry(key, d)))
                    && !removing.iter().any(|s| s.removes(t, key, d))
            });
        }
        out.truncate(limit);
        out
    }

    /// The recent part as sorted runs, one per tag.
    fn recent_runs(&self) -> Vec<TagRuns> {
        let mut runs = vec![TagRuns::default(); self.tags];
        for &s in self.heads.keys() {
            let (tag, key) = ((s >> 32) as usize, s as u32);
            if let Some(r) = runs.get_mut(tag) {
                r.adds.extend(self.recent_members(s).map(|d| entry(key, d)));
            }
        }
        for &(tag, e) in &self.removes {
            if let Some(r) = runs.get_mut(usize::from(tag)) {
                r.removes.push(e);
            }
        }
        for r in &mut runs {
            r.adds.sort_unstable();
            r.adds.dedup();
            r.removes.sort_unstable();
            r.removes.dedup();
        }
        runs
    }

    /// Writes the recent part as the segment `path` and empties it, then
    /// merges segments while the newest is at least half the size of the
    /// one below it (sizes then fall geometrically, so a store of `n`
    /// entries has about log2(n / flush size) segments and each entry is
    /// rewritten about as many times). `name` makes a fresh segment path.
    /// Returns the files no longer used (the caller deletes them once the
    /// new list is durable).
    ///
    /// # Errors
    ///
    /// I/O errors and damaged segments, naming the file; the tables are
    /// unchanged then.
    pub(crate) fn checkpoint(
        &mut self,
        path: &Path,
        name: &mut dyn FnMut() -> PathBuf,
    ) -> Result<Vec<PathBuf>> {
        let mut retired = Vec::new();
        let runs = self.recent_runs();
        let mut stack: Vec<Segment> = Vec::new();
        if self.recent > 0 {
            segment::write(path, &runs)?;
            stack.push(Segment::open(path)?);
        }
        let mut segments: Vec<Segment> = core::mem::take(&mut self.segments);
        segments.append(&mut stack);
        while segments.len() >= 2 {
            let n = segments.len();
            if segments[n - 1].entries() * 2 < segments[n - 2].entries() {
                break;
            }
            let bottom = n == 2;
            let out = name();
            let merged = (|| -> Result<Segment> {
                let mut tags = Vec::with_capacity(self.tags);
                for t in 0..self.tags {
                    let parts = vec![segments[n - 2].read_tag(t)?, segments[n - 1].read_tag(t)?];
                    tags.push(segment::merge_tag(parts, bottom));
                }
                segment::write(&out, &tags)?;
                Segment::open(&out)
            })();
            match merged {
                Ok(m) => {
                    for old in segments.drain(n - 2..) {
                        retired.push(old.path().to_path_buf());
                    }
                    segments.push(m);
                }
                Err(e) => {
                    self.segments = segments;
                    return Err(e);
                }
            }
        }
        self.segments = segments;
        self.heads = HashMap::new();
        self.nodes = Vec::new();
        self.removes = HashSet::new();
        self.recent = 0;
        Ok(retired)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Random adds and removes with checkpoints and merges in between,
    /// against a set.
    #[test]
    fn lookups_through_checkpoints_equal_a_set() {
        let dir = std::env::temp_dir().join(format!("txtfp-tables-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut t = Tables::new(3, Vec::new());
        let mut want: BTreeSet<(u16, u32, u32)> = BTreeSet::new();
        let mut removed: BTreeSet<(u16, u32, u32)> = BTreeSet::new();
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        let mut n = 0u32;
        let mut fresh = || {
            n += 1;
            dir.join(format!("s{n}.seg"))
        };
        let mut doc = 0u32;
        for round in 0..30 {
            for _ in 0..200 {
                let (tag, key) = ((next() % 3) as u16, (next() % 50) as u32);
                if next() % 5 == 0 && !want.is_empty() {
                    let pick = (next() as usize) % want.len();
                    let e = *want.iter().nth(pick).unwrap();
                    want.remove(&e);
                    removed.insert(e);
                    t.remove(e.0, e.1, e.2);
                } else {
                    doc += 1;
                    want.insert((tag, key, doc));
                    t.add(tag, key, doc);
                }
            }
            if round % 3 != 2 {
                let p = fresh();
                for old in t.checkpoint(&p, &mut fresh).unwrap() {
                    std::fs::remove_file(old).unwrap();
                }
            }
            for tag in 0..3u16 {
                for key in 0..50u32 {
                    let got = t.members(tag, key, usize::MAX);
                    let w: Vec<u32> = want
                        .range((tag, key, 0)..=(tag, key, u32::MAX))
                        .map(|e| e.2)
                        .collect();
                    assert_eq!(got, w, "round {round} tag {tag} key {key}");
                }
            }
            assert!(t.segments().len() <= 8, "{}", t.segments().len());
        }
        assert!(!removed.is_empty());
        // A crowded key: the oldest `limit`, read from each segment's head.
        let mut c = Tables::new(1, Vec::new());
        for d in 0..50_000u32 {
            c.add(0, 9, d);
            if d % 12_000 == 11_999 {
                let p = fresh();
                c.checkpoint(&p, &mut fresh).unwrap();
            }
        }
        assert!(c.segments().len() >= 2);
        assert_eq!(c.members(0, 9, 5), vec![0, 1, 2, 3, 4]);
        assert_eq!(c.members(0, 9, usize::MAX).len(), 50_000);
        assert_eq!(t.members(0, 1, 1).len().min(1), t.members(0, 1, 1).len());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Any limit, docs filed in any order (mostly ascending, as the
        /// store files them, sometimes not), removals and checkpoints: the
        /// members are the `limit` smallest of a plain set's.
        #[test]
        fn limited_lookups_equal_the_smallest_of_a_set(
            ops in proptest::collection::vec((0u8..10, 0u32..4, 0u32..400), 1..400),
            limits in proptest::collection::vec(1usize..12, 1..4),
        ) {
            let dir = std::env::temp_dir().join(format!(
                "txtfp-tables-prop-{}-{}",
                std::process::id(),
                ops.len()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let mut n = 0u32;
            let mut fresh = || {
                n += 1;
                dir.join(format!("s{n}.seg"))
            };
            let mut t = Tables::new(1, Vec::new());
            let mut want: BTreeSet<(u32, u32)> = BTreeSet::new();
            let mut used: BTreeSet<(u32, u32)> = BTreeSet::new();
            let mut next_doc = 0u32;
            for (kind, key, x) in ops {
                match kind {
                    0 => {
                        let p = fresh();
                        for old in t.checkpoint(&p, &mut fresh).unwrap() {
                            std::fs::remove_file(old).unwrap();
                        }
                    }
                    1 | 2 => {
                        if let Some(&e) = want.iter().nth(x as usize % want.len().max(1)) {
                            want.remove(&e);
                            t.remove(0, e.0, e.1);
                        }
                    }
                    3 => {
                        // Out of order: an old number, once per slot.
                        if used.insert((key, x)) {
                            want.insert((key, x));
                            t.add(0, key, x);
                        }
                    }
                    _ => {
                        next_doc += 1;
                        let d = 400 + next_doc;
                        used.insert((key, d));
                        want.insert((key, d));
                        t.add(0, key, d);
                    }
                }
                for key in 0..4u32 {
                    let all: Vec<u32> = want
                        .range((key, 0)..=(key, u32::MAX))
                        .map(|e| e.1)
                        .collect();
                    for &limit in &limits {
                        let got = t.members(0, key, limit);
                        proptest::prop_assert_eq!(&got[..], &all[..limit.min(all.len())]);
                    }
                }
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
