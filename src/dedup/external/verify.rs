//! Stage 3: a second pass over the corpus that checks every candidate pair.
//!
//! Only documents in a pair are tokenized again. A pair's representative
//! comes before its later document, so the representatives' token sets (or
//! signatures) are appended to a file as the pass meets them and read back
//! by position when their later documents go by: memory holds one batch of
//! sets and an offset per representative, whatever the corpus size.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::pairs::EDGE_REC_BYTES;
use super::pairs::Pairs;
use super::records::{EdgeRec, PairRec};
use super::runs::{Merge, Spiller, check_position};
use super::sketch::{Sketch, summary_value};
use super::workdir::{Bits, WorkDir, io_error, read_exact_at};
use super::{DocumentSource, ExternalOptions};
use crate::classical::FingerprintBatch;
use crate::classical::minhash::Scheme;
use crate::dedup::exact::{SetMaker, set_jaccard};
use crate::dedup::{MinHashDedup, Verification};
use crate::{Error, MinHashSig, Result, Tokenizer};

pub(super) const STAGE: &str = "verify";

/// What the stage needs besides the work directory.
pub(super) struct Context<'a, T: Tokenizer, F, D: ?Sized, const H: usize> {
    pub(super) dedup: &'a MinHashDedup<T, H>,
    pub(super) fp: &'a F,
    pub(super) source: &'a D,
    pub(super) options: &'a crate::dedup::external::ExternalOptions,
    pub(super) index: Option<&'a super::IndexUse>,
}

/// What the verify stage leaves: the verified links and the counts.
pub(super) struct Verified {
    pub(super) dir: PathBuf,
    pub(super) candidates: u64,
    pub(super) verified: u64,
}

impl Verified {
    /// The stage's result read from its marker, if it finished.
    pub(super) fn finished(work: &WorkDir) -> Result<Option<Self>> {
        let Some(summary) = work.marker(STAGE)? else {
            return Ok(None);
        };
        Ok(Some(Self {
            dir: work.stage_dir(STAGE, false)?,
            candidates: summary_value(&summary, "candidates")?,
            verified: summary_value(&summary, "verified")?,
        }))
    }

    /// Marks the stage finished with its counts.
    pub(super) fn finish(
        work: &WorkDir,
        dir: PathBuf,
        candidates: u64,
        verified: u64,
    ) -> Result<Self> {
        work.finish(
            STAGE,
            &format!("candidates {candidates}\nverified {verified}\n"),
        )?;
        Ok(Self {
            dir,
            candidates,
            verified,
        })
    }

    /// The runs of verified links.
    pub(super) fn edge_runs(&self) -> Result<Vec<PathBuf>> {
        super::sketch::runs_with_prefix(&self.dir, "edges-")
    }

    /// The runs of verified links (document, indexed document).
    pub(super) fn index_edge_runs(&self) -> Result<Vec<PathBuf>> {
        super::sketch::runs_with_prefix(&self.dir, "xedges-")
    }
}

