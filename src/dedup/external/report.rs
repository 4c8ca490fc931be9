//! The result of an out-of-core run, read from its work directory.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use super::cluster::NONE;
use super::records::{EdgeRec, IdRec, MemberRec};
use super::runs::{Merge, Spiller};
use super::sketch::runs_with_prefix;
use super::workdir::{Bits, io_error, read_exact_at};
use crate::dedup::{DedupStats, EmptyDocuments, Similarity};
use crate::{Error, Result};

/// How long one stage took and what it used.
#[derive(Clone, Debug, PartialEq)]
pub struct StageReport {
    /// `"sketch"`, `"pairs"`, `"verify"` or `"cluster"`.
    pub name: &'static str,
    /// Wall-clock seconds (near zero when `resumed`).
    pub seconds: f64,
    /// The stage had finished in an earlier, interrupted run.
    pub resumed: bool,
    /// Peak resident memory of the process during the stage, in bytes
    /// (Linux; `None` elsewhere).
    pub peak_rss: Option<u64>,
    /// Bytes in the work directory when the stage ended.
    pub work_dir_bytes: u64,
}

/// The decision on one document.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalDecision {
    /// Its position in the source, from 0.
    pub position: u64,
    /// The key the source gave it ([`SourceDoc::key`](super::SourceDoc::key)).
    pub key: u64,
    /// Whether it is kept.
    pub keep: bool,
    /// The kept document of its cluster, when it is dropped as a duplicate.
    pub duplicate_of: Option<u64>,
    /// Its cluster's number (clusters are numbered by their first member).
    pub cluster: Option<u64>,
    /// The document of its best verified link (highest similarity, then
    /// smallest position), when it is in a cluster.
    pub matched: Option<u64>,
    /// The similarity of that link.
    pub similarity: Option<Similarity>,
    /// It yielded no token.
    pub empty: bool,
    /// The indexed document it duplicates, in a run
    /// [`against`](super::ExternalOptions::against) an index.
    pub indexed: Option<IndexedMatch>,
}

/// The indexed document a document duplicates.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexedMatch {
    /// The original's position in the index (its id:
    /// [`DedupIndex::id`](super::DedupIndex::id)): the smallest indexed
    /// document the document's cluster links to.
    pub position: u64,
    /// The document's best verified link to an indexed document, when it
    /// has one itself (it may reach the index only through other documents
    /// of its cluster): that document's position and the similarity.
    pub link: Option<(u64, Similarity)>,
}

/// A cluster of two or more documents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalCluster {
    /// Its number.
    pub number: u64,
    /// The kept document's position (the first member).
    pub kept: u64,
    /// Every member's position, ascending.
    pub members: Vec<u64>,
}

/// Documents whose id an earlier document of the source already carries
/// ([`ExternalReport::duplicate_ids`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DuplicateIds {
    /// Documents repeating the id of an earlier document.
    pub count: u64,
    /// The first repeated ids, in order of their first occurrence.
    pub examples: Vec<String>,
}

/// Subdirectory of the work directory the id check sorts in; removed when
/// the check ends.
const ID_CHECK_DIR: &str = "id-check";

/// In-memory bytes of one buffered [`IdRec`] (padded to 16-byte alignment).
const ID_REC_BYTES: usize = 32;

/// The result of [`MinHashDedup::run_external`](crate::dedup::MinHashDedup::run_external)
/// or [`SimHashDedup::run_external`](crate::dedup::SimHashDedup::run_external):
/// counts and stage figures in memory, the per-document decisions and the
/// clusters streamed from the work directory.
#[derive(Clone, Debug)]
pub struct ExternalReport {
    /// The counts, as [`DedupReport::stats`](crate::DedupReport::stats).
    pub stats: DedupStats,
    /// The stages in order.
    pub stages: Vec<StageReport>,
    /// Input bytes, as the source counted them.
    pub bytes: u64,
    /// Documents dropped as duplicates of indexed ones (counted in
    /// `stats.dropped` too).
    pub indexed_duplicates: u64,
    /// Documents the run added to its index.
    pub index_added: u64,
    work_dir: PathBuf,
    documents: u64,
    empty_policy: EmptyDocuments,
    measure: Measure,
}

