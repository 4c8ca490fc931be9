//! A dedup index: what later out-of-core runs need to drop the documents
//! that duplicate an earlier corpus, without that corpus.
//!
//! An out-of-core run pairs a document only with the first document of each
//! band bucket and links an exact copy only to the first copy, so an earlier
//! corpus matters to a later one only through, per band, the first document
//! of each bucket and, per text, its first copy, and through the texts of
//! those first documents for verification. The index holds exactly that:
//!
//! - `band-BBB.S.tab`: per band, records `(band key, document)`, one per
//!   key, the key's first document; `content.S.tab`: one record per
//!   distinct text (XXH3-128), its first document ([`table`]). Both are cut
//!   into segments `S` (below);
//! - `texts.dat` / `texts.idx`: the zstd-compressed text of every document
//!   that leads a bucket, read back when a later document pairs with it;
//! - `ids.dat` / `ids.idx`: every indexed document's id, for reports;
//! - `index.meta`: the settings it was built with, its size, generation and
//!   segments;
//! - `index.lock`: locked by every run that uses the index (below).
//!
//! **SimHash.** A SimHash run links every pair of signatures within its
//! radius, not only pairs with a bucket's first document, so its index holds
//! every distinct signature: `band-TTT.S.tab` holds, per table of the
//! radius's layout, one record per indexed signature, the signature in the
//! table's key order (which makes the signatures that agree under the
//! table's mask one range of keys) and its first document. Links are
//! checked on the signatures, so the index stores no texts (every document
//! has an empty entry in `texts.idx`). The settings name the method, so a
//! SimHash run refuses a MinHash index and the other way round.
//!
//! Documents are numbered in the order they were indexed; exact copies and
//! empty documents are not indexed. A run against the index therefore makes
//! the same decisions for its own documents as one run over the indexed
//! corpus followed by its own (see
//! [`ExternalOptions::against`](super::ExternalOptions::against)).
//!
//! **Segments.** The keys an update adds are exactly those its run did not
//! find in the index, so they are disjoint from every key already there.
//! An update therefore writes them as a new segment (one sorted table per
//! band and one content table, named by the update's generation) and
//! rewrites nothing else; a lookup searches the segments (at most one can
//! hold a key), each a binary search over its memory-mapped records. So
//! that lookups stay fast, segments are merged size-tiered, as in an LSM
//! tree: segments whose sizes (in documents) lie within a factor of
//! [`FANOUT`](update::FANOUT) (4) of each other form a class, and when the
//! new segment and the newest segments of its class or smaller number 4,
//! the update writes them merged into its one segment instead
//! ([`plan`](update::plan)). The newest segments of a class then number at
//! most 3, so an index of `N` documents has `O(log N)` segments (at most
//! `3 (log₄ N + 1) + 1`), and a document's keys are rewritten about once
//! per class, `log₄ N` times over its life. An update much smaller than the
//! index (the usual case) merges nothing, or only the small segments of
//! recent updates, and costs time in proportion to its own documents.
//!
//! **Commit and crash safety.** An update appends to the text and id files
//! and writes its segment's tables, all beside what `index.meta` names, then
//! replaces `index.meta` (the commit point) and only then removes the
//! segments it merged. A killed update leaves the previous state in force:
//! the bytes it appended lie past the lengths the meta records (the next
//! update truncates them), its tables are not named by the meta (they are
//! removed, or rewritten by the resumed run). Tables are immutable once
//! written.
//!
//! **Locking.** A run that updates the index holds an exclusive lock on
//! `index.lock` from opening the index to its end, a run that only reads it
//! a shared one (the operating system's file lock, released when the
//! process ends, killed or not). A run whose lock conflicts is refused at
//! once, so two updates never overlap and an update never removes a segment
//! a reader has mapped.
//!
//! **Formats.** `index.meta` starts with its format: format 2 lists the
//! segments; format 1, which had one table per band named by its
//! generation, opens as an index of that one segment and is written as
//! format 2 by its next update.

