//! The out-of-core run of [`SimHashDedup`]: its stages 2 and 3.
//!
//! Stage 1 is the shared sketch, with the signature as the only key. Then:
//!
//! 2. **pairs**: the content runs collapse exact copies as for MinHash; the
//!    signature runs, merged, link every document to the first document
//!    with the same signature (distance 0), leaving one document per
//!    signature value: the *values*, written as sorted runs.
//! 3. **verify**: for each table of the radius's [`SimHashLayout`] (every
//!    pair within `k` bits agrees on some table's mask), the values are
//!    sorted by their bits under the mask; every pair of a group of equal
//!    keys within `k` bits is linked, listed by the first table that
//!    proposes it.
//!
//! Those are the links the in-memory run makes (exact copies, equal
//! signatures, and every pair of distinct values within `k`), so the
//! clusters are the same; stage 4 is the shared union-find. A group is held
//! in memory while its pairs are listed; a large one is cut into
//! sub-groups by blocks of the bits outside the mask, so random signatures
//! never meet in a quadratic loop.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::pairs::{self, EDGE_REC_BYTES, Pairs, collapse_copies};
use super::records::{BandRec, EdgeRec, TableRec};
use super::report::Measure;
use super::runs::{Merge, Spiller, check_position, for_each_merged};
use super::sketch::{self, BAND_REC_BYTES, Sketch, runs_with_prefix, summary_value};
use super::verify::{self, Verified};
use super::workdir::{WorkDir, io_error};
use super::{Counts, DocumentSource, ExternalOptions, ExternalReport, Stages, cluster};
use crate::dedup::SimHashDedup;
use crate::lsh::SimHashLayout;
use crate::{Error, Result, Tokenizer};

/// In-memory bytes of a buffered table record (`TableRec` is padded to 24).
const TABLE_REC_BYTES: usize = 24;
/// Bytes a group member takes while its group's pairs are listed.
const MEMBER_BYTES: usize = 16;

/// Groups up to this size are compared pair by pair; larger ones are cut
/// by blocks first.
const SMALL_GROUP: usize = 48;

impl<T: Tokenizer + Sync> SimHashDedup<T> {
    /// [`run_texts`](Self::run_texts) for a corpus read from `source`
    /// through a work directory, in the memory `options` allow: the same
    /// clusters, kept documents and `duplicate_of`, for any budget and
    /// thread count (see the [module documentation](super)). Documents are
    /// numbered by their position in the source; a cluster keeps its first
    /// document; pairs are not recorded. A document's similarity in the
    /// report is the Hamming distance of its closest link.
    ///
    /// Started again after an interruption with the same settings, source
    /// and work directory, the run resumes after the last finished stage.
    ///
    /// ```
    /// use txtfp::dedup::SimHashDedup;
    /// use txtfp::dedup::external::{ExternalOptions, TextSource};
    /// let texts = [
    ///     "the committee approved the annual budget after a long debate about road repairs",
    ///     "a recipe for bread needs flour, water, salt, yeast and a warm place to rise",
    ///     "The committee approved the annual budget after a long debate about road repairs.",
    /// ];
    /// let dir = std::env::temp_dir().join(format!("txtfp-doc-simhash-{}", std::process::id()));
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// let report = SimHashDedup::new()
    ///     .run_external(&TextSource::new(&texts), &ExternalOptions::new(&dir))?;
    /// let dropped: Vec<(u64, Option<u64>)> = report
    ///     .decisions()?
    ///     .filter_map(|d| d.map(|d| (!d.keep).then_some((d.position, d.duplicate_of))).transpose())
    ///     .collect::<Result<_, _>>()?;
    /// assert_eq!(dropped, [(2, Some(0))]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`run`](Self::run) for settings and documents (a document is named
    /// by its position and id); [`Error::Config`] for a run
    /// [`against`](ExternalOptions::against) an index, which holds MinHash
    /// keys; [`Error::InvalidInput`] when more signatures share one table
    /// key than the memory budget holds; otherwise as
    /// [`MinHashDedup::run_external`](crate::dedup::MinHashDedup::run_external).
    pub fn run_external<D: DocumentSource + ?Sized>(
        &self,
        source: &D,
        options: &ExternalOptions,
    ) -> Result<ExternalReport> {
        self.check()?;
        let k = self.max_distance();
        let layout = SimHashLayout::for_distance(k)?;
        let fp = self.fingerprinter();
        fp.canonicalizer().check()?;
        fp.tokenizer().validate()?;
        if let Some(dir) = options.index_dir() {
            return Err(Error::Config(format!(
                "{}: a dedup index holds MinHash band keys; SimHash runs cannot use one",
                dir.display()
            )));
        }
        let identity = format!(
            "txtfp external dedup 1\nsimhash config {:016x} k {k} empty {:?}\ninput {}\n",
            fp.config_hash(),
            self.empty_documents(),
            source.identity()
        );
        let work = WorkDir::open(options.work_dir(), &identity)?;
        let mut stages = Stages::new(&work);
        let sk = stages.run(sketch::STAGE, || {
            sketch::run(
                &work,
                &sketch::Signature(fp),
                self.empty_documents(),
                source,
                options,
            )
        })?;
        let pr = stages.run(pairs::STAGE, || values(&work, &sk, options))?;
        let vr = stages.run(verify::STAGE, || {
            tables(&work, &sk, &pr, layout.masks(), k, options)
        })?;
        let cr = stages.run(cluster::STAGE, || {
            cluster::run(&work, &sk, &pr, &vr, false, options)
        })?;
        let counts = Counts {
            copies: pr.copies,
            candidates: vr.candidates,
            verified: vr.verified,
        };
        Ok(stages
            .report(&sk, &cr, &counts, self.empty_documents())
            .with_measure(Measure::Hamming))
    }
}

