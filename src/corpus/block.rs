//! [`Blocks`] and [`Block`]: a shard's records, a bounded chunk at a time,
//! whatever its format.

use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::decompress::{self, Counted};
use super::folder::{FolderBlock, FolderReader};
use super::jsonl::{LineBlock, LineReader, LineRec, parse_line};
#[cfg(feature = "parquet")]
use super::parquet::{ParquetBlock, ParquetReader};
use super::{Columns, CorpusError, Doc, Key, ReadOptions, Shard, Skip, Source};

/// The blocks of one shard, in row order: an iterator made by
/// [`Shard::blocks`].
///
/// After an error it ends; the blocks before the error hold every record
/// read whole. It is `Send`, so a thread can read ahead while others parse.
pub struct Blocks {
    shard: u32,
    name: Arc<str>,
    cols: Arc<Columns>,
    max_record: u64,
    inner: Inner,
}

enum Inner {
    Lines(LineReader),
    Folder(FolderReader),
    #[cfg(feature = "parquet")]
    Parquet(ParquetReader),
}

impl std::fmt::Debug for Blocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blocks")
            .field("shard", &self.shard)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Opens a JSONL shard (a file or stdin) as decompressed lines.
pub(crate) fn open_lines(
    shard: &Shard,
    block_bytes: usize,
    max_record: u64,
) -> Result<LineReader, CorpusError> {
    let name = shard.name();
    let count = Arc::new(AtomicU64::new(0));
    let raw: Box<dyn Read + Send> = match &shard.source {
        Source::Jsonl(entry) => {
            let f = File::open(&entry.path).map_err(|e| CorpusError::io(name, "open", e))?;
            let meta = f.metadata().map_err(|e| CorpusError::io(name, "stat", e))?;
            if !entry.unchanged(&meta) {
                return Err(CorpusError::Changed { file: name.into() });
            }
            Box::new(Counted {
                inner: f,
                count: count.clone(),
            })
        }
        Source::Stdin { taken } => {
            if taken.swap(true, Ordering::SeqCst) {
                return Err(CorpusError::StdinReread);
            }
            Box::new(Counted {
                inner: std::io::stdin(),
                count: count.clone(),
            })
        }
        Source::Parquet(_) | Source::Folder { .. } => {
            return Err(CorpusError::input(name, "not a JSONL shard"));
        }
    };
    let (src, compression) = decompress::open_decoded(raw).map_err(|e| CorpusError::Read {
        file: name.into(),
        line: 0,
        offset: 0,
        reason: format!("cannot start reading: {e}"),
    })?;
    Ok(LineReader::new(
        name.into(),
        src,
        compression,
        count,
        block_bytes,
        max_record,
    ))
}

pub(crate) fn open(shard: &Shard, opts: &ReadOptions) -> Result<Blocks, CorpusError> {
    let inner = match &shard.source {
        Source::Jsonl(_) | Source::Stdin { .. } => {
            Inner::Lines(open_lines(shard, opts.block_bytes, opts.max_record_bytes)?)
        }
        Source::Folder { files, .. } => Inner::Folder(FolderReader::new(
            files.clone(),
            opts.block_bytes,
            opts.max_record_bytes,
        )),
        #[cfg(feature = "parquet")]
        Source::Parquet(entry) => Inner::Parquet(ParquetReader::open(
            entry,
            shard.name(),
            &opts.cols,
            opts.block_bytes,
        )?),
        #[cfg(not(feature = "parquet"))]
        Source::Parquet(_) => {
            return Err(CorpusError::parquet(
                shard.name(),
                "this build of txtfp has no `parquet` feature",
            ));
        }
    };
    Ok(Blocks {
        shard: shard.index(),
        name: shard.name().into(),
        cols: opts.cols.clone(),
        max_record: opts.max_record_bytes,
        inner,
    })
}

impl Iterator for Blocks {
    type Item = Result<Block, CorpusError>;

    fn next(&mut self) -> Option<Self::Item> {
        let data = match &mut self.inner {
            Inner::Lines(r) => r.next()?.map(Data::Lines),
            Inner::Folder(r) => r.next()?.map(Data::Folder),
            #[cfg(feature = "parquet")]
            Inner::Parquet(r) => r.next()?.map(Data::Parquet),
        };
        Some(data.map(|data| Block {
            shard: self.shard,
            name: self.name.clone(),
            cols: self.cols.clone(),
            max_record: self.max_record,
            data,
        }))
    }
}

/// Consecutive whole records of one shard, owned: it can be sent to
/// another thread, and the [`Doc`]s it hands out borrow from it.
///
/// Records are numbered `0..len()` within the block; [`Block::row`] gives
/// their rows in the shard (increasing). A record is parsed when asked for,
/// so parsing can be spread over threads: [`Block::par_records`] does it on
/// the rayon pool.
pub struct Block {
    shard: u32,
    name: Arc<str>,
    cols: Arc<Columns>,
    max_record: u64,
    data: Data,
}

enum Data {
    Lines(LineBlock),
    Folder(FolderBlock),
    #[cfg(feature = "parquet")]
    Parquet(ParquetBlock),
}

impl std::fmt::Debug for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Block")
            .field("shard", &self.shard)
            .field("records", &self.len())
            .field("bytes", &self.bytes())
            .finish_non_exhaustive()
    }
}

impl Block {
    /// The shard's index.
    pub fn shard(&self) -> u32 {
        self.shard
    }

    /// Number of records (documents and skips).
    pub fn len(&self) -> usize {
        match &self.data {
            Data::Lines(b) => b.recs.len(),
            Data::Folder(b) => b.files.len(),
            #[cfg(feature = "parquet")]
            Data::Parquet(b) => b.len(),
        }
    }

