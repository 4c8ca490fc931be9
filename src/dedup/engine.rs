//! The method-independent part of a run: input checks, fingerprinting on the
//! thread pool, the candidate scan with union-find, and the decisions.
//!
//! Documents are addressed by their input position (`u32`) everywhere; the
//! caller's ids only come back in the report.

use alloc::format;
use alloc::vec::Vec;
use core::ops::Range;

use hashbrown::{HashMap, HashSet};

use super::report::{Cluster, Decision, DedupReport, DedupStats, VerifiedPair};
use super::union_find::UnionFind;
use super::{CandidateIndex, EmptyDocuments, Similarity, Verifier};
use crate::{Error, Result, classical::FingerprintBatch};

/// Most documents one run accepts: positions are `u32`, and an
/// [`LshIndex`](crate::LshIndex) holds at most 2³¹ − 1 signatures.
pub(crate) const MAX_DOCUMENTS: usize = i32::MAX as usize;

/// Documents scanned per parallel round. After each round the verified
/// pairs are merged into the union-find, which the next round reads to skip
/// candidates already known to be in the same cluster.
pub(crate) const SCAN_CHUNK: usize = 8192;

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

/// The message every built-in fingerprinter gives a document without tokens.
pub(crate) const EMPTY_DOCUMENT: &str = "empty document";

