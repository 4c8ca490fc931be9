//! The index file format (version 1), shared by every index type.
//!
//! ```text
//! offset  size  field
//!      0     8  magic "TXTFPIX\0"
//!      8     4  format version (1), little endian like every field
//!     12     4  kind: 1 = LshIndex, 2 = SimHashIndex, 3 = SimHash128Index
//!     16    32  four kind-specific u64 parameters
//!     48     8  number of documents n
//!     56     8  number of sections s
//!     64  24·s  section table: tag u32, aux u32, offset u64, length u64
//!      …        section bodies, each starting at a multiple of 8, zero padded
//!   end−16   8  XXH3-64 of every byte before it
//!   end−8    8  magic "TXTFPEND"
//! ```
//!
//! Sections hold flat little-endian arrays, so a memory-mapped file is
//! queried in place: the ids sorted ascending (the slot of a document is its
//! rank), the per-document payload (signatures, fingerprints) in the same
//! order, and for each key table its entries sorted by key (12 bytes each:
//! key low half, key high half, slot) and the directory over the key
//! prefixes (`aux` = directory bits).
//!
//! Reading checks, in order: the magic numbers and the length, the checksum
//! (before anything else is believed), the version and kind, that every
//! section lies inside the file, is aligned and has the length its type
//! needs, and then the structure (ids strictly ascending, runs sorted with
//! slots in range and a matching directory). A file that fails any check is
//! an [`Error::Corrupt`] naming the check, never a panic.

use alloc::format;
use alloc::vec::Vec;

use bytemuck::Pod;
use xxhash_rust::xxh3::Xxh3;

use super::run::{Entry, RunRef};
use crate::{Error, Result};

pub(crate) const MAGIC: [u8; 8] = *b"TXTFPIX\0";
pub(crate) const END_MAGIC: [u8; 8] = *b"TXTFPEND";
/// The version this build writes and reads.
pub const INDEX_FORMAT_VERSION: u32 = 1;
const HEADER: usize = 64;
const ENTRY: usize = 24;
const TRAILER: usize = 16;
/// Sections a file may declare: bounds the section table of a hostile file.
const MAX_SECTIONS: u64 = 1 << 16;

/// What a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Lsh = 1,
    #[cfg_attr(not(feature = "simhash"), allow(dead_code))]
    SimHash = 2,
    #[cfg_attr(not(feature = "simhash"), allow(dead_code))]
    SimHash128 = 3,
}

/// Section tags. Table `t`'s sections are `tag + t`.
pub(crate) mod tag {
    pub(crate) const IDS: u32 = 1;
    pub(crate) const PAYLOAD: u32 = 2;
    #[cfg_attr(not(feature = "simhash"), allow(dead_code))]
    pub(crate) const MASKS: u32 = 3;
    /// The high halves of 128-bit fingerprints (kind 3).
    #[cfg_attr(not(feature = "simhash"), allow(dead_code))]
    pub(crate) const PAYLOAD_HI: u32 = 4;
    pub(crate) const ENTRIES: u32 = 0x1_0000;
    pub(crate) const DIR: u32 = 0x2_0000;
}

/// The fixed header fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) kind: Kind,
    pub(crate) params: [u64; 4],
    pub(crate) docs: u64,
}

/// A section to write: tag, aux word and byte length.
#[derive(Clone, Copy)]
pub(crate) struct Spec {
    pub(crate) tag: u32,
    pub(crate) aux: u32,
    pub(crate) len: u64,
}

/// Streams a file: header and section table first, then the section
/// bodies in the order of the specs, then the trailer.
pub(crate) struct Writer<F: FnMut(&[u8]) -> Result<()>> {
    sink: F,
    hasher: Xxh3,
    specs: Vec<Spec>,
    next: usize,
    written_in_section: u64,
}

fn pad8(n: u64) -> u64 {
    n.next_multiple_of(8)
}

