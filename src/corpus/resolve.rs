//! Inputs → shards: paths, directories, glob patterns, `@list` files and
//! stdin, in a reproducible order.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fmt;
use std::fs::{self, FileType, Metadata};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::SystemTime;

use super::{Compression, CorpusError, Format, Shard, Source, decompress};

/// How [`Corpus::resolve`](super::Corpus::resolve) classifies files.
///
/// ```
/// use txtfp::corpus::{Format, ResolveOptions};
/// let opts = ResolveOptions::default().format(Some(Format::Text));
/// assert_eq!(opts.get_format(), Some(Format::Text));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ResolveOptions {
    format: Option<Format>,
}

impl ResolveOptions {
    /// Every file is read as this format (`None`, the default: by name).
    /// [`Format::Text`] makes every file a text document, including
    /// `*.jsonl` and `*.parquet` ones.
    pub fn format(mut self, format: Option<Format>) -> Self {
        self.format = format;
        self
    }

    /// See [`ResolveOptions::format`].
    pub fn get_format(&self) -> Option<Format> {
        self.format
    }
}

/// Something resolution did not read, or read once though it was reached
/// twice, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// The entry.
    pub path: PathBuf,
    /// Why (e.g. `a symbolic link, not followed`).
    pub reason: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

/// One file of a shard, as found at resolution.
#[derive(Clone, Debug)]
pub(crate) struct FileEntry {
    /// The path to open.
    pub(crate) path: PathBuf,
    /// The path relative to the input directory or glob prefix, else the
    /// file name.
    pub(crate) rel: PathBuf,
    pub(crate) size: u64,
    pub(crate) mtime: Option<SystemTime>,
}

impl FileEntry {
    fn new(path: PathBuf, rel: PathBuf, meta: &Metadata) -> Self {
        FileEntry {
            path,
            rel,
            size: meta.len(),
            mtime: meta.modified().ok(),
        }
    }

    /// Whether `meta` (taken now) still describes the file resolved.
    pub(crate) fn unchanged(&self, meta: &Metadata) -> bool {
        meta.len() == self.size && meta.modified().ok() == self.mtime
    }
}

/// A resolved input before shard numbering.
enum Item {
    File {
        entry: FileEntry,
        format: Format,
        compression: Compression,
    },
    Stdin,
    Folder {
        root: PathBuf,
        files: Vec<FileEntry>,
    },
}

#[cfg(unix)]
type FileId = (u64, u64);
#[cfg(not(unix))]
type FileId = PathBuf;

#[cfg(unix)]
fn file_id(_path: &Path, meta: &Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(path: &Path, _meta: &Metadata) -> Option<FileId> {
    fs::canonicalize(path).ok()
}

struct Resolver {
    format: Option<Format>,
    items: Vec<Item>,
    warnings: Vec<Warning>,
    seen: HashMap<FileId, PathBuf>,
    stdin: bool,
}

pub(crate) fn resolve<I, S>(
    inputs: I,
    opts: &ResolveOptions,
) -> Result<(Vec<Shard>, Vec<Warning>), CorpusError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut r = Resolver {
        format: opts.format,
        items: Vec::new(),
        warnings: Vec::new(),
        seen: HashMap::new(),
        stdin: false,
    };
    let mut names = Vec::new();
    for input in inputs {
        let input = input.as_ref();
        names.push(input.to_string_lossy().into_owned());
        if input == "-" {
            r.stdin()?;
        } else if let Some(list) = strip_at(input) {
            r.list(&list)?;
        } else {
            r.one(input)?;
        }
    }
    let shards = r.shards()?;
    if shards.is_empty() {
        return Err(CorpusError::Empty {
            inputs: names.join(" "),
            left_out: r.warnings,
        });
    }
    Ok((shards, r.warnings))
}

/// The path after a leading `@`, if any.
fn strip_at(input: &OsStr) -> Option<PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        input
            .as_bytes()
            .strip_prefix(b"@")
            .map(|b| PathBuf::from(OsStr::from_bytes(b)))
    }
    #[cfg(not(unix))]
    {
        input.to_str()?.strip_prefix('@').map(PathBuf::from)
    }
}

