//! Segments: the embedded store's lookup tables as immutable sorted runs,
//! read through a memory map.
//!
//! A segment holds, for each tag (the id table, the chunk table, each
//! SimHash table, each MinHash band), two sorted runs of entries
//! `key << 32 | doc`: the members it adds and the members it removes (a
//! removal in a newer segment hides an addition in an older one). Keys are
//! 32-bit digests of the real lookup keys; the backend checks every member
//! it returns against the real key, so a digest collision costs a read,
//! never a wrong answer.
//!
//! Layout (`TXFSEG03`): `magic (8) | tags (4) | per tag: adds (8), bytes of
//! the adds (8), removes (8), CRC-32 of the adds and removes (4), CRC-32 of
//! the directory (4) | filter blocks (8) | CRC-32 of the filter (4) | CRC-32
//! of the header (4)`, then per tag its adds in bit-packed blocks of
//! [`BLOCK`] (`packed.rs`), its removes as plain words and its directory
//! (per block: its first key and its offset, 4 bytes each), then the Bloom
//! filter of every `(tag, key)` added (`bloom.rs`), all little-endian.
//! Opening checks the header, the file's length and the checksums of the
//! directories (which a lookup trusts to find a block) and of the filter
//! (a bit lost from it would hide members); [`Segment::read_tag`] checks a
//! tag's entries (merges read whole tags). Segments of the earlier
//! formats are still read: `TXFSEG02` (adds as plain words, a directory of
//! first keys outside the checksums, used as a hint) and `TXFSEG01` (the
//! same without a filter).

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

use super::{bloom, packed};

const MAGIC: &[u8; 8] = b"TXFSEG03";
/// The second format: plain entries.
const MAGIC_V2: &[u8; 8] = b"TXFSEG02";
/// The first format: plain entries, no filter.
const MAGIC_V1: &[u8; 8] = b"TXFSEG01";

/// A segment file's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    V1,
    V2,
    /// Bit-packed adds, checksummed directories: what is written.
    V3,
}

impl Format {
    fn filter(self) -> bool {
        self != Self::V1
    }

    /// Header bytes per tag.
    fn fields(self) -> usize {
        if self == Self::V3 { 32 } else { 20 }
    }
}
/// Adds per directory entry.
pub(crate) const BLOCK: usize = 64;

/// One tag's entries, sorted and without repeats.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TagRuns {
    pub adds: Vec<u64>,
    pub removes: Vec<u64>,
}

/// An entry: `key << 32 | doc`.
pub(crate) fn entry(key: u32, doc: u32) -> u64 {
    (u64::from(key) << 32) | u64::from(doc)
}

/// A segment's bytes: mapped from its file, or held in memory (the fuzz
/// target reads segments without files).
enum Bytes {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl core::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Self::Map(m) => m,
            Self::Owned(v) => v,
        }
    }
}

/// An opened segment.
pub(crate) struct Segment {
    path: PathBuf,
    map: Bytes,
    tags: Vec<Section>,
    entries: u64,
    /// Where the filter starts and its blocks; `None` in a first-format
    /// segment.
    bloom: Option<(usize, usize)>,
}

struct Section {
    adds_at: usize,
    adds: usize,
    removes_at: usize,
    removes: usize,
    crc: u32,
    /// The key of every `BLOCK`-th add: the first key of each block.
    dir: Vec<u32>,
    /// Where each block starts, from `adds_at`, when the adds are packed
    /// (empty in the earlier formats' plain words).
    offsets: Vec<u32>,
}

fn corrupt(path: &Path, what: &str) -> Error {
    Error::Corrupt(format!("{}: damaged store segment: {what}", path.display()))
}

fn io(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::Io(std::io::Error::new(
        e.kind(),
        format!("{}: {what}: {e}", path.display()),
    ))
}

pub(crate) fn header_len(tags: usize, format: Format) -> usize {
    8 + 4 + tags * format.fields() + if format.filter() { 12 } else { 0 } + 4
}

