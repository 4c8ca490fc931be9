//! One input file (or stdin) read in chunks into the library's streaming
//! fingerprinters: memory stays bounded whatever the file's length, and the
//! signatures are those of the whole text.
//!
//! Two limits apply. `--max-bytes`, when given, refuses an input longer than
//! it. Independently, text is fingerprinted in pieces cut at ASCII
//! whitespace followed by ASCII text; a stretch with no such cut (unspaced
//! CJK, a run of NUL bytes) is held in memory until one comes, up to
//! [`DEFAULT_HELD_BYTES`] or `--max-bytes` when that is given. So
//! `txtfp fingerprint /dev/zero` ends with an error instead of filling
//! memory, and `yes | txtfp fingerprint --max-bytes 1G` ends at 1 GB.

use std::io::Read;
use std::path::Path;

use txtfp::classical::TextEncoding;
use txtfp::classical::TextForm;
use txtfp::classical::minhash::FastMinHashStreaming;
use txtfp::classical::tlsh::TlshTextStreaming;
use txtfp::{
    MinHashSig, MinHashStreaming, ShingleTokenizer, SimHashStreaming, StreamingFingerprinter,
    WordTokenizer,
};

use crate::error::{CliError, CliResult};
use crate::input::display_name;

/// Longest stretch of text without a split point held in memory when
/// `--max-bytes` is not given.
pub const DEFAULT_HELD_BYTES: usize = 256 << 20;

/// Bytes asked of the reader at a time.
const CHUNK: usize = 256 << 10;

/// The message prefix of the library's cap error.
const CAP_ERROR: &str = "invalid input: streaming buffer exceeded cap";

/// The library's message for a stream that ends inside a UTF-8 sequence.
pub const TRAILING_UTF8: &str = "trailing incomplete UTF-8";

/// The limits of one run, from `--max-bytes`.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Longest input accepted, `None` for no limit.
    pub max_input: Option<u64>,
    /// Longest stretch without a split point held in memory.
    pub held: usize,
}

impl Limits {
    /// The limits `--max-bytes` gives.
    pub fn new(max_bytes: Option<usize>) -> Self {
        Limits {
            max_input: max_bytes.map(|m| m as u64),
            held: max_bytes.unwrap_or(DEFAULT_HELD_BYTES),
        }
    }
}

/// Word shingles, as every subcommand tokenizes.
pub type Shingles = ShingleTokenizer<WordTokenizer>;

/// A streaming fingerprinter of one of the signature kinds the CLI prints.
// At most four live at once, one per measure: boxing the larger states
// would save nothing worth an allocation.
#[allow(clippy::large_enum_variant)]
pub enum Stream {
    MinHash(MinHashStreaming<Shingles, 128>),
    FastMinHash(FastMinHashStreaming<Shingles, 128>),
    SimHashWords(SimHashStreaming<WordTokenizer>),
    SimHashShingles(SimHashStreaming<Shingles>),
    Tlsh(TlshTextStreaming),
}

/// A finished stream's signature.
pub enum Signature {
    MinHash(MinHashSig<128>),
    FastMinHash(txtfp::classical::minhash::FastMinHashSig<128>),
    SimHash(txtfp::SimHash64),
    Tlsh(txtfp::TlshFingerprint),
}

impl Signature {
    /// The signature in `enc` (TLSH: always its `T1` hex digest).
    pub fn to_text(&self, enc: TextEncoding) -> String {
        match self {
            Signature::MinHash(s) => s.to_text(enc),
            Signature::FastMinHash(s) => s.to_text(enc),
            Signature::SimHash(s) => s.to_text(enc),
            Signature::Tlsh(s) => s.hex().to_string(),
        }
    }
}

impl Stream {
    fn update(&mut self, chunk: &[u8]) -> txtfp::Result<()> {
        match self {
            Stream::MinHash(s) => s.update(chunk),
            Stream::FastMinHash(s) => s.update(chunk),
            Stream::SimHashWords(s) => s.update(chunk),
            Stream::SimHashShingles(s) => s.update(chunk),
            Stream::Tlsh(s) => s.update(chunk),
        }
    }