/// A line of an `@list` file as a path.
fn line_path(line: &[u8]) -> Option<PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Some(PathBuf::from(OsStr::from_bytes(line)))
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(line).ok().map(PathBuf::from)
    }
}

/// Whether `s` has a glob metacharacter.
fn looks_like_glob(s: &OsStr) -> bool {
    s.as_encoded_bytes()
        .iter()
        .any(|b| matches!(b, b'*' | b'?' | b'['))
}

/// `*.parquet`, any case.
fn is_parquet_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// `*.jsonl`, `*.json`, `*.ndjson`, each possibly with `.gz`, `.gzip`,
/// `.zst` or `.zstd` after it, any case.
fn is_jsonl_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(OsStr::to_str) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    let base = [".gz", ".gzip", ".zst", ".zstd"]
        .iter()
        .find_map(|c| name.strip_suffix(c))
        .unwrap_or(&name);
    [".jsonl", ".json", ".ndjson"]
        .iter()
        .any(|e| base.ends_with(e) && base.len() > e.len())
}

/// Why a directory entry that is neither a file nor a directory is not
/// read.
fn describe_special(path: &Path, ft: FileType) -> String {
    if ft.is_symlink() {
        return match fs::read_link(path) {
            Ok(to) => format!(
                "a symbolic link (to {}), not followed inside a directory",
                to.display()
            ),
            Err(_) => "a symbolic link, not followed inside a directory".into(),
        };
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let what = if ft.is_fifo() {
            "a FIFO (named pipe)"
        } else if ft.is_socket() {
            "a socket"
        } else if ft.is_block_device() {
            "a block device"
        } else if ft.is_char_device() {
            "a character device"
        } else {
            "not a regular file"
        };
        format!("{what}, not read")
    }
    #[cfg(not(unix))]
    {
        "not a regular file, not read".into()
    }
}

/// A walked file, before classification.
struct Found {
    path: PathBuf,
    meta: Metadata,
}

impl Resolver {
    fn warn(&mut self, path: impl Into<PathBuf>, reason: impl Into<String>) {
        self.warnings.push(Warning {
            path: path.into(),
            reason: reason.into(),
        });
    }

    fn stdin(&mut self) -> Result<(), CorpusError> {
        if self.stdin {
            return Err(CorpusError::input("-", "standard input given twice"));
        }
        if matches!(self.format, Some(Format::Parquet | Format::Text)) {
            return Err(CorpusError::input(
                "-",
                "standard input is read as JSONL only (Parquet needs a file)",
            ));
        }
        self.stdin = true;
        self.items.push(Item::Stdin);
        Ok(())
    }

    /// Every input listed in the file `list`.
    fn list(&mut self, list: &Path) -> Result<(), CorpusError> {
        let shown = format!("@{}", list.display());
        let text =
            fs::read(list).map_err(|e| CorpusError::input(&shown, format!("cannot read: {e}")))?;
        for (n, line) in text.split(|&b| b == b'\n').enumerate() {
            let line = line.trim_ascii();
            if line.is_empty() || line.starts_with(b"#") {
                continue;
            }
            let at = format!("{shown}:{}", n + 1);
            let path = line_path(line).ok_or_else(|| CorpusError::input(&at, "not UTF-8"))?;
            let done = if path.as_os_str() == "-" {
                self.stdin()
            } else {
                self.one(path.as_os_str())
            };
            done.map_err(|e| match e {
                CorpusError::Input { input, reason } => {
                    CorpusError::input(format!("{at}: {input}"), reason)
                }
                other => other,
            })?;
        }
        Ok(())
    }

