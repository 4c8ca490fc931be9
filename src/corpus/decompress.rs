//! Compression by magic bytes, decoders and encoders, and a byte counter
//! for progress.

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Compression;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Buffer between the file and a decoder: large reads, few system calls.
const READ_BUFFER: usize = 256 << 10;

/// The compression a stream starting with `prefix` has.
pub(crate) fn sniff(prefix: &[u8]) -> Compression {
    if prefix.starts_with(&ZSTD_MAGIC) {
        Compression::Zstd
    } else if prefix.starts_with(&GZIP_MAGIC) {
        Compression::Gzip
    } else {
        Compression::None
    }
}

/// Up to 4 bytes from the start of `r` (fewer only at its end).
pub(crate) fn read_prefix(r: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut prefix = Vec::with_capacity(4);
    r.by_ref().take(4).read_to_end(&mut prefix)?;
    Ok(prefix)
}

/// The compression of the file at `path`.
pub(crate) fn sniff_file(path: &Path) -> io::Result<Compression> {
    let mut f = File::open(path)?;
    Ok(sniff(&read_prefix(&mut f)?))
}

/// Counts the bytes read through it into a shared counter (the position
/// in the compressed file, for progress).
pub(crate) struct Counted<R> {
    pub(crate) inner: R,
    pub(crate) count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// A decompressed stream over `raw`, whose compression is sniffed from its
/// first bytes; and that compression.
pub(crate) fn open_decoded(
    mut raw: Box<dyn Read + Send>,
) -> io::Result<(Box<dyn Read + Send>, Compression)> {
    let prefix = read_prefix(&mut raw)?;
    let compression = sniff(&prefix);
    let whole = BufReader::with_capacity(READ_BUFFER, io::Cursor::new(prefix).chain(raw));
    let decoded: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(whole),
        // Multi-member: `cat a.gz b.gz` is one valid gzip file, as gzip reads it.
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(whole)),
        // zstd's default window limit (128 MiB) bounds what a hostile frame
        // header can make it allocate.
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(whole)?),
    };
    Ok((decoded, compression))
}

/// What a decoder's error means, for [`CorpusError::Read`](super::CorpusError::Read).
pub(crate) fn describe_read_error(compression: Compression, e: &io::Error) -> String {
    let what = match compression {
        Compression::None => return format!("cannot read: {e}"),
        Compression::Gzip => "gzip",
        Compression::Zstd => "zstd",
    };
    if e.kind() == io::ErrorKind::UnexpectedEof {
        format!("the {what} stream is truncated: {e}")
    } else {
        format!("the {what} stream is corrupt or unreadable: {e}")
    }
}

/// zstd's default level for written shards: level 1 compresses this kind of
/// text about 3x as fast as zstd's own default (3), for files about 17 %
/// larger; [`WriteOptions::level`](super::WriteOptions::level) chooses another.
pub(crate) const DEFAULT_ZSTD_LEVEL: i32 = 1;

/// gzip's default level for written shards: the tool's own.
pub(crate) const DEFAULT_GZIP_LEVEL: i32 = 6;

/// The levels each codec accepts, for messages.
pub(crate) fn check_level(compression: Compression, level: i32) -> io::Result<()> {
    let (name, range) = match compression {
        Compression::None => return Ok(()),
        Compression::Gzip => ("gzip", 0..=9),
        Compression::Zstd => ("zstd", zstd::compression_level_range()),
    };
    if range.contains(&level) {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{name} level {level} is out of range ({}..={})",
                range.start(),
                range.end()
            ),
        ))
    }
}

/// A compressing writer of the chosen kind, fed in large pieces.
pub(crate) enum Encoder<W: Write> {
    Plain(W),
    Gzip(Box<flate2::write::GzEncoder<W>>),
    /// Each piece becomes one zstd frame (a file of several frames is one
    /// valid zstd stream): zstd's one-shot path on a contiguous piece avoids
    /// the external-dictionary matcher its streaming path runs on small
    /// writes, which took most of the write pass's time. Independent frames
    /// can also be compressed on several threads ([`compress_frame`]).
    Zstd(W, i32),
}

/// One zstd frame of `piece` at `level`.
pub(crate) fn compress_frame(piece: &[u8], level: i32) -> io::Result<Vec<u8>> {
    zstd::bulk::compress(piece, level)
}

impl<W: Write> Encoder<W> {
    /// gzip at `level` (default 6) and zstd at `level` (default 1).
    pub(crate) fn new(w: W, compression: Compression, level: Option<i32>) -> io::Result<Self> {
        Ok(match compression {
            Compression::None => Encoder::Plain(w),
            Compression::Gzip => {
                let level = level.unwrap_or(DEFAULT_GZIP_LEVEL);
                check_level(compression, level)?;
                Encoder::Gzip(Box::new(flate2::write::GzEncoder::new(
                    w,
                    flate2::Compression::new(level as u32),
                )))
            }
            Compression::Zstd => {
                let level = level.unwrap_or(DEFAULT_ZSTD_LEVEL);
                check_level(compression, level)?;
                Encoder::Zstd(w, level)
            }
        })
    }

    /// Writes one piece.
    pub(crate) fn write_piece(&mut self, piece: &[u8]) -> io::Result<()> {
        match self {
            Encoder::Plain(w) => w.write_all(piece),
            Encoder::Gzip(g) => g.write_all(piece),
            Encoder::Zstd(w, level) => w.write_all(&compress_frame(piece, *level)?),
        }
    }

    /// The zstd level, when each piece is a zstd frame of its own.
    pub(crate) fn zstd_level(&self) -> Option<i32> {
        match self {
            Encoder::Zstd(_, level) => Some(*level),
            _ => None,
        }
    }

    /// Writes a frame [`compress_frame`] made (zstd only; other kinds take
    /// pieces).
    pub(crate) fn write_frame(&mut self, frame: &[u8]) -> io::Result<()> {
        match self {
            Encoder::Zstd(w, _) => w.write_all(frame),
            _ => self.write_piece(frame),
        }
    }

    /// Writes the stream's end and hands back the inner writer.
    pub(crate) fn finish(self) -> io::Result<W> {
        match self {
            Encoder::Plain(w) | Encoder::Zstd(w, _) => Ok(w),
            Encoder::Gzip(g) => g.finish(),
        }
    }
}
