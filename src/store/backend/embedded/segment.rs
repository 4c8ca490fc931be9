//! Segments: the embedded store's lookup tables as immutable sorted runs,
//! read through a memory map.
//!
//! A segment holds, for each tag (the id table, the chunk table, each
//! SimHash table, each MinHash band), two sorted arrays of entries
//! `key << 32 | doc`: the members it adds and the members it removes (a
//! removal in a newer segment hides an addition in an older one). Keys are
//! 32-bit digests of the real lookup keys; the backend checks every member
//! it returns against the real key, so a digest collision costs a read,
//! never a wrong answer.
//!
//! Layout: `magic (8) | tags (4) | per tag: adds (8), removes (8), CRC-32
//! of the tag's bytes (4) | filter blocks (8) | CRC-32 of the filter (4) |
//! CRC-32 of the header (4)`, then per tag its adds, its removes and its
//! directory (the key of every [`BLOCK`]-th add), then the Bloom filter of
//! every `(tag, key)` added (`bloom.rs`), all little-endian. Opening checks
//! the header, its checksum, the file's length and the filter's checksum
//! (a bit lost from the filter would hide members) and loads the
//! directories; [`Segment::verify`] checks every tag's checksum (merges
//! read whole sections and check them too). Segments of the first format
//! (`TXFSEG01`, no filter fields) are still read, without a filter.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

use super::bloom;

const MAGIC: &[u8; 8] = b"TXFSEG02";
/// The first format: no filter.
const MAGIC_V1: &[u8; 8] = b"TXFSEG01";
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
    /// The key of every `BLOCK`-th add.
    dir: Vec<u32>,
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

