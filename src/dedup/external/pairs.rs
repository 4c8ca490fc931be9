//! Stage 2: merge the sorted runs into exact-copy links and candidate pairs.
//!
//! Exact copies (equal content keys) link to the first copy and leave the
//! buckets: they would only repeat the pairs of that copy. In every band
//! bucket the smallest remaining position is the representative and each
//! other member gives one pair with it, so a bucket of `m` documents costs
//! `m - 1` pairs however alike they are. Bands are merged in parallel, each
//! into its own pair runs; the verification stage merges those.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::records::{BandRec, ContentRec, EdgeRec, PairRec};
use super::runs::{Merge, Spiller, check_position};
use super::sketch::{Sketch, runs_with_prefix, summary_value};
use super::workdir::{Bits, WorkDir};
use super::{ExternalOptions, IndexUse};
use crate::Result;

pub(super) const STAGE: &str = "pairs";

/// In-memory bytes of a buffered pair or link record.
const PAIR_REC_BYTES: usize = 8;
pub(super) const EDGE_REC_BYTES: usize = 12;

/// What the pairs stage leaves for the others.
pub(super) struct Pairs {
    pub(super) dir: PathBuf,
    /// Exact copies linked to their first copy (in the run or the index).
    pub(super) copies: u64,
    /// The index generation the stage looked keys up in.
    pub(super) index_generation: u64,
    /// Tells this run's index update from any other.
    pub(super) token: u64,
}

impl Pairs {
    /// The stage's result read from its marker, if it finished.
    pub(super) fn finished(work: &WorkDir) -> Result<Option<Self>> {
        let Some(summary) = work.marker(STAGE)? else {
            return Ok(None);
        };
        Ok(Some(Self {
            dir: work.stage_dir(STAGE, false)?,
            copies: summary_value(&summary, "copies")?,
            index_generation: summary_value(&summary, "index_generation")?,
            token: summary_value(&summary, "token")?,
        }))
    }

    /// Marks the stage finished: `copies` links were made, the keys were
    /// looked up in `index`'s current generation.
    pub(super) fn finish(
        work: &WorkDir,
        dir: PathBuf,
        copies: u64,
        index: Option<&IndexUse>,
    ) -> Result<Self> {
        let index_generation = index.map_or(0, |i| i.index.generation());
        // Tells this run's update of the index from any other run's.
        let token = xxhash_rust::xxh3::xxh3_64(
            format!(
                "{}{:?}{}",
                work.root().display(),
                std::time::SystemTime::now(),
                std::process::id()
            )
            .as_bytes(),
        );
        work.finish(
            STAGE,
            &format!("copies {copies}\nindex_generation {index_generation}\ntoken {token}\n"),
        )?;
        Ok(Self {
            dir,
            copies,
            index_generation,
            token,
        })
    }

    /// The candidate-pair runs of every band.
    pub(super) fn pair_runs(&self) -> Result<Vec<PathBuf>> {
        runs_with_prefix(&self.dir, "pairs-")
    }

    /// The runs of exact-copy links.
    pub(super) fn copy_runs(&self) -> Result<Vec<PathBuf>> {
        runs_with_prefix(&self.dir, "copies-")
    }

    /// The candidate pairs (document, indexed document) of every band.
    pub(super) fn index_pair_runs(&self) -> Result<Vec<PathBuf>> {
        runs_with_prefix(&self.dir, "xpairs-")
    }

    /// The links (document, indexed document) of exact copies.
    pub(super) fn index_copy_runs(&self) -> Result<Vec<PathBuf>> {
        runs_with_prefix(&self.dir, "xcopies-")
    }

    /// Which documents lead a bucket the index does not hold (their texts
    /// go into the index on update).
    pub(super) fn new_rep_bits(&self, documents: u64) -> Result<Bits> {
        Bits::load(&self.dir.join("newreps.bits"), documents as usize)
    }

    /// Which documents represent a bucket.
    pub(super) fn rep_bits(&self, documents: u64) -> Result<Bits> {
        Bits::load(&self.dir.join("reps.bits"), documents as usize)
    }
}