    /// Whether it has no record (a run of blank lines).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The row of record `i`, without parsing it; `None` past the end.
    pub fn row(&self, i: usize) -> Option<u64> {
        match &self.data {
            Data::Lines(b) => b.recs.get(i).map(|r| match *r {
                LineRec::Line { number, .. } | LineRec::TooLong { number, .. } => number,
            }),
            Data::Folder(b) => b.files.get(i).map(|f| f.row),
            #[cfg(feature = "parquet")]
            Data::Parquet(b) => (i < b.len()).then(|| b.first_row + i as u64),
        }
    }

    /// About how many bytes of decompressed input it holds.
    pub fn bytes(&self) -> u64 {
        match &self.data {
            Data::Lines(b) => b.buf.len() as u64,
            Data::Folder(b) => b
                .files
                .iter()
                .map(|f| f.contents.as_ref().map_or(0, |c| c.len() as u64))
                .sum(),
            #[cfg(feature = "parquet")]
            Data::Parquet(b) => b.batch.get_array_memory_size() as u64,
        }
    }

    /// How far into the shard's stored (compressed) bytes reading had got
    /// when this block was cut: the progress of the shard out of
    /// [`Shard::size`].
    pub fn input_position(&self) -> u64 {
        match &self.data {
            Data::Lines(b) => b.input_position,
            Data::Folder(b) => b.input_position,
            #[cfg(feature = "parquet")]
            Data::Parquet(b) => b.input_position,
        }
    }

    fn key(&self, row: u64) -> Key {
        Key {
            shard: self.shard,
            row,
        }
    }

    /// Record `i` parsed: a document, or why it was skipped; `None` past
    /// the end.
    pub fn record(&self, i: usize) -> Option<Result<Doc<'_>, Skip>> {
        match &self.data {
            Data::Lines(b) => b.recs.get(i).map(|r| self.line_record(b, r)),
            Data::Folder(b) => b.files.get(i).map(|f| {
                let skip = |reason: String| Skip {
                    key: self.key(f.row),
                    place: f.place.clone(),
                    reason,
                };
                let bytes = f.contents.as_deref().map_err(|r| skip(r.to_owned()))?;
                let text = std::str::from_utf8(bytes)
                    .map_err(|e| skip(format!("invalid UTF-8 at byte {}", e.valid_up_to() + 1)))?;
                Ok(Doc {
                    key: self.key(f.row),
                    id: Some(Cow::Borrowed(&f.id)),
                    text: Cow::Borrowed(text),
                    extra: None,
                    raw: bytes,
                    bytes: bytes.len() as u64,
                })
            }),
            #[cfg(feature = "parquet")]
            Data::Parquet(b) => (i < b.len()).then(|| {
                let key = self.key(b.first_row + i as u64);
                let skip = |reason: String| Skip {
                    key,
                    place: format!("{} row {}", self.name, key.row),
                    reason,
                };
                let parts = b.row(i).map_err(skip)?;
                if parts.text.len() as u64 > self.max_record {
                    return Err(skip(format!(
                        "a text of {} bytes, larger than the limit of {} bytes (max_record_bytes)",
                        parts.text.len(),
                        self.max_record
                    )));
                }
                let bytes = (parts.text.len() + parts.id.as_ref().map_or(0, String::len)) as u64;
                Ok(Doc {
                    key,
                    id: parts.id.map(Cow::Owned),
                    text: Cow::Borrowed(parts.text),
                    extra: parts.extra.map(Cow::Borrowed),
                    raw: &[],
                    bytes,
                })
            }),
        }
    }

    fn line_record<'a>(&'a self, b: &'a LineBlock, r: &LineRec) -> Result<Doc<'a>, Skip> {
        match *r {
            LineRec::Line {
                number,
                start,
                end,
                next,
            } => match parse_line(&b.buf[start..end], &self.cols) {
                Ok(f) => Ok(Doc {
                    key: self.key(number),
                    id: f.id.map(Cow::Borrowed),
                    text: f.text,
                    extra: f.extra,
                    raw: &b.buf[start..next],
                    bytes: (next - start) as u64,
                }),
                Err(reason) => Err(Skip {
                    key: self.key(number),
                    place: format!("{}:{number}", self.name),
                    reason,
                }),
            },
            LineRec::TooLong { number, bytes } => Err(Skip {
                key: self.key(number),
                place: format!("{}:{number}", self.name),
                reason: format!(
                    "a line of {bytes} bytes, longer than the limit of {} bytes (max_record_bytes); not read",
                    self.max_record
                ),
            }),
        }
    }

    /// Every record in order, parsed on this thread.
    pub fn records(&self) -> impl Iterator<Item = Result<Doc<'_>, Skip>> + '_ {
        (0..self.len()).filter_map(|i| self.record(i))
    }

    /// Every record, parsed on the rayon pool; `collect` keeps the order.
    pub fn par_records(&self) -> impl ParallelIterator<Item = Result<Doc<'_>, Skip>> + '_ {
        (0..self.len())
            .into_par_iter()
            .filter_map(|i| self.record(i))
    }

    /// The documents and the skipped records, each in row order, parsed on
    /// the rayon pool.
    pub fn docs(&self) -> (Vec<Doc<'_>>, Vec<Skip>) {
        let all: Vec<Result<Doc<'_>, Skip>> = self.par_records().collect();
        let mut docs = Vec::with_capacity(all.len());
        let mut skips = Vec::new();
        for r in all {
            match r {
                Ok(d) => docs.push(d),
                Err(s) => skips.push(s),
            }
        }
        (docs, skips)
    }
}
