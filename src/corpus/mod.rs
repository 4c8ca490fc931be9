//! Sharded corpora, streamed (feature `corpus`; Parquet shards need
//! `parquet`).
//!
//! A corpus of any size is read in bounded memory, as many times as a job
//! needs (a fingerprint pass, a verify pass, a write pass), and the kept
//! records are written back in the input's own format:
//!
//! 1. [`Corpus::resolve`] turns inputs (files, directories, glob patterns,
//!    `@list` files, `-` for stdin) into an ordered list of [`Shard`]s. The
//!    same inputs give the same order every time; [`Corpus::fingerprint`]
//!    tells whether the files are still the same ones.
//! 2. [`Shard::blocks`] reads one shard as [`Block`]s of about
//!    [`ReadOptions::block_bytes`] of decompressed text, each holding whole
//!    records. A block hands out [`Doc`]s (borrowing from it) and [`Skip`]s
//!    (records that could not be read, with the place and the reason);
//!    [`Block::par_records`] parses its records on the rayon pool.
//! 3. [`Writer::write_shard`] writes the records of a shard that a
//!    predicate over rows keeps, one output file per shard.
//!
//! Every document has a [`Key`] `(shard, row)` that is the same on every
//! read of the same resolved corpus.
//!
//! | input | shard | row | `Doc::id` | `Doc::raw` |
//! |---|---|---|---|---|
//! | `*.jsonl`, `*.json`, `*.ndjson`, each also `.gz` or `.zst` | one per file | 1-based line number (blank lines are not records) | the JSON text of the id column's value | the line, line break included |
//! | `*.parquet` (feature `parquet`) | one per file | 0-based row | the id column's value as JSON text (`"s1"`, `17`, `null`) | empty |
//! | other files of a directory | one per input directory | 0-based index of the file in path order | its path relative to the directory, as a JSON string | the file's bytes |
//!
//! Compression is recognised by the magic bytes (gzip `1f 8b`, zstd
//! `28 b5 2f fd`), whatever the name. A JSONL record is a JSON object per
//! line: only the text and id columns (and an optional extra column) are
//! decoded, every other value is skipped unparsed, and a text without
//! escapes is borrowed from the block.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use txtfp::corpus::{Corpus, ReadOptions, ResolveOptions, WriteOptions, Writer};
//! let dir = std::env::temp_dir().join(format!("txtfp-corpus-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! std::fs::create_dir_all(dir.join("in"))?;
//! std::fs::write(
//!     dir.join("in/a.jsonl"),
//!     "{\"id\": \"a1\", \"text\": \"one\"}\n{\"id\": 2, \"text\": \"two\"}\nnot json\n",
//! )?;
//!
//! let corpus = Corpus::resolve([dir.join("in")], &ResolveOptions::default())?;
//! let opts = ReadOptions::default();
//! let mut seen = Vec::new();
//! for shard in corpus.shards() {
//!     for block in shard.blocks(&opts)? {
//!         let block = block?;
//!         let (docs, skips) = block.docs();
//!         for d in &docs {
//!             seen.push((d.key.row, d.id.as_deref().unwrap_or("-").to_owned(), d.text.to_string()));
//!         }
//!         assert!(skips[0].place.ends_with("a.jsonl:3"));
//!     }
//! }
//! assert_eq!(seen, [(1, "\"a1\"".into(), "one".into()), (2, "2".into(), "two".into())]);
//!
//! // Keep the second line only: the output is that line, byte for byte.
//! let writer = Writer::new(&corpus, dir.join("out"), &WriteOptions::default())?;
//! writer.write_shard(&corpus.shards()[0], &opts, |row| row == 2)?;
//! assert_eq!(std::fs::read_to_string(dir.join("out/a.jsonl"))?, "{\"id\": 2, \"text\": \"two\"}\n");
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(()) }
//! ```

mod block;
mod decompress;
mod error;
mod folder;
mod jsonl;
#[cfg(feature = "parquet")]
mod parquet;
mod resolve;
mod write;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub use block::{Block, Blocks};
pub use error::CorpusError;
pub use resolve::{ResolveOptions, Warning};
pub use write::{WriteOptions, WriteSummary, Writer, keep_rows};

