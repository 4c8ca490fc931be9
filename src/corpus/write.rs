//! Writing the kept records of each shard, in the shard's own format, one
//! output file per input file, each made under a temporary name and renamed
//! when complete.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use super::block::open_lines;
use super::decompress::{Encoder, check_level, compress_frame};
use super::jsonl::LineRec;
use super::{Compression, Corpus, CorpusError, ReadOptions, Shard, Source};

/// How [`Writer`] writes.
///
/// ```
/// use txtfp::corpus::{Compression, WriteOptions};
/// let opts = WriteOptions::default().compression(Some(Compression::Zstd));
/// assert_eq!(opts.get_compression(), Some(Compression::Zstd));
/// ```
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    compression: Option<Compression>,
    level: Option<i32>,
}

impl WriteOptions {
    /// The output compression: `None` (the default) keeps each shard's own
    /// (a JSONL file's by its magic bytes, a Parquet file's codec of its
    /// first column). A chosen one replaces a JSONL file's `.gz` / `.zst`
    /// suffix by its own, and is the codec of every Parquet column. Text
    /// files are always copied as they are.
    pub fn compression(mut self, compression: Option<Compression>) -> Self {
        self.compression = compression;
        self
    }

    /// See [`WriteOptions::compression`].
    pub fn get_compression(&self) -> Option<Compression> {
        self.compression
    }

    /// The compression level of written JSONL files: zstd
    /// `zstd::compression_level_range()` (negative levels are its fast
    /// ones), gzip 0–9. `None` (the default) is zstd level 1 (about 3x as
    /// fast as zstd's own default, 3, for files about 17 % larger on
    /// natural-language JSONL) and gzip level 6. Parquet files keep their
    /// codec's default level.
    pub fn level(mut self, level: Option<i32>) -> Self {
        self.level = level;
        self
    }

    /// See [`WriteOptions::level`].
    pub fn get_level(&self) -> Option<i32> {
        self.level
    }
}

/// What [`Writer::write_shard`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteSummary {
    /// Rows offered to the predicate.
    pub rows_read: u64,
    /// Rows written.
    pub rows_written: u64,
    /// Bytes written to disk (after compression).
    pub bytes_written: u64,
    /// The file written; the output directory for a text shard.
    pub output: PathBuf,
}

/// Writes kept records under an output directory: for each shard, one file
/// at its [`Shard::relative_path`] (a text shard: each kept file at its own
/// relative path).
///
/// * JSONL: the kept lines copied byte for byte (line breaks included,
///   nothing re-serialised), compressed as the input or as chosen.
/// * Parquet: the kept rows of every column, same schema and key-value
///   metadata, row groups of at most about 128 MiB.
/// * Text: the kept files copied byte for byte.
///
/// Each file is written to `.NAME.txtfp-tmp-PID` beside its final name,
/// synced, then renamed: an interrupted run never leaves a partial file
/// under a final name (only a temporary one, removed on any error this
/// process sees). An existing output file is replaced.
#[derive(Debug)]
pub struct Writer {
    out_dir: PathBuf,
    compression: Option<Compression>,
    level: Option<i32>,
    /// zstd frames being compressed on the pool, all shards together.
    frames: AtomicUsize,
}

/// `name` with a compression suffix (`.gz`, `.gzip`, `.zst`, `.zstd`)
/// replaced by `to`'s.
fn recompressed_name(rel: &Path, to: Compression) -> PathBuf {
    let Some(name) = rel.file_name().and_then(|n| n.to_str()) else {
        return rel.to_path_buf();
    };
    let lower = name.to_ascii_lowercase();
    let base_len = [".gz", ".gzip", ".zst", ".zstd"]
        .iter()
        .find(|s| lower.ends_with(*s))
        .map_or(name.len(), |s| name.len() - s.len());
    let new = format!("{}{}", &name[..base_len], to.suffix());
    rel.with_file_name(new)
}

