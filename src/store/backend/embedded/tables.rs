//! The lookup tables: an in-memory recent part over a stack of segments.
//!
//! Every change lands in the recent part first (a hash map per entry key);
//! a checkpoint writes the recent part as a new segment and empties it,
//! and segments of similar size are merged so that a lookup searches a
//! number of segments that grows with the logarithm of the store's size.
//! An entry is added at most once and removed at most once (a document is
//! filed once and unfiled when superseded), so a member is visible when
//! some part adds it and no part removes it, whatever the order.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hashbrown::{HashMap, HashSet};

use super::segment::{self, Segment, TagRuns, entry};
use crate::{Error, Result};

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
    /// Per tag, how many of `removes` are in it.
    removes_per_tag: Vec<usize>,
    recent: usize,
    /// Oldest first; shared with a merge running in the background.
    segments: Vec<Arc<Segment>>,
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
        let segments = segments.into_iter().map(Arc::new).collect();
        Self {
            tags,
            heads: HashMap::new(),
            nodes: Vec::new(),
            removes: HashSet::new(),
            removes_per_tag: vec![0; tags],
            recent: 0,
            segments,
        }
    }

    /// Entries in the recent part.
    pub(crate) fn recent(&self) -> usize {
        self.recent
    }

    /// The segments, oldest first.
    pub(crate) fn segments(&self) -> &[Arc<Segment>] {
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
            if let Some(n) = self.removes_per_tag.get_mut(usize::from(tag)) {
                *n += 1;
            }
            self.recent += 1;
        }
    }

    /// The docs filed under `key` in `tag`, ascending, at most `limit`.
    pub(crate) fn members(&self, tag: u16, key: u32, limit: usize) -> Vec<u32> {
        let t = usize::from(tag);
        // Only documents superseded since they were filed are removed: most
        // tags of most stores have no removal to look up.
        let recent_removes = self.removes_per_tag.get(t).copied().unwrap_or(0);
        let removals =
            recent_removes + self.segments.iter().map(|s| s.removes_in(t)).sum::<usize>();
        // Each part (segment or recent list) lists a key's docs in ascending
        // order, so the oldest `limit` members overall are among the first
        // `limit + removals` of each: every doc before one of them in its
        // part is either an older member or removed. A crowded key costs
        // that per part, not its size.
        let most = limit.saturating_add(removals);
        let mut out = Vec::new();
        for s in &self.segments {
            if s.may_hold(t, key) {
                s.adds(t, key, most, &mut out);
            }
        }
        // The recent list's first `most`, when it is in ascending order
        // (documents are filed in the order they are numbered, so nearly
        // always): not the thousands filed since the last checkpoint.
        let s = slot(tag, key);
        if let Some(l) = self.heads.get(&s) {
            let recent_most = if l.ascending { most } else { usize::MAX };
            out.extend(self.recent_members(s).take(recent_most));
        }
        out.sort_unstable();
        out.dedup();
        if removals > 0 {
            out.retain(|&d| {
                let recent = recent_removes > 0 && self.removes.contains(&(tag, entry(key, d)));
                let stored = self
                    .segments
                    .iter()
                    .any(|s| s.removes_in(t) > 0 && s.removes(t, key, d));
                !recent && !stored
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

    /// Writes the recent part as the segment `path` (when it holds
    /// anything) and empties it.
    ///
    /// # Errors
    ///
    /// I/O errors naming the file; the tables are unchanged then.
    pub(crate) fn flush(&mut self, path: &Path) -> Result<()> {
        if self.recent > 0 {
            let mut runs = self.recent_runs();
            segment::write_streamed(path, self.tags, &mut |t| {
                Ok(Cow::Owned(core::mem::take(&mut runs[t])))
            })?;
            self.segments.push(Arc::new(Segment::open(path)?));
        }
        // Emptied, not dropped: the next recent part grows as large, and
        // regrowing the map from nothing rehashes it a score of times.
        self.heads.clear();
        self.nodes.clear();
        self.removes.clear();
        self.removes_per_tag.iter_mut().for_each(|n| *n = 0);
        self.recent = 0;
        Ok(())
    }

    /// The merge the size rule asks for next, if any: the newest two
    /// neighbours of which the newer is at least half the size of the
    /// older. Merging until none is left makes sizes fall geometrically,
    /// so a store of `n` entries has about log2(n / flush size) segments
    /// and each entry is rewritten about as many times.
    pub(crate) fn plan(&self) -> Option<Merge> {
        let s = &self.segments;
        let i = (1..s.len())
            .rev()
            .find(|&i| s[i].entries() * 2 >= s[i - 1].entries())?;
        Some(Merge {
            at: i - 1,
            parts: [Arc::clone(&s[i - 1]), Arc::clone(&s[i])],
            tags: self.tags,
        })
    }

    /// Puts `merged`, the result of `m`, in place of the two segments it
    /// merged. Returns their files (the caller deletes them once the new
    /// list is durable), or `None` when the list changed under the merge
    /// (the tables were reloaded) and `merged` is not used.
    pub(crate) fn install(&mut self, m: &Merge, merged: Segment) -> Option<Vec<PathBuf>> {
        let now = self.segments.get(m.at..m.at + 2)?;
        if !now.iter().zip(&m.parts).all(|(a, b)| Arc::ptr_eq(a, b)) {
            return None;
        }
        let retired = now.iter().map(|s| s.path().to_path_buf()).collect();
        self.segments
            .splice(m.at..m.at + 2, [Arc::new(merged)])
            .for_each(drop);
        Some(retired)
    }

    /// Flushes to `path`, then runs every merge the size rule asks for
    /// (`name` makes a fresh segment path). Returns the files no longer
    /// used.
    ///
    /// # Errors
    ///
    /// I/O errors and damaged segments, naming the file; what was merged
    /// before the error stays merged.
    pub(crate) fn checkpoint(
        &mut self,
        path: &Path,
        name: &mut dyn FnMut() -> PathBuf,
    ) -> Result<Vec<PathBuf>> {
        self.flush(path)?;
        let mut retired = Vec::new();
        while let Some(m) = self.plan() {
            let out = name();
            let merged = m.run(&out, &AtomicBool::new(false))?;
            retired.extend(self.install(&m, merged).unwrap_or_default());
        }
        Ok(retired)
    }
}

/// Two neighbouring segments to merge: chosen under the store's lock, run
/// without it (the segments are immutable), installed under it again.
pub(crate) struct Merge {
    /// Where the older of the two is in the list.
    at: usize,
    parts: [Arc<Segment>; 2],
    tags: usize,
}

impl Merge {
    /// Writes the merged segment at `out` and opens it, one tag at a time.
    /// Removals cancel what they remove; those left are dropped too when
    /// the older part is the bottom of the stack (nothing older can hold
    /// what they remove).
    ///
    /// # Errors
    ///
    /// Damaged parts and I/O errors, naming the file; [`Error::Store`]
    /// when `stop` was set (the store is closing). Nothing is left at
    /// `out` then.
    pub(crate) fn run(&self, out: &Path, stop: &AtomicBool) -> Result<Segment> {
        let bottom = self.at == 0;
        segment::write_streamed(out, self.tags, &mut |t| {
            if stop.load(Ordering::Relaxed) {
                return Err(Error::Store(
                    "segment merge stopped: the store is closing".into(),
                ));
            }
            let parts = vec![self.parts[0].read_tag(t)?, self.parts[1].read_tag(t)?];
            Ok(Cow::Owned(segment::merge_tag(parts, bottom)))
        })?;
        Segment::open(out)
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