/// Stage 2: exact copies, then equal signatures, linked to their first
/// document; the remaining documents' signatures go to `values-*.run`.
fn values(work: &WorkDir, sk: &Sketch, options: &ExternalOptions) -> Result<(Pairs, bool)> {
    if let Some(summary) = work.marker(pairs::STAGE)? {
        let dir = work.stage_dir(pairs::STAGE, false)?;
        return Ok((
            Pairs {
                dir,
                copies: summary_value(&summary, "copies")?,
                index_generation: 0,
                token: 0,
            },
            true,
        ));
    }
    let dir = work.stage_dir(pairs::STAGE, true)?;
    let total = sk.documents * 2;
    let (is_copy, mut copies) = collapse_copies(&dir, sk, None, options)?;
    options.report(pairs::STAGE, sk.documents, total);
    // Named `copies-…` too: the cluster stage and the report read them with
    // the exact copies' links.
    let mut links =
        Spiller::<EdgeRec>::new(&dir, "copies-sig", options.memory() / 4 / EDGE_REC_BYTES);
    let mut values = Spiller::<BandRec>::new(&dir, "values", options.memory() / 4 / BAND_REC_BYTES);
    let mut first: Option<BandRec> = None;
    let mut seen = 0u64;
    for_each_merged::<BandRec>(&sk.band_runs(0)?, |r| {
        check_position(r.pos, sk.documents, "signature runs")?;
        seen += 1;
        if seen.is_multiple_of(1 << 20) {
            options.report(pairs::STAGE, sk.documents + seen, total);
        }
        if is_copy.get(r.pos) {
            return Ok(());
        }
        match first {
            Some(f) if f.key == r.key => {
                copies += 1;
                for e in EdgeRec::both(f.pos, r.pos, Measure::hamming(0)) {
                    links.push(e)?;
                }
                Ok(())
            }
            _ => {
                first = Some(r);
                values.push(r)
            }
        }
    })?;
    links.finish()?;
    values.finish()?;
    options.report(pairs::STAGE, total, total);
    work.finish(
        pairs::STAGE,
        &format!("copies {copies}\nindex_generation 0\ntoken 0\n"),
    )?;
    Ok((
        Pairs {
            dir,
            copies,
            index_generation: 0,
            token: 0,
        },
        false,
    ))
}

