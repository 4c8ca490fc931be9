//! The method-independent part of a run: input checks, the content
//! collapse, fingerprinting on the thread pool, the union-find over linked
//! pairs, and the decisions.
//!
//! Documents are addressed by their input position (`u32`) everywhere; the
//! caller's ids only come back in the report.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Range;

use hashbrown::HashMap;

use super::report::{Cluster, Decision, DedupReport, DedupStats, VerifiedPair};
use super::union_find::UnionFind;
use super::{EmptyDocuments, Similarity};
use crate::{Error, Result, classical::FingerprintBatch};

/// Most documents one run accepts: positions are `u32`, and the SimHash
/// index holds at most 2³¹ − 1 signatures.
pub(crate) const MAX_DOCUMENTS: usize = i32::MAX as usize;

/// Documents per parallel round where a round's results are folded into a
/// sequential structure: bounds the memory of results in flight.
pub(crate) const ROUND: usize = 1 << 16;

/// `f(i, scratch)` for every `i` of `range`, in order, on the rayon pool
/// when the `parallel` feature is on. Each worker gets its own scratch value.
pub(crate) fn map_range<T, W, I, F>(range: Range<usize>, init: I, f: F) -> Vec<T>
where
    T: Send,
    I: Fn() -> W + Sync + Send,
    F: Fn(usize, &mut W) -> T + Sync + Send,
{
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        range
            .into_par_iter()
            .map_init(init, |w, i| f(i, w))
            .collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        let mut scratch = init();
        range.map(|i| f(i, &mut scratch)).collect()
    }
}

/// Splits `(id, text)` items into ids and texts, rejecting a repeated id.
pub(crate) fn collect_items<I, S>(items: I) -> Result<(Vec<u64>, Vec<S>)>
where
    I: IntoIterator<Item = (u64, S)>,
{
    let (ids, texts): (Vec<u64>, Vec<S>) = items.into_iter().unzip();
    check_count(ids.len())?;
    let mut first: HashMap<u64, usize> = HashMap::with_capacity(ids.len());
    for (pos, &id) in ids.iter().enumerate() {
        if let Some(&earlier) = first.get(&id) {
            return Err(Error::InvalidInput(format!(
                "dedup: id {id} occurs more than once (items {earlier} and {pos}); ids must be unique"
            )));
        }
        first.insert(id, pos);
    }
    Ok((ids, texts))
}

/// Rejects runs too large to address with `u32` positions.
pub(crate) fn check_count(n: usize) -> Result<()> {
    if n > MAX_DOCUMENTS {
        return Err(Error::InvalidInput(format!(
            "dedup: {n} documents exceed the limit of {MAX_DOCUMENTS} per run"
        )));
    }
    Ok(())
}

/// The content collapse of a run: which documents repeat an earlier text
/// byte for byte.
pub(crate) struct Contents {
    /// For each position, the first position whose text has the same
    /// content key (the position itself for a first occurrence).
    pub(crate) first: Vec<u32>,
    /// The first occurrences, ascending: the only documents fingerprinted.
    pub(crate) unique: Vec<u32>,
}

/// Groups the texts by content key, `xxh3_128` of the raw bytes.
///
/// A 128-bit key stands for the text: two different texts share one with
/// probability about 2⁻¹²⁸ per pair, far below any hardware error rate, and
/// comparing keys instead of texts keeps the table at 20 bytes a document.
pub(crate) fn collapse_contents<S: AsRef<str> + Sync>(texts: &[S]) -> Contents {
    let n = texts.len();
    let mut first_of: HashMap<u128, u32> = HashMap::new();
    let mut first = Vec::with_capacity(n);
    let mut unique = Vec::new();
    let mut start = 0;
    while start < n {
        let end = n.min(start + ROUND);
        let keys = map_range(
            start..end,
            || (),
            |i, _| super::parts::content_key(texts[i].as_ref()),
        );
        for (i, key) in (start..end).zip(keys) {
            let f = *first_of.entry(key).or_insert(i as u32);
            if f as usize == i {
                unique.push(f);
            }
            first.push(f);
        }
        start = end;
    }
    Contents { first, unique }
}

/// The documents a run fingerprinted with a token.
pub(crate) struct Fingerprinted {
    /// Positions of the first occurrences that have a token, ascending. A
    /// document's index in this list is its *dense* index.
    pub(crate) live: Vec<u32>,
    /// For each position: its text has a token (copies inherit it from their
    /// first occurrence).
    pub(crate) present: Vec<bool>,
}

