//! A dedup index: what later out-of-core runs need to drop the documents
//! that duplicate an earlier corpus, without that corpus.
//!
//! An out-of-core run pairs a document only with the first document of each
//! band bucket and links an exact copy only to the first copy, so an earlier
//! corpus matters to a later one only through, per band, the first document
//! of each bucket and, per text, its first copy, and through the texts of
//! those first documents for verification. The index holds exactly that:
//!
//! - `band-BBB.G.tab`: per band, one record `(band key, document)` per key,
//!   the key's first document; `content.G.tab`: one record per distinct text
//!   (XXH3-128), its first document ([`table`]);
//! - `texts.dat` / `texts.idx`: the zstd-compressed text of every document
//!   that leads a bucket, read back when a later document pairs with it;
//! - `ids.dat` / `ids.idx`: every indexed document's id, for reports;
//! - `index.meta`: the settings it was built with, its size and generation.
//!
//! Documents are numbered in the order they were indexed; exact copies and
//! empty documents are not indexed. A run against the index therefore makes
//! the same decisions for its own documents as one run over the indexed
//! corpus followed by its own (see
//! [`ExternalOptions::against`](super::ExternalOptions::against)). Updating
//! appends to the text and id files and writes the tables of the next
//! generation beside the current ones; `index.meta` is replaced last, so a
//! killed update leaves the previous generation intact. One process at a
//! time may update an index.

pub(crate) mod table;
pub(crate) mod update;

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::records::{BandRec, ContentRec};
use super::workdir::{io_error, read_exact_at, replace_file};
use crate::{Error, Result};
use table::Table;

const META: &str = "index.meta";
const FORMAT: &str = "txtfp dedup index 1";

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
}

impl Meta {
    fn render(&self) -> String {
        format!(
            "{FORMAT}\nsettings {}\nuid {:016x}\ngeneration {}\ndocuments {}\nbands {}\n\
             ids_bytes {}\ntexts_bytes {}\nupdated_by {:016x}\n",
            self.settings,
            self.uid,
            self.generation,
            self.documents,
            self.bands,
            self.ids_bytes,
            self.texts_bytes,
            self.updated_by
        )
    }

    fn parse(path: &Path, text: &str) -> Result<Self> {
        let bad = |what: &str| {
            Error::Corrupt(format!(
                "{}: not a txtfp dedup index ({what})",
                path.display()
            ))
        };
        let mut lines = text.lines();
        if lines.next() != Some(FORMAT) {
            return Err(bad("unknown format line"));
        }
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
        Ok(Self {
            settings: field("settings")?.to_string(),
            uid: hex("uid")?,
            generation: num("generation")?,
            documents: num("documents")?,
            bands: bands as usize,
            ids_bytes: num("ids_bytes")?,
            texts_bytes: num("texts_bytes")?,
            updated_by: hex("updated_by")?,
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
        Ok(Self { dir, meta })
    }

    /// Opens the index in `dir`, creating an empty one for `settings` when
    /// the directory holds none.
    pub(crate) fn open_or_create(dir: &Path, settings: &str, bands: usize) -> Result<Self> {
        if dir.join(META).exists() {
            return Self::open(dir);
        }
        fs::create_dir_all(dir).map_err(|e| io_error(dir, "cannot create", e))?;
        if fs::read_dir(dir)
            .map_err(|e| io_error(dir, "cannot list", e))?
            .next()
            .is_some()
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
        };
        for name in ["ids.dat", "ids.idx", "texts.dat", "texts.idx"] {
            let p = dir.join(name);
            File::create(&p).map_err(|e| io_error(&p, "cannot create", e))?;
        }
        write_meta(dir, &meta)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            meta,
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

    /// Bytes of the current generation's files.
    pub fn disk_bytes(&self) -> u64 {
        let mut total = self.meta.ids_bytes
            + self.meta.texts_bytes
            + 2 * 8 * self.meta.documents
            + fs::metadata(self.dir.join(META)).map_or(0, |m| m.len());
        let g = self.meta.generation;
        if g > 0 {
            for b in 0..self.meta.bands {
                total += fs::metadata(self.band_path(b, g)).map_or(0, |m| m.len());
            }
            total += fs::metadata(self.content_path(g)).map_or(0, |m| m.len());
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

    pub(crate) fn band_path(&self, band: usize, generation: u64) -> PathBuf {
        self.dir.join(format!("band-{band:03}.{generation}.tab"))
    }

    pub(crate) fn content_path(&self, generation: u64) -> PathBuf {
        self.dir.join(format!("content.{generation}.tab"))
    }

    /// The band table of `band` for lookups, `None` while the index is empty.
    pub(crate) fn band_table(&self, band: usize) -> Result<Option<Table<BandRec>>> {
        match self.meta.generation {
            0 => Ok(None),
            g => Table::open(&self.band_path(band, g)).map(Some),
        }
    }

    /// The content table for lookups, `None` while the index is empty.
    pub(crate) fn content_table(&self) -> Result<Option<Table<ContentRec>>> {
        match self.meta.generation {
            0 => Ok(None),
            g => Table::open(&self.content_path(g)).map(Some),
        }
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
mod tests;
