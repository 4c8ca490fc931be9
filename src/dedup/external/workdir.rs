//! The work directory: stage markers, the run's identity, atomic files.
//!
//! Every file a stage makes is written under a temporary name and renamed
//! when complete, and a stage counts as finished only once its marker
//! exists; the marker is written last. A run killed at any moment therefore
//! leaves finished stages intact and, at worst, stray files of the stage it
//! was in, which that stage removes when it starts again.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// An I/O error that names the file and what was being done; its kind is
/// kept (a full disk stays `StorageFull`).
pub(crate) fn io_error(path: &Path, what: &str, e: io::Error) -> Error {
    Error::Io(io::Error::new(
        e.kind(),
        format!("{}: {what}: {e}", path.display()),
    ))
}

/// Writes a file through `fill` under a temporary name and renames it to
/// `path`. A killed process leaves either the whole file or none; only
/// stage markers are also synced (`durable`), since a run whose files a
/// power loss cut short is found by the runs' length checks on resume.
pub(crate) fn replace_file(
    path: &Path,
    durable: bool,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<()> {
    let tmp = tmp_name(path);
    let result = File::create(&tmp).and_then(|mut f| {
        fill(&mut f)?;
        if durable { f.sync_data() } else { Ok(()) }
    });
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_error(path, "cannot write", e));
    }
    fs::rename(&tmp, path).map_err(|e| io_error(path, "cannot rename into place", e))
}

fn tmp_name(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// The work directory of one run.
pub(crate) struct WorkDir {
    root: PathBuf,
}

/// Name of the file that records what a work directory was made for.
const IDENTITY: &str = "run.identity";

impl WorkDir {
    /// Opens (creating it if needed) the work directory for a run whose
    /// configuration and input are described by `identity`. A directory
    /// that holds a different run is refused rather than mixed with it.
    pub(crate) fn open(root: &Path, identity: &str) -> Result<Self> {
        fs::create_dir_all(root).map_err(|e| io_error(root, "cannot create", e))?;
        let id_path = root.join(IDENTITY);
        match fs::read_to_string(&id_path) {
            Ok(found) if found == identity => {}
            Ok(_) => {
                return Err(Error::InvalidInput(format!(
                    "{}: this work directory holds a run with other settings or other input; \
                     use another work directory, or empty this one to start over",
                    root.display()
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let stray = fs::read_dir(root)
                    .map_err(|e| io_error(root, "cannot list", e))?
                    .next()
                    .is_some();
                if stray {
                    return Err(Error::InvalidInput(format!(
                        "{}: the work directory is not empty and holds no txtfp run; \
                         give an empty or new directory",
                        root.display()
                    )));
                }
                replace_file(&id_path, true, |f| f.write_all(identity.as_bytes()))?;
            }
            Err(e) => return Err(io_error(&id_path, "cannot read", e)),
        }
        Ok(Self {
            root: root.to_path_buf(),
        })
    }

    /// The directory itself.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// A stage's own subdirectory, emptied when `fresh` (the stage is
    /// starting over).
    pub(crate) fn stage_dir(&self, stage: &str, fresh: bool) -> Result<PathBuf> {
        let dir = self.root.join(stage);
        if fresh && dir.exists() {
            fs::remove_dir_all(&dir).map_err(|e| io_error(&dir, "cannot clear", e))?;
        }
        fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "cannot create", e))?;
        Ok(dir)
    }

    /// The contents of a finished stage's marker, `None` if it has not
    /// finished.
    pub(crate) fn marker(&self, stage: &str) -> Result<Option<String>> {
        let path = self.root.join(format!("{stage}.done"));
        match fs::read_to_string(&path) {
            Ok(s) => Ok(Some(s)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error(&path, "cannot read", e)),
        }
    }

    /// Marks a stage finished, recording `summary` (read back on resume).
    pub(crate) fn finish(&self, stage: &str, summary: &str) -> Result<()> {
        let path = self.root.join(format!("{stage}.done"));
        replace_file(&path, true, |f| f.write_all(summary.as_bytes()))
    }

    /// Bytes of all files under the directory.
    pub(crate) fn size(&self) -> u64 {
        dir_size(&self.root)
    }
}

fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| m.len()),
            Err(_) => 0,
        })
        .sum()
}

/// Peak resident memory of this process since the last reset, in bytes
/// (Linux; `None` elsewhere or when /proc is unavailable).
pub(crate) fn peak_rss() -> Option<u64> {
    let status = fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// Starts a new peak-memory window (Linux: writing 5 to clear_refs resets
/// the high-water mark); harmless where unsupported.
pub(crate) fn reset_peak_rss() {
    let _ = fs::write("/proc/self/clear_refs", "5");
}

/// A bit per document position, shareable between threads.
pub(crate) struct Bits {
    words: Vec<core::sync::atomic::AtomicU64>,
}

impl Bits {
    /// `n` clear bits.
    pub(crate) fn new(n: usize) -> Self {
        Self {
            words: (0..n.div_ceil(64))
                .map(|_| core::sync::atomic::AtomicU64::new(0))
                .collect(),
        }
    }

    /// Sets bit `i`.
    pub(crate) fn set(&self, i: u32) {
        self.words[i as usize / 64].fetch_or(1 << (i % 64), core::sync::atomic::Ordering::Relaxed);
    }

    /// Bit `i`.
    pub(crate) fn get(&self, i: u32) -> bool {
        self.words[i as usize / 64].load(core::sync::atomic::Ordering::Relaxed) & (1 << (i % 64))
            != 0
    }

    /// Writes the bits to `path`.
    pub(crate) fn save(&self, path: &Path) -> Result<()> {
        replace_file(path, false, |f| {
            let mut out = io::BufWriter::new(f);
            for w in &self.words {
                out.write_all(&w.load(core::sync::atomic::Ordering::Relaxed).to_le_bytes())?;
            }
            out.flush()
        })
    }

    /// Reads bits saved by [`save`](Self::save) for `n` positions.
    pub(crate) fn load(path: &Path, n: usize) -> Result<Self> {
        let bytes = fs::read(path).map_err(|e| io_error(path, "cannot read", e))?;
        if bytes.len() != n.div_ceil(64) * 8 {
            return Err(Error::Corrupt(format!(
                "{}: {} bytes, expected {}",
                path.display(),
                bytes.len(),
                n.div_ceil(64) * 8
            )));
        }
        Ok(Self {
            words: bytes
                .chunks_exact(8)
                .map(|c| {
                    core::sync::atomic::AtomicU64::new(u64::from_le_bytes(
                        c.try_into().unwrap_or_default(),
                    ))
                })
                .collect(),
        })
    }
}

/// Reads exactly `buf.len()` bytes of `file` at `offset`, without moving a
/// shared cursor (safe from several threads).
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let (mut done, mut buf) = (0u64, buf);
        while !buf.is_empty() {
            match std::os::windows::fs::FileExt::seek_read(file, buf, offset + done) {
                Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                Ok(k) => {
                    done += k as u64;
                    buf = &mut buf[k..];
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}
