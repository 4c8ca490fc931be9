//! Stage 4: connected components of the verified links.
//!
//! Union-find that always hangs the larger root under the smaller, so a
//! component's root is its smallest position, the document it keeps. The
//! components do not depend on the order the links come in, so the result
//! is the same for any thread count or memory budget. Memory: 4 bytes per
//! document.

use std::fs::File;
use std::io::{BufWriter, Write};

use super::records::{EdgeRec, MemberRec};
use super::runs::{Spiller, check_position, for_each_unordered};
use super::sketch::{Sketch, summary_value};
use super::workdir::{Bits, WorkDir, io_error};
use super::{ExternalOptions, pairs::Pairs, verify::Verified};
use crate::Result;

pub(super) const STAGE: &str = "cluster";

/// Marks "no cluster" / "no document" in the cluster file.
pub(super) const NONE: u32 = u32::MAX;

/// What the cluster stage leaves: per position its cluster and kept
/// document (`clusters.bin`), and the members sorted by cluster.
pub(super) struct Clustered {
    pub(super) clusters: u64,
    pub(super) dropped: u64,
    /// Documents dropped as duplicates of indexed ones (in `dropped` too).
    pub(super) indexed: u64,
}

/// Runs stage 4, or reads its summary when it already finished.
pub(super) fn run(
    work: &WorkDir,
    sk: &Sketch,
    pairs: &Pairs,
    verified: &Verified,
    with_index: bool,
    options: &ExternalOptions,
) -> Result<(Clustered, bool)> {
    if let Some(summary) = work.marker(STAGE)? {
        return Ok((
            Clustered {
                clusters: summary_value(&summary, "clusters")?,
                dropped: summary_value(&summary, "dropped")?,
                indexed: summary_value(&summary, "indexed")?,
            },
            true,
        ));
    }
    let dir = work.stage_dir(STAGE, true)?;
    let n = sk.documents as usize;
    let mut parent: Vec<u32> = (0..n as u32).collect();
    let mut links = pairs.copy_runs()?;
    links.extend(verified.edge_runs()?);
    let mut done = 0u64;
    // Union-find does not depend on the order of the links: each run is
    // read straight through, without merging.
    for_each_unordered::<EdgeRec>(&links, |e| {
        check_position(e.doc, sk.documents, "link runs")?;
        check_position(e.other, sk.documents, "link runs")?;
        union(&mut parent, e.doc, e.other);
        done += 1;
        if done.is_multiple_of(1 << 22) {
            options.report(STAGE, done, 0);
        }
        Ok(())
    })?;

    // A component that reaches the index is decided by it: its original is
    // the smallest indexed document it links to. Links among indexed
    // documents do not matter here: reaching any of them is enough.
    let mut reaches: Vec<u32> = Vec::new();
    if with_index {
        reaches = vec![NONE; n];
        let mut links = pairs.index_copy_runs()?;
        links.extend(verified.index_edge_runs()?);
        for_each_unordered::<EdgeRec>(&links, |e| {
            check_position(e.doc, sk.documents, "index link runs")?;
            let root = find(&mut parent, e.doc) as usize;
            reaches[root] = reaches[root].min(e.other);
            Ok(())
        })?;
    }

    // Roots are the smallest members, so one ascending pass settles every
    // position: its parent's root is already final.
    let has_member = Bits::new(n);
    for i in 0..n {
        let p = parent[i] as usize;
        if p != i {
            parent[i] = parent[p];
            has_member.set(parent[i]);
        }
    }
    let path = dir.join("clusters.bin");
    let file = File::create(&path).map_err(|e| io_error(&path, "cannot create", e))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut members = Spiller::<MemberRec>::new(&dir, "members", options.memory() / 4 / 8);
    let indexed_path = dir.join("indexed.bin");
    let mut indexed_out = if with_index {
        let f =
            File::create(&indexed_path).map_err(|e| io_error(&indexed_path, "cannot create", e))?;
        Some(BufWriter::with_capacity(1 << 20, f))
    } else {
        None
    };
    let (mut clusters, mut dropped, mut indexed) = (0u32, 0u64, 0u64);
    for i in 0..n {
        let root = parent[i] as usize;
        let original = reaches.get(root).copied().unwrap_or(NONE);
        if let Some(out) = indexed_out.as_mut() {
            out.write_all(&original.to_le_bytes())
                .map_err(|e| io_error(&indexed_path, "cannot write", e))?;
        }
        let (cluster, kept) = if original != NONE {
            dropped += 1;
            indexed += 1;
            (NONE, NONE)
        } else if root == i {
            if has_member.get(i as u32) {
                // A root's slot is no longer needed as a parent: it now
                // holds the cluster's number for its later members.
                parent[i] = clusters;
                clusters += 1;
                (parent[i], i as u32)
            } else {
                (NONE, NONE)
            }
        } else {
            dropped += 1;
            (parent[root], root as u32)
        };
        if cluster != NONE {
            members.push(MemberRec {
                cluster,
                pos: i as u32,
            })?;
        }
        let mut rec = [0u8; 8];
        rec[..4].copy_from_slice(&cluster.to_le_bytes());
        rec[4..].copy_from_slice(&kept.to_le_bytes());
        out.write_all(&rec)
            .map_err(|e| io_error(&path, "cannot write", e))?;
    }
    drop(parent);
    members.finish()?;
    out.flush()
        .map_err(|e| io_error(&path, "cannot write", e))?;
    if let Some(mut out) = indexed_out {
        out.flush()
            .map_err(|e| io_error(&indexed_path, "cannot write", e))?;
    }
    work.finish(
        STAGE,
        &format!("clusters {clusters}\ndropped {dropped}\nindexed {indexed}\n"),
    )?;
    Ok((
        Clustered {
            clusters: u64::from(clusters),
            dropped,
            indexed,
        },
        false,
    ))
}

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let grand = parent[parent[x as usize] as usize];
        parent[x as usize] = grand;
        x = grand;
    }
    x
}

/// Joins the sets of `a` and `b` under the smaller root.
fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        let (small, large) = (ra.min(rb), ra.max(rb));
        parent[large as usize] = small;
    }
}