pub(crate) mod table;
pub(crate) mod update;

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::records::{BandRec, ContentRec};
use super::workdir::{io_error, read_exact_at, replace_file};
use crate::{Error, Result};
use table::Table;

const META: &str = "index.meta";
/// The first line of `index.meta`: format 2 lists the segments.
const FORMAT: &str = "txtfp dedup index 2";
/// Format 1 had one table per band, of the current generation; it opens as
/// an index of one segment.
const FORMAT_1: &str = "txtfp dedup index 1";
/// The lock file: updating runs lock it exclusively, other runs shared.
const LOCK: &str = "index.lock";

/// Longest text the index stores (its length is recorded in 32 bits).
pub(crate) const MAX_TEXT: usize = u32::MAX as usize;

/// An index of the documents earlier out-of-core runs have seen.
///
/// Built by a run with [`ExternalOptions::update_index`](super::ExternalOptions::update_index);
/// opened here to read its size and the ids of its documents.
///
/// ```
/// use txtfp::dedup::MinHashDedup;
/// use txtfp::dedup::external::{DedupIndex, ExternalOptions, TextSource};
/// let base = std::env::temp_dir().join(format!("txtfp-doc-index-{}", std::process::id()));
/// # let _ = std::fs::remove_dir_all(&base);
/// let old = ["a page about the annual harvest festival in the old town square"];
/// let new = [
///     "A page about the annual harvest festival in the old town square!",
///     "a note on tidal patterns along the northern coast in early spring",
/// ];
/// let dedup = MinHashDedup::new();
/// // Index the old corpus, then dedup the new one against it.
/// dedup.run_external(
///     &TextSource::new(&old),
///     &ExternalOptions::new(base.join("w1")).against(base.join("index")).update_index(true),
/// )?;
/// let report = dedup.run_external(
///     &TextSource::new(&new),
///     &ExternalOptions::new(base.join("w2")).against(base.join("index")),
/// )?;
/// let first = report.decisions()?.next().unwrap()?;
/// assert!(!first.keep);
/// let index = DedupIndex::open(base.join("index"))?;
/// assert_eq!(index.id(first.indexed.unwrap().position)?, "0");
/// # std::fs::remove_dir_all(&base)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct DedupIndex {
    dir: PathBuf,
    meta: Meta,
    /// The lock file, locked while a run uses the index; closing it (when
    /// the last clone is dropped, or the process ends) releases the lock.
    lock: Option<Arc<File>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Meta {
    /// The fingerprinting and banding settings documents were indexed with.
    pub(crate) settings: String,
    /// Chosen at creation: tells this index from another at the same path.
    pub(crate) uid: u64,
    pub(crate) generation: u64,
    pub(crate) documents: u64,
    pub(crate) bands: usize,
    pub(crate) ids_bytes: u64,
    pub(crate) texts_bytes: u64,
    /// The token of the run that wrote this generation, `0` for none.
    pub(crate) updated_by: u64,
    /// The segments of the band and content tables, oldest first.
    pub(crate) segments: Vec<Segment>,
}

/// One segment: a table per band and a content table, named by the
/// generation that wrote them, holding keys of `documents` documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    pub(crate) id: u64,
    pub(crate) documents: u64,
}

impl Meta {
    fn render(&self) -> String {
        format!(
            "{FORMAT}\nsettings {}\nuid {:016x}\ngeneration {}\ndocuments {}\nbands {}\n\
             ids_bytes {}\ntexts_bytes {}\nupdated_by {:016x}\nsegments{}\n",
            self.settings,
            self.uid,
            self.generation,
            self.documents,
            self.bands,
            self.ids_bytes,
            self.texts_bytes,
            self.updated_by,
            self.segments
                .iter()
                .map(|s| format!(" {}:{}", s.id, s.documents))
                .collect::<String>()
        )
    }

