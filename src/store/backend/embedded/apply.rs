//! Reading a snapshot, turning the engine's writes into log operations,
//! committing them, replaying them, and checkpoints.

use std::collections::{BTreeMap, HashMap};
use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Strings;
use super::log::HEADER;
use super::segment::Segment;
use super::tables::Merge;
use super::{
    DOCS, FORMAT, Held, Hot, Inner, LOG_FILE, Layout, MANIFEST, Manifest, Op, Record, TAG_CHUNKS,
    TAG_IDS, bands_of, digest_chunk, digest_id, digest64, encode_doc, io, op_code, put_varint,
    simhash_of, unzigzag, varint, varint32, write_durable, zigzag,
};
use crate::store::backend::{ChunkOwner, Lookup, Snapshot, WriteOp, WriteSet};
use crate::store::records::{FingerprintRecord, StoredDocument};
use crate::{Error, Result};

/// Records the read cache holds at most.
const HOT_RECORDS: usize = 16_384;
/// Records held at most: a write set, like a frame, lists each document's
/// operations together, so a few suffice.
const HELD_RECORDS: usize = 64;

impl Inner {
    pub(super) fn log_end(&self) -> u64 {
        self.log
            .as_ref()
            .map_or(self.replayed_to, super::log::Log::end)
    }

    fn layout(&self) -> Result<&Layout> {
        self.layout.as_ref().ok_or_else(|| {
            Error::Store("embedded store: used before its parameters were set".into())
        })
    }

    /// Starts a commit.
    pub(super) fn begin(&mut self) {
        self.pending.clear();
        self.pending_at = self.log_end() + HEADER;
    }

    /// What `lookup`'s keys hold, as the engine expects it: the same
    /// content, in the same order of discovery and under the same `limit`,
    /// as the generic snapshot reader builds for the other backends.
    pub(super) fn snapshot(&self, lookup: &Lookup, limit: usize) -> Result<Snapshot> {
        let mut s = Snapshot::default();
        if let Some((_, rec)) = self.find_id(&lookup.doc_id)? {
            // A replay decides nothing: no need to read further.
            s.existing = Some(rec.0);
            return Ok(s);
        }
        let layout = self.layout()?;
        let mut cache: HashMap<u32, Arc<Hot>> = HashMap::new();
        let read = |doc: u32, cache: &mut HashMap<u32, Arc<Hot>>| -> Result<()> {
            if let std::collections::hash_map::Entry::Vacant(v) = cache.entry(doc) {
                v.insert(self.hot_record(doc)?);
            }
            Ok(())
        };
        let mut wanted: Vec<u32> = Vec::new();
        let mut listed: hashbrown::HashSet<u32> = hashbrown::HashSet::new();
        let mut want = |doc: u32, wanted: &mut Vec<u32>| {
            if wanted.len() < limit && listed.insert(doc) {
                wanted.push(doc);
            }
        };
        // The tables' masks cover every bit, so the keys give the incoming
        // SimHash back; a member farther than the radius can never match
        // (the engine drops it), so it is neither read nor listed. On text
        // whose SimHashes crowd (much CJK), that is most members.
        let incoming = lookup.simhash_keys.iter().fold(0u64, |f, k| f | k.1);
        let mut seen_simhash: hashbrown::HashSet<u32> = hashbrown::HashSet::new();
        for &(t, key) in &lookup.simhash_keys {
            let Some(&mask) = layout.masks.get(usize::from(t)) else {
                continue;
            };
            for doc in self
                .tables
                .members(Layout::simhash_tag(t), digest64(key), limit)
            {
                let v = self.simhashes.get(doc as usize).copied().unwrap_or(0);
                if v & mask != key
                    || (layout.covers_all && (v ^ incoming).count_ones() > layout.max_hamming)
                    || !seen_simhash.insert(doc)
                {
                    continue;
                }
                read(doc, &mut cache)?;
                want(doc, &mut wanted);
                s.simhash_hits
                    .push((v, cache[&doc].cand.entry.doc_id.clone()));
            }
        }
        let mut seen_band: hashbrown::HashSet<u32> = hashbrown::HashSet::new();
        for &(b, key) in &lookup.band_keys {
            for doc in self
                .tables
                .members(layout.band_tag(b), digest64(key), limit)
            {
                if seen_band.contains(&doc) {
                    continue;
                }
                read(doc, &mut cache)?;
                let filed = cache[&doc]
                    .bands(layout)
                    .get(usize::from(b))
                    .is_some_and(|&(_, k)| k == key);
                if !filed {
                    continue;
                }
                seen_band.insert(doc);
                want(doc, &mut wanted);
                s.band_hits.push(cache[&doc].cand.entry.doc_id.clone());
            }
        }
        for h in &lookup.chunk_hashes {
            let mut owner = None;
            for doc in self.tables.members(TAG_CHUNKS, digest_chunk(h), limit) {
                read(doc, &mut cache)?;
                if let Some(o) = cache[&doc].owner(h) {
                    want(doc, &mut wanted);
                    owner = Some(o);
                    break;
                }
            }
            s.chunk_owners.push(owner);
        }
        for doc in wanted {
            let Some(hot) = cache.remove(&doc) else {
                continue;
            };
            s.docs
                .insert(hot.cand.entry.doc_id.clone(), Arc::clone(&hot.cand));
        }
        Ok(s)
    }

