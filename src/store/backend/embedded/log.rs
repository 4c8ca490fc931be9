//! The document log: the embedded store's durable record, one append-only
//! file of checksummed frames.
//!
//! A frame is `magic (4) | payload length (4) | CRC-32 of the payload (4) |
//! payload`, all little-endian. One frame holds everything one commit
//! wrote, and a commit is durable once its frame is synced, so a process
//! killed at any moment leaves whole frames followed at worst by part of
//! one. Opening the log replays every frame after a given offset; a torn
//! last frame is cut off and reported. Torn means what an interrupted
//! append leaves: part of a header, or a whole one whose frame reaches the
//! end of the file (short, or failing its checksum). Any other damage (a
//! frame that valid frames follow, a header that is not one with bytes
//! after it, damage before what the store knows was committed) is an error
//! naming the file and the offset, since cutting there would lose committed
//! data silently.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

const MAGIC: u32 = u32::from_le_bytes(*b"TXFL");
/// Bytes before a frame's payload.
pub(crate) const HEADER: u64 = 12;
/// Largest payload a frame may claim: a bound on what a damaged length can
/// make the reader allocate.
pub(crate) const MAX_FRAME: u32 = 1 << 30;

/// What opening found at the end of the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Torn {
    /// Where the last whole frame ends (the log now ends here).
    pub at: u64,
    /// Bytes cut off after it.
    pub dropped: u64,
}

/// The log, open for appending.
pub(crate) struct Log {
    path: PathBuf,
    file: File,
    end: u64,
}

fn io(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::Io(std::io::Error::new(
        e.kind(),
        format!("{}: {what}: {e}", path.display()),
    ))
}

/// A frame header read from `bytes` (at least [`HEADER`] long): the payload
/// length and checksum, if the magic is right and the length allowed.
fn header(bytes: &[u8]) -> Option<(u32, u32)> {
    let word = |i: usize| -> Option<u32> {
        Some(u32::from_le_bytes(bytes.get(i..i + 4)?.try_into().ok()?))
    };
    let (magic, len, crc) = (word(0)?, word(4)?, word(8)?);
    (magic == MAGIC && len <= MAX_FRAME).then_some((len, crc))
}