    fn parse(path: &Path, text: &str) -> Result<Self> {
        let bad = |what: &str| {
            Error::Corrupt(format!(
                "{}: not a txtfp dedup index ({what})",
                path.display()
            ))
        };
        let format = match text.lines().next() {
            Some(FORMAT) => 2,
            Some(FORMAT_1) => 1,
            _ => {
                return Err(bad(
                    "unknown format line; an index written by a later txtfp may need that \
                     version",
                ));
            }
        };
        let field = |key: &str| -> Result<&str> {
            text.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
                .ok_or_else(|| bad(&format!("no `{key}`")))
        };
        let num = |key: &str| -> Result<u64> {
            field(key)?
                .trim()
                .parse()
                .map_err(|_| bad(&format!("bad `{key}`")))
        };
        let hex = |key: &str| -> Result<u64> {
            u64::from_str_radix(field(key)?.trim(), 16).map_err(|_| bad(&format!("bad `{key}`")))
        };
        let bands = num("bands")?;
        if bands == 0 || bands > 4096 {
            return Err(bad("bad `bands`"));
        }
        let generation = num("generation")?;
        let documents = num("documents")?;
        let segments = if format == 1 {
            // Generation `G` of format 1 is the one segment `G`.
            match generation {
                0 => Vec::new(),
                g => vec![Segment { id: g, documents }],
            }
        } else {
            let list = text
                .lines()
                .find_map(|l| l.strip_prefix("segments"))
                .ok_or_else(|| bad("no `segments`"))?;
            let segments = list
                .split_ascii_whitespace()
                .map(|entry| {
                    let (id, docs) = entry.split_once(':')?;
                    Some(Segment {
                        id: id.parse().ok()?,
                        documents: docs.parse().ok()?,
                    })
                })
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| bad("bad `segments`"))?;
            // Segments are named by the generation that wrote them, so
            // their names ascend and none is past the current generation;
            // together they hold every document's keys.
            let ascending = segments.windows(2).all(|w| w[0].id < w[1].id);
            let total = segments
                .iter()
                .try_fold(0u64, |t, s| t.checked_add(s.documents));
            if !ascending
                || segments.iter().any(|s| s.id == 0 || s.id > generation)
                || total != Some(documents)
            {
                return Err(bad("bad `segments`"));
            }
            segments
        };
        Ok(Self {
            settings: field("settings")?.to_string(),
            uid: hex("uid")?,
            generation,
            documents,
            bands: bands as usize,
            ids_bytes: num("ids_bytes")?,
            texts_bytes: num("texts_bytes")?,
            updated_by: hex("updated_by")?,
            segments,
        })
    }
}

