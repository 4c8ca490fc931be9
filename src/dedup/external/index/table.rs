//! Sorted, immutable tables of fixed-size records with one record per key:
//! the band and content tables of a dedup index.
//!
//! A table is a header, the records in key order, then a directory holding
//! the first record of every block of [`BLOCK`] records. Opening a table
//! reads only its directory (`12 / 1024` bytes per band record), so a lookup
//! costs one binary search in memory and one block read; keys looked up in
//! ascending order, as the merges produce them, mostly hit the block already
//! read. Tables are written once under a new name and never changed.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::super::runs::Rec;
use super::super::workdir::{io_error, read_exact_at, replace_file};
use crate::{Error, Result};

/// Records per block.
pub(crate) const BLOCK: usize = 1024;

const MAGIC: &[u8; 8] = b"TXFPTAB1";
const HEADER: u64 = 8 + 4 + 4 + 8;

/// A record found by its key.
pub(crate) trait Keyed: Rec {
    type Key: Ord + Copy;
    fn key(&self) -> Self::Key;
}

/// Writes a table from records given in strictly ascending key order.
pub(crate) fn write_table<R: Keyed>(
    path: &Path,
    records: impl Iterator<Item = Result<R>>,
) -> Result<u64> {
    let mut count = 0u64;
    let mut failure: Option<Error> = None;
    replace_file(path, true, |f| {
        let mut out = BufWriter::with_capacity(1 << 20, &mut *f);
        out.write_all(&[0u8; HEADER as usize])?;
        let mut dir: Vec<R> = Vec::new();
        let mut last: Option<R::Key> = None;
        let mut slot = vec![0u8; R::SIZE];
        for r in records {
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    failure = Some(e);
                    return Err(std::io::Error::other("input failed"));
                }
            };
            if last.is_some_and(|k| k >= r.key()) {
                failure = Some(Error::Corrupt(format!(
                    "{}: table records out of order",
                    path.display()
                )));
                return Err(std::io::Error::other("records out of order"));
            }
            last = Some(r.key());
            if count.is_multiple_of(BLOCK as u64) {
                dir.push(r);
            }
            r.put(&mut slot);
            out.write_all(&slot)?;
            count += 1;
        }
        for r in &dir {
            r.put(&mut slot);
            out.write_all(&slot)?;
        }
        out.flush()?;
        drop(out);
        let mut header = [0u8; HEADER as usize];
        header[..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&R::KIND.to_le_bytes());
        header[12..16].copy_from_slice(&(R::SIZE as u32).to_le_bytes());
        header[16..24].copy_from_slice(&count.to_le_bytes());
        f.seek(SeekFrom::Start(0))?;
        f.write_all(&header)
    })
    .map_err(|e| failure.take().unwrap_or(e))?;
    Ok(count)
}

/// A table opened for lookups.
pub(crate) struct Table<R: Keyed> {
    path: PathBuf,
    file: File,
    count: u64,
    dir: Vec<R>,
    /// The block last read: its number and records.
    cached: Option<(usize, Vec<R>)>,
}

impl<R: Keyed> Table<R> {
    /// Opens the table at `path`, checking its header against its length.
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| io_error(path, "cannot open", e))?;
        let count = check_header::<R>(&file, path)?;
        let blocks = count.div_ceil(BLOCK as u64) as usize;
        let mut bytes = vec![0u8; blocks * R::SIZE];
        read_exact_at(&file, &mut bytes, HEADER + count * R::SIZE as u64)
            .map_err(|e| io_error(path, "cannot read the directory", e))?;
        let dir = bytes.chunks_exact(R::SIZE).map(R::get).collect();
        Ok(Self {
            path: path.to_path_buf(),
            file,
            count,
            dir,
            cached: None,
        })
    }

    /// Number of records.
    #[cfg(test)]
    pub(crate) fn len(&self) -> u64 {
        self.count
    }

    /// The record whose key is `key`, if any.
    pub(crate) fn find(&mut self, key: R::Key) -> Result<Option<R>> {
        let block = match self.dir.partition_point(|r| r.key() <= key) {
            0 => return Ok(None),
            b => b - 1,
        };
        if self.cached.as_ref().is_none_or(|(b, _)| *b != block) {
            let first = (block * BLOCK) as u64;
            let n = (self.count - first).min(BLOCK as u64) as usize;
            let mut bytes = vec![0u8; n * R::SIZE];
            read_exact_at(&self.file, &mut bytes, HEADER + first * R::SIZE as u64)
                .map_err(|e| io_error(&self.path, "cannot read", e))?;
            self.cached = Some((block, bytes.chunks_exact(R::SIZE).map(R::get).collect()));
        }
        let records = self
            .cached
            .as_ref()
            .map(|(_, r)| r.as_slice())
            .unwrap_or(&[]);
        Ok(records
            .binary_search_by(|r| r.key().cmp(&key))
            .ok()
            .map(|i| records[i]))
    }

    /// Every record in order.
    pub(crate) fn scan(path: &Path) -> Result<Scan<R>> {
        let file = File::open(path).map_err(|e| io_error(path, "cannot open", e))?;
        let count = check_header::<R>(&file, path)?;
        let mut input = BufReader::with_capacity(1 << 16, file);
        input
            .seek(SeekFrom::Start(HEADER))
            .map_err(|e| io_error(path, "cannot seek", e))?;
        Ok(Scan {
            path: path.to_path_buf(),
            input,
            left: count,
            buf: vec![0u8; R::SIZE],
            _rec: core::marker::PhantomData,
        })
    }
}