use resolve::FileEntry;

/// What a shard holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// One JSON object per line, possibly gzip- or zstd-compressed.
    Jsonl,
    /// A Parquet file (feature `parquet` to read it).
    Parquet,
    /// Text files, one document each.
    Text,
}

impl Format {
    /// The name used in messages and on the command line: `jsonl`,
    /// `parquet`, `text`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Parquet => "parquet",
            Format::Text => "text",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A byte stream's compression, as its magic bytes tell (JSONL shards), or
/// as chosen for output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (one or more members).
    Gzip,
    /// Zstandard (one or more frames).
    Zstd,
}

impl Compression {
    /// The usual file-name suffix, with its dot: `""`, `".gz"`, `".zst"`.
    pub fn suffix(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Gzip => ".gz",
            Compression::Zstd => ".zst",
        }
    }
}

/// A document's stable place in a resolved corpus: its shard's index and
/// its row in the shard (see the [module](self) table for what a row is).
/// Keys order documents in input order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// [`Shard::index`].
    pub shard: u32,
    /// The row within the shard.
    pub row: u64,
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shard, self.row)
    }
}

/// One document of a [`Block`], borrowing from it.
#[derive(Clone, Debug)]
pub struct Doc<'a> {
    /// Where it is.
    pub key: Key,
    /// The id column's value as JSON text (`"s001"`, `17`), or `None` when
    /// the record has no such column or no id column was asked for.
    pub id: Option<Cow<'a, str>>,
    /// The text column's value.
    pub text: Cow<'a, str>,
    /// The value of [`ReadOptions::extra_column`], when asked for and a
    /// string.
    pub extra: Option<Cow<'a, str>>,
    /// The record as stored: the JSONL line with its line break, a text
    /// file's bytes; empty for Parquet.
    pub raw: &'a [u8],
    /// Input bytes it stands for (progress): the line's length, the file's
    /// size, the Parquet values' size.
    pub bytes: u64,
}

/// A record that could not be read, where it is and why. Reading goes on
/// after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skip {
    /// Its key (rows of skipped records count like the others).
    pub key: Key,
    /// `FILE:LINE` (JSONL), `FILE row N` (Parquet) or `FILE` (a text file).
    pub place: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.place, self.reason)
    }
}

/// The default [`ReadOptions::block_bytes`]: 8 MiB.
pub const DEFAULT_BLOCK_BYTES: usize = 8 << 20;

/// The default [`ReadOptions::max_record_bytes`]: 1 GiB and 16 MiB.
pub const DEFAULT_MAX_RECORD_BYTES: u64 = (1 << 30) + (16 << 20);

/// Which columns to read and how much to hold at once.
///
/// ```
/// use txtfp::corpus::ReadOptions;
/// let opts = ReadOptions::default()
///     .text_column("content")
///     .id_column(Some("doc_id"))
///     .block_bytes(1 << 20);
/// assert_eq!(opts.get_text_column(), "content");
/// ```
#[derive(Clone, Debug)]
pub struct ReadOptions {
    cols: Arc<Columns>,
    block_bytes: usize,
    max_record_bytes: u64,
}

/// The column names a reader looks up, shared by the blocks it makes.
#[derive(Clone, Debug)]
pub(crate) struct Columns {
    pub(crate) text: String,
    pub(crate) id: Option<String>,
    pub(crate) extra: Option<String>,
}

impl Default for ReadOptions {
    /// Text column `text`, id column `id`, no extra column, 8 MiB blocks,
    /// records up to 1 GiB + 16 MiB.
    fn default() -> Self {
        ReadOptions {
            cols: Arc::new(Columns {
                text: "text".into(),
                id: Some("id".into()),
                extra: None,
            }),
            block_bytes: DEFAULT_BLOCK_BYTES,
            max_record_bytes: DEFAULT_MAX_RECORD_BYTES,
        }
    }
}

impl ReadOptions {
    /// The column (JSON key, Parquet column) holding the text.
    pub fn text_column(mut self, name: &str) -> Self {
        Arc::make_mut(&mut self.cols).text = name.to_owned();
        self
    }

