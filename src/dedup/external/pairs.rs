//! Stage 2: merge the sorted runs into exact-copy links and candidate pairs.
//!
//! Exact copies (equal content keys) link to the first copy and leave the
//! buckets: they would only repeat the pairs of that copy. In every band
//! bucket the smallest remaining position is the representative and each
//! other member gives one pair with it, so a bucket of `m` documents costs
//! `m - 1` pairs however alike they are. Bands are merged in parallel, each
//! into its own pair runs; the verification stage merges those.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::ExternalOptions;
use super::records::{BandRec, ContentRec, EdgeRec, PairRec};
use super::runs::{Merge, Spiller, check_position};
use super::sketch::{Sketch, runs_with_prefix, summary_value};
use super::workdir::{Bits, WorkDir};
use crate::Result;

pub(super) const STAGE: &str = "pairs";

/// In-memory bytes of a buffered pair or link record.
const PAIR_REC_BYTES: usize = 8;
const EDGE_REC_BYTES: usize = 12;

/// What the pairs stage leaves for the others.
pub(super) struct Pairs {
    pub(super) dir: PathBuf,
    /// Exact copies linked to their first copy.
    pub(super) copies: u64,
}

impl Pairs {
    /// The candidate-pair runs of every band.
    pub(super) fn pair_runs(&self) -> Result<Vec<PathBuf>> {
        runs_with_prefix(&self.dir, "pairs-")
    }

    /// The runs of exact-copy links.
    pub(super) fn copy_runs(&self) -> Result<Vec<PathBuf>> {
        runs_with_prefix(&self.dir, "copies-")
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
    options: &ExternalOptions,
) -> Result<(Pairs, bool)> {
    if let Some(summary) = work.marker(STAGE)? {
        let dir = work.stage_dir(STAGE, false)?;
        let copies = summary_value(&summary, "copies")?;
        return Ok((Pairs { dir, copies }, true));
    }
    let dir = work.stage_dir(STAGE, true)?;
    let n = sk.documents as usize;
    let total = sk.documents * (bands as u64 + 1);
    let done = AtomicU64::new(0);

    // Exact copies first: the buckets must not contain them.
    let is_copy = Bits::new(n);
    let mut copy_links =
        Spiller::<EdgeRec>::new(&dir, "copies", options.memory() / 4 / EDGE_REC_BYTES);
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
            _ => first = Some(r),
        }
    }
    copy_links.finish()?;
    done.fetch_add(sk.documents, Ordering::Relaxed);
    options.report(STAGE, done.load(Ordering::Relaxed), total);

    let is_rep = Bits::new(n);
    let threads = rayon::current_num_threads().max(1);
    let cap = options.memory() / 2 / threads / PAIR_REC_BYTES;
    (0..bands)
        .into_par_iter()
        .try_for_each(|band| -> Result<()> {
            let mut out = Spiller::<PairRec>::new(&dir, &format!("pairs-{band:03}"), cap);
            let mut merge = Merge::<BandRec>::open(&sk.band_runs(band)?)?;
            let mut bucket: Option<BandRec> = None;
            let mut seen = 0u64;
            while let Some(r) = merge.next_rec()? {
                seen += 1;
                check_position(r.pos, sk.documents, "band runs")?;
                if is_copy.get(r.pos) {
                    continue;
                }
                match bucket {
                    Some(rep) if rep.key == r.key => {
                        is_rep.set(rep.pos);
                        out.push(PairRec {
                            later: r.pos,
                            rep: rep.pos,
                        })?;
                    }
                    _ => bucket = Some(r),
                }
                if seen.is_multiple_of(1 << 20) {
                    let d = done.fetch_add(1 << 20, Ordering::Relaxed) + (1 << 20);
                    options.report(STAGE, d, total);
                }
            }
            done.fetch_add(seen % (1 << 20), Ordering::Relaxed);
            out.finish()?;
            Ok(())
        })?;
    is_rep.save(&dir.join("reps.bits"))?;
    options.report(STAGE, total, total);
    work.finish(STAGE, &format!("copies {copies}\n"))?;
    Ok((Pairs { dir, copies }, false))
}