impl Fingerprinted {
    /// Dense index of position `pos`, if it is live.
    pub(crate) fn dense(&self, pos: u32) -> Option<usize> {
        self.live.binary_search(&pos).ok()
    }
}

/// The message every built-in fingerprinter gives a document without tokens.
pub(crate) const EMPTY_DOCUMENT: &str = "empty document";

/// Fingerprints the first occurrences with `fp`, hands `keep(signature)` of
/// every one with a token to `sink` in input order, and returns which those
/// were. A document without tokens is skipped unless the policy is
/// [`EmptyDocuments::Error`]; every other failure is returned with the
/// document's id and position (the first one in input order, whatever the
/// thread schedule: a copy fails like its first occurrence, which comes
/// earlier).
pub(crate) fn fingerprint_unique<S, F, T, K>(
    ids: &[u64],
    texts: &[S],
    contents: &Contents,
    empty: EmptyDocuments,
    fp: &F,
    keep: K,
    mut sink: impl FnMut(T),
) -> Result<Fingerprinted>
where
    S: AsRef<str> + Sync,
    F: FingerprintBatch + Sync,
    T: Send,
    K: Fn(F::Output) -> T + Sync + Send,
{
    let unique = &contents.unique;
    let mut live = Vec::with_capacity(unique.len());
    let mut start = 0;
    while start < unique.len() {
        let end = unique.len().min(start + ROUND);
        let results = map_range(start..end, String::new, |u, buf| {
            fp.fingerprint_reusing(texts[unique[u] as usize].as_ref(), buf)
                .map(&keep)
        });
        for (&pos, r) in unique[start..end].iter().zip(results) {
            match r {
                Ok(t) => {
                    live.push(pos);
                    sink(t);
                }
                Err(Error::InvalidInput(m))
                    if m == EMPTY_DOCUMENT && empty != EmptyDocuments::Error => {}
                Err(Error::InvalidInput(m)) => {
                    return Err(Error::InvalidInput(format!(
                        "dedup: document id {} (item {pos}): {m}",
                        ids[pos as usize]
                    )));
                }
                Err(e) => return Err(e),
            }
        }
        start = end;
    }
    let mut is_live = alloc::vec![false; texts.len()];
    for &pos in &live {
        is_live[pos as usize] = true;
    }
    let present = contents
        .first
        .iter()
        .map(|&f| is_live[f as usize])
        .collect();
    Ok(Fingerprinted { live, present })
}

/// Linked pairs merged into clusters, with the counts of the run.
pub(crate) struct Links {
    uf: UnionFind,
    /// `(earlier, later, similarity)`, only when pairs are recorded.
    pairs: Option<Vec<(u32, u32, Similarity)>>,
    candidate_pairs: u64,
    compared_pairs: u64,
    verified_pairs: u64,
}

impl Links {
    /// No pair yet among `n` documents.
    pub(crate) fn new(n: usize, record: bool) -> Self {
        Self {
            uf: UnionFind::new(n),
            pairs: record.then(Vec::new),
            candidate_pairs: 0,
            compared_pairs: 0,
            verified_pairs: 0,
        }
    }

    /// Counts `pairs` distinct candidate pairs, every one of them compared.
    pub(crate) fn compared(&mut self, pairs: u64) {
        self.candidate_pairs += pairs;
        self.compared_pairs += pairs;
    }

    /// Merges the verified pair `a < b` (input positions).
    pub(crate) fn verified(&mut self, a: u32, b: u32, similarity: Similarity) {
        self.verified_pairs += 1;
        self.uf.union(a, b);
        if let Some(p) = &mut self.pairs {
            p.push((a, b, similarity));
        }
    }

    /// Merges `a < b` linked by a collapse (equal content or equal
    /// signature): it counts as a candidate pair compared and verified, so
    /// the counts keep `verified ≤ compared ≤ candidates` and `verified`
    /// equals the number of pairs a recording run lists.
    pub(crate) fn collapsed(&mut self, a: u32, b: u32, similarity: Similarity) {
        self.compared(1);
        self.verified(a, b, similarity);
    }

    /// Links every exact copy with a token to its first occurrence.
    pub(crate) fn link_copies(&mut self, contents: &Contents, present: &[bool], same: Similarity) {
        for (i, &f) in contents.first.iter().enumerate() {
            if f as usize != i && present[i] {
                self.collapsed(f, i as u32, same);
            }
        }
    }
}