impl DedupIndex {
    /// Opens the index in `dir`.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when `dir` holds no readable index,
    /// [`Error::Corrupt`] when its description is damaged.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        let path = dir.join(META);
        let text = fs::read_to_string(&path).map_err(|e| io_error(&path, "cannot read", e))?;
        let meta = Meta::parse(&path, &text)?;
        Ok(Self {
            dir,
            meta,
            lock: None,
        })
    }

    /// Opens the index in `dir` for a run, holding its lock until the
    /// returned value (and every clone) is dropped: exclusive for a run
    /// that `update`s it (creating an empty index for `settings` when the
    /// directory holds none), shared for one that only reads it.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] at once when another run holds a lock that
    /// conflicts, naming the directory.
    pub(crate) fn open_for_run(
        dir: &Path,
        settings: &str,
        bands: usize,
        update: bool,
    ) -> Result<Self> {
        if update {
            fs::create_dir_all(dir).map_err(|e| io_error(dir, "cannot create", e))?;
        } else {
            // A missing index is reported as such, not as a missing lock.
            Self::open(dir)?;
        }
        let lock = take_lock(dir, update)?;
        // Read (or create) the index under the lock: no update can change
        // it from now on.
        let mut index = if update && !dir.join(META).exists() {
            Self::create(dir, settings, bands)?
        } else {
            Self::open(dir)?
        };
        index.lock = lock.map(Arc::new);
        Ok(index)
    }

    /// Creates an empty index for `settings` in `dir`, which must hold
    /// nothing but the lock file.
    fn create(dir: &Path, settings: &str, bands: usize) -> Result<Self> {
        if fs::read_dir(dir)
            .map_err(|e| io_error(dir, "cannot list", e))?
            .flatten()
            .any(|e| e.file_name() != LOCK)
        {
            return Err(Error::InvalidInput(format!(
                "{}: the directory is not empty and holds no txtfp index; give an empty or \
                 new directory",
                dir.display()
            )));
        }
        let uid = xxhash_rust::xxh3::xxh3_64(
            format!(
                "{}{:?}{}",
                dir.display(),
                std::time::SystemTime::now(),
                std::process::id()
            )
            .as_bytes(),
        );
        let meta = Meta {
            settings: settings.to_string(),
            uid,
            generation: 0,
            documents: 0,
            bands,
            ids_bytes: 0,
            texts_bytes: 0,
            updated_by: 0,
            segments: Vec::new(),
        };
        for name in ["ids.dat", "ids.idx", "texts.dat", "texts.idx"] {
            let p = dir.join(name);
            File::create(&p).map_err(|e| io_error(&p, "cannot create", e))?;
        }
        write_meta(dir, &meta)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            meta,
            lock: None,
        })
    }

    /// The directory of the index.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Number of indexed documents.
    pub fn documents(&self) -> u64 {
        self.meta.documents
    }

    /// How many updates the index has had.
    pub fn generation(&self) -> u64 {
        self.meta.generation
    }

    /// The fingerprinting and banding settings runs against the index must
    /// use, as text.
    pub fn settings(&self) -> &str {
        &self.meta.settings
    }

    /// How many segments the band and content tables are in (see the
    /// module documentation): each update adds at most one, and merges
    /// segments of similar size so that there are few.
    pub fn segments(&self) -> usize {
        self.meta.segments.len()
    }

    /// Bytes of the current generation's files.
    pub fn disk_bytes(&self) -> u64 {
        let mut total = self.meta.ids_bytes
            + self.meta.texts_bytes
            + 2 * 8 * self.meta.documents
            + fs::metadata(self.dir.join(META)).map_or(0, |m| m.len());
        for s in &self.meta.segments {
            for b in 0..self.meta.bands {
                total += fs::metadata(self.band_path(b, s.id)).map_or(0, |m| m.len());
            }
            total += fs::metadata(self.content_path(s.id)).map_or(0, |m| m.len());
        }
        total
    }

    /// The id of the indexed document at `position`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `position` is past the last document;
    /// [`Error::Io`] or [`Error::Corrupt`] for damaged files.
    pub fn id(&self, position: u64) -> Result<String> {
        self.ids()?.get(position)
    }

    /// The ids of the indexed documents, with their files held open.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the id files cannot be opened.
    pub fn ids(&self) -> Result<IndexIds> {
        Ok(IndexIds(self.blobs("ids", self.meta.ids_bytes)?))
    }

    /// The stored texts, with their files held open.
    pub(crate) fn texts(&self) -> Result<Texts> {
        Ok(Texts(self.blobs("texts", self.meta.texts_bytes)?))
    }

    fn blobs(&self, name: &str, valid: u64) -> Result<Blobs> {
        let open = |p: &Path| File::open(p).map_err(|e| io_error(p, "cannot open", e));
        let idx_path = self.dir.join(format!("{name}.idx"));
        let dat_path = self.dir.join(format!("{name}.dat"));
        Ok(Blobs {
            idx: open(&idx_path)?,
            dat: open(&dat_path)?,
            idx_path,
            dat_path,
            valid,
            documents: self.meta.documents,
        })
    }

    pub(crate) fn meta(&self) -> &Meta {
        &self.meta
    }

    /// The table of `band` in segment `segment`.
    pub(crate) fn band_path(&self, band: usize, segment: u64) -> PathBuf {
        self.dir.join(format!("band-{band:03}.{segment}.tab"))
    }

    /// The content table of segment `segment`.
    pub(crate) fn content_path(&self, segment: u64) -> PathBuf {
        self.dir.join(format!("content.{segment}.tab"))
    }

    /// The segments of `band` for lookups, `None` while the index is empty.
    pub(crate) fn band_table(&self, band: usize) -> Result<Option<Tables<BandRec>>> {
        self.tables(|s| self.band_path(band, s))
    }

    /// The segments of the content table for lookups, `None` while the
    /// index is empty.
    pub(crate) fn content_table(&self) -> Result<Option<Tables<ContentRec>>> {
        self.tables(|s| self.content_path(s))
    }

    fn tables<R: table::Keyed>(&self, path: impl Fn(u64) -> PathBuf) -> Result<Option<Tables<R>>> {
        if self.meta.segments.is_empty() {
            return Ok(None);
        }
        let tables = self
            .meta
            .segments
            .iter()
            .map(|s| Table::open(&path(s.id)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Tables(tables)))
    }
}