    /// The column holding the id, or `None` to read no id.
    pub fn id_column(mut self, name: Option<&str>) -> Self {
        Arc::make_mut(&mut self.cols).id = name.map(str::to_owned);
        self
    }

    /// A further string column to read into [`Doc::extra`] (e.g. a source
    /// name), or `None`.
    pub fn extra_column(mut self, name: Option<&str>) -> Self {
        Arc::make_mut(&mut self.cols).extra = name.map(str::to_owned);
        self
    }

    /// About how many decompressed bytes a block holds (at least 1; a record
    /// larger than this makes its block larger).
    pub fn block_bytes(mut self, bytes: usize) -> Self {
        self.block_bytes = bytes.max(1);
        self
    }

    /// The largest record read: a longer JSONL line, a larger text file or
    /// Parquet value is a [`Skip`], and reading goes on after it. Memory
    /// for one record is at most about this.
    pub fn max_record_bytes(mut self, bytes: u64) -> Self {
        self.max_record_bytes = bytes.max(1);
        self
    }

    /// See [`ReadOptions::text_column`].
    pub fn get_text_column(&self) -> &str {
        &self.cols.text
    }

    /// See [`ReadOptions::id_column`].
    pub fn get_id_column(&self) -> Option<&str> {
        self.cols.id.as_deref()
    }

    /// See [`ReadOptions::extra_column`].
    pub fn get_extra_column(&self) -> Option<&str> {
        self.cols.extra.as_deref()
    }

    /// See [`ReadOptions::block_bytes`].
    pub fn get_block_bytes(&self) -> usize {
        self.block_bytes
    }

    /// See [`ReadOptions::max_record_bytes`].
    pub fn get_max_record_bytes(&self) -> u64 {
        self.max_record_bytes
    }
}

/// A resolved corpus: its shards in a fixed order, and what resolution
/// left out.
#[derive(Debug)]
pub struct Corpus {
    shards: Vec<Shard>,
    warnings: Vec<Warning>,
    fingerprint: u64,
}

impl Corpus {
    /// Resolves `inputs` into shards, in order:
    ///
    /// * `-`: standard input, JSONL (compression sniffed); readable once.
    /// * `@FILE`: every non-blank line of FILE that does not start with `#`
    ///   is one more input (not itself an `@` list; relative paths are
    ///   relative to the working directory, as on a command line).
    /// * a directory: walked recursively, files sorted by path; JSONL and
    ///   Parquet files by name (see the [module](self) table) are one shard
    ///   each; every other file is a text document, and all of them form one
    ///   text shard, in path order, ids relative to the directory. Symbolic
    ///   links, FIFOs, sockets, devices and unreadable entries are not read
    ///   and are each reported in [`Corpus::warnings`].
    /// * a file (a symbolic link is followed): Parquet if named `*.parquet`,
    ///   else JSONL.
    /// * a glob pattern (`data/*.jsonl.zst`, `shards/**/*.parquet`) when no
    ///   such path exists: the matching files in path order, named as in a
    ///   directory; `*` and `?` do not cross a `/`, `**` does. Matching
    ///   symbolic links to files are followed; links to directories are
    ///   reported, not entered.
    ///
    /// [`ResolveOptions::format`] forces one kind on every file. A file
    /// reached twice is read once (a warning says so).
    ///
    /// # Errors
    ///
    /// [`CorpusError::Input`] for an input that does not exist, cannot be
    /// read or is not a file or directory, a Parquet file when the
    /// `parquet` feature is off; [`CorpusError::Empty`] when nothing is
    /// left.
    pub fn resolve<I, S>(inputs: I, opts: &ResolveOptions) -> Result<Corpus, CorpusError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let (shards, warnings) = resolve::resolve(inputs, opts)?;
        let fingerprint = resolve::fingerprint(&shards);
        Ok(Corpus {
            shards,
            warnings,
            fingerprint,
        })
    }

    /// The shards; `shards()[i].index() == i`.
    pub fn shards(&self) -> &[Shard] {
        &self.shards
    }

    /// What resolution left out or merged, and why.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The sum of the shards' file sizes as stored (compressed), for a
    /// progress bar fed by [`Block::input_position`]; stdin counts 0.
    pub fn total_bytes(&self) -> u64 {
        self.shards.iter().map(Shard::size).sum()
    }

    /// A hash of the resolved list: every file's path, format, size and
    /// modification time. Equal fingerprints mean a resumed job sees the
    /// same files in the same order.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }
}