/// Writes `tags` as a segment at `path` (under a temporary name, synced,
/// then renamed). Returns the number of entries.
#[cfg(test)]
pub(crate) fn write(path: &Path, tags: &[TagRuns]) -> Result<u64> {
    write_streamed(path, tags.len(), &mut |t| Ok(Cow::Borrowed(&tags[t])))
}

/// Writes a segment of `tags` tags at `path`, asking `next` for each tag's
/// runs in order: a merge holds one tag in memory, never the whole
/// segment. An error from `next` abandons the file. Returns the number of
/// entries.
pub(crate) fn write_streamed<'a>(
    path: &Path,
    tags: usize,
    next: &mut dyn FnMut(usize) -> Result<Cow<'a, TagRuns>>,
) -> Result<u64> {
    let tmp = path.with_extension("tmp");
    let result = stream(&tmp, path, tags, next);
    match result {
        Ok(n) => {
            std::fs::rename(&tmp, path).map_err(|e| io(path, "cannot rename into place", e))?;
            Ok(n)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

fn stream<'a>(
    tmp: &Path,
    path: &Path,
    tags: usize,
    next: &mut dyn FnMut(usize) -> Result<Cow<'a, TagRuns>>,
) -> Result<u64> {
    let fail = |e: std::io::Error| io(path, "cannot write", e);
    // Read as well: the filter is built from the entries written.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(tmp)
        .map_err(fail)?;
    let mut out = BufWriter::with_capacity(1 << 20, &file);
    // The header goes first but is known last: a placeholder now.
    let head_len = header_len(tags, Format::V3);
    out.write_all(&vec![0u8; head_len]).map_err(fail)?;
    let mut head = Vec::with_capacity(head_len);
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&(tags as u32).to_le_bytes());
    // Where each tag's adds start, and their blocks: the filter is built
    // from them once the distinct keys are counted.
    let mut sections: Vec<(u64, usize, Vec<u32>, u64)> = Vec::with_capacity(tags);
    let (mut at, mut entries, mut distinct) = (head_len as u64, 0u64, 0usize);
    let mut block = Vec::with_capacity(BLOCK * 8 + 16);
    for t in 0..tags {
        let runs = next(t)?;
        let mut crc = crc32fast::Hasher::new();
        let mut offsets = Vec::with_capacity(runs.adds.len().div_ceil(BLOCK));
        let mut dir = Vec::with_capacity(offsets.capacity() * 8);
        let mut packed_len = 0u64;
        for chunk in runs.adds.chunks(BLOCK) {
            let offset = u32::try_from(packed_len).map_err(|_| {
                Error::Store(format!(
                    "{}: table {t} of the segment is over 4 GiB",
                    path.display()
                ))
            })?;
            offsets.push(offset);
            dir.extend_from_slice(&((chunk[0] >> 32) as u32).to_le_bytes());
            dir.extend_from_slice(&offset.to_le_bytes());
            block.clear();
            packed::encode(chunk, &mut block);
            crc.update(&block);
            out.write_all(&block).map_err(fail)?;
            packed_len += block.len() as u64;
        }
        for chunk in runs.removes.chunks(BLOCK) {
            block.clear();
            for e in chunk {
                block.extend_from_slice(&e.to_le_bytes());
            }
            crc.update(&block);
            out.write_all(&block).map_err(fail)?;
        }
        out.write_all(&dir).map_err(fail)?;
        let mut last = None;
        distinct += runs
            .adds
            .iter()
            .filter(|&&e| last.replace(e >> 32) != Some(e >> 32))
            .count();
        head.extend_from_slice(&(runs.adds.len() as u64).to_le_bytes());
        head.extend_from_slice(&packed_len.to_le_bytes());
        head.extend_from_slice(&(runs.removes.len() as u64).to_le_bytes());
        head.extend_from_slice(&crc.finalize().to_le_bytes());
        head.extend_from_slice(&crc32fast::hash(&dir).to_le_bytes());
        sections.push((at, runs.adds.len(), offsets, packed_len));
        entries += (runs.adds.len() + runs.removes.len()) as u64;
        at += packed_len + runs.removes.len() as u64 * 8 + dir.len() as u64;
    }
    out.flush().map_err(fail)?;
    // The filter, from the adds just written (read back from the page
    // cache, 64 blocks at a time: no copy of the keys in memory).
    let blocks = bloom::blocks_for(distinct);
    let mut filter = bloom::Filter::new(blocks);
    let (mut buf, mut decoded) = (Vec::new(), Vec::with_capacity(BLOCK));
    let back = |e| io(path, "cannot read back", e);
    for (t, (from, adds, offsets, len)) in sections.iter().enumerate() {
        for (g, group) in offsets.chunks(64).enumerate() {
            let start = u64::from(group[0]);
            let end = offsets.get((g + 1) * 64).map_or(*len, |&o| u64::from(o));
            buf.resize((end - start) as usize, 0);
            file.read_exact_at(&mut buf, from + start).map_err(back)?;
            for (i, &o) in group.iter().enumerate() {
                let b = g * 64 + i;
                let n = (adds - b * BLOCK).min(BLOCK);
                let rel = (u64::from(o) - start) as usize;
                let ok = buf
                    .get(rel..)
                    .and_then(|bytes| packed::decode(bytes, n, &mut decoded));
                if ok.is_none() {
                    return Err(corrupt(path, "a block just written does not read back"));
                }
                for e in &decoded {
                    filter.insert(t, (e >> 32) as u32);
                }
            }
        }
    }
    let mut filter_crc = crc32fast::Hasher::new();
    for w in filter.words() {
        let b = w.to_le_bytes();
        filter_crc.update(&b);
        out.write_all(&b).map_err(fail)?;
    }
    head.extend_from_slice(&(blocks as u64).to_le_bytes());
    head.extend_from_slice(&filter_crc.finalize().to_le_bytes());
    let crc = crc32fast::hash(&head);
    head.extend_from_slice(&crc.to_le_bytes());
    out.flush().map_err(fail)?;
    drop(out);
    file.write_all_at(&head, 0).map_err(fail)?;
    file.sync_all().map_err(fail)?;
    Ok(entries)
}

impl Segment {
    /// Maps the segment at `path`, checking its header and length.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming the file when the header, its checksum or
    /// the length is wrong; [`Error::Io`].
    pub(crate) fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| io(path, "cannot open", e))?;
        // SAFETY: the map is read-only and owned by the segment. Segments
        // are written under a temporary name, synced, renamed into place
        // and never modified; a merge removes a segment file only after the
        // store (which holds the only handles, under its lock file) has
        // dropped it. Every read through the map is bounds-checked.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| io(path, "cannot map", e))?;
        Self::parse(path, Bytes::Map(map))
    }

    /// A segment from its bytes in memory; `path` names it in errors.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open), but for I/O.
    pub(crate) fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<Self> {
        Self::parse(path, Bytes::Owned(bytes))
    }

    fn parse(path: &Path, map: Bytes) -> Result<Self> {
        let bytes: &[u8] = &map;
        let word = |at: usize| -> Option<u32> {
            Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        let long = |at: usize| -> Option<u64> {
            Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
        };
        let format = match bytes.get(..8) {
            Some(m) if m == MAGIC.as_slice() => Format::V3,
            Some(m) if m == MAGIC_V2.as_slice() => Format::V2,
            Some(m) if m == MAGIC_V1.as_slice() => Format::V1,
            _ => return Err(corrupt(path, "not a segment")),
        };
        let filtered = format.filter();
        let n = word(8).ok_or_else(|| corrupt(path, "short header"))? as usize;
        if n > 1 << 16 {
            return Err(corrupt(path, "tag count"));
        }
        let head = header_len(n, format);
        let crc = word(head - 4).ok_or_else(|| corrupt(path, "short header"))?;
        if bytes.get(..head - 4).map(crc32fast::hash) != Some(crc) {
            return Err(corrupt(path, "header checksum"));
        }
        let mut tags = Vec::with_capacity(n);
        let mut at = head;
        let mut entries = 0u64;
        let length = || corrupt(path, "length");
        for t in 0..n {
            let base = 12 + t * format.fields();
            let fields = if format == Format::V3 {
                (|| {
                    Some((
                        long(base)?,
                        long(base + 8)?,
                        long(base + 16)?,
                        word(base + 24)?,
                    ))
                })()
            } else {
                (|| {
                    let adds = long(base)?;
                    Some((
                        adds,
                        adds.checked_mul(8)?,
                        long(base + 8)?,
                        word(base + 16)?,
                    ))
                })()
            };
            let Some((adds, adds_len, removes, crc)) = fields else {
                return Err(corrupt(path, "short header"));
            };
            let (Ok(adds), Ok(adds_len), Ok(removes)) = (
                usize::try_from(adds),
                usize::try_from(adds_len),
                usize::try_from(removes),
            ) else {
                return Err(corrupt(path, "sizes"));
            };
            let blocks = adds.div_ceil(BLOCK);
            let removes_at = at.checked_add(adds_len).ok_or_else(length)?;
            let dir_at = removes
                .checked_mul(8)
                .and_then(|b| b.checked_add(removes_at))
                .filter(|&d| d <= bytes.len())
                .ok_or_else(length)?;
            let per_block = if format == Format::V3 { 8 } else { 4 };
            let end = blocks
                .checked_mul(per_block)
                .and_then(|b| b.checked_add(dir_at))
                .filter(|&e| e <= bytes.len())
                .ok_or_else(length)?;
            let raw = &bytes[dir_at..end];
            let mut offsets = Vec::new();
            let dir: Vec<u32> = if format == Format::V3 {
                if word(base + 28) != Some(crc32fast::hash(raw)) {
                    return Err(corrupt(
                        path,
                        &format!("checksum of the directory of table {t}"),
                    ));
                }
                offsets = raw
                    .chunks_exact(8)
                    .map(|c| u32::from_le_bytes([c[4], c[5], c[6], c[7]]))
                    .collect();
                // Offsets rise from 0 within the adds: a block's end is
                // where the next starts.
                let rising = offsets.first().is_none_or(|&o| o == 0)
                    && offsets.windows(2).all(|w| w[0] < w[1])
                    && offsets.last().is_none_or(|&o| (o as usize) < adds_len);
                if !rising || (blocks == 0 && adds_len != 0) {
                    return Err(corrupt(path, &format!("directory of table {t}")));
                }
                raw.chunks_exact(8)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            } else {
                raw.chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            };
            tags.push(Section {
                adds_at: at,
                adds,
                removes_at,
                removes,
                crc,
                dir,
                offsets,
            });
            entries += (adds + removes) as u64;
            at = end;
        }
        let mut bloom = None;
        if filtered {
            let base = 12 + n * format.fields();
            let (Some(blocks), Some(crc)) = (long(base), word(base + 8)) else {
                return Err(corrupt(path, "short header"));
            };
            let end = usize::try_from(blocks)
                .ok()
                .and_then(|b| b.checked_mul(bloom::BLOCK_BYTES))
                .and_then(|b| b.checked_add(at))
                .filter(|&e| e <= bytes.len())
                .ok_or_else(|| corrupt(path, "length"))?;
            if crc32fast::hash(&bytes[at..end]) != crc {
                return Err(corrupt(path, "checksum of the key filter"));
            }
            bloom = Some((at, (end - at) / bloom::BLOCK_BYTES));
            at = end;
        }
        if at != bytes.len() {
            return Err(corrupt(path, "length"));
        }
        Ok(Self {
            path: path.to_path_buf(),
            map,
            tags,
            entries,
            bloom,
        })
    }

    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Adds and removes held.
    pub(crate) fn entries(&self) -> u64 {
        self.entries
    }

    /// Tags held.
    pub(crate) fn tags(&self) -> usize {
        self.tags.len()
    }

    fn at(&self, offset: usize) -> u64 {
        self.map
            .get(offset..offset + 8)
            .and_then(|b| b.try_into().ok())
            .map_or(u64::MAX, u64::from_le_bytes)
    }

    /// Whether `tag` may hold additions under `key`: false means it holds
    /// none (the filter has no false negatives); a first-format segment
    /// always answers true.
    pub(crate) fn may_hold(&self, tag: usize, key: u32) -> bool {
        match self.bloom {
            None => true,
            Some((at, blocks)) => bloom::may_hold(blocks, tag, key, |i| self.at(at + i * 8)),
        }
    }

    /// Appends to `out` the first `most` docs added under `key` in `tag`,
    /// ascending.
    pub(crate) fn adds(&self, tag: usize, key: u32, most: usize, out: &mut Vec<u32>) {
        let Some(s) = self.tags.get(tag) else { return };
        if s.adds > 0 && !s.offsets.is_empty() {
            return self.packed_adds(s, key, most, out);
        }
        let mut left = most;
        // The first block whose first key is at or past `key`; the run of
        // `key` may start in the block before it.
        let next = s.dir.partition_point(|&k| k < key);
        // The first entry at or past `key` is in block `next - 1` or is the
        // first of block `next`: a binary search over that one block.
        let key_at = |i: usize| (self.at(s.adds_at + i * 8) >> 32) as u32;
        let first_at_or_past = |mut lo: usize, mut hi: usize| {
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if key_at(mid) < key {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        let mut lo = first_at_or_past(next.saturating_sub(1) * BLOCK, (next * BLOCK).min(s.adds));
        // The directory is not under the tables' checksums: when the entry
        // before the one it led to is not below `key` (a damaged
        // directory), search the whole run instead of answering wrong.
        if lo > 0 && key_at(lo - 1) >= key || lo < s.adds && key_at(lo) < key {
            lo = first_at_or_past(0, s.adds);
        }
        let mut i = lo;
        while i < s.adds {
            let e = self.at(s.adds_at + i * 8);
            let k = (e >> 32) as u32;
            if k > key {
                break;
            }
            if k == key {
                if left == 0 {
                    break;
                }
                out.push(e as u32);
                left -= 1;
            }
            i += 1;
        }
    }

    /// [`adds`](Self::adds) from packed blocks: from the block before the
    /// first whose first key is past `key` (the run of `key` may start
    /// there), block after block while they may hold it. A block that does
    /// not decode (damaged since the segment was opened) ends the lookup.
    fn packed_adds(&self, s: &Section, key: u32, most: usize, out: &mut Vec<u32>) {
        let mut left = most;
        let mut b = s.dir.partition_point(|&k| k < key).saturating_sub(1);
        while let (Some(&first), Some(&from)) = (s.dir.get(b), s.offsets.get(b)) {
            if first > key || left == 0 {
                return;
            }
            let to = s
                .offsets
                .get(b + 1)
                .map_or(s.removes_at, |&o| s.adds_at + o as usize);
            let n = (s.adds - b * BLOCK).min(BLOCK);
            let Some(block) = self
                .map
                .get(s.adds_at + from as usize..to)
                .and_then(|bytes| packed::Entries::new(bytes, n))
            else {
                return;
            };
            for e in block {
                let Some(e) = e else { return };
                let k = (e >> 32) as u32;
                if k > key || left == 0 {
                    return;
                }
                if k == key {
                    out.push(e as u32);
                    left -= 1;
                }
            }
            b += 1;
        }
    }

    /// The first key of each block of `tag`'s additions.
    pub(crate) fn block_keys(&self, tag: usize) -> &[u32] {
        self.tags.get(tag).map_or(&[], |s| &s.dir)
    }

    /// How many removals `tag` holds.
    pub(crate) fn removes_in(&self, tag: usize) -> usize {
        self.tags.get(tag).map_or(0, |s| s.removes)
    }

    /// Whether this segment removes `doc` from `key` in `tag`.
    pub(crate) fn removes(&self, tag: usize, key: u32, doc: u32) -> bool {
        let Some(s) = self.tags.get(tag) else {
            return false;
        };
        let want = entry(key, doc);
        let (mut lo, mut hi) = (0usize, s.removes);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.at(s.removes_at + mid * 8).cmp(&want) {
                core::cmp::Ordering::Less => lo = mid + 1,
                core::cmp::Ordering::Greater => hi = mid,
                core::cmp::Ordering::Equal => return true,
            }
        }
        false
    }

    /// One tag's entries, read whole and checked against its checksum.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] naming the file on a checksum mismatch.
    pub(crate) fn read_tag(&self, tag: usize) -> Result<TagRuns> {
        let Some(s) = self.tags.get(tag) else {
            return Ok(TagRuns::default());
        };
        let bytes = self
            .map
            .get(s.adds_at..s.removes_at + s.removes * 8)
            .ok_or_else(|| corrupt(&self.path, "length"))?;
        if crc32fast::hash(bytes) != s.crc {
            return Err(corrupt(&self.path, &format!("checksum of table {tag}")));
        }
        let words = |b: &[u8]| -> Vec<u64> {
            b.chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0xff; 8])))
                .collect()
        };
        let (packed, plain) = bytes.split_at(s.removes_at - s.adds_at);
        if s.offsets.is_empty() {
            return Ok(TagRuns {
                adds: words(packed),
                removes: words(plain),
            });
        }
        let mut adds = Vec::with_capacity(s.adds);
        let mut decoded = Vec::with_capacity(BLOCK);
        let mut at = 0usize;
        for b in 0..s.offsets.len() {
            let n = (s.adds - b * BLOCK).min(BLOCK);
            let len = packed
                .get(at..)
                .and_then(|rest| packed::decode(rest, n, &mut decoded))
                .filter(|_| s.offsets[b] as usize == at)
                .ok_or_else(|| corrupt(&self.path, &format!("block {b} of table {tag}")))?;
            adds.extend_from_slice(&decoded);
            at += len;
        }
        if at != packed.len() {
            return Err(corrupt(&self.path, &format!("length of table {tag}")));
        }
        Ok(TagRuns {
            adds,
            removes: words(plain),
        })
    }

    /// Checks every tag's checksum.
    ///
    /// # Errors
    ///
    /// As [`read_tag`](Self::read_tag).
    #[cfg(test)]
    pub(crate) fn verify(&self) -> Result<()> {
        for t in 0..self.tags.len() {
            self.read_tag(t)?;
        }
        Ok(())
    }
}