    /// A path, a directory or a glob pattern.
    fn one(&mut self, input: &OsStr) -> Result<(), CorpusError> {
        let path = Path::new(input);
        let shown = path.display();
        match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => self.dir(path),
            Ok(meta) if meta.is_file() => self.explicit_file(path, &meta),
            Ok(meta) => Err(CorpusError::input(
                shown,
                format!(
                    "{}; to read a pipe, give - and send it to standard input",
                    describe_special(path, meta.file_type())
                ),
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && looks_like_glob(input) => {
                match input.to_str() {
                    Some(pattern) => self.glob(pattern),
                    None => Err(CorpusError::input(shown, "a glob pattern must be UTF-8")),
                }
            }
            Err(e) => Err(CorpusError::input(shown, e)),
        }
    }

    /// Whether the file is new; warns if it was reached before.
    fn first_time(&mut self, path: &Path, meta: &Metadata) -> bool {
        let Some(id) = file_id(path, meta) else {
            return true;
        };
        if let Some(before) = self.seen.get(&id) {
            let reason = format!("the same file as {}, read once", before.display());
            self.warn(path, reason);
            return false;
        }
        self.seen.insert(id, path.to_path_buf());
        true
    }

    /// A file named on the command line: Parquet by name, else JSONL.
    fn explicit_file(&mut self, path: &Path, meta: &Metadata) -> Result<(), CorpusError> {
        if !self.first_time(path, meta) {
            return Ok(());
        }
        let format = self.format.unwrap_or(if is_parquet_name(path) {
            Format::Parquet
        } else {
            Format::Jsonl
        });
        let rel = path
            .file_name()
            .map_or_else(|| path.to_path_buf(), PathBuf::from);
        let entry = FileEntry::new(path.to_path_buf(), rel, meta);
        match format {
            Format::Text => self.items.push(Item::Folder {
                root: path.parent().unwrap_or(Path::new("")).to_path_buf(),
                files: vec![entry],
            }),
            _ => {
                let compression = self.check_file(&entry.path, format)?;
                self.items.push(Item::File {
                    entry,
                    format,
                    compression,
                });
            }
        }
        Ok(())
    }

    /// A JSONL file's compression (it must open); refuses Parquet without
    /// the feature.
    fn check_file(&self, path: &Path, format: Format) -> Result<Compression, CorpusError> {
        match format {
            Format::Jsonl => decompress::sniff_file(path)
                .map_err(|e| CorpusError::input(path.display(), format!("cannot read: {e}"))),
            Format::Parquet if cfg!(feature = "parquet") => Ok(Compression::None),
            Format::Parquet => Err(CorpusError::input(
                path.display(),
                "a Parquet file, and this build of txtfp has no `parquet` feature",
            )),
            Format::Text => Ok(Compression::None),
        }
    }

    /// Every file under `root`, recursively.
    fn dir(&mut self, root: &Path) -> Result<(), CorpusError> {
        let mut found = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let entries = match fs::read_dir(&dir) {
                Ok(e) => e,
                Err(e) if dir == root => {
                    return Err(CorpusError::input(
                        root.display(),
                        format!("cannot read the directory: {e}"),
                    ));
                }
                Err(e) => {
                    self.warn(dir, format!("cannot read the directory: {e}; not read"));
                    continue;
                }
            };
            for entry in entries {
                let entry = match entry {
                    Ok(e) => e,
                    Err(e) => {
                        self.warn(&dir, format!("cannot read an entry: {e}; not read"));
                        continue;
                    }
                };
                let path = entry.path();
                match entry.file_type() {
                    Ok(ft) if ft.is_dir() => stack.push(path),
                    Ok(ft) if ft.is_file() => match entry.metadata() {
                        Ok(meta) => found.push(Found { path, meta }),
                        Err(e) => self.warn(path, format!("cannot stat: {e}; not read")),
                    },
                    Ok(ft) => {
                        let reason = describe_special(&path, ft);
                        self.warn(path, reason);
                    }
                    Err(e) => self.warn(path, format!("cannot stat: {e}; not read")),
                }
            }
        }
        self.add_walked(root, found)
    }