/// What the similarity stored with a link measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Measure {
    /// Jaccard similarity, stored as it is.
    Jaccard,
    /// Hamming distance `d` between 64-bit signatures, stored as
    /// `1 - d / 64` so that closer links sort first and an exact copy's
    /// `1.0` means distance 0, as for Jaccard.
    Hamming,
}

impl Measure {
    /// The stored value of a link at Hamming distance `d`.
    pub(crate) fn hamming(d: u32) -> f32 {
        // Exact: (64 - d) / 64 is a multiple of 2^-6.
        (64 - d.min(64)) as f32 / 64.0
    }

    /// The similarity a stored value stands for.
    fn read(self, stored: f32) -> Similarity {
        match self {
            Self::Jaccard => Similarity::Jaccard(stored),
            Self::Hamming => {
                Similarity::Hamming((64.0 - stored * 64.0).round().clamp(0.0, 64.0) as u32)
            }
        }
    }
}

impl ExternalReport {
    pub(super) fn new(
        work_dir: PathBuf,
        documents: u64,
        bytes: u64,
        empty_policy: EmptyDocuments,
        stats: DedupStats,
        stages: Vec<StageReport>,
    ) -> Self {
        Self {
            stats,
            stages,
            bytes,
            indexed_duplicates: 0,
            index_added: 0,
            work_dir,
            documents,
            empty_policy,
            measure: Measure::Jaccard,
        }
    }

    /// The report of a run whose links store `measure`.
    pub(super) fn with_measure(mut self, measure: Measure) -> Self {
        self.measure = measure;
        self
    }

    /// The work directory holding the results.
    pub fn work_dir(&self) -> &Path {
        &self.work_dir
    }

    /// Every document's decision, in input order.
    ///
    /// # Errors
    ///
    /// [`Error::Io`](crate::Error::Io) or [`Error::Corrupt`](crate::Error::Corrupt)
    /// when the work directory cannot be read; each item can fail the same way.
    pub fn decisions(&self) -> Result<Decisions> {
        self.decisions_from(0)
    }