/// Merges the runs of one tag from several segments (oldest first) and the
/// newest runs `top`: an add and the remove of the same entry cancel; the
/// removes left are kept unless `bottom` (nothing older can hold what they
/// remove).
pub(crate) fn merge_tag(parts: Vec<TagRuns>, bottom: bool) -> TagRuns {
    let mut adds: Vec<u64> = Vec::new();
    let mut removes: Vec<u64> = Vec::new();
    for p in parts {
        adds = union(&adds, &p.adds);
        removes = union(&removes, &p.removes);
    }
    let kept = difference(&adds, &removes);
    let removes = if bottom {
        Vec::new()
    } else {
        difference(&removes, &adds)
    };
    TagRuns {
        adds: kept,
        removes,
    }
}

fn union(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            core::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            core::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            core::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

fn difference(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len());
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j >= b.len() || b[j] != x {
            out.push(x);
        }
    }
    out
}

/// `tags` in the second format: plain entries, a directory of first
/// keys, a filter.
#[cfg(test)]
pub(crate) fn second_format(tags: &[TagRuns]) -> Vec<u8> {
    let keys = || {
        tags.iter()
            .enumerate()
            .flat_map(|(t, r)| r.adds.iter().map(move |e| (t, (e >> 32) as u32)))
    };
    let mut distinct: Vec<(usize, u32)> = keys().collect();
    distinct.dedup();
    let blocks = bloom::blocks_for(distinct.len());
    let filter = bloom::build(keys(), blocks);
    let filter_bytes: Vec<u8> = filter.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC_V2);
    out.extend_from_slice(&(tags.len() as u32).to_le_bytes());
    let mut body = Vec::new();
    for t in tags {
        let mut section = Vec::new();
        for e in t.adds.iter().chain(&t.removes) {
            section.extend_from_slice(&e.to_le_bytes());
        }
        out.extend_from_slice(&(t.adds.len() as u64).to_le_bytes());
        out.extend_from_slice(&(t.removes.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&section).to_le_bytes());
        body.extend_from_slice(&section);
        for e in t.adds.iter().step_by(BLOCK) {
            body.extend_from_slice(&((e >> 32) as u32).to_le_bytes());
        }
    }
    out.extend_from_slice(&(blocks as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&filter_bytes).to_le_bytes());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(&filter_bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("txtfp-seg-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn runs(entries: &BTreeSet<u64>, removes: &BTreeSet<u64>) -> TagRuns {
        TagRuns {
            adds: entries.iter().copied().collect(),
            removes: removes.iter().copied().collect(),
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Lookups against a filter over the entries.
        #[test]
        fn lookups_equal_a_scan(
            raw in proptest::collection::vec((0u32..40, 0u32..500), 0..2000),
            gone in proptest::collection::vec((0u32..40, 0u32..500), 0..50),
        ) {
            let d = dir(&format!("p{}", raw.len()));
            let adds: BTreeSet<u64> = raw.iter().map(|&(k, v)| entry(k, v)).collect();
            let removes: BTreeSet<u64> = gone.iter().map(|&(k, v)| entry(k, v)).collect();
            let path = d.join("a.seg");
            let n = write(&path, &[runs(&adds, &removes), TagRuns::default()]).unwrap();
            proptest::prop_assert_eq!(n, (adds.len() + removes.len()) as u64);
            let s = Segment::open(&path).unwrap();
            s.verify().unwrap();
            for key in 0..41u32 {
                let mut got = Vec::new();
                s.adds(0, key, usize::MAX, &mut got);
                let mut first = Vec::new();
                s.adds(0, key, 3, &mut first);
                proptest::prop_assert_eq!(&first[..], &got[..got.len().min(3)]);
                let want: Vec<u32> = adds.iter().filter(|e| (*e >> 32) as u32 == key).map(|e| *e as u32).collect();
                // The filter never hides a key the tag holds.
                proptest::prop_assert!(want.is_empty() || s.may_hold(0, key));
                proptest::prop_assert_eq!(got, want);
                let mut none = Vec::new();
                s.adds(1, key, usize::MAX, &mut none);
                s.adds(7, key, usize::MAX, &mut none);
                proptest::prop_assert!(none.is_empty());
            }
            for &(k, v) in gone.iter().chain(raw.iter().take(20)) {
                proptest::prop_assert_eq!(s.removes(0, k, v), removes.contains(&entry(k, v)));
            }
            proptest::prop_assert_eq!(s.read_tag(0).unwrap(), runs(&adds, &removes));
        }

        /// Merging: what survives is the adds of all parts minus the
        /// removes of all parts.
        #[test]
        fn merges_cancel_adds_and_removes(
            a in proptest::collection::btree_set(0u64..300, 0..100),
            b in proptest::collection::btree_set(0u64..300, 0..100),
            ra in proptest::collection::btree_set(0u64..300, 0..30),
            rb in proptest::collection::btree_set(0u64..300, 0..30),
            bottom in proptest::bool::ANY,
        ) {
            let m = merge_tag(vec![runs(&a, &ra), runs(&b, &rb)], bottom);
            let all: BTreeSet<u64> = a.union(&b).copied().collect();
            let gone: BTreeSet<u64> = ra.union(&rb).copied().collect();
            let want: Vec<u64> = all.difference(&gone).copied().collect();
            proptest::prop_assert_eq!(&m.adds, &want);
            let left: Vec<u64> = if bottom { Vec::new() } else { gone.difference(&all).copied().collect() };
            proptest::prop_assert_eq!(&m.removes, &left);
        }
    }

    #[test]
    fn damage_is_a_corrupt_error_naming_the_file() {
        let d = dir("damage");
        let path = d.join("b.seg");
        let adds: BTreeSet<u64> = (0..1000u64)
            .map(|i| entry((i % 97) as u32, i as u32))
            .collect();
        write(&path, &[runs(&adds, &BTreeSet::new())]).unwrap();
        let good = std::fs::read(&path).unwrap();
        // Header bytes: refused at open.
        for at in [0usize, 9, 14, 30] {
            let mut bad = good.clone();
            bad[at] ^= 0x10;
            std::fs::write(&path, &bad).unwrap();
            let e = Segment::open(&path).err().unwrap().to_string();
            assert!(e.contains("b.seg"), "{e}");
        }
        // Truncated: refused at open.
        std::fs::write(&path, &good[..good.len() - 3]).unwrap();
        assert!(Segment::open(&path).is_err());
        // A body byte: found by the checksum.
        let mut bad = good.clone();
        bad[200] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        let s = Segment::open(&path).unwrap();
        assert!(s.verify().unwrap_err().to_string().contains("checksum"));
    }

    /// Segments of the earlier formats (plain entries; the first without
    /// a key filter) are read, and answer every lookup as the packed one.
    #[test]
    fn earlier_formats_are_read_and_answer_the_same() {
        let d = dir("v1");
        let adds: BTreeSet<u64> = (0..3000u64)
            .map(|i| entry((i * 7 % 301) as u32, i as u32))
            .collect();
        let removes: BTreeSet<u64> = (0..40u64)
            .map(|i| entry(i as u32, 5000 + i as u32))
            .collect();
        let tags = [runs(&adds, &removes), TagRuns::default()];
        let path = d.join("a.seg");
        write(&path, &tags).unwrap();
        let v2 = second_format(&tags);
        // The same segment in the first format: its magic, no filter
        // fields in the header, no filter after the tags.
        let n = 2;
        let fields = 12 + n * 20;
        let blocks = u64::from_le_bytes(v2[fields..fields + 8].try_into().unwrap()) as usize;
        assert!(blocks > 0);
        let mut v1 = Vec::new();
        v1.extend_from_slice(MAGIC_V1);
        v1.extend_from_slice(&v2[8..fields]);
        let crc = crc32fast::hash(&v1);
        v1.extend_from_slice(&crc.to_le_bytes());
        v1.extend_from_slice(&v2[header_len(n, Format::V2)..v2.len() - blocks * 64]);
        let first = Segment::from_bytes(&path, v1).unwrap();
        let second = Segment::from_bytes(&path, v2.clone()).unwrap();
        let new = Segment::open(&path).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() * 3 < v2.len() as u64 * 2);
        for old in [&first, &second] {
            old.verify().unwrap();
            assert_eq!(old.read_tag(0).unwrap(), new.read_tag(0).unwrap());
            for key in 0..310u32 {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                old.adds(0, key, usize::MAX, &mut a);
                new.adds(0, key, usize::MAX, &mut b);
                assert_eq!(a, b, "key {key}");
                assert!(b.is_empty() || new.may_hold(0, key));
                assert_eq!(
                    old.removes(0, key, 5000 + key),
                    new.removes(0, key, 5000 + key)
                );
            }
        }
        assert!(first.may_hold(0, 1) && first.may_hold(1, 1));
        // Few absent keys pass the new segment's filter.
        let passed = (1000..11_000u32).filter(|&k| new.may_hold(0, k)).count();
        assert!(passed < 1000, "{passed}");
        // A flipped filter bit is a damaged segment, in either format.
        let good = std::fs::read(&path).unwrap();
        for bytes in [v2, good.clone()] {
            let mut bad = bytes;
            let last = bad.len() - 3;
            bad[last] ^= 0x10;
            let e = Segment::from_bytes(&path, bad).err().unwrap().to_string();
            assert!(e.contains("key filter"), "{e}");
        }
        // So is a flipped directory byte (a lookup trusts the directory).
        let dir_at = good.len() - blocks * 64 - 8;
        let mut bad = good;
        bad[dir_at] ^= 0x01;
        let e = Segment::from_bytes(&path, bad).err().unwrap().to_string();
        assert!(e.contains("directory"), "{e}");
    }
}