/// Runs stage 3, or reads its summary when it already finished.
pub(super) fn run<T, F, S, D, const H: usize>(
    work: &WorkDir,
    sk: &Sketch,
    pairs: &Pairs,
    ctx: &Context<'_, T, F, D, H>,
) -> Result<(Verified, bool)>
where
    T: Tokenizer + Sync,
    F: FingerprintBatch<Output = MinHashSig<H, S>> + Sync,
    S: Scheme,
    D: DocumentSource + ?Sized,
{
    if let Some(done) = Verified::finished(work)? {
        return Ok((done, true));
    }
    let dir = work.stage_dir(STAGE, true)?;
    let options: &ExternalOptions = ctx.options;
    let reps = pairs.rep_bits(sk.documents)?;
    let mut merge = Merge::<PairRec>::open(&pairs.pair_runs()?)?;
    let mut pending = merge.next_rec()?;
    let mut edges = Spiller::<EdgeRec>::new(&dir, "edges", options.memory() / 4 / EDGE_REC_BYTES);
    let mut index_merge = Merge::<PairRec>::open(&pairs.index_pair_runs()?)?;
    let mut index_pending = index_merge.next_rec()?;
    let mut index_edges =
        Spiller::<EdgeRec>::new(&dir, "xedges", options.memory() / 16 / EDGE_REC_BYTES);
    let texts = ctx.index.map(|i| i.index.texts()).transpose()?;
    let indexed = ctx.index.map_or(0, |i| i.index.documents());
    let mut new_texts = match ctx.index.filter(|i| i.update) {
        Some(_) => Some(NewTexts::create(&dir, pairs.new_rep_bits(sk.documents)?)?),
        None => None,
    };
    let store_path = dir.join("sketches.dat");
    let mut store = Store::create(store_path)?;
    let fpr = ctx.dedup.fingerprinter();
    let maker = SetMaker {
        canon: fpr.canonicalizer(),
        tok: fpr.tokenizer(),
        family: fpr.hasher(),
        seed: fpr.seed(),
    };
    let mode = ctx.dedup.verification();
    let threshold = ctx.dedup.threshold();
    let (mut bytes, mut candidates, mut verified) = (0u64, 0u64, 0u64);
    let total = ctx.source.total_bytes();

    // Only the documents of a pair are read again: the representatives and
    // the later documents (one merge of the pair runs finds these), and,
    // for an index update, the documents whose texts the index will keep.
    let wanted = Bits::new(sk.documents as usize);
    let mut later_runs = pairs.pair_runs()?;
    later_runs.extend(pairs.index_pair_runs()?);
    let mut later_merge = Merge::<PairRec>::open(&later_runs)?;
    while let Some(p) = later_merge.next_rec()? {
        check_position(p.later, sk.documents, "pair runs")?;
        wanted.set(p.later);
    }
    drop(later_merge);
    // `wanted` and `reps` need sketches; texts for the index do not.
    let needs_sketch = |pos: u32| wanted.get(pos) || reps.get(pos);
    let picked_bits = Bits::new(sk.documents as usize);
    for pos in 0..sk.documents as u32 {
        if needs_sketch(pos) || new_texts.as_ref().is_some_and(|t| t.leads.get(pos)) {
            picked_bits.set(pos);
        }
    }
    let mut picker = Picker::open(&sk.dir.join("keys.bin"), sk.documents, &reps, &picked_bits)?;
    let picked = RefCell::new(VecDeque::<(u32, u64)>::new());

    ctx.source.read_wanted(
        &mut |key| picker.want(key, &mut picked.borrow_mut()),
        &mut |docs, batch_bytes| {
            let mut positions = Vec::with_capacity(docs.len());
            {
                let mut picked = picked.borrow_mut();
                for d in docs {
                    positions.push(next_position(&mut picked, d.key)?);
                }
            }
            let sketches: Vec<Vec<u64>> = docs
                .par_iter()
                .zip(&positions)
                .map_init(String::new, |buf, (d, &pos)| -> Result<Vec<u64>> {
                    if !needs_sketch(pos) {
                        return Ok(Vec::new());
                    }
                    Ok(match mode {
                        Verification::Exact => maker.token_set(d.text, buf).into_vec(),
                        _ => ctx.fp.fingerprint_reusing(d.text, buf)?.hashes.to_vec(),
                    })
                })
                .collect::<Result<_>>()?;
            if let Some(t) = new_texts.as_mut() {
                t.add(&positions, docs)?;
            }
            for (&pos, s) in positions.iter().zip(&sketches) {
                if reps.get(pos) {
                    store.append(pos, s)?;
                }
            }
            store.flush()?;
            let in_batch = |pos: u32| positions.binary_search(&pos).ok();
            let mut batch_pairs = Vec::new();
            let last = positions.last().copied();
            while let (Some(p), Some(last)) = (pending, last) {
                if p.later > last {
                    break;
                }
                if p.rep >= p.later || in_batch(p.later).is_none() {
                    return Err(Error::Corrupt(format!(
                        "pair runs: pair ({}, {}) out of order",
                        p.rep, p.later
                    )));
                }
                batch_pairs.push(p);
                pending = merge.next_rec()?;
            }
            let verdicts: Vec<Option<f32>> = batch_pairs
                .par_iter()
                .map(|p| -> Result<Option<f32>> {
                    let later = in_batch(p.later).map_or(&[][..], |i| &sketches[i]);
                    let from_file;
                    let rep: &[u64] = match in_batch(p.rep) {
                        Some(i) => &sketches[i],
                        None => {
                            from_file = store.read(p.rep)?;
                            &from_file
                        }
                    };
                    Ok(verdict::<S, H>(mode, threshold, rep, later))
                })
                .collect::<Result<_>>()?;
            let mut index_pairs = Vec::new();
            while let (Some(p), Some(last)) = (index_pending, last) {
                if p.later > last {
                    break;
                }
                if u64::from(p.rep) >= indexed || in_batch(p.later).is_none() {
                    return Err(Error::Corrupt(format!(
                        "index pair runs: pair ({}, {}) out of order or past the index",
                        p.rep, p.later
                    )));
                }
                index_pairs.push(p);
                index_pending = index_merge.next_rec()?;
            }
            if let Some(texts) = &texts {
                let mut leads: Vec<u32> = index_pairs.iter().map(|p| p.rep).collect();
                leads.sort_unstable();
                leads.dedup();
                let lead_sketches: Vec<Vec<u64>> = leads
                    .par_iter()
                    .map_init(String::new, |buf, &at| -> Result<Vec<u64>> {
                        let text = texts.get(u64::from(at))?.ok_or_else(|| {
                            Error::Corrupt(format!("index: no text for indexed document {at}"))
                        })?;
                        Ok(match mode {
                            Verification::Exact => maker.token_set(&text, buf).into_vec(),
                            _ => ctx.fp.fingerprint_reusing(&text, buf)?.hashes.to_vec(),
                        })
                    })
                    .collect::<Result<_>>()?;
                let index_verdicts: Vec<Option<f32>> = index_pairs
                    .par_iter()
                    .map(|p| {
                        let later = in_batch(p.later).map_or(&[][..], |i| &sketches[i]);
                        let lead = leads
                            .binary_search(&p.rep)
                            .map(|i| lead_sketches[i].as_slice())
                            .unwrap_or_default();
                        verdict::<S, H>(mode, threshold, lead, later)
                    })
                    .collect();
                candidates += index_pairs.len() as u64;
                for (p, v) in index_pairs.iter().zip(index_verdicts) {
                    if let Some(sim) = v {
                        verified += 1;
                        index_edges.push(EdgeRec::both(p.later, p.rep, sim)[0])?;
                    }
                }
            }
            candidates += batch_pairs.len() as u64;
            for (p, v) in batch_pairs.iter().zip(verdicts) {
                if let Some(sim) = v {
                    verified += 1;
                    for e in EdgeRec::both(p.rep, p.later, sim) {
                        edges.push(e)?;
                    }
                }
            }
            bytes += batch_bytes;
            options.report(STAGE, bytes, total);
            Ok(())
        },
    )?;
    picker.finish(&picked.borrow())?;
    if let Some(p) = pending.or(index_pending) {
        return Err(Error::Corrupt(format!(
            "pair runs: pair ({}, {}) never met",
            p.rep, p.later
        )));
    }
    edges.finish()?;
    index_edges.finish()?;
    if let Some(t) = new_texts {
        t.finish()?;
    }
    drop(store);
    let _ = std::fs::remove_file(dir.join("sketches.dat"));
    Ok((Verified::finish(work, dir, candidates, verified)?, false))
}

