//! Stage 3 of the SimHash run: the pairs of every table, checked by
//! Hamming distance.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::super::pairs::{EDGE_REC_BYTES, Pairs};
use super::super::records::{BandRec, EdgeRec};
use super::super::report::Measure;
use super::super::runs::{Merge, Spiller, check_position, for_each_merged};
use super::super::sketch::{BAND_REC_BYTES, Sketch, runs_with_prefix};
use super::super::verify::{self, Verified};
use super::super::workdir::{WorkDir, io_error};
use super::super::{ExternalOptions, IndexUse};
use super::order::KeyOrder;
use crate::{Error, Result};

/// Bytes a group member takes while its group's pairs are listed.
const MEMBER_BYTES: usize = 16;

/// Groups up to this size are compared pair by pair; larger ones are cut
/// by blocks first.
const SMALL_GROUP: usize = 48;

/// Runs the stage, or reads its summary when it already finished: for each
/// table (on the pool), the values sorted in the table's key order, each
/// group's pairs within `k` linked (`edges-TTT-*.run`) and, against an
/// index, each group's links to the index's signatures of the same group
/// (`xedges-TTT-*.run`). A run that updates the index keeps each table's
/// sorted values as its new keys (`newkeys-TTT-*.run`).
pub(super) fn run(
    work: &WorkDir,
    sk: &Sketch,
    pr: &Pairs,
    masks: &[u64],
    k: u32,
    index: Option<&IndexUse>,
    options: &ExternalOptions,
) -> Result<(Verified, bool)> {
    if let Some(done) = Verified::finished(work)? {
        return Ok((done, true));
    }
    let dir = work.stage_dir(verify::STAGE, true)?;
    let values = runs_with_prefix(&pr.dir, "values-")?;
    let threads = rayon::current_num_threads().clamp(1, masks.len().max(1));
    let share = options.memory() / threads;
    let update = index.is_some_and(|i| i.update);
    let verified = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    (0..masks.len())
        .into_par_iter()
        .try_for_each(|t| -> Result<()> {
            let order = KeyOrder::new(masks[t]);
            let name = if update { "newkeys" } else { "table" };
            let mut sorted = Spiller::<BandRec>::new(
                &dir,
                &format!("{name}-{t:03}"),
                share / 2 / BAND_REC_BYTES,
            );
            for_each_merged::<BandRec>(&values, |v| {
                sorted.push(BandRec {
                    key: order.apply(v.key),
                    pos: v.pos,
                })
            })?;
            let runs = sorted.finish()?;
            let mut edges =
                Spiller::<EdgeRec>::new(&dir, &format!("edges-{t:03}"), share / 8 / EDGE_REC_BYTES);
            let mut index_edges = Spiller::<EdgeRec>::new(
                &dir,
                &format!("xedges-{t:03}"),
                share / 16 / EDGE_REC_BYTES,
            );
            let mut table = match index {
                Some(i) => i.index.band_table(t)?,
                None => None,
            };
            let most = (share / 8 / MEMBER_BYTES).max(SMALL_GROUP);
            let earlier: Vec<u64> = masks[..t].iter().map(|&m| order.apply(m)).collect();
            let lister = Lister::new(&earlier, order.free(), k);
            let too_many = |whose: &str, group: u64| {
                Error::InvalidInput(format!(
                    "SimHash dedup: more than {most} distinct signatures {whose}share the bits \
                     {group:x} of table {t}; raise the memory budget (needs {MEMBER_BYTES} bytes \
                     per signature on each of {threads} threads, times 8)"
                ))
            };
            let mut group: Vec<(u64, u32)> = Vec::new();
            let mut indexed: Vec<BandRec> = Vec::new();
            let mut links = 0u64;
            let mut flush = |group: &mut Vec<(u64, u32)>| -> Result<()> {
                let Some(&(first, _)) = group.first() else {
                    return Ok(());
                };
                let mut failed = None;
                lister.pairs(group, |a, b, d| {
                    links += 1;
                    let (a, b) = (a.min(b), a.max(b));
                    for e in EdgeRec::both(a, b, Measure::hamming(d)) {
                        if let Err(e) = edges.push(e) {
                            failed.get_or_insert(e);
                        }
                    }
                });
                if let Some(t) = table.as_mut() {
                    let (lo, hi) = order.bounds(order.group(first));
                    indexed.clear();
                    if !t.range(lo, hi, most, &mut indexed)? {
                        return Err(too_many("of the index ", order.group(first)));
                    }
                    lister.cross(group, &indexed, |doc, at, d| {
                        links += 1;
                        if let Err(e) =
                            index_edges.push(EdgeRec::both(doc, at, Measure::hamming(d))[0])
                        {
                            failed.get_or_insert(e);
                        }
                    });
                }
                group.clear();
                failed.map_or(Ok(()), Err)
            };
            let mut merge = Merge::<BandRec>::open(&runs)?;
            let mut current = None;
            while let Some(r) = merge.next_rec()? {
                check_position(r.pos, sk.documents, "table runs")?;
                let g = order.group(r.key);
                if current != Some(g) {
                    flush(&mut group)?;
                    current = Some(g);
                } else if group.len() >= most {
                    return Err(too_many("", g));
                }
                group.push((r.key, r.pos));
            }
            flush(&mut group)?;
            drop(merge);
            if !update {
                for run in &runs {
                    std::fs::remove_file(run).map_err(|e| io_error(run, "cannot remove", e))?;
                }
            }
            edges.finish()?;
            index_edges.finish()?;
            verified.fetch_add(links, Ordering::Relaxed);
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            options.report(verify::STAGE, d, masks.len() as u64);
            Ok(())
        })?;
    // As in memory, where the index proposes only the pairs within `k`:
    // every candidate is a link.
    let verified = verified.into_inner();
    Ok((Verified::finish(work, dir, verified, verified)?, false))
}