impl Log {
    /// Opens (creating it if missing) the log at `path` and calls `each`
    /// with the file offset and bytes of every frame's payload from offset
    /// `from` (a frame boundary a checkpoint recorded) to the end. A torn
    /// tail is cut off and returned; the log is known to hold whole frames
    /// up to `committed` at least, so no cut goes below it.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming the file and offset for damage that is not
    /// a torn tail (see the module docs), or a `from` or `committed` past
    /// the end; [`Error::Io`] naming the file; `each`'s error.
    pub(crate) fn open(
        path: &Path,
        from: u64,
        committed: u64,
        each: &mut dyn FnMut(u64, &[u8]) -> Result<()>,
    ) -> Result<(Self, Option<Torn>)> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| io(path, "cannot open", e))?;
        let len = file
            .metadata()
            .map_err(|e| io(path, "cannot read the size", e))?
            .len();
        if from.max(committed) > len {
            return Err(Error::Corrupt(format!(
                "{}: the store's checkpoint covers {} bytes of the log, but it holds only {len}",
                path.display(),
                from.max(committed)
            )));
        }
        let mut input = BufReader::with_capacity(1 << 20, &file);
        input
            .seek(SeekFrom::Start(from))
            .map_err(|e| io(path, "cannot seek", e))?;
        let bad_at = scan(&mut input, from, len, each).map_err(|e| match e {
            Scan::Read(e) => io(path, "cannot read", e),
            Scan::Each(e) => e,
        })?;
        drop(input);
        let mut torn = None;
        if let Some(bad) = bad_at {
            let why = if let Some(next) = next_valid_frame(&file, bad + 1, len) {
                Some(format!("a valid frame follows at byte {next}"))
            } else if bad < committed {
                Some(format!("the store's checkpoint covers {committed} bytes"))
            } else if !torn_tail(&file, bad, len) {
                Some("not the tail an interrupted commit leaves".to_owned())
            } else {
                None
            };
            if let Some(why) = why {
                return Err(Error::Corrupt(format!(
                    "{}: damaged frame at byte {bad} ({why}); the log cannot be replayed past it",
                    path.display()
                )));
            }
            file.set_len(bad)
                .and_then(|()| file.sync_all())
                .map_err(|e| io(path, "cannot cut off the torn tail", e))?;
            torn = Some(Torn {
                at: bad,
                dropped: len - bad,
            });
        }
        Ok((
            Self {
                path: path.to_path_buf(),
                file,
                end: bad_at.unwrap_or(len),
            },
            torn,
        ))
    }

    /// Where the next frame goes.
    pub(crate) fn end(&self) -> u64 {
        self.end
    }

    /// Appends one frame and syncs it: when this returns the frame is
    /// durable. Returns the file offset of the payload. On failure the log
    /// is cut back to where it was, so no partial frame stays.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`] for a payload over [`MAX_FRAME`];
    /// [`Error::Io`] naming the file (a full disk keeps its kind).
    pub(crate) fn commit(&mut self, payload: &[u8]) -> Result<u64> {
        let n = u32::try_from(payload.len())
            .ok()
            .filter(|&n| n <= MAX_FRAME)
            .ok_or_else(|| {
                Error::InvalidInput(format!(
                    "{}: a commit of {} bytes is over the frame limit of {MAX_FRAME}",
                    self.path.display(),
                    payload.len()
                ))
            })?;
        let mut frame = Vec::with_capacity(payload.len() + HEADER as usize);
        frame.extend_from_slice(&MAGIC.to_le_bytes());
        frame.extend_from_slice(&n.to_le_bytes());
        frame.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
        frame.extend_from_slice(payload);
        let written = (&self.file)
            .write_all(&frame)
            .and_then(|()| self.file.sync_data());
        if let Err(e) = written {
            // Leave the log as it was: a partial frame would be cut off on
            // the next open anyway, but a later commit must not land after it.
            let _ = self.file.set_len(self.end);
            return Err(io(&self.path, "cannot append to the log", e));
        }
        let at = self.end + HEADER;
        self.end += frame.len() as u64;
        Ok(at)
    }

    /// Reads `buf.len()` bytes at `offset` (inside a committed frame).
    #[cfg(test)]
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when the range is past the end; [`Error::Io`].
    pub(crate) fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        if offset.saturating_add(buf.len() as u64) > self.end {
            return Err(Error::Corrupt(format!(
                "{}: a record at byte {offset} runs past the end of the log",
                self.path.display()
            )));
        }
        FileExt::read_exact_at(&self.file, buf, offset)
            .map_err(|e| io(&self.path, "cannot read", e))
    }
}

/// Why [`scan`] stopped short.
pub(crate) enum Scan {
    /// The source could not be read.
    Read(std::io::Error),
    /// The callback refused a frame.
    Each(Error),
}

/// Reads frames from `input` (positioned at offset `from` of a source of
/// `len` bytes) and calls `each` with every payload's offset and bytes.
/// Returns where the first frame that is short, malformed or fails its
/// checksum starts, or `None` when every byte up to `len` is whole frames.
pub(crate) fn scan(
    input: &mut impl Read,
    from: u64,
    len: u64,
    each: &mut dyn FnMut(u64, &[u8]) -> Result<()>,
) -> core::result::Result<Option<u64>, Scan> {
    let mut at = from;
    let mut payload = Vec::new();
    loop {
        if at >= len {
            return Ok(None);
        }
        if len - at < HEADER {
            return Ok(Some(at));
        }
        let mut head = [0u8; HEADER as usize];
        input.read_exact(&mut head).map_err(Scan::Read)?;
        let Some((n, crc)) = header(&head) else {
            return Ok(Some(at));
        };
        if u64::from(n) > len - at - HEADER {
            return Ok(Some(at));
        }
        payload.resize(n as usize, 0);
        input.read_exact(&mut payload).map_err(Scan::Read)?;
        if crc32fast::hash(&payload) != crc {
            return Ok(Some(at));
        }
        each(at + HEADER, &payload).map_err(Scan::Each)?;
        at += HEADER + u64::from(n);
    }
}

