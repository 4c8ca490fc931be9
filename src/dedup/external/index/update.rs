//! Adding a finished run's documents to the index.
//!
//! Every document of the run that is neither an exact copy (of the index or
//! of an earlier document of the run) nor empty gets the next index
//! position, its id, and its text when it leads a bucket (a MinHash run).
//! The keys the run met first go into one new segment per band or SimHash
//! table (and one of the content table); they are exactly the keys the run
//! did not find in the index, so no other segment holds them. The new
//! segment absorbs the newest segments when [`plan`] says so (size-tiered
//! compaction, see the [index documentation](super)); the segments it
//! absorbed are removed once `index.meta` names the new list.

use std::fs::{self, File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::iter::Peekable;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::super::records::{BandRec, ContentRec};
use super::super::runs::Merge;
use super::super::sketch::runs_with_prefix;
use super::super::workdir::{Bits, io_error};
use super::table::{Keyed, Scan, Table, write_table};
use super::{DedupIndex, Meta, Segment, write_meta};
use crate::{Error, Result};

/// What the run left for the index, all in its work directory.
pub(crate) struct NewDocs<'a> {
    pub(crate) documents: u64,
    /// `ids.dat`, `ids.idx` and `empty.bits` of the sketch stage.
    pub(crate) sketch_dir: &'a Path,
    /// `copies.bits` and `newcontent-*.run`.
    pub(crate) pairs_dir: &'a Path,
    /// `newkeys-BBB-*.run`: the keys of each band (table) the index does
    /// not hold, sorted.
    pub(crate) keys_dir: &'a Path,
    /// `newtexts.dat` and `newtexts.idx`; `None` when the index keeps no
    /// texts (SimHash verifies by signature).
    pub(crate) texts_dir: Option<&'a Path>,
}

/// One entry of `newtexts.idx`: a document and the end offset of its text.
pub(crate) const NEW_TEXT_ENTRY: usize = 12;

/// Adds `new` to the index as generation `base + 1`, written by the run
/// whose token is `token`. Returns the number of documents added.
pub(crate) fn apply(index: &DedupIndex, base: u64, token: u64, new: &NewDocs<'_>) -> Result<u64> {
    let dir = index.dir();
    let current = DedupIndex::open(dir)?;
    let meta = current.meta().clone();
    if meta.generation == base + 1 && meta.updated_by == token {
        return Ok(meta.documents - index.documents());
    }
    if meta.generation != base {
        return Err(changed(dir, base, meta.generation));
    }
    let n = new.documents as usize;
    let copies = Bits::load(&new.pairs_dir.join("copies.bits"), n)?;
    let empty = Bits::load(&new.sketch_dir.join("empty.bits"), n)?;

    // Index positions of the run's documents; `u32::MAX` for the unindexed.
    let mut at = vec![u32::MAX; n];
    let mut next = meta.documents;
    for (i, slot) in at.iter_mut().enumerate() {
        if !copies.get(i as u32) && !empty.get(i as u32) {
            if next >= u64::from(u32::MAX) {
                return Err(Error::InvalidInput(format!(
                    "{}: a dedup index holds at most {} documents",
                    dir.display(),
                    u32::MAX - 1
                )));
            }
            *slot = next as u32;
            next += 1;
        }
    }
    let added = next - meta.documents;

    let ids_bytes = append_ids(dir, &meta, new, &at)?;
    let texts_bytes = append_texts(dir, &meta, new, &at)?;

    let generation = base + 1;
    let mut segments = meta.segments.clone();
    if added > 0 {
        let sizes: Vec<u64> = segments.iter().map(|s| s.documents).collect();
        let merged = segments.split_off(segments.len() - plan(&sizes, added));
        let old_ids: Vec<u64> = merged.iter().map(|s| s.id).collect();
        (0..meta.bands).into_par_iter().try_for_each(|band| {
            let runs = runs_with_prefix(new.keys_dir, &format!("newkeys-{band:03}-"))?;
            let old: Vec<PathBuf> = old_ids
                .iter()
                .map(|&s| current.band_path(band, s))
                .collect();
            merge_into(
                &old,
                &runs,
                &at,
                &current.band_path(band, generation),
                |r: BandRec, pos| BandRec { key: r.key, pos },
            )
        })?;
        let runs = runs_with_prefix(new.pairs_dir, "newcontent-")?;
        let old: Vec<PathBuf> = old_ids.iter().map(|&s| current.content_path(s)).collect();
        merge_into(
            &old,
            &runs,
            &at,
            &current.content_path(generation),
            |r: ContentRec, pos| ContentRec { hash: r.hash, pos },
        )?;
        segments.push(Segment {
            id: generation,
            documents: added + merged.iter().map(|s| s.documents).sum::<u64>(),
        });
    }

    write_meta(
        dir,
        &Meta {
            generation,
            documents: next,
            ids_bytes,
            texts_bytes,
            updated_by: token,
            segments: segments.clone(),
            ..meta
        },
    )?;
    remove_unlisted(dir, &segments);
    Ok(added)
}