    /// The decisions from `position` on, in input order: a caller writing
    /// several parts of the corpus at once reads each part's own.
    ///
    /// # Errors
    ///
    /// As [`decisions`](Self::decisions).
    pub fn decisions_from(&self, position: u64) -> Result<Decisions> {
        let dir = &self.work_dir;
        let clusters_path = dir.join(super::cluster::STAGE).join("clusters.bin");
        let mut file =
            File::open(&clusters_path).map_err(|e| io_error(&clusters_path, "cannot open", e))?;
        let position = position.min(self.documents);
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(position * 8))
            .map_err(|e| io_error(&clusters_path, "cannot seek", e))?;
        let mut links = runs_with_prefix(&dir.join(super::pairs::STAGE), "copies-")?;
        links.extend(runs_with_prefix(&dir.join(super::verify::STAGE), "edges-")?);
        let mut edges = Merge::<EdgeRec>::open(&links)?;
        let mut next_edge = edges.next_rec()?;
        while next_edge.is_some_and(|e| u64::from(e.doc) < position) {
            next_edge = edges.next_rec()?;
        }
        let indexed_path = dir.join(super::cluster::STAGE).join("indexed.bin");
        let indexed = match File::open(&indexed_path) {
            Ok(mut f) => {
                std::io::Seek::seek(&mut f, std::io::SeekFrom::Start(position * 4))
                    .map_err(|e| io_error(&indexed_path, "cannot seek", e))?;
                let mut xlinks = runs_with_prefix(&dir.join(super::pairs::STAGE), "xcopies-")?;
                xlinks.extend(runs_with_prefix(
                    &dir.join(super::verify::STAGE),
                    "xedges-",
                )?);
                let mut merge = Merge::<EdgeRec>::open(&xlinks)?;
                let mut next = merge.next_rec()?;
                while next.is_some_and(|e| u64::from(e.doc) < position) {
                    next = merge.next_rec()?;
                }
                Some(IndexedLinks {
                    measure: self.measure,
                    file: BufReader::with_capacity(1 << 16, f),
                    path: indexed_path,
                    merge,
                    next,
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_error(&indexed_path, "cannot open", e)),
        };
        let keys_path = dir.join(super::sketch::STAGE).join("keys.bin");
        let mut keys =
            File::open(&keys_path).map_err(|e| io_error(&keys_path, "cannot open", e))?;
        std::io::Seek::seek(&mut keys, std::io::SeekFrom::Start(position * 8))
            .map_err(|e| io_error(&keys_path, "cannot seek", e))?;
        Ok(Decisions {
            clusters: BufReader::with_capacity(1 << 16, file),
            clusters_path,
            keys: BufReader::with_capacity(1 << 16, keys),
            keys_path,
            edges,
            next_edge,
            indexed,
            empty: Bits::load(
                &dir.join(super::sketch::STAGE).join("empty.bits"),
                self.documents as usize,
            )?,
            empty_policy: self.empty_policy,
            measure: self.measure,
            pos: position,
            documents: self.documents,
        })
    }

    /// The clusters of two or more documents, by number.
    ///
    /// # Errors
    ///
    /// As [`decisions`](Self::decisions).
    pub fn clusters(&self) -> Result<impl Iterator<Item = Result<ExternalCluster>>> {
        let runs = runs_with_prefix(&self.work_dir.join(super::cluster::STAGE), "members-")?;
        let mut merge = Merge::<MemberRec>::open(&runs)?;
        let mut next = merge.next_rec()?;
        Ok(core::iter::from_fn(move || {
            let first = next?;
            let mut c = ExternalCluster {
                number: u64::from(first.cluster),
                kept: u64::from(first.pos),
                members: Vec::new(),
            };
            while let Some(m) = next.filter(|m| m.cluster == first.cluster) {
                c.members.push(u64::from(m.pos));
                next = match merge.next_rec() {
                    Ok(r) => r,
                    Err(e) => {
                        next = None;
                        return Some(Err(e));
                    }
                };
            }
            Some(Ok(c))
        }))
    }

    /// The id the source gave the document at `position`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) for a position
    /// past the end; I/O errors as [`decisions`](Self::decisions).
    pub fn id(&self, position: u64) -> Result<String> {
        Ids::open(&self.work_dir)?.get(position)
    }

    /// The first position whose key is at least `key` (the number of
    /// documents when there is none): where a part of the corpus starts,
    /// for [`decisions_from`](Self::decisions_from). Keys must be
    /// non-decreasing, as [`SourceDoc::key`](super::SourceDoc::key) asks.
    ///
    /// # Errors
    ///
    /// As [`decisions`](Self::decisions).
    pub fn position_of_key(&self, key: u64) -> Result<u64> {
        let path = self.work_dir.join(super::sketch::STAGE).join("keys.bin");
        let file = File::open(&path).map_err(|e| io_error(&path, "cannot open", e))?;
        let (mut lo, mut hi) = (0u64, self.documents);
        let mut w = [0u8; 8];
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            read_exact_at(&file, &mut w, mid * 8).map_err(|e| io_error(&path, "cannot read", e))?;
            if u64::from_le_bytes(w) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// The documents whose id an earlier document already carries: their
    /// number and up to `examples` such ids, in order of first occurrence.
    ///
    /// Ids are compared by their XXH3-128 hash, sorted with their positions
    /// through runs in the work directory (a subdirectory removed at the
    /// end), so memory stays within `memory` bytes (at least 256 records'
    /// worth) however many documents there are.
    ///
    /// # Errors
    ///
    /// As [`decisions`](Self::decisions), and for failing writes in the
    /// work directory.
    pub fn duplicate_ids(&self, memory: usize, examples: usize) -> Result<DuplicateIds> {
        let dir = self.work_dir.join(ID_CHECK_DIR);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| io_error(&dir, "cannot clear", e))?;
        }
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "cannot create", e))?;
        let found = self.find_duplicate_ids(&dir, memory, examples);
        // The runs are scratch: gone whether the check worked or not.
        let _ = std::fs::remove_dir_all(&dir);
        found
    }

    fn find_duplicate_ids(
        &self,
        dir: &Path,
        memory: usize,
        examples: usize,
    ) -> Result<DuplicateIds> {
        let sketch = self.work_dir.join(super::sketch::STAGE);
        let open = |name: &str| {
            let p = sketch.join(name);
            File::open(&p)
                .map(|f| (BufReader::with_capacity(1 << 16, f), p.clone()))
                .map_err(|e| io_error(&p, "cannot open", e))
        };
        let (mut idx, idx_path) = open("ids.idx")?;
        let (mut dat, dat_path) = open("ids.dat")?;
        let mut spill = Spiller::<IdRec>::new(dir, "ids", memory / ID_REC_BYTES);
        let (mut start, mut id) = (0u64, Vec::new());
        let mut w = [0u8; 8];
        for pos in 0..self.documents {
            idx.read_exact(&mut w)
                .map_err(|e| io_error(&idx_path, "cannot read", e))?;
            let end = u64::from_le_bytes(w);
            let len = end
                .checked_sub(start)
                .filter(|&l| l <= 1 << 30)
                .ok_or_else(|| {
                    Error::Corrupt(format!("{}: bad offsets at {pos}", idx_path.display()))
                })?;
            id.resize(len as usize, 0);
            dat.read_exact(&mut id)
                .map_err(|e| io_error(&dat_path, "cannot read", e))?;
            start = end;
            spill.push(IdRec {
                hash: xxhash_rust::xxh3::xxh3_128(&id),
                pos: pos as u32,
            })?;
        }
        let runs = spill.finish()?;
        let mut merge = Merge::<IdRec>::open(&runs)?;
        let mut found = DuplicateIds::default();
        // The smallest first positions of repeated ids, a max-heap of at
        // most `examples`.
        let mut first: std::collections::BinaryHeap<u32> = std::collections::BinaryHeap::new();
        let mut group: Option<IdRec> = None;
        let mut repeated = false;
        let close = |g: IdRec, repeated: bool, first: &mut std::collections::BinaryHeap<u32>| {
            if repeated && examples > 0 {
                if first.len() < examples {
                    first.push(g.pos);
                } else if first.peek().is_some_and(|&top| g.pos < top) {
                    first.pop();
                    first.push(g.pos);
                }
            }
        };
        while let Some(r) = merge.next_rec()? {
            match group {
                Some(g) if g.hash == r.hash => {
                    found.count += 1;
                    repeated = true;
                }
                _ => {
                    if let Some(g) = group {
                        close(g, repeated, &mut first);
                    }
                    group = Some(r);
                    repeated = false;
                }
            }
        }
        if let Some(g) = group {
            close(g, repeated, &mut first);
        }
        let ids = self.ids()?;
        for pos in first.into_sorted_vec() {
            found.examples.push(ids.get(u64::from(pos))?);
        }
        Ok(found)
    }

    /// A reader of the documents' ids, for many lookups.
    ///
    /// # Errors
    ///
    /// As [`decisions`](Self::decisions).
    pub fn ids(&self) -> Result<Ids> {
        Ids::open(&self.work_dir)
    }
}