    /// Document `doc`'s record through the cache of recently read ones:
    /// near-duplicates are candidates of one another again and again.
    fn hot_record(&self, doc: u32) -> Result<Arc<Hot>> {
        if let Some(r) = self.hot.borrow().get(&doc) {
            return Ok(Arc::clone(r));
        }
        let r = Arc::new(Hot::new(self.record(doc)?));
        let mut hot = self.hot.borrow_mut();
        if hot.len() >= HOT_RECORDS {
            hot.clear();
        }
        hot.insert(doc, Arc::clone(&r));
        Ok(r)
    }

    /// The documents that own chunk `h` now, with the chunk number.
    fn chunk_owners(&self, h: &[u8; 32]) -> Result<Vec<(u32, u32)>> {
        let mut out = Vec::new();
        for doc in self.tables.members(TAG_CHUNKS, digest_chunk(h), usize::MAX) {
            if let Some(o) = self.hot_record(doc)?.owner(h) {
                out.push((doc, o.chunk_id));
            }
        }
        Ok(out)
    }

    /// Turns one decision's writes into log operations, applied at once
    /// (so the next decision of the batch sees them) and added to the
    /// frame being built.
    pub(super) fn apply(&mut self, ws: WriteSet) -> Result<()> {
        // Entries and records by document, in order of first mention.
        let mut docs: Vec<(
            String,
            Option<StoredDocument>,
            Option<Vec<FingerprintRecord>>,
        )> = Vec::new();
        let mut filed: BTreeMap<String, Vec<(u16, u64)>> = BTreeMap::new();
        let mut unfiled: BTreeMap<String, Vec<(u16, u64)>> = BTreeMap::new();
        let mut chunk_sets: Vec<([u8; 32], ChunkOwner)> = Vec::new();
        let mut chunk_removes: Vec<[u8; 32]> = Vec::new();
        let mut counts: Vec<(String, i64)> = Vec::new();
        let slot = |docs: &mut Vec<(String, _, _)>, id: &str| -> usize {
            docs.iter().position(|d| d.0 == id).unwrap_or_else(|| {
                docs.push((id.to_owned(), None, None));
                docs.len() - 1
            })
        };
        let layout = self.layout()?.clone();
        for op in ws.ops {
            match op {
                WriteOp::PutDoc(d) => {
                    let i = slot(&mut docs, &d.doc_id);
                    docs[i].1 = Some(*d);
                }
                WriteOp::PutFingerprints(id, recs) => {
                    let i = slot(&mut docs, &id);
                    docs[i].2 = Some(recs);
                }
                WriteOp::SimHashAdd {
                    table, key, doc_id, ..
                } => filed
                    .entry(doc_id)
                    .or_default()
                    .push((Layout::simhash_tag(table), key)),
                WriteOp::SimHashRemove {
                    table, key, doc_id, ..
                } => unfiled
                    .entry(doc_id)
                    .or_default()
                    .push((Layout::simhash_tag(table), key)),
                WriteOp::BandAdd { band, key, doc_id } => filed
                    .entry(doc_id)
                    .or_default()
                    .push((layout.band_tag(band), key)),
                WriteOp::BandRemove { band, key, doc_id } => unfiled
                    .entry(doc_id)
                    .or_default()
                    .push((layout.band_tag(band), key)),
                WriteOp::ChunkSet(h, owner) => chunk_sets.push((h, owner)),
                WriteOp::ChunkRemove(h) => chunk_removes.push(h),
                WriteOp::Count(name, delta) => counts.push((name, delta)),
            }
        }
        for (id, entry, fps) in docs {
            let old = self.find_id(&id)?;
            let (doc, entry, fps) = match old {
                Some((doc, (old_entry, old_fps))) => {
                    (doc, entry.unwrap_or(old_entry), fps.unwrap_or(old_fps))
                }
                None => {
                    let entry = entry.ok_or_else(|| {
                        Error::Store(format!("fingerprints written for unknown document {id:?}"))
                    })?;
                    (self.offsets.len() as u32, entry, fps.unwrap_or_default())
                }
            };
            self.put_doc(doc, entry, fps)?;
        }
        for (id, keys) in unfiled {
            let doc = self.doc_number(&id)?;
            self.check_keys(doc, &keys, &layout)?;
            self.push(Op::Unindex(doc))?;
        }
        for (id, keys) in filed {
            let doc = self.doc_number(&id)?;
            self.check_keys(doc, &keys, &layout)?;
            self.push(Op::Index(doc))?;
        }
        for h in chunk_removes {
            for (doc, chunk) in self.chunk_owners(&h)? {
                self.push(Op::ChunkRemove(doc, chunk))?;
            }
        }
        for (h, owner) in chunk_sets {
            let doc = self.doc_number(&owner.doc_id)?;
            if self.held(doc)?.chunk(owner.chunk_id) != Some(h) {
                return Err(Error::Store(format!(
                    "chunk {} of {:?} is not the chunk it is set to own",
                    owner.chunk_id, owner.doc_id
                )));
            }
            for (old, chunk) in self.chunk_owners(&h)? {
                if old != doc {
                    self.push(Op::ChunkRemove(old, chunk))?;
                }
            }
            self.push(Op::ChunkSet(doc, owner.chunk_id))?;
        }
        for (name, delta) in counts {
            self.push(Op::Count(name, delta))?;
        }
        Ok(())
    }

