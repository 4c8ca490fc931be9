//! Reading a corpus: a JSONL file (or stdin), a folder of text files, or a
//! Parquet file. The input is read whole, in large reads; documents borrow
//! their text from it when they can.

use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::{CliError, CliResult};
use crate::jsonl::{self, Columns};

/// One document of the corpus.
#[derive(Debug)]
pub struct Doc<'a> {
    /// The id as JSON text (`"s001"`, `17`, ...).
    pub id: Cow<'a, str>,
    /// The text to fingerprint.
    pub text: Cow<'a, str>,
    /// What `--kept` writes for it.
    pub record: Record<'a>,
    /// Input bytes it stands for (the progress bar counts them).
    pub bytes: u64,
}

/// A kept document's output line.
#[derive(Debug)]
pub enum Record<'a> {
    /// The input line, unchanged: its bytes in [`Source::buffer`], line
    /// break included.
    Line(std::ops::Range<usize>),
    /// A JSON object built for the output (`{"id": ..., "text": ...}`).
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    Json(&'a str),
    /// Built on output from the id and the text (folder input).
    IdText,
}

/// A record that could not be read, and where it is.
#[derive(Clone, Debug)]
pub struct Skip {
    /// `FILE:LINE` or `FILE`.
    pub place: String,
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.place, self.reason)
    }
}

/// The raw input, owned; [`Source::docs`] borrows from it.
pub enum Source {
    /// A JSONL buffer and the name to report it under.
    Jsonl { name: String, buf: Vec<u8> },
    /// Files of a folder, sorted by path.
    Folder { files: Vec<FolderFile> },
    /// Parquet rows already decoded.
    #[cfg(feature = "parquet")]
    Parquet {
        rows: Vec<crate::parquet_input::Row>,
        skipped: Vec<Skip>,
    },
}

/// How a path is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Jsonl,
    Folder,
    Parquet,
}

/// `-` is stdin; a directory is a folder; `.parquet` is Parquet; the rest is JSONL.
pub fn kind_of(path: &Path) -> Kind {
    if path.as_os_str() == "-" {
        Kind::Jsonl
    } else if path.is_dir() {
        Kind::Folder
    } else if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
    {
        Kind::Parquet
    } else {
        Kind::Jsonl
    }
}

/// The name messages use for `path`.
pub fn display_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads a whole file, or stdin for `-`.
pub fn read_all(path: &Path) -> CliResult<Vec<u8>> {
    let name = display_name(path);
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .map_err(|e| CliError::read(&name, e))?;
        Ok(buf)
    } else {
        read_file(path).map_err(|e| CliError::read(&name, e))
    }
}

/// A whole file (or stdin for `-`) as UTF-8 text, with its display name;
/// invalid UTF-8 is an error naming the file and the byte, and so is a text
/// longer than `max` bytes (read no further, so that endless input such as
/// `/dev/zero` ends).
#[cfg(feature = "store")]
pub fn read_text(path: &Path, max: u64) -> CliResult<(String, String)> {
    let name = display_name(path);
    let mut buf = Vec::new();
    let read = if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(max.saturating_add(1))
            .read_to_end(&mut buf)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(max.saturating_add(1)).read_to_end(&mut buf))
    };
    read.map_err(|e| CliError::read(&name, e))?;
    if buf.len() as u64 > max {
        return Err(CliError::Failed(format!(
            "{name}: longer than {max} bytes (--max-bytes); a query text is held in memory"
        )));
    }
    match String::from_utf8(buf) {
        Ok(text) => Ok((name, text)),
        Err(e) => Err(CliError::Failed(format!(
            "{name}: invalid UTF-8 at byte {}",
            e.utf8_error().valid_up_to() + 1
        ))),
    }
}

/// A JSONL id as a plain string id: a JSON string's value, else the value's
/// JSON text (`17`).
#[cfg(feature = "store")]
pub fn plain_id(json: &str) -> String {
    serde_json::from_str::<String>(json).unwrap_or_else(|_| json.to_string())
}

/// Ids named in the duplicate-id warning and listed in the report.
pub const DUPLICATE_EXAMPLES: usize = 5;

/// Records whose id an earlier record of the input already carries: their
/// number, and the first few such ids (as JSON text) in input order.
#[derive(Debug, Default, PartialEq)]
pub struct DuplicateIds {
    /// Records repeating an earlier record's id.
    pub count: u64,
    /// Up to [`DUPLICATE_EXAMPLES`] distinct repeated ids.
    pub examples: Vec<String>,
}

