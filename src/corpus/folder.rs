//! Text shards: the text files of one input directory, one document each,
//! read a block of files at a time.

use std::fs::File;
use std::io::Read;
use std::sync::Arc;

use rayon::prelude::*;

use super::CorpusError;
use super::resolve::FileEntry;

/// One file of a [`FolderBlock`].
pub(crate) struct FolderFile {
    /// Its row: the file's index in the shard.
    pub(crate) row: u64,
    /// Its path relative to the directory, as a JSON string.
    pub(crate) id: String,
    /// Its path, for messages.
    pub(crate) place: String,
    /// Its bytes, or why they could not be read.
    pub(crate) contents: Result<Vec<u8>, String>,
}

/// Consecutive files of a text shard.
pub(crate) struct FolderBlock {
    pub(crate) files: Vec<FolderFile>,
    pub(crate) input_position: u64,
}

/// Reads the files of a text shard in blocks of about `block_bytes` (by
/// their resolved sizes), the files of a block in parallel.
pub(crate) struct FolderReader {
    files: Arc<[FileEntry]>,
    next: usize,
    block_bytes: usize,
    max_record: u64,
    position: u64,
    done: bool,
}

impl FolderReader {
    pub(crate) fn new(files: Arc<[FileEntry]>, block_bytes: usize, max_record: u64) -> Self {
        FolderReader {
            files,
            next: 0,
            block_bytes,
            max_record,
            position: 0,
            done: false,
        }
    }
}

/// What reading one file gave: its bytes, a reason to skip it, or the sign
/// that it changed since resolution.
enum Read1 {
    Bytes(Vec<u8>),
    Skip(String),
    Changed,
}

fn read_one(entry: &FileEntry, max_record: u64) -> Read1 {
    let mut f = match File::open(&entry.path) {
        Ok(f) => f,
        Err(e) => return Read1::Skip(format!("cannot open: {e}")),
    };
    match f.metadata() {
        Ok(meta) if !entry.unchanged(&meta) => return Read1::Changed,
        Ok(_) => {}
        Err(e) => return Read1::Skip(format!("cannot stat: {e}")),
    }
    let too_long = |n: u64| {
        Read1::Skip(format!(
            "a file of {n} bytes, larger than the limit of {max_record} bytes (max_record_bytes)"
        ))
    };
    if entry.size > max_record {
        return too_long(entry.size);
    }
    // The size was checked, but the file may grow while it is read.
    let mut buf = Vec::with_capacity(usize::try_from(entry.size).unwrap_or(0));
    match f.by_ref().take(max_record + 1).read_to_end(&mut buf) {
        Ok(n) if n as u64 > max_record => too_long(n as u64),
        Ok(_) => Read1::Bytes(buf),
        Err(e) => Read1::Skip(format!("cannot read: {e}")),
    }
}

impl Iterator for FolderReader {
    type Item = Result<FolderBlock, CorpusError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.next >= self.files.len() {
            return None;
        }
        let start = self.next;
        let mut bytes = 0u64;
        let mut end = start;
        while end < self.files.len() && (end == start || bytes < self.block_bytes as u64) {
            bytes += self.files[end].size;
            end += 1;
        }
        self.next = end;
        let read: Vec<Read1> = self.files[start..end]
            .par_iter()
            .map(|e| read_one(e, self.max_record))
            .collect();
        let mut files = Vec::with_capacity(read.len());
        for (i, (entry, r)) in self.files[start..end].iter().zip(read).enumerate() {
            let place = entry.path.display().to_string();
            let contents = match r {
                Read1::Bytes(b) => Ok(b),
                Read1::Skip(reason) => Err(reason),
                Read1::Changed => {
                    self.done = true;
                    return Some(Err(CorpusError::Changed { file: place }));
                }
            };
            let rel = entry.rel.to_string_lossy();
            files.push(FolderFile {
                row: (start + i) as u64,
                id: serde_json::to_string(&rel).unwrap_or_default(),
                place,
                contents,
            });
        }
        self.position += bytes;
        Some(Ok(FolderBlock {
            files,
            input_position: self.position,
        }))
    }
}