    fn doc_number(&self, id: &str) -> Result<u32> {
        self.find_number(id)?
            .ok_or_else(|| Error::Store(format!("keys written for unknown document {id:?}")))
    }

    /// The embedded backend files a document under the keys of its own
    /// fingerprints, all of them: the keys a write set names must be those.
    fn check_keys(&self, doc: u32, keys: &[(u16, u64)], layout: &Layout) -> Result<()> {
        let (mut want, id) = self.with_record(doc, |(entry, fps)| {
            (filing_keys(layout, fps), entry.doc_id.clone())
        })?;
        let mut got = keys.to_vec();
        want.sort_unstable();
        got.sort_unstable();
        if want == got {
            Ok(())
        } else {
            Err(Error::Store(format!(
                "the embedded backend files {id:?} under the keys of its own fingerprints; \
                 the write set names others"
            )))
        }
    }

    /// Writes document `doc`'s record (a new number is the next one).
    pub(super) fn put_doc(
        &mut self,
        doc: u32,
        entry: StoredDocument,
        fps: Vec<FingerprintRecord>,
    ) -> Result<()> {
        let mut defs = Vec::new();
        let mut body = Vec::with_capacity(1280);
        encode_doc(&mut self.strings, &mut defs, &entry, Some(&fps), &mut body);
        for (id, text) in defs {
            self.encode(&Op::Def(id, text.clone()));
        }
        self.pending.push(op_code::DOC);
        put_varint(&mut self.pending, u64::from(doc));
        let at = self.pending_at + self.pending.len() as u64;
        put_varint(&mut self.pending, body.len() as u64);
        self.pending.extend_from_slice(&body);
        self.apply_op(&Op::Doc(doc), at, Some((entry, fps)))
    }

    /// Adds `op` to the frame and applies it.
    pub(super) fn push(&mut self, op: Op) -> Result<()> {
        if let Op::Count(name, _) = &op {
            let mut defs = Vec::new();
            let _ = self.strings.intern(name, &mut defs);
            for (id, text) in defs {
                self.encode(&Op::Def(id, text));
            }
        }
        self.encode(&op);
        self.apply_op(&op, 0, None)
    }