fn check_header<R: Keyed>(file: &File, path: &Path) -> Result<u64> {
    let len = file
        .metadata()
        .map_err(|e| io_error(path, "cannot stat", e))?
        .len();
    let mut header = [0u8; HEADER as usize];
    read_exact_at(file, &mut header, 0).map_err(|e| io_error(path, "cannot read", e))?;
    let kind = u32::from_le_bytes(header[8..12].try_into().unwrap_or_default());
    let size = u32::from_le_bytes(header[12..16].try_into().unwrap_or_default());
    let count = u64::from_le_bytes(header[16..24].try_into().unwrap_or_default());
    let blocks = count.div_ceil(BLOCK as u64);
    let expected = count
        .checked_add(blocks)
        .and_then(|n| n.checked_mul(R::SIZE as u64))
        .and_then(|n| n.checked_add(HEADER));
    if &header[..8] != MAGIC || kind != R::KIND || size as usize != R::SIZE || expected != Some(len)
    {
        return Err(Error::Corrupt(format!(
            "{}: not a complete index table of this kind (header or length wrong)",
            path.display()
        )));
    }
    Ok(count)
}

/// A table read from start to end.
pub(crate) struct Scan<R: Keyed> {
    path: PathBuf,
    input: BufReader<File>,
    left: u64,
    buf: Vec<u8>,
    _rec: core::marker::PhantomData<R>,
}

impl<R: Keyed> Iterator for Scan<R> {
    type Item = Result<R>;

    fn next(&mut self) -> Option<Result<R>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(
            self.input
                .read_exact(&mut self.buf)
                .map(|()| R::get(&self.buf))
                .map_err(|e| io_error(&self.path, "cannot read", e)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::records::BandRec;
    use super::*;

    #[test]
    fn finds_every_key_and_no_other() {
        let dir = std::env::temp_dir().join(format!("txtfp-table-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for n in [0usize, 1, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 17] {
            let path = dir.join(format!("t{n}.tab"));
            let recs: Vec<BandRec> = (0..n as u64)
                .map(|i| BandRec {
                    key: i * 3 + 1,
                    pos: i as u32,
                })
                .collect();
            assert_eq!(
                write_table(&path, recs.iter().copied().map(Ok)).unwrap(),
                n as u64
            );
            let mut t = Table::<BandRec>::open(&path).unwrap();
            assert_eq!(t.len(), n as u64);
            for k in 0..(n as u64 * 3 + 3) {
                let want = (k % 3 == 1 && k / 3 < n as u64).then(|| recs[(k / 3) as usize]);
                assert_eq!(t.find(k).unwrap(), want, "n {n} key {k}");
            }
            // Descending lookups read other blocks than the cached one.
            for r in recs.iter().rev().step_by(97) {
                assert_eq!(t.find(r.key).unwrap(), Some(*r));
            }
            let scanned: Vec<BandRec> = Table::scan(&path).unwrap().collect::<Result<_>>().unwrap();
            assert_eq!(scanned, recs);
        }
        // Out of order input is refused and leaves no file.
        let bad = dir.join("bad.tab");
        let recs = [BandRec { key: 5, pos: 0 }, BandRec { key: 5, pos: 1 }];
        assert!(matches!(
            write_table(&bad, recs.into_iter().map(Ok)),
            Err(Error::Corrupt(_))
        ));
        assert!(!bad.exists());
        // A truncated table is a Corrupt error.
        let path = dir.join(format!("t{}.tab", BLOCK + 1));
        let len = std::fs::metadata(&path).unwrap().len();
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(len - 1).unwrap();
        assert!(matches!(
            Table::<BandRec>::open(&path),
            Err(Error::Corrupt(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