/// The ids the source gave, by position.
#[derive(Debug)]
pub struct Ids {
    idx: File,
    dat: File,
    dir: PathBuf,
    documents: u64,
}

impl Ids {
    fn open(work_dir: &Path) -> Result<Self> {
        let dir = work_dir.join(super::sketch::STAGE);
        let open = |name: &str| {
            let p = dir.join(name);
            File::open(&p).map_err(|e| io_error(&p, "cannot open", e))
        };
        let idx = open("ids.idx")?;
        let len = idx
            .metadata()
            .map_err(|e| io_error(&dir.join("ids.idx"), "cannot stat", e))?
            .len();
        Ok(Self {
            idx,
            dat: open("ids.dat")?,
            documents: len / 8,
            dir,
        })
    }

    /// The id of the document at `position`.
    ///
    /// # Errors
    ///
    /// As [`ExternalReport::id`].
    pub fn get(&self, position: u64) -> Result<String> {
        if position >= self.documents {
            return Err(Error::InvalidInput(format!(
                "position {position} is past the last document ({})",
                self.documents
            )));
        }
        let idx_path = self.dir.join("ids.idx");
        let mut w = [0u8; 16];
        let (start, end) = if position == 0 {
            read_exact_at(&self.idx, &mut w[8..], 0)
                .map_err(|e| io_error(&idx_path, "cannot read", e))?;
            (0, u64::from_le_bytes(w[8..].try_into().unwrap_or_default()))
        } else {
            read_exact_at(&self.idx, &mut w, (position - 1) * 8)
                .map_err(|e| io_error(&idx_path, "cannot read", e))?;
            (
                u64::from_le_bytes(w[..8].try_into().unwrap_or_default()),
                u64::from_le_bytes(w[8..].try_into().unwrap_or_default()),
            )
        };
        let dat_path = self.dir.join("ids.dat");
        let len = end
            .checked_sub(start)
            .filter(|&l| l <= 1 << 30)
            .ok_or_else(|| {
                Error::Corrupt(format!("{}: bad offsets at {position}", idx_path.display()))
            })?;
        let mut bytes = vec![0u8; len as usize];
        read_exact_at(&self.dat, &mut bytes, start)
            .map_err(|e| io_error(&dat_path, "cannot read", e))?;
        String::from_utf8(bytes)
            .map_err(|_| Error::Corrupt(format!("{}: an id is not UTF-8", dat_path.display())))
    }
}