    /// The bytes of `op` (not `Doc`, which [`put_doc`](Self::put_doc)
    /// writes) appended to the frame.
    fn encode(&mut self, op: &Op) {
        let out = &mut self.pending;
        match op {
            Op::Def(id, text) => {
                out.push(op_code::DEF);
                put_varint(out, u64::from(*id));
                put_varint(out, text.len() as u64);
                out.extend_from_slice(text.as_bytes());
            }
            Op::Doc(_) => {}
            Op::Index(d) | Op::Unindex(d) => {
                out.push(if matches!(op, Op::Index(_)) {
                    op_code::INDEX
                } else {
                    op_code::UNINDEX
                });
                put_varint(out, u64::from(*d));
            }
            Op::ChunkSet(d, c) | Op::ChunkRemove(d, c) => {
                out.push(if matches!(op, Op::ChunkSet(..)) {
                    op_code::CHUNK_SET
                } else {
                    op_code::CHUNK_REMOVE
                });
                put_varint(out, u64::from(*d));
                put_varint(out, u64::from(*c));
            }
            Op::Count(name, delta) => {
                out.push(op_code::COUNT);
                match self.strings.find(name) {
                    Some(id) => {
                        out.push(0);
                        put_varint(out, u64::from(id));
                    }
                    None => {
                        out.push(1);
                        put_varint(out, name.len() as u64);
                        out.extend_from_slice(name.as_bytes());
                    }
                }
                put_varint(out, zigzag(*delta));
            }
        }
    }

    /// Applies one operation to the in-memory state. `at` is where a
    /// `Doc`'s record is; `rec` is that record when the caller has it.
    fn apply_op(&mut self, op: &Op, at: u64, rec: Option<Record>) -> Result<()> {
        match op {
            Op::Def(id, text) => self.strings.define(*id, text.clone())?,
            Op::Doc(doc) => {
                let r = match rec {
                    Some(r) => r,
                    None => self.read_record(at)?,
                };
                let (simhash, id) = (simhash_of(&r.1).unwrap_or(0), digest_id(&r.0.doc_id));
                self.hot.borrow_mut().remove(doc);
                self.remember(*doc, at, Held::new(r));
                let n = *doc as usize;
                if n == self.offsets.len() {
                    if n >= u32::MAX as usize - 1 {
                        return Err(Error::Store(
                            "embedded store: over 4 billion documents".into(),
                        ));
                    }
                    self.offsets.push(at);
                    self.simhashes.push(simhash);
                    self.tables.add(TAG_IDS, id, *doc);
                } else if n < self.offsets.len() {
                    self.offsets[n] = at;
                    self.simhashes[n] = simhash;
                    if *doc < self.manifest.docs {
                        self.moved.insert(*doc);
                    }
                } else {
                    return Err(self.corrupt_op(&format!("document number {doc} out of sequence")));
                }
            }
            Op::Index(doc) | Op::Unindex(doc) => {
                let add = matches!(op, Op::Index(_));
                let held = self.held(*doc)?;
                let keys = filing_keys(self.layout()?, &held.record.1);
                for (tag, key) in keys {
                    let key = digest64(key);
                    if add {
                        self.tables.add(tag, key, *doc);
                    } else {
                        self.tables.remove(tag, key, *doc);
                    }
                }
            }
            Op::ChunkSet(doc, chunk) | Op::ChunkRemove(doc, chunk) => {
                let h = self
                    .held(*doc)?
                    .chunk(*chunk)
                    .ok_or_else(|| self.corrupt_op(&format!("chunk {chunk} of document {doc}")))?;
                if matches!(op, Op::ChunkSet(..)) {
                    self.tables.add(TAG_CHUNKS, digest_chunk(&h), *doc);
                } else {
                    self.tables.remove(TAG_CHUNKS, digest_chunk(&h), *doc);
                }
            }
            Op::Count(name, delta) => {
                let c = self.counters.entry(name.clone()).or_insert(0);
                *c = c.saturating_add(*delta);
            }
        }
        Ok(())
    }

    /// Document `doc`'s current record, read and decoded once however
    /// many operations name it.
    pub(super) fn held(&mut self, doc: u32) -> Result<Arc<Held>> {
        if let Some(r) = self.held_now(doc) {
            return Ok(Arc::clone(r));
        }
        let (at, r) = self.read_doc(doc)?;
        Ok(self.remember(doc, at, Held::new(r)))
    }

    /// Keeps `r`, document `doc`'s record at log offset `at`, while it is
    /// among the latest (within a bound).
    fn remember(&mut self, doc: u32, at: u64, r: Held) -> Arc<Held> {
        if self.held.len() >= HELD_RECORDS {
            self.held.clear();
        }
        let r = Arc::new(r);
        self.held.insert(doc, (at, Arc::clone(&r)));
        r
    }

    fn corrupt_op(&self, what: &str) -> Error {
        Error::Corrupt(format!("{}: {what}", self.root.join(LOG_FILE).display()))
    }