/// Segments of one size class that an update lets stand: the `FANOUT`-th
/// is merged with them.
pub(crate) const FANOUT: usize = 4;

/// The size class of a segment of `documents` documents: segments whose
/// sizes are within a factor [`FANOUT`] of each other share one.
fn class(documents: u64) -> u32 {
    documents.max(1).ilog(FANOUT as u64)
}

/// How many of the newest `segments` (their sizes in documents, oldest
/// first) an update that adds `new` documents merges into its segment.
///
/// Size-tiered: while the new segment and the newest segments of its size
/// class or smaller are [`FANOUT`] or more, it absorbs them (and may so
/// reach the next class). So the newest segments of a class are fewer than
/// `FANOUT` after an update, and a document's keys are rewritten about once
/// per class they pass through, `log_FANOUT` of the index size times in
/// all; an update that absorbs nothing writes only its own keys.
pub(crate) fn plan(segments: &[u64], new: u64) -> usize {
    let (mut take, mut total) = (0usize, new);
    loop {
        let rest = &segments[..segments.len() - take];
        let c = class(total);
        let run = rest.iter().rev().take_while(|&&s| class(s) <= c).count();
        if run + 1 < FANOUT {
            return take;
        }
        take += run;
        total += rest[rest.len() - run..].iter().sum::<u64>();
    }
}

pub(crate) fn changed(dir: &Path, base: u64, now: u64) -> Error {
    Error::InvalidInput(format!(
        "{}: the index changed while this run used it (generation {base}, now {now}); start \
         the run again with a new work directory",
        dir.display()
    ))
}