/// Fingerprints every text with `fp(text, buffer)`. A document without
/// tokens becomes `None` unless the policy is [`EmptyDocuments::Error`];
/// every other failure is returned with the document's id and position (the
/// first one in input order, whatever the thread schedule).
pub(crate) fn fingerprint_all<S, F>(
    ids: &[u64],
    texts: &[S],
    empty: EmptyDocuments,
    fp: &F,
) -> Result<Vec<Option<F::Output>>>
where
    S: AsRef<str> + Sync,
    F: FingerprintBatch + Sync,
    F::Output: Send,
{
    #[cfg(feature = "parallel")]
    let results = fp.par_fingerprint(texts);
    #[cfg(not(feature = "parallel"))]
    let results = fp.fingerprint_batch(texts);
    let mut sigs = Vec::with_capacity(results.len());
    for (pos, r) in results.into_iter().enumerate() {
        match r {
            Ok(sig) => sigs.push(Some(sig)),
            Err(Error::InvalidInput(m))
                if m == EMPTY_DOCUMENT && empty != EmptyDocuments::Error =>
            {
                sigs.push(None)
            }
            Err(Error::InvalidInput(m)) => {
                return Err(Error::InvalidInput(format!(
                    "dedup: document id {} (item {pos}): {m}",
                    ids[pos]
                )));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(sigs)
}

/// Inserts every present signature under its position.
pub(crate) fn index_all<Sig: Copy, X: CandidateIndex<Sig>>(
    index: &mut X,
    sigs: &[Option<Sig>],
) -> Result<()> {
    let docs: Vec<(u64, Sig)> = sigs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.map(|s| (i as u64, s)))
        .collect();
    index.insert_batch(docs)
}

/// Which documents have at least one candidate other than themselves.
pub(crate) fn with_candidates<Sig: Sync, X: CandidateIndex<Sig>>(
    index: &X,
    sigs: &[Option<Sig>],
) -> Vec<bool> {
    map_range(
        0..sigs.len(),
        || (),
        |i, _| match &sigs[i] {
            Some(sig) => index.candidates(sig).iter().any(|&c| c != i as u64),
            None => false,
        },
    )
}

/// Verified pairs merged into clusters, with the counts of the scan.
pub(crate) struct Links {
    uf: UnionFind,
    /// `(earlier, later, similarity)`, only when pairs are recorded.
    pairs: Vec<(u32, u32, Similarity)>,
    candidate_pairs: u64,
    compared_pairs: u64,
    verified_pairs: u64,
}

/// What the scan of one document found among the earlier ones.
struct DocScan {
    edges: Vec<(u32, Similarity)>,
    candidates: u64,
    compared: u64,
}

/// Queries every document against the index, verifies its candidates that
/// come earlier in the input, and unions the verified pairs.
///
/// Without `record_pairs`, a candidate whose cluster (as of the previous
/// round) already contains a document verified against the current one is
/// not compared: the clusters come out the same, with fewer comparisons.
///
/// `chunk` is the number of documents per round ([`SCAN_CHUNK`] outside
/// tests); it changes which comparisons are skipped, never the clusters.
pub(crate) fn link<Sig, X, V>(
    sigs: &[Option<Sig>],
    index: &X,
    verifier: &V,
    record_pairs: bool,
    chunk: usize,
) -> Links
where
    Sig: Sync,
    X: CandidateIndex<Sig>,
    V: Verifier,
{
    let n = sigs.len();
    let mut links = Links {
        uf: UnionFind::new(n),
        pairs: Vec::new(),
        candidate_pairs: 0,
        compared_pairs: 0,
        verified_pairs: 0,
    };
    let mut start = 0;
    while start < n {
        let end = n.min(start + chunk.max(1));
        let uf = &links.uf;
        let scans = map_range(
            start..end,
            || (),
            |i, _| scan_one(i as u32, sigs, index, verifier, uf, record_pairs),
        );
        for (i, scan) in (start..end).zip(scans) {
            links.candidate_pairs += scan.candidates;
            links.compared_pairs += scan.compared;
            links.verified_pairs += scan.edges.len() as u64;
            for (j, sim) in scan.edges {
                links.uf.union(j, i as u32);
                if record_pairs {
                    links.pairs.push((j, i as u32, sim));
                }
            }
        }
        start = end;
    }
    links
}

fn scan_one<Sig, X, V>(
    i: u32,
    sigs: &[Option<Sig>],
    index: &X,
    verifier: &V,
    uf: &UnionFind,
    record_pairs: bool,
) -> DocScan
where
    X: CandidateIndex<Sig>,
    V: Verifier,
{
    let mut out = DocScan {
        edges: Vec::new(),
        candidates: 0,
        compared: 0,
    };
    let Some(sig) = &sigs[i as usize] else {
        return out;
    };
    let mut linked_roots: HashSet<u32> = HashSet::new();
    for c in index.candidates(sig) {
        // Each unordered pair is handled once, by its later document.
        if c >= u64::from(i) {
            continue;
        }
        let j = c as u32;
        out.candidates += 1;
        if !record_pairs && linked_roots.contains(&uf.find(j)) {
            continue;
        }
        out.compared += 1;
        if let Some(sim) = verifier.verify(j as usize, i as usize) {
            out.edges.push((j, sim));
            if !record_pairs {
                linked_roots.insert(uf.find(j));
            }
        }
    }
    out
}

/// Turns the clusters into decisions. `priority(pos)` ranks the members of a
/// cluster: the largest key is kept, ties go to the earliest; without it the
/// earliest member is kept.
pub(crate) fn decide<V, K, P>(
    ids: &[u64],
    sigs_present: &[bool],
    empty: EmptyDocuments,
    links: Links,
    verifier: &V,
    mut priority: Option<P>,
) -> DedupReport
where
    V: Verifier,
    K: Ord,
    P: FnMut(usize) -> K,
{
    let n = ids.len();
    let Links { uf, pairs, .. } = &links;
    // Cluster number of each root, assigned in order of first member.
    let mut cluster_of_root: HashMap<u32, usize> = HashMap::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    for i in 0..n as u32 {
        if uf.set_size(i) < 2 {
            continue;
        }
        let c = *cluster_of_root.entry(uf.find(i)).or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        });
        members[c].push(i);
    }
    let kept: Vec<u32> = members
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

    let mut stats = DedupStats {
        documents: n,
        clusters: members.len(),
        candidate_pairs: links.candidate_pairs,
        compared_pairs: links.compared_pairs,
        verified_pairs: links.verified_pairs,
        ..DedupStats::default()
    };
    let mut decisions = Vec::with_capacity(n);
    for (i, &id) in ids.iter().enumerate() {
        let is_empty = !sigs_present[i];
        let mut d = Decision {
            id,
            keep: !(is_empty && empty == EmptyDocuments::Drop),
            duplicate_of: None,
            similarity: None,
            cluster: None,
            empty: is_empty,
        };
        if let Some(&c) = cluster_of_root.get(&uf.find(i as u32)) {
            d.cluster = Some(c);
            let k = kept[c];
            if k as usize != i {
                d.keep = false;
                d.duplicate_of = Some(ids[k as usize]);
                let (a, b) = (i.min(k as usize), i.max(k as usize));
                d.similarity = verifier.similarity(a, b);
            }
        }
        stats.empty += usize::from(is_empty);
        if d.keep {
            stats.kept += 1;
        } else {
            stats.dropped += 1;
        }
        decisions.push(d);
    }
    let clusters = members
        .iter()
        .zip(&kept)
        .map(|(m, &k)| Cluster {
            kept: ids[k as usize],
            members: m.iter().map(|&x| ids[x as usize]).collect(),
        })
        .collect();
    let pairs = pairs
        .iter()
        .map(|&(a, b, similarity)| VerifiedPair {
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
