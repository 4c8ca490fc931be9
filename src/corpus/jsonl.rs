//! JSONL: records parsed for their text and id columns only, and a reader
//! that cuts a decompressed stream into blocks of whole lines.

use std::borrow::Cow;
use std::fmt;
use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::decompress::describe_read_error;
use super::{Columns, Compression, CorpusError};

/// What one line holds.
#[derive(Debug)]
pub(crate) struct Fields<'a> {
    pub(crate) text: Cow<'a, str>,
    /// The id column's value as JSON text.
    pub(crate) id: Option<&'a str>,
    pub(crate) extra: Option<Cow<'a, str>>,
}

/// Parses one JSONL line (without its line break): only the text, id and
/// extra columns are decoded, every other value is skipped unparsed. The
/// error says what is wrong in words, with the byte offset in the line.
pub(crate) fn parse_line<'a>(line: &'a [u8], cols: &Columns) -> Result<Fields<'a>, String> {
    // serde_json checks the UTF-8 of the strings it reads; std's check runs
    // only to locate the bad byte once it has failed.
    let mut de = serde_json::Deserializer::from_slice(line);
    let found = de::Deserializer::deserialize_map(&mut de, RecordVisitor { cols })
        .and_then(|f| de.end().map(|()| f))
        .map_err(|e| match std::str::from_utf8(line) {
            Err(bad) => format!(
                "invalid UTF-8 at byte {} of the line",
                bad.valid_up_to() + 1
            ),
            Ok(_) => describe(&e),
        })?;
    match found.text {
        Some(text) => Ok(Fields {
            text,
            id: found.id,
            extra: found.extra,
        }),
        None => Err(format!("no \"{}\" column", cols.text)),
    }
}

/// serde_json's message with its `line 1` (always: one line at a time)
/// replaced by the byte offset.
fn describe(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let msg = match msg.rfind(" at line ") {
        Some(cut) => &msg[..cut],
        None => &msg,
    };
    let what = match e.classify() {
        serde_json::error::Category::Data => "",
        serde_json::error::Category::Eof => "malformed JSON (truncated): ",
        _ => "malformed JSON: ",
    };
    format!("{what}{msg} (byte {})", e.column())
}

/// Partial result of the map visitor.
struct Found<'a> {
    text: Option<Cow<'a, str>>,
    id: Option<&'a str>,
    extra: Option<Cow<'a, str>>,
}

struct RecordVisitor<'c> {
    cols: &'c Columns,
}

impl<'de> Visitor<'de> for RecordVisitor<'_> {
    type Value = Found<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object per line")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Found<'de>, M::Error> {
        let mut found = Found {
            text: None,
            id: None,
            extra: None,
        };
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == self.cols.text.as_str() {
                found.text = Some(map.next_value_seed(TextSeed {
                    column: &self.cols.text,
                })?);
            } else if self.cols.id.as_deref() == Some(&*key) {
                let raw: &'de RawValue = map.next_value()?;
                found.id = Some(raw.get());
            } else if let Some(column) = self.cols.extra.as_deref().filter(|c| *c == key) {
                found.extra = Some(map.next_value_seed(TextSeed { column })?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// A string borrowed when it has no escapes, copied otherwise.
struct TextSeed<'c> {
    column: &'c str,
}

impl<'de> DeserializeSeed<'de> for TextSeed<'_> {
    type Value = Cow<'de, str>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TextSeed<'_> {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a string in column \"{}\"", self.column)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// One record of a [`LineBlock`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LineRec {
    /// A non-blank line.
    Line {
        /// 1-based line number.
        number: u64,
        /// Where it starts in the block.
        start: usize,
        /// Where its content ends (before `\n` and a `\r` before it).
        end: usize,
        /// Where the next line starts.
        next: usize,
    },
    /// A line longer than the cap, not held.
    TooLong { number: u64, bytes: u64 },
}