fn changed_source(what: &str) -> Error {
    Error::InvalidInput(format!(
        "dedup: the source's second pass {what}; it must give the same documents in the \
         same order every time"
    ))
}

/// A picked record: its position, or [`PROBE`] for a record that was not
/// a document on the first pass (it must not be one now).
const PROBE: u32 = u32::MAX;

/// Tells the source which records to hand over, by following the first
/// pass's document keys (`keys.bin`) along the second pass's records.
struct Picker<'a> {
    path: PathBuf,
    keys: BufReader<File>,
    documents: u64,
    /// The position and key of the next document of the first pass.
    next: u64,
    next_key: Option<u64>,
    reps: &'a Bits,
    wanted: &'a Bits,
    failure: Option<Error>,
}

impl<'a> Picker<'a> {
    fn open(path: &Path, documents: u64, reps: &'a Bits, wanted: &'a Bits) -> Result<Self> {
        let file = File::open(path).map_err(|e| io_error(path, "cannot open", e))?;
        let mut picker = Self {
            path: path.to_path_buf(),
            keys: BufReader::with_capacity(1 << 16, file),
            documents,
            next: 0,
            next_key: None,
            reps,
            wanted,
            failure: None,
        };
        picker.advance(0)?;
        Ok(picker)
    }

    /// Reads the key of document `pos`, if there is one.
    fn advance(&mut self, pos: u64) -> Result<()> {
        self.next = pos;
        self.next_key = if pos < self.documents {
            let mut b = [0u8; 8];
            self.keys
                .read_exact(&mut b)
                .map_err(|e| io_error(&self.path, "cannot read", e))?;
            Some(u64::from_le_bytes(b))
        } else {
            None
        };
        Ok(())
    }

