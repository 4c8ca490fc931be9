//! The embedded store's file readers on bytes in memory, for the fuzz
//! targets: the same code that opens a store, without the files, the lock
//! and the fsyncs around it, so that a fuzzer runs it millions of times.
//! Not a stable API.

use std::path::Path;

use super::Op;
use super::apply::read_op;
use super::codec::Strings;
use super::log::{Scan, next_valid_frame, scan, torn_tail};
use super::segment::Segment;
use crate::Result;

/// What [`log`] read.
#[derive(Debug, Default)]
pub struct LogScan {
    /// Offset and length of every whole frame's payload, in order.
    pub frames: Vec<(u64, usize)>,
    /// Operations decoded from them.
    pub ops: usize,
    /// Where the first damaged frame starts, if any.
    pub damaged_at: Option<u64>,
    /// The first valid frame after the damage: opening such a log is an
    /// error.
    pub valid_after: Option<u64>,
    /// The damage is what an interrupted commit leaves (nothing valid
    /// after it, and a header cut short or one whose frame reaches the
    /// end): opening cuts it off. Other damage is an error.
    pub torn: bool,
}

/// Reads `bytes` as a whole document log, as opening a store does: every
/// frame, every operation, every document record (with the string
/// dictionary the log defines as it goes).
///
/// # Errors
///
/// [`Error::Corrupt`](crate::Error::Corrupt) for an operation or record
/// that does not decode.
pub fn log(bytes: &[u8]) -> Result<LogScan> {
    let name = Path::new("store.log");
    let mut out = LogScan::default();
    let mut strings = Strings::new();
    let len = bytes.len() as u64;
    let mut each = |at: u64, payload: &[u8]| -> Result<()> {
        out.frames.push((at, payload.len()));
        let mut i = 0;
        while i < payload.len() {
            let (op, _) = read_op(payload, &mut i, at, &strings, name)?;
            if let Op::Def(id, text) = op {
                strings.define(id, text)?;
            }
            out.ops += 1;
        }
        Ok(())
    };
    let damaged = scan(&mut &bytes[..], 0, len, &mut each).map_err(|e| match e {
        Scan::Read(e) => crate::Error::Io(e),
        Scan::Each(e) => e,
    })?;
    out.damaged_at = damaged;
    out.valid_after = damaged.and_then(|bad| next_valid_frame(bytes, bad + 1, len));
    out.torn = out.valid_after.is_none() && damaged.is_some_and(|bad| torn_tail(bytes, bad, len));
    Ok(out)
}

/// One tag of a segment, as [`segment`] read it.
#[derive(Debug, Default)]
pub struct SegmentTag {
    /// Its additions, `key << 32 | doc`, as stored.
    pub adds: Vec<u64>,
    /// Its removals.
    pub removes: Vec<u64>,
    /// For each distinct key of `adds` (when `adds` is sorted), the docs
    /// the lookup returns for it.
    pub lookups: Vec<(u32, Vec<u32>)>,
    /// For each removal (when `removes` is sorted), whether the lookup
    /// finds it.
    pub found_removes: Vec<bool>,
    /// Keys of `adds` that the segment's key filter says it does not hold
    /// (a filter must never say so).
    pub filtered_out: Vec<u32>,
}

/// Reads `bytes` as a segment, as opening a store does, then every tag
/// whole (checking its checksum) and, for every key it holds, through the
/// block directory the store's lookups use. A tag that fails its checksum
/// is still looked up (around every block's first key) before the error
/// is returned.
///
/// # Errors
///
/// [`Error::Corrupt`](crate::Error::Corrupt) for a damaged header, length
/// or checksum.
pub fn segment(bytes: Vec<u8>) -> Result<Vec<SegmentTag>> {
    let seg = Segment::from_bytes(Path::new("seg-000000.seg"), bytes)?;
    let mut tags = Vec::with_capacity(seg.tags());
    for t in 0..seg.tags() {
        let runs = match seg.read_tag(t) {
            Ok(runs) => runs,
            Err(e) => {
                // The store looks tables up without checking their
                // checksums (a merge does): a damaged table must still
                // answer every lookup, right or wrong, without a panic.
                for &k in seg.block_keys(t) {
                    for key in [k.wrapping_sub(1), k, k.wrapping_add(1)] {
                        let mut docs = Vec::new();
                        seg.adds(t, key, usize::MAX, &mut docs);
                        seg.adds(t, key, 1, &mut docs);
                        let _ = seg.removes(t, key, docs.first().copied().unwrap_or(0));
                    }
                }
                return Err(e);
            }
        };
        let mut tag = SegmentTag::default();
        if runs.adds.is_sorted() {
            let mut keys: Vec<u32> = runs.adds.iter().map(|e| (e >> 32) as u32).collect();
            keys.dedup();
            for key in keys {
                if !seg.may_hold(t, key) {
                    tag.filtered_out.push(key);
                }
                let mut docs = Vec::new();
                seg.adds(t, key, usize::MAX, &mut docs);
                tag.lookups.push((key, docs));
            }
        }
        if runs.removes.is_sorted() {
            tag.found_removes = runs
                .removes
                .iter()
                .map(|&e| seg.removes(t, (e >> 32) as u32, e as u32))
                .collect();
        }
        tag.adds = runs.adds;
        tag.removes = runs.removes;
        tags.push(tag);
    }
    Ok(tags)
}