/// Writes the table at `out`: the records of the `old` segments merged
/// with the new runs' records, whose run positions `at` turns into index
/// positions.
fn merge_into<R: Keyed + HasPos>(
    old: &[PathBuf],
    runs: &[PathBuf],
    at: &[u32],
    out: &Path,
    place: impl Fn(R, u32) -> R,
) -> Result<()> {
    let mut old_recs = MergeTables::<R>::open(old)?;
    let mut merge = Merge::<R>::open(runs)?;
    let mut fresh = merge.next_rec()?;
    let records = core::iter::from_fn(move || -> Option<Result<R>> {
        let take_old = match (old_recs.peek(), fresh) {
            (Err(e), _) => return Some(Err(e)),
            (Ok(None), None) => return None,
            (Ok(Some(_)), None) => true,
            (Ok(Some(o)), Some(f)) => o.key() < f.key(),
            (Ok(None), Some(_)) => false,
        };
        if take_old {
            return old_recs.next().transpose();
        }
        let f = fresh?;
        let pos = at.get(f.pos() as usize).copied().unwrap_or(u32::MAX);
        if pos == u32::MAX {
            return Some(Err(Error::Corrupt(format!(
                "new key runs: document {} is not indexed",
                f.pos()
            ))));
        }
        fresh = match merge.next_rec() {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        Some(Ok(place(f, pos)))
    });
    write_table(out, records).map(|_| ())
}

/// The records of several segments in key order. The segments are few (a
/// compaction merges fewer than [`FANOUT`] per size class), so the next
/// record is found by looking at each segment's first.
struct MergeTables<R: Keyed> {
    scans: Vec<Peekable<Scan<R>>>,
}

impl<R: Keyed> MergeTables<R> {
    fn open(paths: &[PathBuf]) -> Result<Self> {
        Ok(Self {
            scans: paths
                .iter()
                .map(|p| Table::<R>::scan(p).map(Iterator::peekable))
                .collect::<Result<_>>()?,
        })
    }

    /// The segment whose next record comes first, `Err` when a read failed.
    fn first(&mut self) -> Result<Option<usize>> {
        let mut best: Option<(usize, R::Key)> = None;
        for (i, s) in self.scans.iter_mut().enumerate() {
            match s.peek() {
                None => {}
                Some(Err(_)) => {
                    return match s.next() {
                        Some(Err(e)) => Err(e),
                        _ => Ok(None),
                    };
                }
                Some(Ok(r)) if best.is_none_or(|(_, k)| r.key() < k) => {
                    best = Some((i, r.key()));
                }
                Some(Ok(_)) => {}
            }
        }
        Ok(best.map(|(i, _)| i))
    }

    fn peek(&mut self) -> Result<Option<R>> {
        match self.first()? {
            Some(i) => Ok(self.scans[i].peek().and_then(|r| r.as_ref().ok()).copied()),
            None => Ok(None),
        }
    }

    fn next(&mut self) -> Result<Option<R>> {
        match self.first()? {
            Some(i) => self.scans[i].next().transpose(),
            None => Ok(None),
        }
    }
}

/// The run position a new-key record carries.
trait HasPos {
    fn pos(&self) -> u32;
}

impl HasPos for BandRec {
    fn pos(&self) -> u32 {
        self.pos
    }
}

impl HasPos for ContentRec {
    fn pos(&self) -> u32 {
        self.pos
    }
}

/// Truncates `NAME.dat`/`NAME.idx` to what the current generation covers
/// (dropping what a killed update appended) and opens them for appending.
fn open_append(
    dir: &Path,
    name: &str,
    documents: u64,
    valid: u64,
) -> Result<(BufWriter<File>, BufWriter<File>)> {
    let open = |p: PathBuf, len: u64| -> Result<BufWriter<File>> {
        let mut f = OpenOptions::new()
            .write(true)
            .open(&p)
            .map_err(|e| io_error(&p, "cannot open", e))?;
        let have = f
            .metadata()
            .map_err(|e| io_error(&p, "cannot stat", e))?
            .len();
        if have < len {
            return Err(Error::Corrupt(format!(
                "{}: shorter ({have} bytes) than the index says ({len})",
                p.display()
            )));
        }
        f.set_len(len)
            .map_err(|e| io_error(&p, "cannot truncate", e))?;
        f.seek(SeekFrom::End(0))
            .map_err(|e| io_error(&p, "cannot seek", e))?;
        Ok(BufWriter::with_capacity(1 << 20, f))
    };
    Ok((
        open(dir.join(format!("{name}.dat")), valid)?,
        open(dir.join(format!("{name}.idx")), documents * 8)?,
    ))
}

fn finish_append(dir: &Path, name: &str, files: [BufWriter<File>; 2]) -> Result<()> {
    for (w, ext) in files.into_iter().zip(["dat", "idx"]) {
        let p = dir.join(format!("{name}.{ext}"));
        let f = w
            .into_inner()
            .map_err(|e| io_error(&p, "cannot write", e.into_error()))?;
        f.sync_data().map_err(|e| io_error(&p, "cannot sync", e))?;
    }
    Ok(())
}

fn append_ids(dir: &Path, meta: &Meta, new: &NewDocs<'_>, at: &[u32]) -> Result<u64> {
    let (mut dat, mut idx) = open_append(dir, "ids", meta.documents, meta.ids_bytes)?;
    let src_idx = new.sketch_dir.join("ids.idx");
    let src_dat = new.sketch_dir.join("ids.dat");
    let open = |p: &Path| {
        File::open(p)
            .map(|f| BufReader::with_capacity(1 << 20, f))
            .map_err(|e| io_error(p, "cannot open", e))
    };
    let (mut ends, mut ids) = (open(&src_idx)?, open(&src_dat)?);
    let (mut prev, mut total) = (0u64, meta.ids_bytes);
    let mut w = [0u8; 8];
    let mut id = Vec::new();
    let out = dir.join("ids.dat");
    for &slot in at {
        ends.read_exact(&mut w)
            .map_err(|e| io_error(&src_idx, "cannot read", e))?;
        let end = u64::from_le_bytes(w);
        let len = end
            .checked_sub(prev)
            .filter(|&l| l <= 1 << 30)
            .ok_or_else(|| Error::Corrupt(format!("{}: bad offsets", src_idx.display())))?;
        prev = end;
        id.resize(len as usize, 0);
        ids.read_exact(&mut id)
            .map_err(|e| io_error(&src_dat, "cannot read", e))?;
        if slot != u32::MAX {
            dat.write_all(&id)
                .map_err(|e| io_error(&out, "cannot write", e))?;
            total += len;
            idx.write_all(&total.to_le_bytes())
                .map_err(|e| io_error(&out, "cannot write", e))?;
        }
    }
    finish_append(dir, "ids", [dat, idx])?;
    Ok(total)
}

fn append_texts(dir: &Path, meta: &Meta, new: &NewDocs<'_>, at: &[u32]) -> Result<u64> {
    let (mut dat, mut idx) = open_append(dir, "texts", meta.documents, meta.texts_bytes)?;
    let out = dir.join("texts.dat");
    let Some(texts_dir) = new.texts_dir else {
        // Every new document gets an empty entry.
        let idx_path = dir.join("texts.idx");
        for _ in at.iter().filter(|&&slot| slot != u32::MAX) {
            idx.write_all(&meta.texts_bytes.to_le_bytes())
                .map_err(|e| io_error(&idx_path, "cannot write", e))?;
        }
        finish_append(dir, "texts", [dat, idx])?;
        return Ok(meta.texts_bytes);
    };
    let src_idx = texts_dir.join("newtexts.idx");
    let src_dat = texts_dir.join("newtexts.dat");
    let open = |p: &Path| {
        File::open(p)
            .map(|f| BufReader::with_capacity(1 << 20, f))
            .map_err(|e| io_error(p, "cannot open", e))
    };
    let (mut entries, mut texts) = (open(&src_idx)?, open(&src_dat)?);
    let entries_len = fs::metadata(&src_idx)
        .map_err(|e| io_error(&src_idx, "cannot stat", e))?
        .len();
    let mut left = entries_len / NEW_TEXT_ENTRY as u64;
    let mut next_entry = |left: &mut u64| -> Result<Option<(u32, u64)>> {
        if *left == 0 {
            return Ok(None);
        }
        *left -= 1;
        let mut e = [0u8; NEW_TEXT_ENTRY];
        entries
            .read_exact(&mut e)
            .map_err(|err| io_error(&src_idx, "cannot read", err))?;
        Ok(Some((
            u32::from_le_bytes(e[..4].try_into().unwrap_or_default()),
            u64::from_le_bytes(e[4..].try_into().unwrap_or_default()),
        )))
    };
    let mut pending = next_entry(&mut left)?;
    let (mut prev, mut total) = (0u64, meta.texts_bytes);
    let mut blob = Vec::new();
    for (pos, &slot) in at.iter().enumerate() {
        if let Some((p, end)) = pending.filter(|&(p, _)| p as usize == pos) {
            let len = end
                .checked_sub(prev)
                .filter(|&l| l <= super::MAX_TEXT as u64 + 4)
                .ok_or_else(|| Error::Corrupt(format!("{}: bad offsets", src_idx.display())))?;
            prev = end;
            blob.resize(len as usize, 0);
            texts
                .read_exact(&mut blob)
                .map_err(|e| io_error(&src_dat, "cannot read", e))?;
            if slot != u32::MAX {
                dat.write_all(&blob)
                    .map_err(|e| io_error(&out, "cannot write", e))?;
                total += len;
            }
            pending = next_entry(&mut left)?;
            if pending.is_some_and(|(q, _)| q <= p) {
                return Err(Error::Corrupt(format!(
                    "{}: entries out of order",
                    src_idx.display()
                )));
            }
        }
        if slot != u32::MAX {
            idx.write_all(&total.to_le_bytes())
                .map_err(|e| io_error(&out, "cannot write", e))?;
        }
    }
    if pending.is_some() {
        return Err(Error::Corrupt(format!(
            "{}: an entry past the last document",
            src_idx.display()
        )));
    }
    finish_append(dir, "texts", [dat, idx])?;
    Ok(total)
}

/// Removes the tables of every segment `segments` does not name: those an
/// update merged into a new one, and what a killed update left (tables of
/// a segment it did not commit, temporary files).
fn remove_unlisted(dir: &Path, segments: &[Segment]) {
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(stem) = name
                .strip_suffix(".tab")
                .or_else(|| name.strip_suffix(".tab.tmp"))
            else {
                continue;
            };
            let Some((table, id)) = stem.rsplit_once('.') else {
                continue;
            };
            let ours = table == "content"
                || table
                    .strip_prefix("band-")
                    .is_some_and(|b| !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()));
            let listed = id
                .parse::<u64>()
                .is_ok_and(|id| segments.iter().any(|s| s.id == id));
            if ours && !(listed && name.ends_with(".tab")) {
                let _ = fs::remove_file(e.path());
            }
        }
    }
}