/// Whole lines of a JSONL stream.
pub(crate) struct LineBlock {
    pub(crate) buf: Vec<u8>,
    pub(crate) recs: Vec<LineRec>,
    /// Compressed bytes of the file read when the block was cut.
    pub(crate) input_position: u64,
}

/// The records of `buf`, whose first line is number `first`: blank lines
/// are not records, lines longer than `max_record` are
/// [`LineRec::TooLong`].
pub(crate) fn index_lines(buf: &[u8], first: u64, max_record: u64, recs: &mut Vec<LineRec>) {
    let mut start = 0;
    let mut number = first;
    let mut push = |start: usize, end: usize, next: usize, number: u64| {
        let mut content_end = end;
        if content_end > start && buf[content_end - 1] == b'\r' {
            content_end -= 1;
        }
        if (content_end - start) as u64 > max_record {
            recs.push(LineRec::TooLong {
                number,
                bytes: (next - start) as u64,
            });
        } else if !buf[start..content_end].iter().all(u8::is_ascii_whitespace) {
            recs.push(LineRec::Line {
                number,
                start,
                end: content_end,
                next,
            });
        }
    };
    for nl in memchr::memchr_iter(b'\n', buf) {
        push(start, nl, nl + 1, number);
        number += 1;
        start = nl + 1;
    }
    if start < buf.len() {
        push(start, buf.len(), buf.len(), number);
    }
}

/// Reads at most this much per call, so that a block overshoots its size
/// by at most this.
const READ_CHUNK: usize = 1 << 20;

/// The most a block buffer reserves before it is filled.
const MAX_PREALLOC: usize = 256 << 20;

/// Cuts a decompressed stream into [`LineBlock`]s of about `block_bytes`,
/// lines whole. A line longer than `block_bytes` grows its block in place
/// (never copied); one longer than `max_record` is dropped as it is read
/// and becomes a [`LineRec::TooLong`].
pub(crate) struct LineReader {
    name: String,
    src: Box<dyn Read + Send>,
    compression: Compression,
    count: Arc<AtomicU64>,
    block_bytes: usize,
    max_record: u64,
    /// The start of the next block: a partial line carried over.
    buf: Vec<u8>,
    /// The number of the line `buf` starts with.
    next_line: u64,
    /// The decompressed offset of `buf[0]`.
    offset: u64,
    eof: bool,
    pending: Option<CorpusError>,
    done: bool,
}

impl LineReader {
    pub(crate) fn new(
        name: String,
        src: Box<dyn Read + Send>,
        compression: Compression,
        count: Arc<AtomicU64>,
        block_bytes: usize,
        max_record: u64,
    ) -> Self {
        LineReader {
            name,
            src,
            compression,
            count,
            block_bytes,
            max_record,
            buf: Vec::with_capacity(block_bytes.min(MAX_PREALLOC).saturating_add(READ_CHUNK)),
            next_line: 1,
            offset: 0,
            eof: false,
            pending: None,
            done: false,
        }
    }

    /// The stream's compression, by its magic bytes.
    pub(crate) fn compression(&self) -> Compression {
        self.compression
    }

    /// Appends up to a chunk from the stream to `buf`; 0 at its end. On an
    /// error, the bytes read before it stay in `buf`.
    fn fill(&mut self) -> std::io::Result<usize> {
        let want = if self.buf.len() < self.block_bytes {
            self.block_bytes - self.buf.len()
        } else {
            self.block_bytes
        };
        let chunk = want.clamp(1, READ_CHUNK);
        self.buf.reserve(chunk);
        // `read_to_end` fills the spare capacity without zeroing it first,
        // and keeps what it read before an error.
        let n = (&mut self.src)
            .take(chunk as u64)
            .read_to_end(&mut self.buf)?;
        if n == 0 {
            self.eof = true;
        }
        Ok(n)
    }