    /// Whether the record with `key` is wanted; a wanted one is queued in
    /// `picked`. Records that were not documents are read too, to find a
    /// source that changed (they are rare: bad records).
    fn want(&mut self, key: u64, picked: &mut VecDeque<(u32, u64)>) -> bool {
        match self.next_key {
            Some(k) if k == key => {
                let pos = self.next as u32;
                if let Err(e) = self.advance(self.next + 1) {
                    self.failure.get_or_insert(e);
                }
                let want = self.wanted.get(pos) || self.reps.get(pos);
                if want {
                    picked.push_back((pos, key));
                }
                want
            }
            Some(k) if k < key => {
                self.failure
                    .get_or_insert_with(|| changed_source("skipped a document"));
                false
            }
            _ => {
                picked.push_back((PROBE, key));
                true
            }
        }
    }

    /// Fails unless every document of the first pass was met and handed
    /// over.
    fn finish(self, picked: &VecDeque<(u32, u64)>) -> Result<()> {
        if let Some(e) = self.failure {
            return Err(e);
        }
        if self.next != self.documents || picked.iter().any(|&(pos, _)| pos != PROBE) {
            return Err(changed_source("gave fewer documents than its first"));
        }
        Ok(())
    }
}

/// The position of the handed-over document with `key`: the next picked
/// one (picked records that were not handed over were bad records).
fn next_position(picked: &mut VecDeque<(u32, u64)>, key: u64) -> Result<u32> {
    while let Some((pos, k)) = picked.pop_front() {
        match (pos, k == key) {
            (PROBE, true) => return Err(changed_source("gave more documents than its first")),
            (PROBE, false) => {}
            (pos, true) => return Ok(pos),
            (_, false) => return Err(changed_source("skipped a document")),
        }
    }
    Err(changed_source("gave more documents than its first"))
}

/// The similarity of a pair when it passes, as the in-memory verifiers
/// compute it.
fn verdict<S: Scheme, const H: usize>(
    mode: Verification,
    threshold: f32,
    a: &[u64],
    b: &[u64],
) -> Option<f32> {
    match mode {
        Verification::Exact => {
            let (small, large) = (a.len().min(b.len()), a.len().max(b.len()));
            // J <= |small| / |large|: skip the merge when even that is too low.
            if large == 0 || ((small as f64 / large as f64) as f32) < threshold {
                return None;
            }
            let j = set_jaccard(a, b);
            (j >= threshold).then_some(j)
        }
        _ => {
            let (mut sa, mut sb) = (MinHashSig::<H, S>::empty(), MinHashSig::<H, S>::empty());
            if a.len() != H || b.len() != H {
                return None;
            }
            sa.hashes.copy_from_slice(a);
            sb.hashes.copy_from_slice(b);
            let j = sa.jaccard(&sb);
            (mode != Verification::Estimated || j >= threshold).then_some(j)
        }
    }
}

