//! The out-of-core run of [`SimHashDedup`]: its stages 2 and 3.
//!
//! Stage 1 is the shared sketch, with the signature as the only key. Then:
//!
//! 2. **pairs**: the content runs collapse exact copies as for MinHash; the
//!    signature runs, merged, link every document to the first document
//!    with the same signature (distance 0), leaving one document per
//!    signature value: the *values*, written as sorted runs.
//! 3. **verify** ([`tables`]): for each table of the radius's
//!    [`SimHashLayout`] (every pair within `k` bits agrees on some table's
//!    mask), the values are sorted in the table's [`KeyOrder`](order), which
//!    puts the signatures that agree under the mask side by side; every
//!    pair of such a group within `k` bits is linked, listed by the first
//!    table that proposes it.
//!
//! Those are the links the in-memory run makes (exact copies, equal
//! signatures, and every pair of distinct values within `k`), so the
//! clusters are the same; stage 4 is the shared union-find. A group is held
//! in memory while its pairs are listed; a large one is cut into
//! sub-groups by blocks of the bits outside the mask, so random signatures
//! never meet in a quadratic loop.
//!
//! **Against an index.** A SimHash index holds, per table, one record per
//! distinct indexed signature: the signature in the table's key order and
//! its first document. The pairs stage links a document whose text or
//! signature the index holds to the indexed document (it is then no value);
//! the verify stage looks each group up in the index's table and links
//! every value within `k` bits of an indexed signature, listed by the first
//! table, as for two values of the run. The values are exactly the
//! signatures the index lacks, so an update adds each table's sorted values
//! as the table's new keys.

mod order;
mod tables;

use super::pairs::{self, EDGE_REC_BYTES, Pairs, collapse_copies};
use super::records::{BandRec, EdgeRec};
use super::report::Measure;
use super::runs::{Spiller, check_position, for_each_merged};
use super::sketch::{self, BAND_REC_BYTES, Sketch};
use super::verify;
use super::workdir::WorkDir;
use super::{Counts, DocumentSource, ExternalOptions, ExternalReport, IndexUse, Stages, cluster};
use crate::Result;
use crate::Tokenizer;
use crate::dedup::SimHashDedup;
use crate::lsh::SimHashLayout;
use order::KeyOrder;
#[cfg(test)]
use tables::Lister;

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
    /// by its position and id); [`Error::InvalidInput`](crate::Error::InvalidInput) when more signatures
    /// share one table key than the memory budget holds, or for an index
    /// built with other settings (a MinHash index, another radius or
    /// fingerprinter); otherwise as
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
        let settings = format!(
            "simhash config {:016x} k {k} tables {}",
            fp.config_hash(),
            layout.masks().len()
        );
        let index = IndexUse::open(options, &settings, layout.masks().len())?;
        let mut identity = format!(
            "txtfp external dedup 1\nsimhash config {:016x} k {k} empty {:?}\ninput {}\n",
            fp.config_hash(),
            self.empty_documents(),
            source.identity()
        );
        if let Some(i) = &index {
            identity.push_str(&i.identity());
        }
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
        let first = KeyOrder::new(layout.masks()[0]);
        let pr = stages.run(pairs::STAGE, || {
            values(&work, &sk, index.as_ref(), &first, options)
        })?;
        if let Some(i) = &index {
            i.check_unchanged(&work, &pr)?;
        }
        let vr = stages.run(verify::STAGE, || {
            tables::run(&work, &sk, &pr, layout.masks(), k, index.as_ref(), options)
        })?;
        let cr = stages.run(cluster::STAGE, || {
            cluster::run(&work, &sk, &pr, &vr, index.is_some(), options)
        })?;
        let index_added =
            IndexUse::add_run(index.as_ref(), &mut stages, &work, &sk, &pr, &vr.dir, None)?;
        let counts = Counts {
            copies: pr.copies,
            candidates: vr.candidates,
            verified: vr.verified,
        };
        let mut report = stages
            .report(&sk, &cr, &counts, self.empty_documents())
            .with_measure(Measure::Hamming);
        report.index_added = index_added;
        Ok(report)
    }
}

/// Stage 2: exact copies, then equal signatures, linked to their first
/// document (in the index, when it holds the text or the signature, found
/// in the first table whose order is `first`); the remaining documents'
/// signatures go to `values-*.run`.
fn values(
    work: &WorkDir,
    sk: &Sketch,
    index: Option<&IndexUse>,
    first: &KeyOrder,
    options: &ExternalOptions,
) -> Result<(Pairs, bool)> {
    if let Some(done) = Pairs::finished(work)? {
        return Ok((done, true));
    }
    let dir = work.stage_dir(pairs::STAGE, true)?;
    let total = sk.documents * 2;
    let (is_copy, mut copies) = collapse_copies(&dir, sk, index, options)?;
    options.report(pairs::STAGE, sk.documents, total);
    // Named `copies-…` (`xcopies-…`) too: the cluster stage and the report
    // read them with the exact copies' links.
    let mut links =
        Spiller::<EdgeRec>::new(&dir, "copies-sig", options.memory() / 4 / EDGE_REC_BYTES);
    let mut index_links =
        Spiller::<EdgeRec>::new(&dir, "xcopies-sig", options.memory() / 16 / EDGE_REC_BYTES);
    let mut values = Spiller::<BandRec>::new(&dir, "values", options.memory() / 4 / BAND_REC_BYTES);
    let mut table = match index {
        Some(i) => i.index.band_table(0)?,
        None => None,
    };
    let mut first_doc: Option<BandRec> = None;
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
        match first_doc {
            Some(f) if f.key == r.key => {
                copies += 1;
                for e in EdgeRec::both(f.pos, r.pos, Measure::hamming(0)) {
                    links.push(e)?;
                }
                Ok(())
            }
            _ => {
                first_doc = Some(r);
                let indexed = match table.as_mut() {
                    Some(t) => t.find(first.apply(r.key))?,
                    None => None,
                };
                match indexed {
                    Some(at) => {
                        copies += 1;
                        index_links.push(EdgeRec::both(r.pos, at.pos, Measure::hamming(0))[0])
                    }
                    None => values.push(r),
                }
            }
        }
    })?;
    links.finish()?;
    index_links.finish()?;
    values.finish()?;
    options.report(pairs::STAGE, total, total);
    Ok((Pairs::finish(work, dir, copies, index)?, false))
}

#[cfg(test)]
mod tests;
