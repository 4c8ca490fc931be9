//! Output files (or stdout), with a fast path for long runs of input bytes.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use crate::error::{CliError, CliResult};

const BUFFER: usize = 1 << 20;

/// Positional writes of at most this many bytes share the threads.
const PIECE: usize = 4 << 20;

/// An output stream and the name messages use for it.
pub struct Sink {
    pub name: String,
    /// The file, for positional writes; `None` for stdout.
    file: Option<File>,
    out: BufWriter<Box<dyn Write>>,
}

impl Sink {
    /// Creates (truncates) `path`.
    pub fn file(path: &Path) -> CliResult<Sink> {
        let name = path.display().to_string();
        let create = |e| CliError::Failed(format!("{name}: cannot create: {e}"));
        let f = File::create(path).map_err(create)?;
        let handle = f.try_clone().map_err(create)?;
        Ok(Sink {
            out: BufWriter::with_capacity(BUFFER, Box::new(handle)),
            file: Some(f),
            name,
        })
    }

    /// Standard output.
    pub fn stdout() -> Sink {
        Sink {
            name: "<stdout>".into(),
            file: None,
            out: BufWriter::with_capacity(BUFFER, Box::new(std::io::stdout())),
        }
    }

    /// Appends `bytes` (buffered).
    pub fn put(&mut self, bytes: &[u8]) -> CliResult {
        self.out
            .write_all(bytes)
            .map_err(|e| CliError::write(&self.name, e))
    }

    /// Writes `buf[span]` for every span, in order, then `tail`, into a sink
    /// nothing was written to yet. A file is written by all threads at once
    /// (positional writes at precomputed offsets): for a 100 MB JSONL file
    /// that is mostly kept, copying into the page cache is the largest cost
    /// of the output. Stdout gets plain writes, with no copy through the
    /// buffer.
    pub fn put_spans(&mut self, buf: &[u8], spans: &[Range<usize>], tail: &[u8]) -> CliResult {
        let mut pieces: Vec<(u64, &[u8])> = Vec::with_capacity(spans.len() + 1);
        let mut offset = 0u64;
        for span in spans {
            for chunk in buf[span.clone()].chunks(PIECE) {
                pieces.push((offset, chunk));
                offset += chunk.len() as u64;
            }
        }
        if !tail.is_empty() {
            pieces.push((offset, tail));
        }
        #[cfg(unix)]
        if let Some(file) = &self.file {
            use std::os::unix::fs::FileExt;
            return pieces
                .par_iter()
                .try_for_each(|(at, bytes)| file.write_all_at(bytes, *at))
                .map_err(|e| CliError::write(&self.name, e));
        }
        self.out
            .flush()
            .map_err(|e| CliError::write(&self.name, e))?;
        let out = self.out.get_mut();
        for (_, bytes) in pieces {
            out.write_all(bytes)
                .map_err(|e| CliError::write(&self.name, e))?;
        }
        Ok(())
    }

    /// Flushes the buffer.
    pub fn close(mut self) -> CliResult {
        self.out.flush().map_err(|e| CliError::write(&self.name, e))
    }
}