/// Representatives' sketches on disk, found by position.
struct Store {
    path: PathBuf,
    out: BufWriter<File>,
    reader: File,
    written: u64,
    /// `(position, offset, length in words)`, positions ascending.
    index: Vec<(u32, u64, u32)>,
}

impl Store {
    fn create(path: PathBuf) -> Result<Self> {
        let out = File::create(&path).map_err(|e| io_error(&path, "cannot create", e))?;
        let reader = OpenOptions::new()
            .read(true)
            .open(&path)
            .map_err(|e| io_error(&path, "cannot open", e))?;
        Ok(Self {
            out: BufWriter::with_capacity(1 << 20, out),
            reader,
            path,
            written: 0,
            index: Vec::new(),
        })
    }

    fn append(&mut self, pos: u32, words: &[u64]) -> Result<()> {
        for w in words {
            self.out
                .write_all(&w.to_le_bytes())
                .map_err(|e| io_error(&self.path, "cannot write", e))?;
        }
        self.index.push((pos, self.written, words.len() as u32));
        self.written += words.len() as u64 * 8;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.out
            .flush()
            .map_err(|e| io_error(&self.path, "cannot write", e))
    }

    fn read(&self, pos: u32) -> Result<Vec<u64>> {
        let at = self
            .index
            .binary_search_by_key(&pos, |e| e.0)
            .map_err(|_| {
                Error::Corrupt(format!(
                    "{}: no sketch for representative {pos}",
                    self.path.display()
                ))
            })?;
        let (_, off, len) = self.index[at];
        let mut bytes = vec![0u8; len as usize * 8];
        read_exact_at(&self.reader, &mut bytes, off)
            .map_err(|e| io_error(&self.path, "cannot read", e))?;
        Ok(bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect())
    }
}

/// The texts of the documents that will lead buckets in the index
/// (`newtexts.dat`, with `(position, end offset)` entries in
/// `newtexts.idx`), compressed as the index stores them.
struct NewTexts {
    leads: crate::dedup::external::workdir::Bits,
    dat: BufWriter<File>,
    idx: BufWriter<File>,
    dat_path: PathBuf,
    end: u64,
}

impl NewTexts {
    fn create(dir: &std::path::Path, leads: crate::dedup::external::workdir::Bits) -> Result<Self> {
        let create = |name: &str| {
            let p = dir.join(name);
            File::create(&p)
                .map(|f| BufWriter::with_capacity(1 << 20, f))
                .map_err(|e| io_error(&p, "cannot create", e))
        };
        Ok(Self {
            leads,
            dat: create("newtexts.dat")?,
            idx: create("newtexts.idx")?,
            dat_path: dir.join("newtexts.dat"),
            end: 0,
        })
    }

    /// Packs the texts of the leads among `docs`, at `positions`.
    fn add(&mut self, positions: &[u32], docs: &[super::SourceDoc<'_>]) -> Result<()> {
        let packed: Vec<Option<Vec<u8>>> = docs
            .par_iter()
            .zip(positions)
            .map(|(d, &pos)| {
                if self.leads.get(pos) {
                    super::index::pack_text(d.text).map(Some)
                } else {
                    Ok(None)
                }
            })
            .collect::<Result<_>>()?;
        for (&pos, p) in positions.iter().zip(packed) {
            if let Some(p) = p {
                self.dat
                    .write_all(&p)
                    .map_err(|e| io_error(&self.dat_path, "cannot write", e))?;
                self.end += p.len() as u64;
                let mut entry = [0u8; super::index::update::NEW_TEXT_ENTRY];
                entry[..4].copy_from_slice(&pos.to_le_bytes());
                entry[4..].copy_from_slice(&self.end.to_le_bytes());
                self.idx
                    .write_all(&entry)
                    .map_err(|e| io_error(&self.dat_path, "cannot write", e))?;
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<()> {
        for w in [&mut self.dat, &mut self.idx] {
            w.flush()
                .map_err(|e| io_error(&self.dat_path, "cannot write", e))?;
        }
        Ok(())
    }
}