/// The decisions, streamed in input order (see [`ExternalReport::decisions`]).
pub struct Decisions {
    clusters: BufReader<File>,
    clusters_path: PathBuf,
    keys: BufReader<File>,
    keys_path: PathBuf,
    edges: Merge<EdgeRec>,
    next_edge: Option<EdgeRec>,
    indexed: Option<IndexedLinks>,
    empty: Bits,
    empty_policy: EmptyDocuments,
    measure: Measure,
    pos: u64,
    documents: u64,
}

impl core::fmt::Debug for Decisions {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Decisions")
            .field("position", &self.pos)
            .field("documents", &self.documents)
            .finish()
    }
}

impl Decisions {
    fn next_decision(&mut self) -> Result<ExternalDecision> {
        let pos = self.pos;
        let mut rec = [0u8; 8];
        self.clusters
            .read_exact(&mut rec)
            .map_err(|e| io_error(&self.clusters_path, "cannot read", e))?;
        let cluster = u32::from_le_bytes(rec[..4].try_into().unwrap_or_default());
        let kept = u32::from_le_bytes(rec[4..].try_into().unwrap_or_default());
        self.keys
            .read_exact(&mut rec)
            .map_err(|e| io_error(&self.keys_path, "cannot read", e))?;
        let key = u64::from_le_bytes(rec);
        let mut best: Option<EdgeRec> = None;
        while let Some(e) = self.next_edge.filter(|e| u64::from(e.doc) <= pos) {
            if u64::from(e.doc) == pos && best.is_none() {
                best = Some(e);
            }
            self.next_edge = self.edges.next_rec()?;
        }
        let indexed = match self.indexed.as_mut() {
            Some(x) => x.next_match(pos)?,
            None => None,
        };
        let empty = self.empty.get(pos as u32);
        let in_cluster = cluster != NONE;
        let dropped_dup = in_cluster && u64::from(kept) != pos;
        self.pos += 1;
        Ok(ExternalDecision {
            position: pos,
            key,
            keep: !(dropped_dup
                || indexed.is_some()
                || (empty && self.empty_policy == EmptyDocuments::Drop)),
            duplicate_of: dropped_dup.then_some(u64::from(kept)),
            cluster: in_cluster.then_some(u64::from(cluster)),
            matched: best.map(|e| u64::from(e.other)),
            similarity: best.map(|e| self.measure.read(e.similarity())),
            empty,
            indexed,
        })
    }
}

/// What the decisions read of a run against an index: each document's
/// original in the index (`indexed.bin`) and its own links to the index.
struct IndexedLinks {
    measure: Measure,
    file: BufReader<File>,
    path: PathBuf,
    merge: Merge<EdgeRec>,
    next: Option<EdgeRec>,
}

impl IndexedLinks {
    fn next_match(&mut self, pos: u64) -> Result<Option<IndexedMatch>> {
        let mut w = [0u8; 4];
        self.file
            .read_exact(&mut w)
            .map_err(|e| io_error(&self.path, "cannot read", e))?;
        let original = u32::from_le_bytes(w);
        let mut best: Option<EdgeRec> = None;
        while let Some(e) = self.next.filter(|e| u64::from(e.doc) <= pos) {
            if u64::from(e.doc) == pos && best.is_none() {
                best = Some(e);
            }
            self.next = self.merge.next_rec()?;
        }
        Ok((original != NONE).then(|| IndexedMatch {
            position: u64::from(original),
            link: best.map(|e| (u64::from(e.other), self.measure.read(e.similarity()))),
        }))
    }
}

impl Iterator for Decisions {
    type Item = Result<ExternalDecision>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.documents {
            return None;
        }
        let d = self.next_decision();
        if d.is_err() {
            // One error ends the stream.
            self.pos = self.documents;
        }
        Some(d)
    }
}