/// Stage 3: the candidate pairs of every table, checked by Hamming
/// distance; the links go to `edges-*.run`.
fn tables(
    work: &WorkDir,
    sk: &Sketch,
    pr: &Pairs,
    masks: &[u64],
    k: u32,
    options: &ExternalOptions,
) -> Result<(Verified, bool)> {
    if let Some(done) = Verified::finished(work)? {
        return Ok((done, true));
    }
    let dir = work.stage_dir(verify::STAGE, true)?;
    let values = runs_with_prefix(&pr.dir, "values-")?;
    let threads = rayon::current_num_threads().clamp(1, masks.len().max(1));
    let share = options.memory() / threads;
    let verified = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    (0..masks.len())
        .into_par_iter()
        .try_for_each(|t| -> Result<()> {
            let mask = masks[t];
            let mut filed = Spiller::<TableRec>::new(
                &dir,
                &format!("table-{t:03}"),
                share / 2 / TABLE_REC_BYTES,
            );
            for_each_merged::<BandRec>(&values, |v| {
                filed.push(TableRec {
                    key: v.key & mask,
                    sig: v.key,
                    pos: v.pos,
                })
            })?;
            let runs = filed.finish()?;
            let mut edges =
                Spiller::<EdgeRec>::new(&dir, &format!("edges-{t:03}"), share / 4 / EDGE_REC_BYTES);
            let most = (share / 4 / MEMBER_BYTES).max(SMALL_GROUP);
            let lister = Lister::new(&masks[..t], !mask, k);
            let mut group: Vec<(u64, u32)> = Vec::new();
            let mut key = None;
            let mut links = 0u64;
            let mut flush = |group: &mut Vec<(u64, u32)>| -> Result<()> {
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
                group.clear();
                failed.map_or(Ok(()), Err)
            };
            let mut merge = Merge::<TableRec>::open(&runs)?;
            while let Some(r) = merge.next_rec()? {
                check_position(r.pos, sk.documents, "table runs")?;
                if key != Some(r.key) {
                    flush(&mut group)?;
                    key = Some(r.key);
                } else if group.len() >= most {
                    return Err(Error::InvalidInput(format!(
                        "SimHash dedup: more than {most} distinct signatures share the key \
                         {:016x} of table {t}; raise the memory budget (needs {MEMBER_BYTES} \
                         bytes per signature on each of {threads} threads, times 4)",
                        r.key
                    )));
                }
                group.push((r.sig, r.pos));
            }
            flush(&mut group)?;
            drop(merge);
            for run in &runs {
                std::fs::remove_file(run).map_err(|e| io_error(run, "cannot remove", e))?;
            }
            edges.finish()?;
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
pub(super) struct Lister<'a> {
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
    pub(super) fn new(earlier: &'a [u64], free: u64, k: u32) -> Self {
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
    pub(super) fn pairs(
        &self,
        group: &mut [(u64, u32)],
        mut link: impl FnMut(u32, u32, u32),
    ) -> u64 {
        if group.len() < 2 {
            return 0;
        }
        if group.len() <= SMALL_GROUP || self.blocks.is_empty() {
            return self.all_pairs(group, &[], &mut link);
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
                compared += self.all_pairs(&group[start..end], &self.blocks[..b], &mut link);
                start = end;
            }
        }
        compared
    }

    /// Compares every pair of `group` that agrees under none of `skip` and
    /// none of the earlier tables.
    fn all_pairs(
        &self,
        group: &[(u64, u32)],
        skip: &[u64],
        link: &mut impl FnMut(u32, u32, u32),
    ) -> u64 {
        let mut compared = 0;
        for (i, &(a, pa)) in group.iter().enumerate() {
            for &(b, pb) in &group[i + 1..] {
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

#[cfg(test)]
mod tests;