impl DuplicateIds {
    /// Finds the repeated ids among `ids`, in input order.
    pub fn find<'a>(ids: impl IntoIterator<Item = &'a str>) -> Self {
        let mut seen = std::collections::HashSet::new();
        let mut found = DuplicateIds::default();
        for id in ids {
            if !seen.insert(id) {
                found.note(id);
            }
        }
        found
    }

    /// Counts one more record repeating `id`.
    pub fn note(&mut self, id: &str) {
        self.count += 1;
        if self.examples.len() < DUPLICATE_EXAMPLES && !self.examples.iter().any(|e| e == id) {
            self.examples.push(id.to_string());
        }
    }

    /// One warning on stderr when there are any: outputs and reports name
    /// records by id, so repeated ones are ambiguous there.
    pub fn warn(&self, input: &str) {
        if self.count == 0 {
            return;
        }
        // A full list may not be all of them.
        let more = if self.examples.len() >= DUPLICATE_EXAMPLES {
            ", ..."
        } else {
            ""
        };
        eprintln!(
            "txtfp: warning: {input}: {} records repeat the id of an earlier record ({}{more}); \
             outputs name records by id",
            self.count,
            self.examples.join(", ")
        );
    }

    /// The ids as JSON values, for reports.
    pub fn examples_json(&self) -> Vec<serde_json::Value> {
        self.examples
            .iter()
            .map(|e| {
                serde_json::from_str(e).unwrap_or_else(|_| serde_json::Value::from(e.as_str()))
            })
            .collect()
    }
}

/// Files at least this large are read by all threads at once.
const PARALLEL_READ: u64 = 16 << 20;

/// `std::fs::read`, except that a large regular file is read in one piece
/// per thread (positional reads): copying 100 MB out of the page cache and
/// faulting in its buffer takes a tenth of a second of one core.
fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let file = std::fs::File::open(path)?;
        let meta = file.metadata()?;
        let threads = rayon::current_num_threads();
        if meta.is_file() && meta.len() >= PARALLEL_READ && threads > 1 {
            let len = usize::try_from(meta.len()).map_err(std::io::Error::other)?;
            let mut buf = vec![0u8; len];
            let piece = len.div_ceil(threads);
            let whole = buf
                .par_chunks_mut(piece)
                .enumerate()
                .try_for_each(|(i, chunk)| file.read_exact_at(chunk, (i * piece) as u64));
            match whole {
                Ok(()) => {
                    // Whatever was appended since `metadata` is read too.
                    let mut rest = Vec::new();
                    let mut tail = &file;
                    std::io::Seek::seek(&mut tail, std::io::SeekFrom::Start(len as u64))?;
                    tail.read_to_end(&mut rest)?;
                    buf.extend_from_slice(&rest);
                    return Ok(buf);
                }
                // The file shrank meanwhile: read it the plain way.
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {}
                Err(e) => return Err(e),
            }
        }
    }
    std::fs::read(path)
}

impl Source {
    /// Reads `path` (see [`kind_of`]).
    pub fn open(path: &Path, cols: Columns<'_>, strict: bool) -> CliResult<Source> {
        let name = display_name(path);
        match kind_of(path) {
            Kind::Jsonl => Ok(Source::Jsonl {
                buf: read_all(path)?,
                name,
            }),
            Kind::Folder => Ok(Source::Folder {
                files: read_folder(path)?,
            }),
            #[cfg(feature = "parquet")]
            Kind::Parquet => {
                let (rows, skipped) = crate::parquet_input::read(path, cols, strict)?;
                Ok(Source::Parquet { rows, skipped })
            }
            #[cfg(not(feature = "parquet"))]
            Kind::Parquet => {
                let _ = (cols, strict);
                Err(CliError::Usage(format!(
                    "{name}: Parquet input needs txtfp-cli built with its `parquet` feature (on by default)"
                )))
            }
        }
    }

    /// The JSONL input's bytes, which [`Record::Line`] ranges index.
    pub fn buffer(&self) -> &[u8] {
        match self {
            Source::Jsonl { buf, .. } => buf,
            _ => &[],
        }
    }