    /// Files found under `base` (a directory or a glob's fixed prefix), in
    /// path order: JSONL and Parquet files are shards, the others form one
    /// text shard placed where its first file is.
    fn add_walked(&mut self, base: &Path, mut found: Vec<Found>) -> Result<(), CorpusError> {
        found.sort_by(|a, b| a.path.cmp(&b.path));
        let mut folder: Option<usize> = None;
        for Found { path, meta } in found {
            if !self.first_time(&path, &meta) {
                continue;
            }
            let format = self.format.unwrap_or(if is_parquet_name(&path) {
                Format::Parquet
            } else if is_jsonl_name(&path) {
                Format::Jsonl
            } else {
                Format::Text
            });
            let rel = path.strip_prefix(base).unwrap_or(&path).to_path_buf();
            let entry = FileEntry::new(path, rel, &meta);
            if format == Format::Text {
                match folder.and_then(|i| self.items.get_mut(i)) {
                    Some(Item::Folder { files, .. }) => files.push(entry),
                    _ => {
                        folder = Some(self.items.len());
                        self.items.push(Item::Folder {
                            root: base.to_path_buf(),
                            files: vec![entry],
                        });
                    }
                }
                continue;
            }
            match self.check_file(&entry.path, format) {
                Ok(compression) => self.items.push(Item::File {
                    entry,
                    format,
                    compression,
                }),
                // A Parquet file without the feature is data that would be
                // silently lost: an error, not a warning.
                Err(e) if format == Format::Parquet => return Err(e),
                Err(CorpusError::Input { reason, .. }) => {
                    self.warn(entry.path, format!("{reason}; not read"));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The files matching `pattern`, walked from its fixed prefix.
    fn glob(&mut self, pattern: &str) -> Result<(), CorpusError> {
        let full = glob::Pattern::new(pattern)
            .map_err(|e| CorpusError::input(pattern, format!("bad glob pattern: {e}")))?;
        let comps: Vec<&str> = pattern.split('/').collect();
        let fixed = comps
            .iter()
            .take_while(|c| !looks_like_glob(OsStr::new(c)))
            .count();
        let base = if fixed == 0 {
            PathBuf::new()
        } else if comps[..fixed] == [""] {
            PathBuf::from("/")
        } else {
            PathBuf::from(comps[..fixed].join("/"))
        };
        // One pattern per remaining component, to prune directories that
        // cannot lead to a match; `None` from a `**` on: anything below.
        let mut steps: Vec<Option<glob::Pattern>> = Vec::new();
        for c in &comps[fixed..] {
            if c.contains("**") {
                break;
            }
            steps.push(glob::Pattern::new(c).ok());
        }
        let rest = comps.len() - fixed;
        let recursive = steps.len() < rest;
        let opts = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: true,
        };
        // May `dir`, at `depth` components below the base, hold a match?
        let descend = |name: &OsStr, depth: usize| -> bool {
            if depth >= steps.len() {
                return recursive;
            }
            if depth + 1 >= rest {
                return false;
            }
            match (&steps[depth], name.to_str()) {
                (Some(p), Some(n)) => p.matches_with(n, opts),
                (None, _) => true,
                (Some(_), None) => false,
            }
        };
        let mut found = Vec::new();
        let mut stack = vec![(base.clone(), 0usize)];
        while let Some((dir, depth)) = stack.pop() {
            let read_at = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir.as_path()
            };
            let entries = match fs::read_dir(read_at) {
                Ok(e) => e,
                Err(e) => {
                    self.warn(read_at, format!("cannot read the directory: {e}; not read"));
                    continue;
                }
            };
            for entry in entries {
                let entry = match entry {
                    Ok(e) => e,
                    Err(e) => {
                        self.warn(&dir, format!("cannot read an entry: {e}; not read"));
                        continue;
                    }
                };
                let name = entry.file_name();
                let path = dir.join(&name);
                let matched = full.matches_path_with(&path, opts);
                let ft = match entry.file_type() {
                    Ok(ft) => ft,
                    Err(e) => {
                        if matched {
                            self.warn(path, format!("cannot stat: {e}; not read"));
                        }
                        continue;
                    }
                };
                if ft.is_dir() {
                    if descend(&name, depth) {
                        stack.push((path, depth + 1));
                    }
                } else if ft.is_file() {
                    if matched {
                        match entry.metadata() {
                            Ok(meta) => found.push(Found { path, meta }),
                            Err(e) => self.warn(path, format!("cannot stat: {e}; not read")),
                        }
                    }
                } else if ft.is_symlink() {
                    match fs::metadata(&path) {
                        // As a shell would: a matching link to a file is
                        // the file.
                        Ok(meta) if meta.is_file() && matched => found.push(Found { path, meta }),
                        Ok(meta) if meta.is_dir() && (matched || descend(&name, depth)) => {
                            self.warn(
                                path,
                                "a symbolic link to a directory, not followed by a glob pattern",
                            );
                        }
                        Ok(_) => {}
                        Err(e) if matched => {
                            self.warn(path, format!("a broken symbolic link ({e}), not read"));
                        }
                        Err(_) => {}
                    }
                } else if matched {
                    let reason = describe_special(&path, ft);
                    self.warn(path, reason);
                }
            }
        }
        if found.is_empty() {
            self.warn(pattern, "the glob pattern matched no file");
        }
        self.add_walked(&base, found)
    }

    /// Numbers the items.
    fn shards(&mut self) -> Result<Vec<Shard>, CorpusError> {
        let items = std::mem::take(&mut self.items);
        let mut shards = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let index = u32::try_from(i)
                .map_err(|_| CorpusError::input("inputs", "more than 2^32 - 1 shards"))?;
            shards.push(match item {
                Item::File {
                    entry,
                    format,
                    compression,
                } => Shard {
                    index,
                    compression,
                    name: entry.path.display().to_string(),
                    relative: entry.rel.clone(),
                    source: if format == Format::Parquet {
                        Source::Parquet(entry)
                    } else {
                        Source::Jsonl(entry)
                    },
                },
                Item::Stdin => Shard {
                    index,
                    compression: Compression::None,
                    name: "<stdin>".into(),
                    relative: PathBuf::from("stdin.jsonl"),
                    source: Source::Stdin {
                        taken: AtomicBool::new(false),
                    },
                },
                Item::Folder { root, files } => Shard {
                    index,
                    compression: Compression::None,
                    name: if root.as_os_str().is_empty() {
                        ". (text files)".into()
                    } else {
                        format!("{} (text files)", root.display())
                    },
                    relative: PathBuf::new(),
                    source: Source::Folder {
                        root,
                        files: files.into(),
                    },
                },
            });
        }
        Ok(shards)
    }
}

/// [`Corpus::fingerprint`](super::Corpus::fingerprint): xxh3 over every
/// shard's kind and every file's path, size and modification time.
pub(crate) fn fingerprint(shards: &[Shard]) -> u64 {
    let mut bytes = Vec::new();
    let file = |bytes: &mut Vec<u8>, f: &FileEntry| {
        bytes.extend_from_slice(f.path.as_os_str().as_encoded_bytes());
        bytes.push(0);
        bytes.extend_from_slice(&f.size.to_le_bytes());
        let nanos = f
            .mtime
            .and_then(|t| t.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        bytes.extend_from_slice(&nanos.to_le_bytes());
    };
    for s in shards {
        bytes.extend_from_slice(s.format().name().as_bytes());
        bytes.extend_from_slice(s.compression.suffix().as_bytes());
        bytes.push(0);
        match &s.source {
            Source::Jsonl(f) | Source::Parquet(f) => file(&mut bytes, f),
            Source::Stdin { .. } => bytes.extend_from_slice(b"<stdin>"),
            Source::Folder { root, files } => {
                bytes.extend_from_slice(root.as_os_str().as_encoded_bytes());
                bytes.push(0);
                bytes.extend_from_slice(&(files.len() as u64).to_le_bytes());
                for f in files.iter() {
                    file(&mut bytes, f);
                }
            }
        }
    }
    xxhash_rust::xxh3::xxh3_64(&bytes)
}