impl<F: FnMut(&[u8]) -> Result<()>> Writer<F> {
    pub(crate) fn begin(sink: F, header: Header, specs: Vec<Spec>) -> Result<Self> {
        let mut w = Self {
            sink,
            hasher: Xxh3::new(),
            specs,
            next: 0,
            written_in_section: 0,
        };
        let mut head = Vec::with_capacity(HEADER + ENTRY * w.specs.len());
        head.extend_from_slice(&MAGIC);
        head.extend_from_slice(&INDEX_FORMAT_VERSION.to_le_bytes());
        head.extend_from_slice(&(header.kind as u32).to_le_bytes());
        for p in header.params {
            head.extend_from_slice(&p.to_le_bytes());
        }
        head.extend_from_slice(&header.docs.to_le_bytes());
        head.extend_from_slice(&(w.specs.len() as u64).to_le_bytes());
        let mut offset = pad8((HEADER + ENTRY * w.specs.len()) as u64);
        for s in &w.specs {
            head.extend_from_slice(&s.tag.to_le_bytes());
            head.extend_from_slice(&s.aux.to_le_bytes());
            head.extend_from_slice(&offset.to_le_bytes());
            head.extend_from_slice(&s.len.to_le_bytes());
            offset += pad8(s.len);
        }
        head.resize(pad8(head.len() as u64) as usize, 0);
        w.emit(&head)?;
        Ok(w)
    }

    fn emit(&mut self, bytes: &[u8]) -> Result<()> {
        self.hasher.update(bytes);
        (self.sink)(bytes)
    }

    /// Appends to the current section; moves to the next one when full.
    pub(crate) fn write(&mut self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            let spec = *self.specs.get(self.next).ok_or_else(overrun)?;
            let room = (spec.len - self.written_in_section) as usize;
            let take = room.min(bytes.len());
            self.emit(&bytes[..take])?;
            self.written_in_section += take as u64;
            bytes = &bytes[take..];
            self.close_full_sections()?;
        }
        Ok(())
    }

    /// Writes `items` as their little-endian bytes.
    pub(crate) fn write_pod<T: Pod>(&mut self, items: &[T]) -> Result<()> {
        #[cfg(target_endian = "little")]
        {
            self.write(bytemuck::cast_slice(items))
        }
        #[cfg(not(target_endian = "little"))]
        {
            compile_error!("index files are written on little-endian targets only");
        }
    }

    fn close_full_sections(&mut self) -> Result<()> {
        while let Some(spec) = self.specs.get(self.next).copied() {
            if self.written_in_section < spec.len {
                break;
            }
            let pad = (pad8(spec.len) - spec.len) as usize;
            self.emit(&[0u8; 8][..pad])?;
            self.next += 1;
            self.written_in_section = 0;
        }
        Ok(())
    }

    /// Writes the trailer; every section must be complete.
    pub(crate) fn finish(mut self) -> Result<()> {
        self.close_full_sections()?;
        if self.next != self.specs.len() {
            return Err(overrun());
        }
        let sum = self.hasher.digest();
        (self.sink)(&sum.to_le_bytes())?;
        (self.sink)(&END_MAGIC)
    }
}

fn overrun() -> Error {
    Error::InvalidInput("index writer: section lengths disagree with the data written".into())
}

/// Section table entry of a parsed file.
#[derive(Clone, Copy, Debug)]
struct SectionEntry {
    tag: u32,
    aux: u32,
    offset: u64,
    len: u64,
}

/// A parsed, checksum-verified file whose sections can be borrowed in place.
pub(crate) struct FileView<'a> {
    bytes: &'a [u8],
    pub(crate) header: Header,
    entries: Vec<SectionEntry>,
}