/// Lists the pairs within `k` bits of one table's group, each pair once
/// over all tables.
pub(in super::super) struct Lister<'a> {
    /// The masks of the earlier tables: a pair that agrees under one of
    /// them was a candidate there.
    earlier: &'a [u64],
    /// The bits outside this table's mask cut into `k + 1` blocks (empty
    /// when there are too few bits): a pair within `k` bits agrees on one.
    blocks: Vec<u64>,
    k: u32,
}

impl<'a> Lister<'a> {
    /// The lister of the table after the tables of `earlier`, whose mask
    /// leaves the bits `free` out.
    pub(in super::super) fn new(earlier: &'a [u64], free: u64, k: u32) -> Self {
        let bits: Vec<u32> = (0..64).filter(|b| free >> b & 1 == 1).collect();
        let n = k as usize + 1;
        let blocks = if bits.len() >= n {
            (0..n)
                .map(|i| {
                    let (from, to) = (bits.len() * i / n, bits.len() * (i + 1) / n);
                    bits[from..to].iter().fold(0u64, |m, &b| m | 1 << b)
                })
                .collect()
        } else {
            Vec::new()
        };
        Self { earlier, blocks, k }
    }

    /// Calls `link(pos_a, pos_b, distance)` for every pair of `group`
    /// (distinct signatures sharing this table's key) within `k` bits that
    /// no earlier table proposed; returns the pairs compared.
    pub(in super::super) fn pairs(
        &self,
        group: &mut [(u64, u32)],
        mut link: impl FnMut(u32, u32, u32),
    ) -> u64 {
        self.listed(group, |_, _| true, &mut link)
    }

    /// Calls `link(pos, indexed_pos, distance)` for every pair of a member
    /// of `group` and an indexed signature of the same key (`indexed`)
    /// within `k` bits that no earlier table proposed; returns the pairs
    /// compared.
    pub(in super::super) fn cross(
        &self,
        group: &[(u64, u32)],
        indexed: &[BandRec],
        mut link: impl FnMut(u32, u32, u32),
    ) -> u64 {
        if group.is_empty() || indexed.is_empty() {
            return 0;
        }
        if group.len().saturating_mul(indexed.len()) <= SMALL_GROUP * SMALL_GROUP {
            // Few pairs (the usual case: a run's group holds one or two
            // signatures): compared directly, without sorting by blocks.
            let mut compared = 0;
            for &(a, pa) in group {
                for r in indexed {
                    let x = a ^ r.key;
                    if self.earlier.iter().any(|m| x & m == 0) {
                        continue;
                    }
                    compared += 1;
                    let d = x.count_ones();
                    if d <= self.k {
                        link(pa, r.pos, d);
                    }
                }
            }
            return compared;
        }
        // One group of both, members named by their slot: the group's
        // first, then the index's.
        let split = group.len() as u32;
        let mut both: Vec<(u64, u32)> = group
            .iter()
            .map(|&(sig, _)| sig)
            .chain(indexed.iter().map(|r| r.key))
            .zip(0u32..)
            .collect();
        self.listed(
            &mut both,
            |a, b| (a < split) != (b < split),
            &mut |a, b, d| {
                let (mine, theirs) = if a < split { (a, b) } else { (b, a) };
                link(
                    group[mine as usize].1,
                    indexed[(theirs - split) as usize].pos,
                    d,
                );
            },
        )
    }

    /// Lists the pairs of `group` that `wanted` accepts.
    fn listed(
        &self,
        group: &mut [(u64, u32)],
        wanted: impl Fn(u32, u32) -> bool + Copy,
        link: &mut impl FnMut(u32, u32, u32),
    ) -> u64 {
        if group.len() < 2 {
            return 0;
        }
        if group.len() <= SMALL_GROUP || self.blocks.is_empty() {
            return self.all_pairs(group, &[], wanted, link);
        }
        // Every pair within `k` agrees on one block; it is listed under the
        // first block it agrees on.
        let mut compared = 0;
        for (b, &block) in self.blocks.iter().enumerate() {
            group.sort_unstable_by_key(|&(sig, pos)| (sig & block, pos));
            let mut start = 0;
            while start < group.len() {
                let key = group[start].0 & block;
                let end = start
                    + group[start..]
                        .iter()
                        .take_while(|(s, _)| s & block == key)
                        .count();
                compared += self.all_pairs(&group[start..end], &self.blocks[..b], wanted, link);
                start = end;
            }
        }
        compared
    }

    /// Compares every pair of `group` that `wanted` accepts and that agrees
    /// under none of `skip` and none of the earlier tables.
    fn all_pairs(
        &self,
        group: &[(u64, u32)],
        skip: &[u64],
        wanted: impl Fn(u32, u32) -> bool,
        link: &mut impl FnMut(u32, u32, u32),
    ) -> u64 {
        let mut compared = 0;
        for (i, &(a, pa)) in group.iter().enumerate() {
            for &(b, pb) in &group[i + 1..] {
                if !wanted(pa, pb) {
                    continue;
                }
                let x = a ^ b;
                if self.earlier.iter().chain(skip).any(|m| x & m == 0) {
                    continue;
                }
                compared += 1;
                let d = x.count_ones();
                if d <= self.k {
                    link(pa, pb, d);
                }
            }
        }
        compared
    }
}
