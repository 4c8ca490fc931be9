//! Sorted runs on disk: the one external sort every stage uses.
//!
//! Records are fixed-size and encoded little-endian, so a run is a header
//! and a flat array: a truncated or foreign file is found by its length and
//! header, never by a misparse. A [`Spiller`] collects records in memory up
//! to its capacity, sorts and deduplicates them, and writes them as a run;
//! a [`Merge`] reads any number of runs back as one sorted, deduplicated
//! stream with a buffered reader per run.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use rayon::slice::ParallelSliceMut;

use super::workdir::{io_error, replace_file};
use crate::{Error, Result};

/// A fixed-size record of a run.
pub(crate) trait Rec: Copy + Ord + Send + Sync {
    /// Encoded size in bytes.
    const SIZE: usize;
    /// Tag in the run header, so a run of one kind is never read as another.
    const KIND: u32;
    /// Writes the `SIZE` bytes of `self` into `out`.
    fn put(&self, out: &mut [u8]);
    /// Reads a record from `SIZE` bytes.
    fn get(bytes: &[u8]) -> Self;
}

const MAGIC: &[u8; 8] = b"TXFPRUN1";
const HEADER: usize = 8 + 4 + 4 + 8;

/// Fewest records a run holds (unless it is the last).
pub(crate) const MIN_RUN: usize = 256;

/// Bytes of read buffer per open run during a merge.
const READ_BUFFER: usize = 64 << 10;

/// Collects records and writes them as sorted runs of at most `capacity`.
pub(crate) struct Spiller<R: Rec> {
    dir: PathBuf,
    prefix: String,
    buf: Vec<R>,
    capacity: usize,
    runs: Vec<PathBuf>,
}

impl<R: Rec> Spiller<R> {
    /// Runs go to `dir/{prefix}-{n}.run`; `capacity` records are held in
    /// memory at most, but at least [`MIN_RUN`]: a tiny budget spread over
    /// many bands would otherwise write thousands of files of a few records.
    pub(crate) fn new(dir: &Path, prefix: &str, capacity: usize) -> Self {
        Self {
            dir: dir.to_path_buf(),
            prefix: prefix.to_string(),
            buf: Vec::new(),
            capacity: capacity.max(MIN_RUN),
            runs: Vec::new(),
        }
    }

    /// Adds a record, spilling a run when the buffer is full.
    pub(crate) fn push(&mut self, r: R) -> Result<()> {
        if self.buf.len() >= self.capacity {
            self.spill()?;
        }
        if self.buf.capacity() == 0 {
            // Grow in steps rather than reserving the whole budget up front:
            // small inputs stay small.
            self.buf.reserve(self.capacity.min(1 << 16));
        }
        self.buf.push(r);
        Ok(())
    }

    /// Sorts, deduplicates and writes the buffer as one run.
    pub(crate) fn spill(&mut self) -> Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        self.buf.par_sort_unstable();
        self.buf.dedup();
        let path = self
            .dir
            .join(format!("{}-{:05}.run", self.prefix, self.runs.len()));
        write_run(&path, &self.buf)?;
        self.runs.push(path);
        self.buf.clear();
        self.buf.shrink_to(1 << 16);
        Ok(())
    }

    /// Spills what is left and returns the runs in the order written.
    pub(crate) fn finish(mut self) -> Result<Vec<PathBuf>> {
        self.spill()?;
        Ok(self.runs)
    }
}

/// Writes `records` (already sorted) as a run at `path`, atomically.
pub(crate) fn write_run<R: Rec>(path: &Path, records: &[R]) -> Result<()> {
    replace_file(path, false, |w| {
        let mut out = BufWriter::with_capacity(1 << 20, w);
        let mut header = [0u8; HEADER];
        header[..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&R::KIND.to_le_bytes());
        header[12..16].copy_from_slice(&(R::SIZE as u32).to_le_bytes());
        header[16..24].copy_from_slice(&(records.len() as u64).to_le_bytes());
        out.write_all(&header)?;
        let mut chunk = vec![0u8; R::SIZE * 4096];
        for group in records.chunks(4096) {
            for (r, slot) in group.iter().zip(chunk.chunks_exact_mut(R::SIZE)) {
                r.put(slot);
            }
            out.write_all(&chunk[..group.len() * R::SIZE])?;
        }
        out.flush()
    })
}