impl Writer {
    /// A writer for `corpus` into `out_dir` (created if missing).
    ///
    /// # Errors
    ///
    /// [`CorpusError::OutputClash`] if two shards (say `a/x.jsonl` and
    /// `b/x.jsonl` given as files) would be written to the same file;
    /// [`CorpusError::Input`] if [`WriteOptions::level`] is out of range for
    /// a JSONL shard's output compression; [`CorpusError::Io`] if the
    /// directory cannot be created.
    pub fn new(
        corpus: &Corpus,
        out_dir: impl Into<PathBuf>,
        opts: &WriteOptions,
    ) -> Result<Writer, CorpusError> {
        let writer = Writer {
            out_dir: out_dir.into(),
            compression: opts.compression,
            level: opts.level,
            frames: AtomicUsize::new(0),
        };
        let mut taken: HashMap<PathBuf, &str> = HashMap::new();
        for shard in corpus.shards() {
            if let (Some(level), Source::Jsonl(_) | Source::Stdin { .. }) =
                (writer.level, &shard.source)
            {
                let c = writer.compression.unwrap_or(shard.compression());
                check_level(c, level).map_err(|e| CorpusError::input(shard.name(), e))?;
            }
            let outputs: Vec<PathBuf> = match &shard.source {
                Source::Folder { files, .. } => files.iter().map(|f| f.rel.clone()).collect(),
                _ => vec![writer.relative_output(shard, shard.compression())],
            };
            for out in outputs {
                if let Some(first) = taken.insert(out.clone(), shard.name()) {
                    return Err(CorpusError::OutputClash {
                        output: writer.out_dir.join(out),
                        first: first.into(),
                        second: shard.name().into(),
                    });
                }
            }
        }
        fs::create_dir_all(&writer.out_dir)
            .map_err(|e| CorpusError::io(writer.out_dir.display(), "create the directory", e))?;
        Ok(writer)
    }

    /// The output directory.
    pub fn out_dir(&self) -> &Path {
        &self.out_dir
    }

    /// The output path of a JSONL or Parquet shard relative to the output
    /// directory, for input compression `actual`.
    fn relative_output(&self, shard: &Shard, actual: Compression) -> PathBuf {
        match (&shard.source, self.compression) {
            (Source::Jsonl(_) | Source::Stdin { .. }, Some(c)) if c != actual => {
                recompressed_name(shard.relative_path(), c)
            }
            _ => shard.relative_path().to_path_buf(),
        }
    }

    /// Where [`Writer::write_shard`] writes `shard` (for stdin, whose
    /// compression is known only once read: as if uncompressed); the output
    /// directory for a text shard.
    pub fn output_path(&self, shard: &Shard) -> PathBuf {
        match shard.source {
            Source::Folder { .. } => self.out_dir.clone(),
            _ => self
                .out_dir
                .join(self.relative_output(shard, shard.compression())),
        }
    }