pub(crate) fn corrupt(what: impl core::fmt::Display) -> Error {
    Error::Corrupt(format!("index file: {what}"))
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl<'a> FileView<'a> {
    /// Parses `bytes` (which must start at an 8-aligned address) as a file
    /// of `kind`.
    pub(crate) fn parse(bytes: &'a [u8], kind: Kind) -> Result<Self> {
        if bytes.len() < HEADER + TRAILER {
            return Err(corrupt(format!("{} bytes is too short", bytes.len())));
        }
        if bytes[..8] != MAGIC {
            return Err(corrupt("bad magic number (not a txtfp index)"));
        }
        let body = bytes.len() - TRAILER;
        if bytes[body + 8..] != END_MAGIC {
            return Err(corrupt("bad end marker (truncated?)"));
        }
        let stored = le_u64(bytes, body);
        let actual = xxhash_rust::xxh3::xxh3_64(&bytes[..body]);
        if stored != actual {
            return Err(corrupt(format!(
                "checksum mismatch (stored {stored:#018x}, computed {actual:#018x})"
            )));
        }
        let version = le_u32(bytes, 8);
        if version != INDEX_FORMAT_VERSION {
            return Err(corrupt(format!(
                "format version {version}; this build reads version {INDEX_FORMAT_VERSION}"
            )));
        }
        let found = le_u32(bytes, 12);
        if found != kind as u32 {
            return Err(corrupt(format!(
                "holds index kind {found}, expected {} ({kind:?})",
                kind as u32
            )));
        }
        let params = [16, 24, 32, 40].map(|at| le_u64(bytes, at));
        let docs = le_u64(bytes, 48);
        let count = le_u64(bytes, 56);
        if count > MAX_SECTIONS || HEADER as u64 + count * ENTRY as u64 > body as u64 {
            return Err(corrupt(format!("{count} sections do not fit")));
        }
        let mut entries = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            let at = HEADER + i * ENTRY;
            let e = SectionEntry {
                tag: le_u32(bytes, at),
                aux: le_u32(bytes, at + 4),
                offset: le_u64(bytes, at + 8),
                len: le_u64(bytes, at + 16),
            };
            let end = e.offset.checked_add(e.len);
            if !e.offset.is_multiple_of(8) || end.is_none_or(|end| end > body as u64) {
                return Err(corrupt(format!(
                    "section {:#x} at {} (+{}) lies outside the file",
                    e.tag, e.offset, e.len
                )));
            }
            entries.push(e);
        }
        Ok(Self {
            bytes,
            header: Header { kind, params, docs },
            entries,
        })
    }

    fn entry(&self, tag: u32) -> Result<SectionEntry> {
        self.entries
            .iter()
            .find(|e| e.tag == tag)
            .copied()
            .ok_or_else(|| corrupt(format!("section {tag:#x} is missing")))
    }

    /// Section `tag` as `count` values of `T`, borrowed in place.
    pub(crate) fn array<T: Pod>(&self, tag: u32, count: u64) -> Result<&'a [T]> {
        let e = self.entry(tag)?;
        let size = core::mem::size_of::<T>() as u64;
        if count.checked_mul(size) != Some(e.len) {
            return Err(corrupt(format!(
                "section {tag:#x} is {} bytes, expected {count} × {size}",
                e.len
            )));
        }
        let raw = &self.bytes[e.offset as usize..(e.offset + e.len) as usize];
        bytemuck::try_cast_slice(raw)
            .map_err(|err| corrupt(format!("section {tag:#x} unreadable in place: {err:?}")))
    }

    /// Section `tag`'s aux word.
    pub(crate) fn aux(&self, tag: u32) -> Result<u32> {
        Ok(self.entry(tag)?.aux)
    }

    /// The ids (strictly ascending, so distinct) of an `n`-document file.
    pub(crate) fn ids(&self) -> Result<&'a [u64]> {
        let ids: &[u64] = self.array(tag::IDS, self.header.docs)?;
        if ids.windows(2).any(|w| w[0] >= w[1]) {
            return Err(corrupt("ids are not strictly ascending"));
        }
        Ok(ids)
    }

    /// Table `t`, validated against `n` documents.
    pub(crate) fn run(&self, t: u32) -> Result<RunRef<'a>> {
        let size = core::mem::size_of::<Entry>() as u64;
        let n_entries = self.entry(tag::ENTRIES + t)?.len / size;
        let bits = self.aux(tag::DIR + t)?;
        if bits > super::run::MAX_DIR_BITS {
            return Err(corrupt(format!("table {t}: {bits} directory bits")));
        }
        let run = RunRef {
            entries: self.array(tag::ENTRIES + t, n_entries)?,
            dir: self.array(tag::DIR + t, (1u64 << bits) + 1)?,
            bits,
        };
        if !run.is_valid(self.header.docs as usize) {
            return Err(corrupt(format!(
                "table {t} is not a sorted run over {} documents",
                self.header.docs
            )));
        }
        Ok(run)
    }
}