    fn read_error(&self, e: &std::io::Error, whole_lines_end: usize) -> CorpusError {
        let lines = memchr::memchr_iter(b'\n', &self.buf[..whole_lines_end]).count() as u64;
        CorpusError::Read {
            file: self.name.clone(),
            line: self.next_line - 1 + lines,
            offset: self.offset + self.buf.len() as u64,
            reason: describe_read_error(self.compression, e),
        }
    }

    /// Hands out `buf[..end]` as a block (after `lead`), keeping the rest.
    fn cut(&mut self, end: usize, lead: Option<LineRec>) -> LineBlock {
        let rest = self.buf.get(end..).unwrap_or_default();
        // Room for a whole block and its last read, so that filling it
        // never moves it (within reason: a huge block size grows as needed).
        let room = self
            .block_bytes
            .min(MAX_PREALLOC)
            .saturating_add(READ_CHUNK)
            .max(rest.len());
        let mut next = Vec::with_capacity(room);
        next.extend_from_slice(rest);
        let mut buf = std::mem::replace(&mut self.buf, next);
        buf.truncate(end);
        let mut recs = Vec::with_capacity(buf.len() / 256 + 1);
        recs.extend(lead);
        index_lines(&buf, self.next_line, self.max_record, &mut recs);
        self.next_line += memchr::memchr_iter(b'\n', &buf).count() as u64;
        self.offset += buf.len() as u64;
        LineBlock {
            buf,
            recs,
            input_position: self.count.load(Ordering::Relaxed),
        }
    }

    /// Drops the over-long line `buf` starts with, up to its line break.
    fn drop_line(&mut self) -> Result<LineRec, CorpusError> {
        let number = self.next_line;
        let mut bytes = 0u64;
        loop {
            if let Some(p) = memchr::memchr(b'\n', &self.buf) {
                bytes += p as u64 + 1;
                self.offset += p as u64 + 1;
                self.buf.drain(..=p);
                self.next_line += 1;
                break;
            }
            bytes += self.buf.len() as u64;
            self.offset += self.buf.len() as u64;
            self.buf.clear();
            if self.eof {
                break;
            }
            if let Err(e) = self.fill() {
                return Err(self.read_error(&e, 0));
            }
        }
        Ok(LineRec::TooLong { number, bytes })
    }
}

impl Iterator for LineReader {
    type Item = Result<LineBlock, CorpusError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if let Some(e) = self.pending.take() {
            self.done = true;
            return Some(Err(e));
        }
        let mut lead = None;
        let mut scanned = 0;
        let mut last_nl: Option<usize> = None;
        loop {
            if let Some(p) = memchr::memrchr(b'\n', &self.buf[scanned..]) {
                last_nl = Some(scanned + p);
            }
            scanned = self.buf.len();
            let whole = last_nl.map_or(0, |p| p + 1);
            if (self.buf.len() - whole) as u64 > self.max_record {
                if whole > 0 || lead.is_some() {
                    return Some(Ok(self.cut(whole, lead)));
                }
                match self.drop_line() {
                    Ok(rec) => lead = Some(rec),
                    Err(e) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
                scanned = 0;
                last_nl = None;
                continue;
            }
            if self.eof {
                if self.buf.is_empty() && lead.is_none() {
                    self.done = true;
                    return None;
                }
                let end = self.buf.len();
                return Some(Ok(self.cut(end, lead)));
            }
            if self.buf.len() >= self.block_bytes && whole > 0 {
                return Some(Ok(self.cut(whole, lead)));
            }
            if let Err(e) = self.fill() {
                // The lines read whole before the failure (some perhaps by
                // this very read) are delivered first; the error comes next.
                let whole = memchr::memrchr(b'\n', &self.buf).map_or(0, |p| p + 1);
                let err = self.read_error(&e, whole);
                if whole == 0 && lead.is_none() {
                    self.done = true;
                    return Some(Err(err));
                }
                self.pending = Some(err);
                let block = self.cut(whole, lead);
                self.buf.clear();
                return Some(Ok(block));
            }
        }
    }
}