    /// Reads `shard` again and writes the records whose row `keep` keeps.
    /// `keep` is called once per record in increasing row order (JSONL:
    /// every non-blank line, whether it parses or not, except lines over
    /// [`ReadOptions::max_record_bytes`], which are never written; Parquet:
    /// every row; text: every file). `opts` gives the block size and the
    /// record cap; its columns do not matter. [`keep_rows`] turns a sorted
    /// list of rows into such a predicate.
    ///
    /// # Errors
    ///
    /// Any error reading the shard (as [`Shard::blocks`]), and
    /// [`CorpusError::Io`] naming the output file when it cannot be
    /// created, written (a full disk), synced or renamed; the temporary
    /// file is then removed.
    pub fn write_shard(
        &self,
        shard: &Shard,
        opts: &ReadOptions,
        mut keep: impl FnMut(u64) -> bool,
    ) -> Result<WriteSummary, CorpusError> {
        match &shard.source {
            Source::Jsonl(_) | Source::Stdin { .. } => self.write_jsonl(shard, opts, &mut keep),
            Source::Folder { files, .. } => {
                let mut summary = WriteSummary {
                    rows_read: 0,
                    rows_written: 0,
                    bytes_written: 0,
                    output: self.out_dir.clone(),
                };
                for (row, f) in files.iter().enumerate() {
                    summary.rows_read += 1;
                    if !keep(row as u64) {
                        continue;
                    }
                    let dest = self.out_dir.join(&f.rel);
                    check_not_input(&dest, &f.path)?;
                    let shown = f.path.display().to_string();
                    let mut src =
                        File::open(&f.path).map_err(|e| CorpusError::io(&shown, "open", e))?;
                    let meta = src
                        .metadata()
                        .map_err(|e| CorpusError::io(&shown, "stat", e))?;
                    if !f.unchanged(&meta) {
                        return Err(CorpusError::Changed { file: shown });
                    }
                    let out = AtomicFile::create(dest)?;
                    let mut w = BufWriter::with_capacity(1 << 20, &out.file);
                    io::copy(&mut src, &mut w)
                        .and_then(|_| w.flush())
                        .map_err(|e| out.error("write", e))?;
                    drop(w);
                    summary.bytes_written += out.commit()?;
                    summary.rows_written += 1;
                }
                Ok(summary)
            }
            #[cfg(feature = "parquet")]
            Source::Parquet(entry) => {
                let dest = self
                    .out_dir
                    .join(self.relative_output(shard, Compression::None));
                check_not_input(&dest, &entry.path)?;
                let out = AtomicFile::create(dest)?;
                let (rows_read, rows_written) = super::parquet::write_filtered(
                    entry,
                    shard.name(),
                    &out.file,
                    &out.shown,
                    self.compression,
                    opts.block_bytes,
                    &mut keep,
                )?;
                let output = out.dest.clone();
                let bytes_written = out.commit()?;
                Ok(WriteSummary {
                    rows_read,
                    rows_written,
                    bytes_written,
                    output,
                })
            }
            #[cfg(not(feature = "parquet"))]
            Source::Parquet(_) => Err(CorpusError::parquet(
                shard.name(),
                "this build of txtfp has no `parquet` feature",
            )),
        }
    }

    fn write_jsonl(
        &self,
        shard: &Shard,
        opts: &ReadOptions,
        keep: &mut dyn FnMut(u64) -> bool,
    ) -> Result<WriteSummary, CorpusError> {
        let lines = open_lines(shard, opts.block_bytes, opts.max_record_bytes)?;
        let actual = lines.compression();
        let dest = self.out_dir.join(self.relative_output(shard, actual));
        if let Some(input) = shard.path() {
            check_not_input(&dest, input)?;
        }
        let out = AtomicFile::create(dest)?;
        let buffered = BufWriter::with_capacity(1 << 20, &out.file);
        // Lines go to the encoder in large pieces: zstd fed one line at a
        // time takes its slow external-dictionary path (about 5x the CPU).
        let mut enc = FrameWriter::new(
            Encoder::new(buffered, self.compression.unwrap_or(actual), self.level)
                .map_err(|e| out.error("write", e))?,
            &self.frames,
        );
        let (mut rows_read, mut rows_written) = (0u64, 0u64);
        for block in lines {
            let block = block?;
            for rec in &block.recs {
                rows_read += 1;
                if let LineRec::Line {
                    number,
                    start,
                    next,
                    ..
                } = *rec
                    && keep(number)
                {
                    enc.write_all(&block.buf[start..next])
                        .map_err(|e| out.error("write", e))?;
                    rows_written += 1;
                }
            }
        }
        enc.finish()
            .and_then(|w| w.into_inner().map_err(io::IntoInnerError::into_error))
            .map_err(|e| out.error("write", e))?;
        let output = out.dest.clone();
        let bytes_written = out.commit()?;
        Ok(WriteSummary {
            rows_read,
            rows_written,
            bytes_written,
            output,
        })
    }
}

/// Size of the pieces a [`FrameWriter`] compresses at once.
const FRAME_BYTES: usize = 4 << 20;