    /// Replays one frame whose payload starts at log offset `at`.
    pub(super) fn frame(&mut self, at: u64, payload: &[u8]) -> Result<()> {
        let log = self.root.join(LOG_FILE);
        let mut i = 0usize;
        while i < payload.len() {
            let (op, rec) = read_op(payload, &mut i, at, &self.strings, &log)?;
            match rec {
                Some((rec_at, r)) => self.apply_op(&op, rec_at, Some(r))?,
                None => self.apply_op(&op, 0, None)?,
            }
        }
        // A long replay (a rebuild from the whole log) checkpoints as it
        // goes, so the recent part stays bounded.
        self.replayed_to = at + payload.len() as u64;
        if self.tables.recent() >= super::CHECKPOINT_ENTRIES {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// Makes the frame durable.
    pub(super) fn commit(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let log = self
            .log
            .as_mut()
            .ok_or_else(|| Error::Store("embedded store: the log is not open".into()))?;
        let at = log.commit(&self.pending)?;
        debug_assert_eq!(at, self.pending_at);
        self.pending.clear();
        self.pending_at = log.end() + HEADER;
        Ok(())
    }

    /// A fresh segment path.
    pub(super) fn segment_name(&mut self) -> PathBuf {
        segment_path(&self.root, &mut self.next_segment)
    }

    /// Writes the recent part as a segment, the moved and new slots of
    /// `docs.idx`, then the manifest; removes what the manifest no longer
    /// names. Merges run here only while the store is opening (or
    /// migrating); after that the merge thread runs them. Reports an error
    /// the merge thread met since the last checkpoint.
    pub(super) fn checkpoint(&mut self) -> Result<()> {
        let first = self.segment_name();
        let retired = if self.merge_inline {
            let (root, next) = (&self.root, &mut self.next_segment);
            self.tables
                .checkpoint(&first, &mut || segment_path(root, next))?
        } else {
            self.tables.flush(&first)?;
            Vec::new()
        };
        let docs_path = self.root.join(DOCS);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&docs_path)
            .map_err(|e| io(&docs_path, "cannot open", e))?;
        let slot = |d: usize| -> [u8; 16] {
            let mut b = [0u8; 16];
            b[..8].copy_from_slice(&self.offsets[d].to_le_bytes());
            b[8..].copy_from_slice(&self.simhashes[d].to_le_bytes());
            b
        };
        let write = |bytes: &[u8], at: u64| {
            file.write_all_at(bytes, at)
                .map_err(|e| io(&docs_path, "cannot write", e))
        };
        for &d in &self.moved {
            write(&slot(d as usize), u64::from(d) * 16)?;
        }
        let from = self.manifest.docs as usize;
        let mut tail = Vec::with_capacity((self.offsets.len() - from) * 16);
        for d in from..self.offsets.len() {
            tail.extend_from_slice(&slot(d));
        }
        write(&tail, from as u64 * 16)?;
        file.sync_data()
            .map_err(|e| io(&docs_path, "cannot sync", e))?;
        let manifest = Manifest {
            format: FORMAT,
            log_end: self.log_end(),
            docs: u32::try_from(self.offsets.len())
                .map_err(|_| Error::Store("embedded store: over 4 billion documents".into()))?,
            segments: Vec::new(),
            next_segment: 0,
            strings: (0..self.strings.len() as u32)
                .filter_map(|i| self.strings.get(i).map(str::to_owned))
                .collect(),
            counters: self.counters.clone(),
        };
        self.write_manifest(manifest)?;
        self.moved.clear();
        for p in retired {
            let _ = std::fs::remove_file(p);
        }
        match self.merge_error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Writes `manifest` with the current segment list, durably.
    fn write_manifest(&mut self, mut manifest: Manifest) -> Result<()> {
        manifest.segments = self
            .tables
            .segments()
            .iter()
            .filter_map(|s| Some(s.path().file_name()?.to_string_lossy().into_owned()))
            .collect();
        manifest.next_segment = self.next_segment;
        let json = serde_json::to_vec(&manifest)
            .map_err(|e| Error::Store(format!("encoding the store manifest: {e}")))?;
        write_durable(&self.root.join(MANIFEST), &json)?;
        self.manifest = manifest;
        Ok(())
    }

    /// Puts the result of a background merge in place and records the new
    /// segment list (the rest of the manifest is unchanged: the merged
    /// segment holds exactly what the two it replaces held). A merge the
    /// list changed under is dropped.
    pub(super) fn install(&mut self, m: &Merge, merged: Segment) -> Result<()> {
        let path = merged.path().to_path_buf();
        let Some(retired) = self.tables.install(m, merged) else {
            let _ = std::fs::remove_file(path);
            return Ok(());
        };
        self.write_manifest(self.manifest.clone())?;
        for p in retired {
            let _ = std::fs::remove_file(p);
        }
        Ok(())
    }
}

/// The segment file numbered `*next` under `root`, moving `*next` on.
fn segment_path(root: &Path, next: &mut u64) -> PathBuf {
    let p = root.join(format!("seg-{next:06}.seg"));
    *next += 1;
    p
}

/// The SimHash-table and band keys a document with records `fps` is filed
/// under.
fn filing_keys(layout: &Layout, fps: &[FingerprintRecord]) -> Vec<(u16, u64)> {
    let mut keys = Vec::with_capacity(layout.masks.len() + layout.bands);
    if let Some(v) = simhash_of(fps) {
        for (t, m) in layout.masks.iter().enumerate() {
            keys.push((Layout::simhash_tag(t as u8), v & m));
        }
    }
    for (b, k) in bands_of(layout, fps) {
        keys.push((layout.band_tag(b), k));
    }
    keys
}

/// Reads the operation at `payload[*i..]` of the frame whose payload starts
/// at log offset `at`, advancing `*i`. A `Doc` comes with its record and the
/// record's log offset, decoded with `strings` (which must hold every `Def`
/// before it: the caller applies each operation before reading the next).
///
/// # Errors
///
/// [`Error::Corrupt`] naming `log` and the byte offset of the operation.
pub(super) fn read_op(
    payload: &[u8],
    i: &mut usize,
    at: u64,
    strings: &Strings,
    log: &Path,
) -> Result<(Op, Option<(u64, Record)>)> {
    let start = *i;
    let bad = || {
        Error::Corrupt(format!(
            "{}: unreadable operation at byte {}",
            log.display(),
            at + start as u64
        ))
    };
    let code = *payload.get(start).ok_or_else(bad)?;
    *i += 1;
    let op = match code {
        op_code::DEF => {
            let id = varint32(payload, i).ok_or_else(bad)?;
            let text = text_at(payload, i).ok_or_else(bad)?;
            Op::Def(id, text.to_owned())
        }
        op_code::DOC => {
            let doc = varint32(payload, i).ok_or_else(bad)?;
            let rec_at = at + *i as u64;
            let n = varint(payload, i)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(bad)?;
            let body = payload.get(*i..i.saturating_add(n)).ok_or_else(bad)?;
            let (entry, fps) = super::decode_doc(strings, body)?;
            *i += n;
            return Ok((
                Op::Doc(doc),
                Some((rec_at, (entry, fps.unwrap_or_default()))),
            ));
        }
        op_code::INDEX | op_code::UNINDEX => {
            let d = varint32(payload, i).ok_or_else(bad)?;
            if code == op_code::INDEX {
                Op::Index(d)
            } else {
                Op::Unindex(d)
            }
        }
        op_code::CHUNK_SET | op_code::CHUNK_REMOVE => {
            let d = varint32(payload, i).ok_or_else(bad)?;
            let c = varint32(payload, i).ok_or_else(bad)?;
            if code == op_code::CHUNK_SET {
                Op::ChunkSet(d, c)
            } else {
                Op::ChunkRemove(d, c)
            }
        }
        op_code::COUNT => {
            let kind = *payload.get(*i).ok_or_else(bad)?;
            *i += 1;
            let name = if kind == 0 {
                let id = varint32(payload, i).ok_or_else(bad)?;
                strings.get(id).ok_or_else(bad)?.to_owned()
            } else {
                text_at(payload, i).ok_or_else(bad)?.to_owned()
            };
            let delta = varint(payload, i).ok_or_else(bad)?;
            Op::Count(name, unzigzag(delta))
        }
        _ => return Err(bad()),
    };
    Ok((op, None))
}

/// A length-prefixed UTF-8 string of a frame at `*at`, advancing it.
fn text_at<'p>(payload: &'p [u8], at: &mut usize) -> Option<&'p str> {
    let n = usize::try_from(varint(payload, at)?).ok()?;
    let text = core::str::from_utf8(payload.get(*at..at.checked_add(n)?)?).ok()?;
    *at += n;
    Some(text)
}