pub(crate) fn header_len(tags: usize, filter: bool) -> usize {
    8 + 4 + tags * 20 + if filter { 12 } else { 0 } + 4
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
    let head_len = header_len(tags, true);
    out.write_all(&vec![0u8; head_len]).map_err(fail)?;
    let mut head = Vec::with_capacity(head_len);
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&(tags as u32).to_le_bytes());
    // Where each tag's adds start, and how many there are: the filter is
    // built from them once the distinct keys are counted.
    let mut sections = Vec::with_capacity(tags);
    let (mut at, mut entries, mut distinct) = (head_len as u64, 0u64, 0usize);
    for t in 0..tags {
        let runs = next(t)?;
        let mut crc = crc32fast::Hasher::new();
        let mut bytes = Vec::with_capacity(BLOCK * 8);
        for chunk in runs.adds.chunks(BLOCK).chain(runs.removes.chunks(BLOCK)) {
            bytes.clear();
            for e in chunk {
                bytes.extend_from_slice(&e.to_le_bytes());
            }
            crc.update(&bytes);
            out.write_all(&bytes).map_err(fail)?;
        }
        for e in runs.adds.iter().step_by(BLOCK) {
            out.write_all(&((e >> 32) as u32).to_le_bytes())
                .map_err(fail)?;
        }
        let mut last = None;
        distinct += runs
            .adds
            .iter()
            .filter(|&&e| last.replace(e >> 32) != Some(e >> 32))
            .count();
        head.extend_from_slice(&(runs.adds.len() as u64).to_le_bytes());
        head.extend_from_slice(&(runs.removes.len() as u64).to_le_bytes());
        head.extend_from_slice(&crc.finalize().to_le_bytes());
        sections.push((at, runs.adds.len()));
        let n = (runs.adds.len() + runs.removes.len()) as u64;
        entries += n;
        at += n * 8 + runs.adds.len().div_ceil(BLOCK) as u64 * 4;
    }
    out.flush().map_err(fail)?;
    // The filter, from the adds just written (read back from the page
    // cache: one sequential pass, no copy of the keys in memory).
    let blocks = bloom::blocks_for(distinct);
    let mut filter = bloom::Filter::new(blocks);
    let mut buf = vec![0u8; BLOCK * 8 * 64];
    for (t, &(from, adds)) in sections.iter().enumerate() {
        let mut done = 0usize;
        while done < adds {
            let n = (adds - done).min(buf.len() / 8);
            file.read_exact_at(&mut buf[..n * 8], from + done as u64 * 8)
                .map_err(|e| io(path, "cannot read back", e))?;
            for c in buf[..n * 8].chunks_exact(8) {
                let e = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
                filter.insert(t, (e >> 32) as u32);
            }
            done += n;
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
        let filtered = match bytes.get(..8) {
            Some(m) if m == MAGIC.as_slice() => true,
            Some(m) if m == MAGIC_V1.as_slice() => false,
            _ => return Err(corrupt(path, "not a segment")),
        };
        let n = word(8).ok_or_else(|| corrupt(path, "short header"))? as usize;
        if n > 1 << 16 {
            return Err(corrupt(path, "tag count"));
        }
        let head = header_len(n, filtered);
        let crc = word(head - 4).ok_or_else(|| corrupt(path, "short header"))?;
        if bytes.get(..head - 4).map(crc32fast::hash) != Some(crc) {
            return Err(corrupt(path, "header checksum"));
        }
        let mut tags = Vec::with_capacity(n);
        let mut at = head;
        let mut entries = 0u64;
        for t in 0..n {
            let base = 12 + t * 20;
            let (adds, removes) = (long(base), long(base + 8));
            let crc = word(base + 16);
            let (Some(adds), Some(removes), Some(crc)) = (adds, removes, crc) else {
                return Err(corrupt(path, "short header"));
            };
            let (Ok(adds), Ok(removes)) = (usize::try_from(adds), usize::try_from(removes)) else {
                return Err(corrupt(path, "sizes"));
            };
            let blocks = adds.div_ceil(BLOCK);
            let dir_at = adds
                .checked_add(removes)
                .and_then(|e| e.checked_mul(8))
                .and_then(|b| b.checked_add(at))
                .filter(|&d| d <= bytes.len())
                .ok_or_else(|| corrupt(path, "length"))?;
            let end = blocks
                .checked_mul(4)
                .and_then(|b| b.checked_add(dir_at))
                .filter(|&e| e <= bytes.len())
                .ok_or_else(|| corrupt(path, "length"))?;
            let dir = bytes[dir_at..end]
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            tags.push(Section {
                adds_at: at,
                adds,
                removes_at: at + adds * 8,
                removes,
                crc,
                dir,
            });
            entries += (adds + removes) as u64;
            at = end;
        }
        let mut bloom = None;
        if filtered {
            let base = 12 + n * 20;
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
        let all: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0xff; 8])))
            .collect();
        let (adds, removes) = all.split_at(s.adds);
        Ok(TagRuns {
            adds: adds.to_vec(),
            removes: removes.to_vec(),
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

    /// A segment of the first format (no key filter) is read, and answers
    /// every lookup the same.
    #[test]
    fn first_format_segments_are_read_without_a_filter() {
        let d = dir("v1");
        let adds: BTreeSet<u64> = (0..3000u64)
            .map(|i| entry((i * 7 % 301) as u32, i as u32))
            .collect();
        let path = d.join("a.seg");
        write(&path, &[runs(&adds, &BTreeSet::new()), TagRuns::default()]).unwrap();
        let v2 = std::fs::read(&path).unwrap();
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
        v1.extend_from_slice(&v2[header_len(n, true)..v2.len() - blocks * 64]);
        let old = Segment::from_bytes(&path, v1).unwrap();
        let new = Segment::open(&path).unwrap();
        old.verify().unwrap();
        for key in 0..310u32 {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            old.adds(0, key, usize::MAX, &mut a);
            new.adds(0, key, usize::MAX, &mut b);
            assert_eq!(a, b, "key {key}");
            assert!(old.may_hold(0, key) && old.may_hold(1, key));
            assert!(b.is_empty() || new.may_hold(0, key));
        }
        // Few absent keys pass the new segment's filter.
        let passed = (1000..11_000u32).filter(|&k| new.may_hold(0, k)).count();
        assert!(passed < 1000, "{passed}");
        // A flipped filter bit is a damaged segment.
        let mut bad = v2.clone();
        let last = bad.len() - 3;
        bad[last] ^= 0x10;
        let e = Segment::from_bytes(&path, bad).err().unwrap().to_string();
        assert!(e.contains("key filter"), "{e}");
    }
}