/// Feeds an [`Encoder`] in pieces of [`FRAME_BYTES`] (for zstd, one frame
/// each). zstd frames are independent: they are compressed on the rayon
/// pool while this thread reads on, and written in order.
struct FrameWriter<'a, W: Write> {
    inner: Encoder<W>,
    buf: Vec<u8>,
    queue: FrameQueue<'a>,
}

/// Frames being compressed, oldest first.
struct FrameQueue<'a> {
    jobs: std::collections::VecDeque<Arc<FrameJob>>,
    /// Frames queued by every shard of the writer, to bound memory.
    in_flight: &'a AtomicUsize,
}

impl FrameQueue<'_> {
    /// Counts one more frame in flight, unless `limit` are already.
    fn reserve(&self, limit: usize) -> bool {
        if self.in_flight.fetch_add(1, Ordering::Relaxed) < limit {
            true
        } else {
            self.in_flight.fetch_sub(1, Ordering::Relaxed);
            false
        }
    }
}

impl Drop for FrameQueue<'_> {
    fn drop(&mut self) {
        // After an error: frames never written are dropped, and stop
        // counting.
        for job in self.jobs.drain(..) {
            job.cancel();
            self.in_flight.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl<'a, W: Write> FrameWriter<'a, W> {
    fn new(inner: Encoder<W>, in_flight: &'a AtomicUsize) -> Self {
        Self {
            inner,
            buf: Vec::with_capacity(FRAME_BYTES + (64 << 10)),
            queue: FrameQueue {
                jobs: std::collections::VecDeque::new(),
                in_flight,
            },
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= FRAME_BYTES {
            self.emit()?;
        }
        Ok(())
    }

    fn emit(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let Some(level) = self.inner.zstd_level() else {
            self.inner.write_piece(&self.buf)?;
            self.buf.clear();
            return Ok(());
        };
        let threads = rayon::current_num_threads();
        // Two frames per thread in flight keep every thread busy; the
        // writer's shards together hold no more.
        let limit = 2 * threads;
        let piece = std::mem::replace(&mut self.buf, Vec::with_capacity(FRAME_BYTES + (64 << 10)));
        if threads > 1 && self.queue.jobs.len() < limit && self.queue.reserve(limit) {
            let job = Arc::new(FrameJob {
                state: Mutex::new(FrameState::Pending(piece)),
                done: Condvar::new(),
            });
            self.queue.jobs.push_back(Arc::clone(&job));
            rayon::spawn(move || job.run(level));
        } else {
            // Compressed here, after every older frame.
            while !self.queue.jobs.is_empty() {
                self.write_oldest(level)?;
            }
            self.inner.write_frame(&compress_frame(&piece, level)?)?;
        }
        // Frames already done go out now; at the limit, the oldest is
        // waited for (or compressed here).
        while let Some(front) = self.queue.jobs.front() {
            if !front.is_done() && self.queue.jobs.len() < limit {
                break;
            }
            self.write_oldest(level)?;
        }
        Ok(())
    }

    fn write_oldest(&mut self, level: i32) -> io::Result<()> {
        if let Some(job) = self.queue.jobs.pop_front() {
            let frame = job.take(level);
            self.queue.in_flight.fetch_sub(1, Ordering::Relaxed);
            self.inner.write_frame(&frame?)?;
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<W> {
        self.emit()?;
        if let Some(level) = self.inner.zstd_level() {
            while !self.queue.jobs.is_empty() {
                self.write_oldest(level)?;
            }
        }
        self.inner.finish()
    }
}

/// One frame to compress: the pool's task and the writer race for it; a
/// writer that needs it before a thread has started on it compresses it
/// itself, so waiting never depends on an idle thread.
struct FrameJob {
    state: Mutex<FrameState>,
    done: Condvar,
}

enum FrameState {
    Pending(Vec<u8>),
    Running,
    Done(io::Result<Vec<u8>>),
    Taken,
}

impl FrameJob {
    fn lock(&self) -> std::sync::MutexGuard<'_, FrameState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Compresses the piece unless a thread has already started on it.
    fn run(&self, level: i32) {
        let piece = {
            let mut state = self.lock();
            match std::mem::replace(&mut *state, FrameState::Running) {
                FrameState::Pending(p) => p,
                other => {
                    *state = other;
                    return;
                }
            }
        };
        let frame = compress_frame(&piece, level);
        drop(piece);
        *self.lock() = FrameState::Done(frame);
        self.done.notify_all();
    }

    fn is_done(&self) -> bool {
        matches!(*self.lock(), FrameState::Done(_))
    }

    /// The compressed frame: compressed here if no thread has started on
    /// it, else waited for.
    fn take(&self, level: i32) -> io::Result<Vec<u8>> {
        self.run(level);
        let mut state = self.lock();
        while matches!(*state, FrameState::Running) {
            state = self
                .done
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        match std::mem::replace(&mut *state, FrameState::Taken) {
            FrameState::Done(frame) => frame,
            _ => Err(io::Error::other("a zstd frame was taken twice")),
        }
    }

    /// Frees a piece no thread has started on.
    fn cancel(&self) {
        let mut state = self.lock();
        if matches!(*state, FrameState::Pending(_)) {
            *state = FrameState::Taken;
        }
    }
}

/// Refuses to replace a shard's own file with its output.
fn check_not_input(dest: &Path, input: &Path) -> Result<(), CorpusError> {
    if let (Ok(d), Ok(i)) = (fs::canonicalize(dest), fs::canonicalize(input))
        && d == i
    {
        return Err(CorpusError::input(
            dest.display(),
            "is the input file itself; choose another output directory",
        ));
    }
    Ok(())
}

/// A file written under a temporary name in its final directory, renamed
/// by [`AtomicFile::commit`], removed if dropped before.
struct AtomicFile {
    file: File,
    tmp: PathBuf,
    dest: PathBuf,
    shown: String,
    committed: bool,
}

impl AtomicFile {
    fn create(dest: PathBuf) -> Result<AtomicFile, CorpusError> {
        let shown = dest.display().to_string();
        let dir = dest.parent().unwrap_or(Path::new(""));
        if !dir.as_os_str().is_empty() {
            fs::create_dir_all(dir)
                .map_err(|e| CorpusError::io(dir.display(), "create the directory", e))?;
        }
        let name = dest
            .file_name()
            .map_or_else(|| "out".into(), |n| n.to_string_lossy());
        let tmp = dir.join(format!(".{name}.txtfp-tmp-{}", std::process::id()));
        let file = File::create(&tmp).map_err(|e| CorpusError::io(&shown, "create", e))?;
        Ok(AtomicFile {
            file,
            tmp,
            dest,
            shown,
            committed: false,
        })
    }

    fn error(&self, action: &'static str, e: io::Error) -> CorpusError {
        CorpusError::io(&self.shown, action, e)
    }

    /// Syncs and renames to the final name; returns the file's size.
    fn commit(mut self) -> Result<u64, CorpusError> {
        self.file.sync_all().map_err(|e| self.error("write", e))?;
        let size = self
            .file
            .metadata()
            .map_err(|e| self.error("stat", e))?
            .len();
        fs::rename(&self.tmp, &self.dest).map_err(|e| self.error("rename into place", e))?;
        self.committed = true;
        Ok(size)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// A predicate for [`Writer::write_shard`] from rows sorted in increasing
/// order (as [`slice::sort_unstable`] leaves them): it keeps exactly those
/// rows, when called in increasing row order.
///
/// ```
/// let rows = [2, 5, 9];
/// let mut keep = txtfp::corpus::keep_rows(&rows);
/// let kept: Vec<u64> = (0..12).filter(|&r| keep(r)).collect();
/// assert_eq!(kept, rows);
/// ```
pub fn keep_rows(rows: &[u64]) -> impl FnMut(u64) -> bool + '_ {
    let mut next = 0;
    move |row| {
        while next < rows.len() && rows[next] < row {
            next += 1;
        }
        next < rows.len() && rows[next] == row
    }
}