/// Section specs of key table `t` holding `run`.
pub(crate) fn run_specs(t: u32, run: RunRef<'_>) -> [Spec; 2] {
    [
        Spec {
            tag: tag::ENTRIES + t,
            aux: 0,
            len: core::mem::size_of_val(run.entries) as u64,
        },
        Spec {
            tag: tag::DIR + t,
            aux: run.bits,
            len: run.dir.len() as u64 * 4,
        },
    ]
}

/// Writes the sections of [`run_specs`].
pub(crate) fn write_run<F: FnMut(&[u8]) -> Result<()>>(
    w: &mut Writer<F>,
    run: RunRef<'_>,
) -> Result<()> {
    w.write_pod(run.entries)?;
    w.write_pod(run.dir)
}

/// The file `write` produces, collected in memory.
pub(crate) fn to_vec(
    write: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let written = write(&mut |b: &[u8]| {
        out.extend_from_slice(b);
        Ok(())
    });
    // The writers fail only when their sink does, and this one cannot.
    debug_assert!(written.is_ok(), "in-memory index write failed: {written:?}");
    out
}

/// Parses `bytes` as a file of `kind` and hands the view to `read`. The
/// sections are borrowed in place, so unaligned bytes are first copied into
/// 8-aligned memory.
pub(crate) fn with_view<T>(
    bytes: &[u8],
    kind: Kind,
    read: impl FnOnce(&FileView<'_>) -> Result<T>,
) -> Result<T> {
    if bytes.as_ptr().align_offset(8) == 0 {
        return read(&FileView::parse(bytes, kind)?);
    }
    let mut words = alloc::vec![0u64; bytes.len().div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
    read(&FileView::parse(
        &bytemuck::cast_slice::<u64, u8>(&words)[..bytes.len()],
        kind,
    )?)
}

/// The `save` and `load` methods of an index type that has `write_to` and
/// `from_bytes`, with the given doc attributes (the type's own text and
/// examples) on `save`.
macro_rules! save_and_load {
    ($(#[$save_doc:meta])*) => {
        $(#[$save_doc])*
        ///
        /// # Errors
        ///
        /// [`Error::Io`](crate::Error::Io) when the file cannot be written;
        /// the file at `path` is then unchanged.
        #[cfg(feature = "std")]
        pub fn save(&self, path: impl AsRef<std::path::Path>) -> $crate::Result<()> {
            $crate::lsh::persist::save_atomically(path.as_ref(), |sink| self.write_to(sink))
        }

        /// Loads an index saved by [`save`](Self::save) into memory.
        ///
        /// # Errors
        ///
        /// [`Error::Io`](crate::Error::Io) when the file cannot be read, and
        /// the errors of [`from_bytes`](Self::from_bytes).
        #[cfg(feature = "std")]
        pub fn load(path: impl AsRef<std::path::Path>) -> $crate::Result<Self> {
            Self::from_bytes(&std::fs::read(path.as_ref())?)
        }
    };
}
pub(crate) use save_and_load;

/// Writes a file through `write` into a temporary file beside `path`, syncs
/// it and renames it over `path`; on any error the temporary file is removed
/// and `path` is untouched.
#[cfg(feature = "std")]
pub(crate) fn save_atomically(
    path: &std::path::Path,
    write: impl FnOnce(&mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()>,
) -> Result<()> {
    use std::io::Write;
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = (|| {
        let file = std::fs::File::create(&tmp)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        write(&mut |bytes: &[u8]| out.write_all(bytes).map_err(Error::from))?;
        let file = out.into_inner().map_err(|e| Error::from(e.into_error()))?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