/// One shard of a [`Corpus`]: a JSONL or Parquet file, stdin, or the text
/// files of one input directory.
#[derive(Debug)]
pub struct Shard {
    index: u32,
    compression: Compression,
    name: String,
    relative: PathBuf,
    source: Source,
}

/// Where a shard's bytes come from.
#[derive(Debug)]
pub(crate) enum Source {
    Jsonl(FileEntry),
    Parquet(FileEntry),
    Stdin {
        taken: AtomicBool,
    },
    Folder {
        root: PathBuf,
        files: Arc<[FileEntry]>,
    },
}

impl Shard {
    /// Its position in [`Corpus::shards`], the `shard` of its keys.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// What it holds.
    pub fn format(&self) -> Format {
        match self.source {
            Source::Jsonl(_) | Source::Stdin { .. } => Format::Jsonl,
            Source::Parquet(_) => Format::Parquet,
            Source::Folder { .. } => Format::Text,
        }
    }

    /// The compression of a JSONL file found at resolution (by its magic
    /// bytes); [`Compression::None`] for the other kinds and for stdin (whose
    /// compression is sniffed when read).
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// The name messages use: the path as resolved, `<stdin>`, or
    /// `DIR (text files)`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file, or the directory of a text shard; `None` for stdin.
    pub fn path(&self) -> Option<&Path> {
        match &self.source {
            Source::Jsonl(f) | Source::Parquet(f) => Some(&f.path),
            Source::Stdin { .. } => None,
            Source::Folder { root, .. } => Some(root),
        }
    }

    /// The path an output file takes under the output directory: relative to
    /// the input directory or the glob's fixed prefix, else the file name
    /// (`stdin.jsonl` for stdin); empty for a text shard, whose files keep
    /// their own relative paths (see [`Shard::text_files`]).
    pub fn relative_path(&self) -> &Path {
        &self.relative
    }

    /// A text shard's files in row order, each with its path relative to
    /// the directory (the document's id); empty for other shards.
    pub fn text_files(&self) -> impl ExactSizeIterator<Item = (&Path, &Path)> + '_ {
        let files: &[FileEntry] = match &self.source {
            Source::Folder { files, .. } => files,
            _ => &[],
        };
        files.iter().map(|f| (f.path.as_path(), f.rel.as_path()))
    }

    /// Its size on disk (compressed), the sum over a text shard's files; 0
    /// for stdin.
    pub fn size(&self) -> u64 {
        match &self.source {
            Source::Jsonl(f) | Source::Parquet(f) => f.size,
            Source::Stdin { .. } => 0,
            Source::Folder { files, .. } => files.iter().map(|f| f.size).sum(),
        }
    }

    /// Number of rows when known without reading: a text shard's file
    /// count; `None` for JSONL and Parquet.
    pub fn rows_hint(&self) -> Option<u64> {
        match &self.source {
            Source::Folder { files, .. } => Some(files.len() as u64),
            _ => None,
        }
    }

    /// Starts reading the shard: an iterator of [`Block`]s in row order.
    /// Each call reads from the start again (stdin: once only).
    ///
    /// # Errors
    ///
    /// At once, [`CorpusError::Io`] if the file cannot be opened,
    /// [`CorpusError::Changed`] if it is no longer the file resolved,
    /// [`CorpusError::Parquet`] for an unreadable Parquet footer or a
    /// missing text column, [`CorpusError::StdinReread`]. Later errors come
    /// from the iterator, after the blocks read before them.
    pub fn blocks(&self, opts: &ReadOptions) -> Result<Blocks, CorpusError> {
        block::open(self, opts)
    }
}