/// Positional reads: the log file, or a log's bytes in memory.
pub(crate) trait ReadAt {
    /// Fills `buf` from offset `at`.
    ///
    /// # Errors
    ///
    /// When fewer than `buf.len()` bytes are there, or the read fails.
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()>;
}

impl ReadAt for File {
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
        FileExt::read_exact_at(self, buf, at)
    }
}

impl ReadAt for [u8] {
    fn read_exact_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<()> {
        let src = usize::try_from(at)
            .ok()
            .and_then(|a| self.get(a..a.checked_add(buf.len())?))
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

/// The offset of the first valid frame at or after `from`, if any: the
/// test that tells a torn tail (nothing valid after the damage) from a
/// damaged middle.
pub(crate) fn next_valid_frame(file: &(impl ReadAt + ?Sized), from: u64, len: u64) -> Option<u64> {
    let mut buf = vec![0u8; 1 << 20];
    let mut base = from;
    while base + HEADER <= len {
        let n = usize::try_from((len - base).min(buf.len() as u64)).ok()?;
        file.read_exact_at(&mut buf[..n], base).ok()?;
        let magic = MAGIC.to_le_bytes();
        for i in memchr_all(&buf[..n], magic[0]) {
            let at = base + i as u64;
            if at + HEADER > len {
                break;
            }
            let mut head = [0u8; HEADER as usize];
            if file.read_exact_at(&mut head, at).is_err() {
                continue;
            }
            let Some((size, crc)) = header(&head) else {
                continue;
            };
            if u64::from(size) > len - at - HEADER {
                continue;
            }
            let mut payload = vec![0u8; size as usize];
            if file.read_exact_at(&mut payload, at + HEADER).is_ok()
                && crc32fast::hash(&payload) == crc
            {
                return Some(at);
            }
        }
        if n < buf.len() {
            break;
        }
        // Overlap by a header so a frame straddling the boundary is seen.
        base += (n as u64).saturating_sub(HEADER).max(1);
    }
    None
}

/// Whether the bytes of `file` from `bad` to `len` (where replay stopped)
/// are what an append cut short leaves of the last frame: a prefix of a
/// header, or a header whose frame reaches the end of the file. Anything
/// else is damage to frames that were whole.
pub(crate) fn torn_tail(file: &(impl ReadAt + ?Sized), bad: u64, len: u64) -> bool {
    let mut head = [0u8; HEADER as usize];
    let n = usize::try_from((len - bad).min(HEADER)).unwrap_or(0);
    if file.read_exact_at(&mut head[..n], bad).is_err() {
        return false;
    }
    if n < HEADER as usize {
        let m = n.min(4);
        return head[..m] == MAGIC.to_le_bytes()[..m];
    }
    header(&head).is_some_and(|(size, _)| bad + HEADER + u64::from(size) >= len)
}

/// Positions of `byte` in `hay`.
fn memchr_all(hay: &[u8], byte: u8) -> impl Iterator<Item = usize> + '_ {
    hay.iter()
        .enumerate()
        .filter(move |(_, b)| **b == byte)
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("txtfp-log-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("store.log")
    }

    type Frames = Vec<(u64, Vec<u8>)>;

    fn replay(path: &Path, from: u64) -> Result<(Frames, Option<Torn>)> {
        let mut got = Vec::new();
        let (_, torn) = Log::open(path, from, 0, &mut |at, p| {
            got.push((at, p.to_vec()));
            Ok(())
        })?;
        Ok((got, torn))
    }

    #[test]
    fn frames_replay_in_order_and_read_back() {
        let path = temp("order");
        let (mut log, torn) = Log::open(&path, 0, 0, &mut |_, _| Ok(())).unwrap();
        assert_eq!(torn, None);
        let payloads: Vec<Vec<u8>> = (0..50u8).map(|i| vec![i; usize::from(i) * 7]).collect();
        let mut offsets = Vec::new();
        for p in &payloads {
            offsets.push(log.commit(p).unwrap());
        }
        let mut buf = vec![0u8; 49 * 7];
        log.read_at(offsets[49], &mut buf).unwrap();
        assert_eq!(buf, payloads[49]);
        assert!(log.read_at(log.end() - 2, &mut [0u8; 4]).is_err());
        drop(log);
        let (got, torn) = replay(&path, 0).unwrap();
        assert_eq!(torn, None);
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), offsets);
        assert_eq!(got.into_iter().map(|g| g.1).collect::<Vec<_>>(), payloads);
        // From a frame boundary: only what follows.
        let (later, _) = replay(&path, offsets[40] - HEADER).unwrap();
        assert_eq!(later.len(), 10);
    }

    #[test]
    fn a_torn_tail_is_cut_off_at_every_length() {
        let path = temp("torn");
        let (mut log, _) = Log::open(&path, 0, 0, &mut |_, _| Ok(())).unwrap();
        log.commit(b"first frame").unwrap();
        let whole = log.end();
        log.commit(&[7u8; 300]).unwrap();
        let full = std::fs::read(&path).unwrap();
        drop(log);
        for cut in whole + 1..full.len() as u64 {
            std::fs::write(&path, &full[..cut as usize]).unwrap();
            let (got, torn) = replay(&path, 0).unwrap();
            assert_eq!(got.len(), 1, "cut at {cut}");
            assert_eq!(
                torn,
                Some(Torn {
                    at: whole,
                    dropped: cut - whole
                })
            );
            assert_eq!(std::fs::metadata(&path).unwrap().len(), whole);
        }
        // A flipped byte in the last frame is a torn tail too.
        let mut bad = full.clone();
        *bad.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bad).unwrap();
        let (got, torn) = replay(&path, 0).unwrap();
        assert_eq!((got.len(), torn.map(|t| t.at)), (1, Some(whole)));
        // And the log appends after the cut.
        let (mut log, _) = Log::open(&path, 0, 0, &mut |_, _| Ok(())).unwrap();
        log.commit(b"after").unwrap();
        drop(log);
        assert_eq!(replay(&path, 0).unwrap().0.len(), 2);
    }

    #[test]
    fn damage_before_valid_frames_is_an_error_naming_file_and_offset() {
        let path = temp("middle");
        let (mut log, _) = Log::open(&path, 0, 0, &mut |_, _| Ok(())).unwrap();
        for i in 0..5u8 {
            log.commit(&[i; 100]).unwrap();
        }
        drop(log);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER as usize + 112 + 50] ^= 0x40; // inside the second payload
        std::fs::write(&path, &bytes).unwrap();
        let e = replay(&path, 0).unwrap_err().to_string();
        assert!(e.contains("store.log") && e.contains("byte 112"), "{e}");
        // Nothing was cut.
        assert_eq!(std::fs::metadata(&path).unwrap().len(), bytes.len() as u64);
    }

    #[test]
    fn a_checkpoint_past_the_end_is_refused() {
        let path = temp("past");
        drop(Log::open(&path, 0, 0, &mut |_, _| Ok(())).unwrap());
        assert!(replay(&path, 10).is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Any damage: no panic, and every frame replayed is one that was
        /// written, in order, from the start.
        #[test]
        fn damaged_logs_never_panic(
            sizes in proptest::collection::vec(0usize..200, 1..8),
            flips in proptest::collection::vec((0usize..2000, 0u8..=255), 0..4),
            cut in 0usize..2000,
        ) {
            let path = temp(&format!("prop-{}", sizes.len()));
            let (mut log, _) = Log::open(&path, 0, 0, &mut |_, _| Ok(())).unwrap();
            let payloads: Vec<Vec<u8>> =
                sizes.iter().enumerate().map(|(i, &n)| vec![i as u8; n]).collect();
            for p in &payloads {
                log.commit(p).unwrap();
            }
            drop(log);
            let mut bytes = std::fs::read(&path).unwrap();
            for (at, x) in flips {
                if let Some(b) = bytes.get_mut(at) {
                    *b ^= x;
                }
            }
            bytes.truncate(cut.max(1).min(bytes.len()));
            std::fs::write(&path, &bytes).unwrap();
            if let Ok((got, _)) = replay(&path, 0) {
                for (i, (_, p)) in got.iter().enumerate() {
                    proptest::prop_assert_eq!(p, &payloads[i]);
                }
            }
        }
    }
}