/// One run opened for reading.
pub(crate) struct RunReader<R: Rec> {
    path: PathBuf,
    input: BufReader<File>,
    left: u64,
    buf: Vec<u8>,
    _rec: core::marker::PhantomData<R>,
}

impl<R: Rec> RunReader<R> {
    /// Opens a run, checking its header against the file's length.
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| io_error(path, "cannot open", e))?;
        let len = file
            .metadata()
            .map_err(|e| io_error(path, "cannot stat", e))?
            .len();
        let mut input = BufReader::with_capacity(READ_BUFFER, file);
        let mut header = [0u8; HEADER];
        input
            .read_exact(&mut header)
            .map_err(|e| io_error(path, "cannot read the run header", e))?;
        let kind = u32::from_le_bytes(header[8..12].try_into().unwrap_or_default());
        let size = u32::from_le_bytes(header[12..16].try_into().unwrap_or_default());
        let count = u64::from_le_bytes(header[16..24].try_into().unwrap_or_default());
        let expected = (HEADER as u64).checked_add(count.saturating_mul(R::SIZE as u64));
        if &header[..8] != MAGIC
            || kind != R::KIND
            || size as usize != R::SIZE
            || expected != Some(len)
        {
            return Err(Error::Corrupt(format!(
                "{}: not a complete run of this kind (header or length wrong)",
                path.display()
            )));
        }
        Ok(Self {
            path: path.to_path_buf(),
            input,
            left: count,
            buf: vec![0u8; R::SIZE],
            _rec: core::marker::PhantomData,
        })
    }

    /// The next record, `None` at the end.
    pub(crate) fn next_rec(&mut self) -> Result<Option<R>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.input
            .read_exact(&mut self.buf)
            .map_err(|e| io_error(&self.path, "cannot read", e))?;
        self.left -= 1;
        Ok(Some(R::get(&self.buf)))
    }
}

/// Several sorted runs read as one sorted stream without repeats.
pub(crate) struct Merge<R: Rec> {
    readers: Vec<RunReader<R>>,
    heap: BinaryHeap<Reverse<(R, usize)>>,
    last: Option<R>,
}

impl<R: Rec> Merge<R> {
    /// Opens every run of `paths`.
    pub(crate) fn open(paths: &[PathBuf]) -> Result<Self> {
        let mut readers = Vec::with_capacity(paths.len());
        let mut heap = BinaryHeap::with_capacity(paths.len());
        for p in paths {
            let mut r = RunReader::open(p)?;
            if let Some(first) = r.next_rec()? {
                heap.push(Reverse((first, readers.len())));
            }
            readers.push(r);
        }
        Ok(Self {
            readers,
            heap,
            last: None,
        })
    }

    /// The next distinct record in order, `None` at the end.
    pub(crate) fn next_rec(&mut self) -> Result<Option<R>> {
        while let Some(Reverse((rec, i))) = self.heap.pop() {
            if let Some(next) = self.readers[i].next_rec()? {
                self.heap.push(Reverse((next, i)));
            }
            if self.last != Some(rec) {
                self.last = Some(rec);
                return Ok(Some(rec));
            }
        }
        Ok(None)
    }
}

/// Fails unless `pos` addresses one of `documents` documents: a run whose
/// header and length are right can still hold damaged records, which must
/// be an error rather than an out-of-bounds index.
pub(crate) fn check_position(pos: u32, documents: u64, what: &str) -> Result<()> {
    if u64::from(pos) < documents {
        Ok(())
    } else {
        Err(Error::Corrupt(format!(
            "{what}: position {pos} is past the last of {documents} documents"
        )))
    }
}

/// Reads every record of `paths`, run after run, calling `f` on each
/// (repeats included): for a consumer the order does not matter to, it
/// saves the merge's heap.
pub(crate) fn for_each_unordered<R: Rec>(
    paths: &[PathBuf],
    mut f: impl FnMut(R) -> Result<()>,
) -> Result<()> {
    for p in paths {
        let mut run = RunReader::<R>::open(p)?;
        while let Some(r) = run.next_rec()? {
            f(r)?;
        }
    }
    Ok(())
}

/// Reads every record of `paths` in order, calling `f` on each distinct one.
pub(crate) fn for_each_merged<R: Rec>(
    paths: &[PathBuf],
    mut f: impl FnMut(R) -> Result<()>,
) -> Result<()> {
    let mut merge = Merge::open(paths)?;
    while let Some(r) = merge.next_rec()? {
        f(r)?;
    }
    Ok(())
}