/// Runs stage 2, or reads its summary when it already finished.
pub(super) fn run(
    work: &WorkDir,
    sk: &Sketch,
    bands: usize,
    index: Option<&IndexUse>,
    options: &ExternalOptions,
) -> Result<(Pairs, bool)> {
    if let Some(done) = Pairs::finished(work)? {
        return Ok((done, true));
    }
    let dir = work.stage_dir(STAGE, true)?;
    let n = sk.documents as usize;
    let total = sk.documents * (bands as u64 + 1);
    let done = AtomicU64::new(0);

    // Exact copies first: the buckets must not contain them.
    let update = index.is_some_and(|i| i.update);
    let (is_copy, copies) = collapse_copies(&dir, sk, index, options)?;
    done.fetch_add(sk.documents, Ordering::Relaxed);
    options.report(STAGE, done.load(Ordering::Relaxed), total);

    let is_rep = Bits::new(n);
    let new_rep = Bits::new(n);
    let threads = rayon::current_num_threads().max(1);
    let cap = options.memory() / 2 / threads / PAIR_REC_BYTES;
    let index_cap = if index.is_some() { cap / 4 } else { 0 };
    (0..bands)
        .into_par_iter()
        .try_for_each(|band| -> Result<()> {
            let mut out = Spiller::<PairRec>::new(&dir, &format!("pairs-{band:03}"), cap);
            let mut index_out =
                Spiller::<PairRec>::new(&dir, &format!("xpairs-{band:03}"), index_cap);
            let mut new_keys =
                Spiller::<BandRec>::new(&dir, &format!("newkeys-{band:03}"), index_cap);
            let mut table = match index {
                Some(i) => i.index.band_table(band)?,
                None => None,
            };
            let mut merge = Merge::<BandRec>::open(&sk.band_runs(band)?)?;
            // The bucket being read: its key, and its first document, in
            // the index or in the run.
            let mut bucket: Option<(u64, Lead)> = None;
            let mut seen = 0u64;
            while let Some(r) = merge.next_rec()? {
                seen += 1;
                check_position(r.pos, sk.documents, "band runs")?;
                if is_copy.get(r.pos) {
                    continue;
                }
                match bucket {
                    Some((key, Lead::Run(rep))) if key == r.key => {
                        is_rep.set(rep);
                        out.push(PairRec { later: r.pos, rep })?;
                    }
                    Some((key, Lead::Index(at))) if key == r.key => {
                        index_out.push(PairRec {
                            later: r.pos,
                            rep: at,
                        })?;
                    }
                    _ => {
                        let indexed = match table.as_mut() {
                            Some(t) => t.find(r.key)?,
                            None => None,
                        };
                        let lead = match indexed {
                            Some(at) => {
                                index_out.push(PairRec {
                                    later: r.pos,
                                    rep: at.pos,
                                })?;
                                Lead::Index(at.pos)
                            }
                            None => {
                                if update {
                                    new_rep.set(r.pos);
                                    new_keys.push(r)?;
                                }
                                Lead::Run(r.pos)
                            }
                        };
                        bucket = Some((r.key, lead));
                    }
                }
                if seen.is_multiple_of(1 << 20) {
                    let d = done.fetch_add(1 << 20, Ordering::Relaxed) + (1 << 20);
                    options.report(STAGE, d, total);
                }
            }
            done.fetch_add(seen % (1 << 20), Ordering::Relaxed);
            out.finish()?;
            index_out.finish()?;
            new_keys.finish()?;
            Ok(())
        })?;
    if update {
        new_rep.save(&dir.join("newreps.bits"))?;
    }
    is_rep.save(&dir.join("reps.bits"))?;
    options.report(STAGE, total, total);
    Ok((Pairs::finish(work, dir, copies, index)?, false))
}

/// Merges the content runs: every exact copy links to the first copy (or,
/// when the index holds its text, to the indexed one) and is marked in the
/// returned bits, so that the buckets leave it out; also returns the number
/// of copies. A run that updates its index keeps the new texts' keys
/// (`newcontent-*.run`) and the copies' bits (`copies.bits`).
pub(super) fn collapse_copies(
    dir: &Path,
    sk: &Sketch,
    index: Option<&IndexUse>,
    options: &ExternalOptions,
) -> Result<(Bits, u64)> {
    let update = index.is_some_and(|i| i.update);
    let is_copy = Bits::new(sk.documents as usize);
    let mut copy_links =
        Spiller::<EdgeRec>::new(dir, "copies", options.memory() / 4 / EDGE_REC_BYTES);
    let mut index_links =
        Spiller::<EdgeRec>::new(dir, "xcopies", options.memory() / 16 / EDGE_REC_BYTES);
    let mut new_content = Spiller::<ContentRec>::new(dir, "newcontent", options.memory() / 16 / 20);
    let mut content_table = match index {
        Some(i) => i.index.content_table()?,
        None => None,
    };
    let mut copies = 0u64;
    let mut merge = Merge::<ContentRec>::open(&sk.content_runs()?)?;
    let mut first: Option<ContentRec> = None;
    while let Some(r) = merge.next_rec()? {
        check_position(r.pos, sk.documents, "content runs")?;
        match first {
            Some(f) if f.hash == r.hash => {
                is_copy.set(r.pos);
                copies += 1;
                for e in EdgeRec::both(f.pos, r.pos, 1.0) {
                    copy_links.push(e)?;
                }
            }
            _ => {
                first = Some(r);
                let indexed = match content_table.as_mut() {
                    Some(t) => t.find(r.hash)?,
                    None => None,
                };
                if let Some(at) = indexed {
                    is_copy.set(r.pos);
                    copies += 1;
                    index_links.push(EdgeRec::both(r.pos, at.pos, 1.0)[0])?;
                } else if update {
                    new_content.push(r)?;
                }
            }
        }
    }
    copy_links.finish()?;
    index_links.finish()?;
    new_content.finish()?;
    if update {
        is_copy.save(&dir.join("copies.bits"))?;
    }
    Ok((is_copy, copies))
}

/// The first document of a bucket.
#[derive(Clone, Copy)]
enum Lead {
    /// A document of the run.
    Run(u32),
    /// An indexed document.
    Index(u32),
}