    /// The signature of everything fed.
    pub fn finish(self) -> txtfp::Result<Signature> {
        Ok(match self {
            Stream::MinHash(s) => Signature::MinHash(s.finalize()?),
            Stream::FastMinHash(s) => Signature::FastMinHash(s.finalize()?),
            Stream::SimHashWords(s) => Signature::SimHash(s.finalize()?),
            Stream::SimHashShingles(s) => Signature::SimHash(s.finalize()?),
            Stream::Tlsh(s) => Signature::Tlsh(s.finalize()?),
        })
    }
}

/// What was read of one input.
pub struct Read1 {
    /// The name messages use.
    pub name: String,
    /// Bytes read.
    pub bytes: u64,
    /// The last bytes read (at most 3 are needed): where an unfinished
    /// UTF-8 sequence at the end starts.
    tail: Vec<u8>,
}

impl Read1 {
    /// The error of a stream's `finalize`, with the input's name. A text
    /// ending inside a UTF-8 sequence is reported as the whole-file check
    /// reports it, at the byte where that sequence starts.
    pub fn finish_error(&self, e: txtfp::Error) -> CliError {
        match e {
            txtfp::Error::InvalidInput(m) if m == TRAILING_UTF8 => self.trailing_utf8_error(),
            other => CliError::Failed(format!("{}: {other}", self.name)),
        }
    }

    /// The input ends inside a UTF-8 sequence: the error names the byte
    /// where that sequence starts.
    pub fn trailing_utf8_error(&self) -> CliError {
        let back = self
            .tail
            .iter()
            .rev()
            .position(|b| b & 0xC0 != 0x80)
            .map_or(0, |i| i + 1);
        CliError::Failed(format!(
            "{}: invalid UTF-8 at byte {}",
            self.name,
            self.bytes - back as u64 + 1
        ))
    }
}

/// Reads `path` (stdin for `-`) to the end, feeding every chunk to each of
/// `streams`. Fails, naming the input, on a read error, on invalid UTF-8
/// (at its byte, counted from 1), on a stretch without a split point longer
/// than `limits.held`, and on an input longer than `limits.max_input`.
pub fn read_into(path: &Path, limits: Limits, streams: &mut [Stream]) -> CliResult<Read1> {
    let name = display_name(path);
    let mut input: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(path).map_err(|e| CliError::read(&name, e))?;
        if let (Some(max), Ok(meta)) = (limits.max_input, file.metadata())
            && meta.is_file()
            && meta.len() > max
        {
            return Err(too_long(&name, max));
        }
        Box::new(file)
    };
    let mut buf = vec![0u8; CHUNK];
    let mut read = Read1 {
        name,
        bytes: 0,
        tail: Vec::with_capacity(3),
    };
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CliError::read(&read.name, e)),
        };
        let total = read.bytes + n as u64;
        if limits.max_input.is_some_and(|max| total > max) {
            return Err(too_long(&read.name, limits.max_input.unwrap_or(0)));
        }
        let chunk = &buf[..n];
        for s in streams.iter_mut() {
            s.update(chunk).map_err(|e| update_error(&read.name, e))?;
        }
        read.bytes = total;
        let keep = n.min(3);
        if keep == 3 {
            read.tail.clear();
        } else {
            let excess = (read.tail.len() + keep).saturating_sub(3);
            read.tail.drain(..excess);
        }
        read.tail.extend_from_slice(&chunk[n - keep..]);
    }
    Ok(read)
}

fn too_long(name: &str, max: u64) -> CliError {
    CliError::Failed(format!(
        "{name}: longer than --max-bytes ({max} bytes); not fingerprinted"
    ))
}

fn update_error(name: &str, e: txtfp::Error) -> CliError {
    match e {
        txtfp::Error::InvalidUtf8 { offset } => {
            CliError::Failed(format!("{name}: invalid UTF-8 at byte {}", offset + 1))
        }
        other => {
            let msg = other.to_string();
            if msg.starts_with(CAP_ERROR) {
                CliError::Failed(format!(
                    "{name}: {msg}; text that cannot be cut there is held in memory, \
                     up to --max-bytes (default {} MiB)",
                    DEFAULT_HELD_BYTES >> 20
                ))
            } else {
                CliError::Failed(format!("{name}: {msg}"))
            }
        }
    }
}