/// Marks a position outside every cluster.
const NO_CLUSTER: u32 = u32::MAX;

/// The clusters of a run and the member each keeps.
pub(crate) struct Grouping {
    /// Cluster of each position, [`NO_CLUSTER`] for a singleton.
    cluster: Vec<u32>,
    /// Members of each cluster, ascending; clusters in order of their first
    /// member.
    members: Vec<Vec<u32>>,
    /// The kept member of each cluster.
    pub(crate) kept: Vec<u32>,
}

/// The connected components of the links with two or more members, and the
/// member each keeps. `priority(pos)` ranks the members of a cluster: the
/// largest key is kept, ties go to the earliest; without it the earliest is
/// kept.
pub(crate) fn group<K, P>(links: &Links, n: usize, mut priority: Option<P>) -> Grouping
where
    K: Ord,
    P: FnMut(usize) -> K,
{
    let uf = &links.uf;
    let mut cluster_of_root = alloc::vec![NO_CLUSTER; n];
    let mut cluster = alloc::vec![NO_CLUSTER; n];
    let mut members: Vec<Vec<u32>> = Vec::new();
    for i in 0..n as u32 {
        if uf.set_size(i) < 2 {
            continue;
        }
        let root = uf.find(i) as usize;
        if cluster_of_root[root] == NO_CLUSTER {
            cluster_of_root[root] = members.len() as u32;
            members.push(Vec::new());
        }
        let c = cluster_of_root[root];
        cluster[i as usize] = c;
        members[c as usize].push(i);
    }
    let kept = members
        .iter()
        .map(|m| match priority.as_mut() {
            None => m[0],
            Some(key) => {
                let mut best = m[0];
                let mut best_key = key(best as usize);
                for &x in &m[1..] {
                    let k = key(x as usize);
                    if k > best_key {
                        best = x;
                        best_key = k;
                    }
                }
                best
            }
        })
        .collect();
    Grouping {
        cluster,
        members,
        kept,
    }
}

/// The report of a run. `similarity(doc, kept, scratch)` measures a dropped
/// document against its cluster's kept one; it runs on the thread pool with
/// one `init()` scratch value per worker.
pub(crate) fn report<W, I, F>(
    ids: &[u64],
    present: &[bool],
    empty: EmptyDocuments,
    links: Links,
    grouping: Grouping,
    init: I,
    similarity: F,
) -> DedupReport
where
    I: Fn() -> W + Sync + Send,
    F: Fn(u32, u32, &mut W) -> Option<Similarity> + Sync + Send,
{
    let n = ids.len();
    let g = &grouping;
    let decisions = map_range(0..n, init, |i, scratch| {
        let is_empty = !present[i];
        let mut d = Decision {
            id: ids[i],
            keep: !(is_empty && empty == EmptyDocuments::Drop),
            duplicate_of: None,
            similarity: None,
            cluster: None,
            empty: is_empty,
        };
        let c = g.cluster[i];
        if c != NO_CLUSTER {
            d.cluster = Some(c as usize);
            let k = g.kept[c as usize];
            if k as usize != i {
                d.keep = false;
                d.duplicate_of = Some(ids[k as usize]);
                d.similarity = similarity(i as u32, k, scratch);
            }
        }
        d
    });
    let mut stats = DedupStats {
        documents: n,
        clusters: g.members.len(),
        candidate_pairs: links.candidate_pairs,
        compared_pairs: links.compared_pairs,
        verified_pairs: links.verified_pairs,
        ..DedupStats::default()
    };
    for d in &decisions {
        stats.empty += usize::from(d.empty);
        if d.keep {
            stats.kept += 1;
        } else {
            stats.dropped += 1;
        }
    }
    let clusters = g
        .members
        .iter()
        .zip(&g.kept)
        .map(|(m, &k)| Cluster {
            kept: ids[k as usize],
            members: m.iter().map(|&x| ids[x as usize]).collect(),
        })
        .collect();
    let mut pairs = links.pairs.unwrap_or_default();
    // Each pair is listed once, so the order is total without a tiebreak.
    pairs.sort_unstable_by_key(|&(a, b, _)| (a, b));
    let pairs = pairs
        .into_iter()
        .map(|(a, b, similarity)| VerifiedPair {
            a: ids[a as usize],
            b: ids[b as usize],
            similarity,
        })
        .collect();
    DedupReport {
        decisions,
        clusters,
        pairs,
        stats,
    }
}