/// The segments of one band's table, or of the content table, opened for
/// lookups.
pub(crate) struct Tables<R: table::Keyed>(Vec<Table<R>>);

impl<R: table::Keyed> Tables<R> {
    /// The record whose key is `key`, if any. A key is in at most one
    /// segment: an update adds only keys the index does not hold.
    pub(crate) fn find(&mut self, key: R::Key) -> Result<Option<R>> {
        for t in &mut self.0 {
            if let Some(r) = t.find(key)? {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    /// Appends to `out` the records of every segment whose keys lie in
    /// `lo..=hi` (each segment's in key order), until `out` holds `most`;
    /// returns whether every one of them fit.
    pub(crate) fn range(
        &self,
        lo: R::Key,
        hi: R::Key,
        most: usize,
        out: &mut Vec<R>,
    ) -> Result<bool> {
        for t in &self.0 {
            if !t.range(lo, hi, most, out)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Opens (creating it) and locks the lock file of the index in `dir`:
/// exclusively for an update, shared otherwise. `None` when a reading run
/// cannot create the lock file (a read-only directory, which no update can
/// change either).
fn take_lock(dir: &Path, exclusive: bool) -> Result<Option<File>> {
    let path = dir.join(LOCK);
    let open = |write: bool| {
        fs::OpenOptions::new()
            .read(true)
            .write(write)
            .create(write)
            .truncate(false)
            .open(&path)
    };
    let file = if exclusive {
        open(true).map_err(|e| io_error(&path, "cannot create", e))?
    } else {
        match open(false) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => match open(true) {
                Ok(f) => f,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::PermissionDenied
                            | std::io::ErrorKind::ReadOnlyFilesystem
                    ) =>
                {
                    return Ok(None);
                }
                Err(e) => return Err(io_error(&path, "cannot create", e)),
            },
            Err(e) => return Err(io_error(&path, "cannot open", e)),
        }
    };
    let got = if exclusive {
        file.try_lock()
    } else {
        file.try_lock_shared()
    };
    match got {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => {
            // Only the message needs to know whether the holder updates:
            // an updater's exclusive lock refuses a shared one too.
            let updating = !exclusive
                || open(false).is_ok_and(|f| {
                    matches!(f.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock))
                });
            Err(Error::InvalidInput(if updating {
                format!(
                    "{}: the index is being updated by another run; start this one when that \
                     one has finished",
                    dir.display()
                )
            } else {
                format!(
                    "{}: the index is being read by another run against it; start the update \
                     when no run uses the index",
                    dir.display()
                )
            }))
        }
        Err(std::fs::TryLockError::Error(e)) => Err(io_error(&path, "cannot lock", e)),
    }
}

/// Variable-length entries: `NAME.dat` holds them back to back, `NAME.idx`
/// the end offset of each.
struct Blobs {
    idx: File,
    dat: File,
    idx_path: PathBuf,
    dat_path: PathBuf,
    /// Bytes of `NAME.dat` the current generation covers.
    valid: u64,
    documents: u64,
}

impl Blobs {
    fn get(&self, position: u64) -> Result<Vec<u8>> {
        if position >= self.documents {
            return Err(Error::InvalidInput(format!(
                "position {position} is past the last indexed document ({})",
                self.documents
            )));
        }
        let mut w = [0u8; 16];
        let (start, end) = if position == 0 {
            read_exact_at(&self.idx, &mut w[8..], 0)
                .map_err(|e| io_error(&self.idx_path, "cannot read", e))?;
            (0, u64::from_le_bytes(w[8..].try_into().unwrap_or_default()))
        } else {
            read_exact_at(&self.idx, &mut w, (position - 1) * 8)
                .map_err(|e| io_error(&self.idx_path, "cannot read", e))?;
            (
                u64::from_le_bytes(w[..8].try_into().unwrap_or_default()),
                u64::from_le_bytes(w[8..].try_into().unwrap_or_default()),
            )
        };
        if start > end || end > self.valid || end - start > MAX_TEXT as u64 + 4 {
            return Err(Error::Corrupt(format!(
                "{}: bad offsets at {position}",
                self.idx_path.display()
            )));
        }
        let mut bytes = vec![0u8; (end - start) as usize];
        read_exact_at(&self.dat, &mut bytes, start)
            .map_err(|e| io_error(&self.dat_path, "cannot read", e))?;
        Ok(bytes)
    }
}

/// The ids of an index's documents.
pub struct IndexIds(Blobs);

impl core::fmt::Debug for IndexIds {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IndexIds")
            .field("documents", &self.0.documents)
            .finish()
    }
}

impl IndexIds {
    /// The id of the indexed document at `position`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] when `position` is past the last document;
    /// [`Error::Io`] or [`Error::Corrupt`] for damaged files.
    pub fn get(&self, position: u64) -> Result<String> {
        String::from_utf8(self.0.get(position)?).map_err(|_| {
            Error::Corrupt(format!("{}: an id is not UTF-8", self.0.dat_path.display()))
        })
    }
}

/// The stored texts of an index's documents.
pub(crate) struct Texts(Blobs);

impl Texts {
    /// The text of the indexed document at `position`, `None` when the
    /// index holds none for it (it leads no bucket).
    pub(crate) fn get(&self, position: u64) -> Result<Option<String>> {
        let blob = self.0.get(position)?;
        if blob.is_empty() {
            return Ok(None);
        }
        let corrupt = || {
            Error::Corrupt(format!(
                "{}: a damaged text at {position}",
                self.0.dat_path.display()
            ))
        };
        let (len, frame) = blob.split_at_checked(4).ok_or_else(corrupt)?;
        let len = u32::from_le_bytes(len.try_into().map_err(|_| corrupt())?) as usize;
        let raw = zstd::bulk::decompress(frame, len).map_err(|_| corrupt())?;
        if raw.len() != len {
            return Err(corrupt());
        }
        String::from_utf8(raw).map(Some).map_err(|_| corrupt())
    }
}

/// Compresses `text` as the index stores it.
pub(crate) fn pack_text(text: &str) -> Result<Vec<u8>> {
    if text.len() > MAX_TEXT {
        return Err(Error::InvalidInput(format!(
            "a document of {} bytes is too long for a dedup index",
            text.len()
        )));
    }
    let mut out = (text.len() as u32).to_le_bytes().to_vec();
    out.extend(zstd::bulk::compress(text.as_bytes(), 3).map_err(Error::Io)?);
    Ok(out)
}

pub(crate) fn write_meta(dir: &Path, meta: &Meta) -> Result<()> {
    replace_file(&dir.join(META), true, |f| {
        f.write_all(meta.render().as_bytes())
    })
}

impl table::Keyed for BandRec {
    type Key = u64;
    fn key(&self) -> u64 {
        self.key
    }
}

impl table::Keyed for ContentRec {
    type Key = u128;
    fn key(&self) -> u128 {
        self.hash
    }
}

#[cfg(test)]
pub(super) mod tests;