    /// Total input bytes.
    pub fn bytes(&self) -> u64 {
        match self {
            Source::Jsonl { buf, .. } => buf.len() as u64,
            Source::Folder { files } => files
                .iter()
                .map(|f| f.contents.as_ref().map_or(0, |b| b.len() as u64))
                .sum(),
            #[cfg(feature = "parquet")]
            Source::Parquet { rows, .. } => rows.iter().map(|r| r.bytes).sum(),
        }
    }

    /// The input's format, as the report names it.
    pub fn format(&self) -> &'static str {
        match self {
            Source::Jsonl { .. } => "jsonl",
            Source::Folder { .. } => "folder",
            #[cfg(feature = "parquet")]
            Source::Parquet { .. } => "parquet",
        }
    }

    /// The documents, in input order, and the records that could not be
    /// read. With `strict`, the first bad record is an error instead.
    pub fn docs(&self, cols: Columns<'_>, strict: bool) -> CliResult<(Vec<Doc<'_>>, Vec<Skip>)> {
        let parsed: Vec<Result<Doc<'_>, Skip>> = match self {
            Source::Jsonl { name, buf } => jsonl::lines(buf)
                .par_iter()
                .map(|line| {
                    let raw = &buf[line.content.clone()];
                    match jsonl::parse_line(raw, cols) {
                        Ok(f) => Ok(Doc {
                            id: f
                                .id
                                .map_or_else(|| Cow::Owned(line.number.to_string()), Cow::Borrowed),
                            text: f.text,
                            record: Record::Line(line.content.start..line.next),
                            bytes: (line.next - line.content.start) as u64,
                        }),
                        Err(reason) => Err(Skip {
                            place: format!("{name}:{}", line.number),
                            reason,
                        }),
                    }
                })
                .collect(),
            Source::Folder { files } => files.par_iter().map(folder_doc).collect(),
            #[cfg(feature = "parquet")]
            Source::Parquet { rows, skipped, .. } => {
                if strict && let Some(s) = skipped.first() {
                    return Err(CliError::Failed(s.to_string()));
                }
                let docs = rows.iter().map(crate::parquet_input::Row::doc).collect();
                return Ok((docs, skipped.clone()));
            }
        };
        let mut docs = Vec::with_capacity(parsed.len());
        let mut skipped = Vec::new();
        for p in parsed {
            match p {
                Ok(d) => docs.push(d),
                Err(s) if strict => return Err(CliError::Failed(s.to_string())),
                Err(s) => skipped.push(s),
            }
        }
        Ok((docs, skipped))
    }
}

/// One file of a folder input.
pub struct FolderFile {
    /// Its path relative to the folder: the document's id.
    id: String,
    /// Its path as given on the command line, for messages.
    path: String,
    contents: std::io::Result<Vec<u8>>,
}

fn folder_doc(file: &FolderFile) -> Result<Doc<'_>, Skip> {
    let skip = |reason: String| Skip {
        place: file.path.clone(),
        reason,
    };
    let bytes = file
        .contents
        .as_ref()
        .map_err(|e| skip(format!("cannot read: {e}")))?;
    let text = std::str::from_utf8(bytes)
        .map_err(|e| skip(format!("invalid UTF-8 at byte {}", e.valid_up_to() + 1)))?;
    Ok(Doc {
        id: Cow::Owned(serde_json::to_string(&file.id).unwrap_or_default()),
        text: Cow::Borrowed(text),
        record: Record::IdText,
        bytes: bytes.len() as u64,
    })
}

/// Every regular file under `dir` (recursively, symlinks not followed),
/// sorted by path so that "first in input order" is reproducible. Names are
/// shown relative to `dir`.
fn read_folder(dir: &Path) -> CliResult<Vec<FolderFile>> {
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| CliError::read(&d.display().to_string(), e))?;
        for entry in entries {
            let entry = entry.map_err(|e| CliError::read(&d.display().to_string(), e))?;
            let ft = entry
                .file_type()
                .map_err(|e| CliError::read(&entry.path().display().to_string(), e))?;
            if ft.is_dir() {
                stack.push(entry.path());
            } else if ft.is_file() {
                paths.push(entry.path());
            }
        }
    }
    paths.sort();
    Ok(paths
        .into_par_iter()
        .map(|p: PathBuf| FolderFile {
            id: p.strip_prefix(dir).unwrap_or(&p).display().to_string(),
            path: p.display().to_string(),
            contents: std::fs::read(&p),
        })
        .collect())
}
