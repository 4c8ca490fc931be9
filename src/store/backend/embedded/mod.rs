//! [`EmbeddedBackend`]: the store in a directory, `root_path`, built for
//! throughput: an append-only document log as the durable record and the
//! lookup tables as sorted segments with an in-memory recent part.
//!
//! | file | what |
//! |---|---|
//! | `params.json` | the [`HashParams`](crate::store::HashParams), written once |
//! | `store.log` | checksummed frames, one per commit: each document's entry and fingerprint records (compact binary, no text), which lookup keys it is filed under, counter changes |
//! | `seg-N.seg` | the lookup tables (ids, chunks, SimHash tables, MinHash bands) up to the last checkpoint, read by memory map |
//! | `docs.idx` | per document number: where its latest record is in the log, and its SimHash |
//! | `MANIFEST` | the last checkpoint: how much of the log the segments and `docs.idx` cover, the segment list, the metadata strings and the counters |
//! | `LOCK` | held by the one process that has the store open |
//!
//! A commit is one frame synced to the log (group commit: a batch of any
//! size costs one `fsync`), so a decision is durable when `update`
//! returns. Opening replays the log after the checkpoint into the recent
//! part. A checkpoint writes the recent part as a segment and then
//! (atomically) a new `MANIFEST`; a thread of the backend's own merges
//! segments of similar size meanwhile, one tag at a time and without the
//! lock, and records each result with a new manifest. A process killed at
//! any moment leaves the previous manifest, whose log tail is replayed.
//! Segments and `docs.idx` are derived from the log: a damaged one is
//! rebuilt from it (see [`EmbeddedBackend::recovered`]).

mod bloom;
pub(crate) mod codec;
#[doc(hidden)]
pub mod fuzzing;
mod log;
mod migrate;
mod packed;
mod segment;
mod tables;

pub use migrate::Migrated;

#[cfg(test)]
mod recovery_tests;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use self::codec::{Strings, decode_doc, encode_doc, put_varint};
use self::log::Log;
use self::segment::Segment;
use self::tables::Tables;
use super::{CandidateDoc, ChunkOwner, Lookup, Snapshot, StoreBackend, WriteSet};
use crate::store::HashParams;
use crate::store::fingerprints::{band_keys, parse_chunk_hash, parse_signature};
use crate::store::records::{FingerprintRecord, FingerprintType, StoredDocument};
use crate::{Error, Result};

/// The log's file name under `root_path`.
pub const LOG_FILE: &str = "store.log";
/// The file of the earlier embedded format (one redb database), which
/// `txtfp store migrate` converts.
pub const LEGACY_FILE: &str = "store.redb";
const PARAMS: &str = "params.json";
const MANIFEST: &str = "MANIFEST";
const DOCS: &str = "docs.idx";
const LOCK: &str = "LOCK";
/// Version of this directory layout, in the manifest.
const FORMAT: u32 = 1;
/// Recent-part entries that trigger a checkpoint (about 20,000 documents
/// with every kind on; some 60 MB of memory).
const CHECKPOINT_ENTRIES: usize = 1 << 20;
/// Log bytes since the checkpoint that trigger one (bounds the replay at
/// open).
const CHECKPOINT_LOG_BYTES: u64 = 256 << 20;
/// Segments beyond which a checkpoint waits for the merge thread: each
/// lookup probes every segment's filter, so ingestion faster than merging
/// must not pile them up.
const MAX_SEGMENTS: usize = 24;

/// Tags of the lookup tables: the ids, the chunks, then each SimHash table
/// and each MinHash band.
const TAG_IDS: u16 = 0;
const TAG_CHUNKS: u16 = 1;

/// A store in a directory of its own (see the module docs for the files).
///
/// Any number of threads may share the backend: writers take turns (each
/// [`update_many`](StoreBackend::update_many) is one commit), readers see
/// every commit before them. One process at a time opens a store; many
/// processes share one through the Redis backend.
pub struct EmbeddedBackend {
    shared: Arc<Shared>,
    merger: Option<JoinHandle<()>>,
    checkpoint_entries: usize,
    max_segments: usize,
    recovered: Vec<String>,
    _lock: File,
}

/// What the backend shares with its merge thread.
struct Shared {
    inner: Mutex<Inner>,
    /// Signalled when a checkpoint adds a segment, a merge is installed or
    /// the store closes.
    wake: Condvar,
    /// The store is closing: the merge thread stops (a merge under way is
    /// dropped; its file is swept at the next open).
    stop: AtomicBool,
}

/// What the stored parameters decide about the tables.
#[derive(Clone, Debug, Default)]
struct Layout {
    masks: Vec<u64>,
    rows: usize,
    bands: usize,
    /// The SimHash radius, and whether the masks cover every bit (so a
    /// lookup's keys give its SimHash back).
    max_hamming: u32,
    covers_all: bool,
}

impl Layout {
    fn from_params(p: &HashParams) -> Result<Self> {
        let masks = if p.simhash {
            crate::lsh::SimHashLayout::for_distance(p.simhash_max_hamming)?
                .masks()
                .to_vec()
        } else {
            Vec::new()
        };
        let (rows, bands) = if p.minhash && p.minhash_bands > 0 {
            (p.minhash_num_perm / p.minhash_bands, p.minhash_bands)
        } else {
            (0, 0)
        };
        let covers_all = masks.iter().fold(0u64, |a, m| a | m) == u64::MAX;
        Ok(Self {
            masks,
            rows,
            bands,
            max_hamming: p.simhash_max_hamming,
            covers_all,
        })
    }

    fn tags(&self) -> usize {
        2 + self.masks.len() + self.bands
    }

    fn simhash_tag(t: u8) -> u16 {
        2 + u16::from(t)
    }

    fn band_tag(&self, b: u16) -> u16 {
        2 + self.masks.len() as u16 + b
    }
}

/// The last checkpoint.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    /// Log bytes the segments and `docs.idx` cover.
    log_end: u64,
    /// Documents `docs.idx` holds.
    docs: u32,
    /// Segment file names, oldest first.
    segments: Vec<String>,
    /// Number for the next segment file.
    next_segment: u64,
    /// The metadata strings, by number.
    strings: Vec<String>,
    counters: BTreeMap<String, i64>,
}

/// One change as the log holds it.
#[derive(Clone, Debug, PartialEq)]
enum Op {
    /// Metadata string `id` is `text`.
    Def(u32, String),
    /// Document `doc`'s latest record (entry and fingerprints) is at `at`.
    Doc(u32),
    /// File document `doc` under the SimHash and band keys of its
    /// fingerprints.
    Index(u32),
    /// Unfile it.
    Unindex(u32),
    /// Document `doc` owns (takes, gives up) its chunk `chunk`.
    ChunkSet(u32, u32),
    ChunkRemove(u32, u32),
    /// Add to a counter.
    Count(String, i64),
}

mod op_code {
    pub const DEF: u8 = 1;
    pub const DOC: u8 = 2;
    pub const INDEX: u8 = 3;
    pub const UNINDEX: u8 = 4;
    pub const CHUNK_SET: u8 = 5;
    pub const CHUNK_REMOVE: u8 = 6;
    pub const COUNT: u8 = 7;
}

/// A varint from `bytes` at `*at`, advancing it.
fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

fn varint32(bytes: &[u8], at: &mut usize) -> Option<u32> {
    varint(bytes, at).and_then(|v| u32::try_from(v).ok())
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// 32-bit digest of a 64-bit lookup key (SimHash masked bits, band keys).
fn digest64(key: u64) -> u32 {
    let mut z = key.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 32) as u32
}

fn digest_id(id: &str) -> u32 {
    (xxhash_rust::xxh3::xxh3_64(id.as_bytes()) >> 32) as u32
}

fn digest_chunk(h: &[u8; 32]) -> u32 {
    u32::from_le_bytes([h[0], h[1], h[2], h[3]])
}

fn hash_of(r: &FingerprintRecord) -> Option<[u8; 32]> {
    parse_chunk_hash(&r.value)
}

fn simhash_of(records: &[FingerprintRecord]) -> Option<u64> {
    records
        .iter()
        .find(|r| r.fingerprint_type == FingerprintType::SimHash)
        .and_then(|r| u64::from_str_radix(&r.value, 16).ok())
}

fn minhash_of(records: &[FingerprintRecord]) -> Option<Vec<u64>> {
    records
        .iter()
        .find(|r| r.fingerprint_type == FingerprintType::MinHash)
        .and_then(|r| parse_signature(&r.value))
}

#[cfg(test)]
thread_local! {
    /// Walks over a record's fingerprints in search of chunks, on this
    /// thread (counted for the tests that check a document's chunk
    /// operations walk its record once, not once per chunk).
    static CHUNK_SCANS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

/// Counts one walk over a record's fingerprints (tests only).
fn chunk_scan() {
    #[cfg(test)]
    CHUNK_SCANS.with(|n| n.set(n.get() + 1));
}

fn io(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::Io(std::io::Error::new(
        e.kind(),
        format!("{}: {what}: {e}", path.display()),
    ))
}

/// A document's record as decoded.
type Record = (StoredDocument, Vec<FingerprintRecord>);

/// Everything behind the lock.
struct Inner {
    root: PathBuf,
    /// `None` while the log is being replayed.
    log: Option<Log>,
    /// A second handle on the log for reads (the replay reads records of
    /// frames before the log is open for appending).
    reader: File,
    layout: Option<Layout>,
    strings: Strings,
    tables: Tables,
    /// Per document number: the log offset of its latest record.
    offsets: Vec<u64>,
    /// Per document number: its SimHash (0 without one).
    simhashes: Vec<u64>,
    counters: BTreeMap<String, i64>,
    manifest: Manifest,
    /// Document numbers below `manifest.docs` whose record moved since it.
    moved: BTreeSet<u32>,
    /// The frame being built by the current commit, and where its payload
    /// will start in the log.
    pending: Vec<u8>,
    pending_at: u64,
    /// Set when a commit failed after changing the in-memory state: the
    /// next use reloads it from disk.
    stale: bool,
    /// Where the replay is, while the log is being replayed.
    replayed_to: u64,
    /// The records of documents written or touched lately, by the current
    /// write set or the frames being replayed, with the log offset each
    /// was read at (a record rewritten has a new one): each of a
    /// document's many operations (one per chunk) neither reads and
    /// decodes its record again nor walks it for the chunk.
    held: hashbrown::HashMap<u32, (u64, std::sync::Arc<Held>)>,
    /// Records read from the log and decoded (counted for the tests that
    /// check the replay reads each record once).
    #[cfg(test)]
    decoded: core::cell::Cell<u64>,
    /// Records read lately (see `hot_record`); a record rewritten is
    /// dropped from it.
    hot: core::cell::RefCell<hashbrown::HashMap<u32, std::sync::Arc<Hot>>>,
    /// Number for the next segment file.
    next_segment: u64,
    /// Checkpoints merge segments themselves (while opening, before the
    /// merge thread runs, and when it has stopped).
    merge_inline: bool,
    /// What the last background merge failed with, reported by the next
    /// checkpoint.
    merge_error: Option<Error>,
}

/// A record written or touched lately (see `Inner::held`), with its chunk
/// hashes by chunk number once a chunk operation needed them.
struct Held {
    record: Record,
    chunks: std::sync::OnceLock<hashbrown::HashMap<u32, Option<[u8; 32]>>>,
}

impl Held {
    fn new(record: Record) -> Self {
        Self {
            record,
            chunks: std::sync::OnceLock::new(),
        }
    }

    /// The hash of the record's first chunk record numbered `chunk`, from
    /// a map built once.
    fn chunk(&self, chunk: u32) -> Option<[u8; 32]> {
        let chunks = self.chunks.get_or_init(|| {
            chunk_scan();
            let mut m = hashbrown::HashMap::new();
            for r in &self.record.1 {
                if r.fingerprint_type == FingerprintType::Chunk
                    && let Some(c) = r.chunk_id
                {
                    m.entry(c).or_insert_with(|| hash_of(r));
                }
            }
            m
        });
        chunks.get(&chunk).copied().flatten()
    }
}

/// A record read lately, with its band keys once a lookup needed them: in
/// a crowded band the same members are checked for every newcomer.
struct Hot {
    cand: std::sync::Arc<CandidateDoc>,
    bands: std::sync::OnceLock<Vec<(u16, u64)>>,
    /// Each chunk hash's first record's chunk number: a document of
    /// thousands of chunks is asked about each of them.
    chunks: std::sync::OnceLock<hashbrown::HashMap<[u8; 32], Option<u32>>>,
}

impl Hot {
    fn new((entry, fingerprints): Record) -> Self {
        Self {
            cand: std::sync::Arc::new(CandidateDoc::new(entry, fingerprints)),
            bands: std::sync::OnceLock::new(),
            chunks: std::sync::OnceLock::new(),
        }
    }

    fn bands(&self, layout: &Layout) -> &[(u16, u64)] {
        self.bands.get_or_init(|| match self.cand.minhash() {
            Some(sig) if layout.rows > 0 => band_keys(sig, layout.rows),
            _ => Vec::new(),
        })
    }

    /// What [`owner_of`] answers for this record, from a map built once.
    fn owner(&self, h: &[u8; 32]) -> Option<ChunkOwner> {
        let chunks = self.chunks.get_or_init(|| {
            chunk_scan();
            let mut m = hashbrown::HashMap::new();
            for r in &self.cand.fingerprints {
                if r.fingerprint_type == FingerprintType::Chunk
                    && let Some(h) = hash_of(r)
                {
                    m.entry(h).or_insert(r.chunk_id);
                }
            }
            m
        });
        Some(ChunkOwner {
            doc_id: self.cand.entry.doc_id.clone(),
            chunk_id: (*chunks.get(h)?)?,
        })
    }
}

impl EmbeddedBackend {
    /// Opens (or creates) the store under `root_path`.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when another process has the store open, or when
    /// the directory holds a store of the earlier format (convert it with
    /// `txtfp store migrate`); [`Error::Corrupt`] naming the file for a
    /// damaged log (a torn tail is cut off instead: see
    /// [`recovered`](Self::recovered)) or manifest; [`Error::Io`].
    pub fn open(root_path: &Path) -> Result<Self> {
        std::fs::create_dir_all(root_path).map_err(|e| io(root_path, "cannot create", e))?;
        let lock = lock_store(root_path)?;
        let legacy = root_path.join(LEGACY_FILE);
        if legacy.exists() {
            return Err(Error::Store(format!(
                "{} holds a store of the earlier embedded format ({LEGACY_FILE}); convert it with \
                 `txtfp store migrate --root {}` (nothing is changed until then)",
                root_path.display(),
                root_path.display()
            )));
        }
        let mut recovered = Vec::new();
        let mut inner = Inner::load(root_path, &mut recovered)?;
        inner.merge_inline = false;
        let shared = Arc::new(Shared {
            inner: Mutex::new(inner),
            wake: Condvar::new(),
            stop: AtomicBool::new(false),
        });
        let for_thread = Arc::clone(&shared);
        let merger = std::thread::Builder::new()
            .name("txtfp-store-merge".into())
            .spawn(move || merge_loop(&for_thread))
            .map_err(|e| io(root_path, "cannot start the segment merge thread", e))?;
        Ok(Self {
            shared,
            merger: Some(merger),
            checkpoint_entries: CHECKPOINT_ENTRIES,
            max_segments: MAX_SEGMENTS,
            recovered,
            _lock: lock,
        })
    }

    /// Sets the size of the recent part (lookup-table entries, about 50
    /// per document with every kind on) that triggers a checkpoint; the
    /// default is 1,048,576. Smaller: less memory and a shorter replay at
    /// open, more segment merging.
    #[must_use]
    pub fn checkpoint_every(mut self, entries: usize) -> Self {
        self.checkpoint_entries = entries.max(1);
        self
    }

    /// What opening repaired: a torn log tail cut off (the commit a crash
    /// interrupted, never acknowledged) or damaged segments rebuilt from
    /// the log. Empty when the store was intact.
    pub fn recovered(&self) -> &[String] {
        &self.recovered
    }

    /// Writes a checkpoint now (also done on its own as the recent part
    /// grows): later opens replay less of the log.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] naming the file.
    pub fn checkpoint(&self) -> Result<()> {
        let done = self.lock()?.checkpoint();
        self.shared.wake.notify_all();
        done
    }

    /// Waits until the merge thread has run every merge the segments call
    /// for (benchmarks and tests measure a settled store with it).
    ///
    /// # Errors
    ///
    /// What a merge failed with: [`Error::Corrupt`] naming a damaged
    /// segment, [`Error::Io`].
    pub fn wait_for_merges(&self) -> Result<()> {
        let mut g = self.lock()?;
        loop {
            if let Some(e) = g.merge_error.take() {
                return Err(e);
            }
            if g.tables.plan().is_none() {
                return Ok(());
            }
            g = self.wait(g)?;
        }
    }

    fn lock(&self) -> Result<MutexGuard<'_, Inner>> {
        let mut g = self
            .shared
            .inner
            .lock()
            .map_err(|_| Error::Store("embedded store: a writer panicked".into()))?;
        if g.stale {
            let mut notes = Vec::new();
            *g = Inner::load(&g.root.clone(), &mut notes)?;
            g.merge_inline = self.merger.as_ref().is_none_or(JoinHandle::is_finished);
        }
        Ok(g)
    }

    /// Waits for the merge thread to change something. When it is not
    /// running (it cannot have been started, or it ended on a broken
    /// lock), runs the pending merges here instead.
    fn wait<'a>(&'a self, mut g: MutexGuard<'a, Inner>) -> Result<MutexGuard<'a, Inner>> {
        if self.merger.as_ref().is_none_or(JoinHandle::is_finished) {
            g.merge_inline = true;
            while let Some(m) = g.tables.plan() {
                let out = g.segment_name();
                let merged = m.run(&out, &AtomicBool::new(false))?;
                g.install(&m, merged)?;
            }
            return Ok(g);
        }
        let (g, _) = self
            .shared
            .wake
            .wait_timeout(g, Duration::from_millis(100))
            .map_err(|_| Error::Store("embedded store: a writer panicked".into()))?;
        Ok(g)
    }
}

impl Drop for EmbeddedBackend {
    fn drop(&mut self) {
        self.stop_merging();
    }
}

impl EmbeddedBackend {
    /// Stops the merge thread and waits for it; merges run inline from
    /// then on.
    fn stop_merging(&mut self) {
        {
            // Under the lock, so the thread cannot miss the signal between
            // its check and its wait.
            let _g = self.shared.inner.lock();
            self.shared.stop.store(true, Ordering::Relaxed);
        }
        self.shared.wake.notify_all();
        if let Some(h) = self.merger.take() {
            let _ = h.join();
        }
    }
}

/// The merge thread: takes the next merge under the lock, runs it without,
/// installs it under the lock again, until the store closes.
fn merge_loop(shared: &Shared) {
    loop {
        let (m, out) = {
            let Ok(mut g) = shared.inner.lock() else {
                return;
            };
            loop {
                if shared.stop.load(Ordering::Relaxed) {
                    return;
                }
                if !g.stale
                    && g.merge_error.is_none()
                    && let Some(m) = g.tables.plan()
                {
                    break (m, g.segment_name());
                }
                g = match shared.wake.wait(g) {
                    Ok(g) => g,
                    Err(_) => return,
                };
            }
        };
        let merged = m.run(&out, &shared.stop);
        let Ok(mut g) = shared.inner.lock() else {
            return;
        };
        let done = match merged {
            Ok(seg) => g.install(&m, seg),
            Err(_) if shared.stop.load(Ordering::Relaxed) => return,
            Err(e) => Err(e),
        };
        if let Err(e) = done {
            g.merge_error = Some(e);
        }
        drop(g);
        shared.wake.notify_all();
    }
}

impl Inner {
    /// The state on disk: manifest, segments, `docs.idx`, then the log
    /// after the checkpoint.
    fn load(root: &Path, notes: &mut Vec<String>) -> Result<Self> {
        let layout = match std::fs::read_to_string(root.join(PARAMS)) {
            Ok(text) => Some(Layout::from_params(&HashParams::from_json(&text)?)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io(&root.join(PARAMS), "cannot read", e)),
        };
        let log_len = std::fs::metadata(root.join(LOG_FILE)).map_or(0, |m| m.len());
        if layout.is_some() && log_len == 0 {
            return Err(Error::Corrupt(format!(
                "{} is empty or missing, but {} shows the store was created: \
                 the log was truncated or replaced, and with it every document",
                root.join(LOG_FILE).display(),
                root.join(PARAMS).display()
            )));
        }
        let manifest_path = root.join(MANIFEST);
        let fresh = |next_segment: u64| Manifest {
            format: FORMAT,
            next_segment,
            ..Manifest::default()
        };
        // The manifest, segments and `docs.idx` are all derived from the
        // log (which also holds every metadata string and counter change),
        // so damage to any of them is repaired by replaying the whole log.
        let mut damage = None;
        let manifest = match std::fs::read(&manifest_path) {
            Ok(bytes) => match serde_json::from_slice::<Manifest>(&bytes) {
                Ok(m) if m.format == FORMAT => m,
                Ok(m) => {
                    return Err(Error::Corrupt(format!(
                        "{}: store format {} (this build reads {FORMAT})",
                        manifest_path.display(),
                        m.format
                    )));
                }
                Err(e) => {
                    damage = Some(format!(
                        "{}: not a store manifest: {e}",
                        manifest_path.display()
                    ));
                    fresh(0)
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => fresh(0),
            Err(e) => return Err(io(&manifest_path, "cannot read", e)),
        };
        let next = manifest.next_segment;
        // What the log is known to hold: the checkpoint's part, and at
        // least the first frame, synced before the parameters were written.
        let committed = manifest
            .log_end
            .max(if layout.is_some() { log::HEADER } else { 0 });
        let attempt = match damage {
            Some(why) => Err(why),
            None => match Self::load_from(root, layout.clone(), manifest, committed) {
                Ok(loaded) => Ok(loaded),
                Err(Error::Corrupt(why)) if !why.contains(LOG_FILE) => Err(why),
                Err(e) => return Err(e),
            },
        };
        let (inner, torn) = match attempt {
            Ok(loaded) => loaded,
            Err(why) => {
                notes.push(format!("{why}; rebuilt the tables from the log"));
                let (mut inner, torn) = Self::load_from(root, layout, fresh(next), committed)?;
                inner.moved.clear();
                inner.checkpoint()?;
                (inner, torn)
            }
        };
        if let Some(t) = torn {
            notes.push(format!(
                "{}: cut off {} bytes of an interrupted commit at byte {}",
                root.join(LOG_FILE).display(),
                t.dropped,
                t.at
            ));
        }
        sweep(root, &inner.manifest.segments);
        Ok(inner)
    }

    fn load_from(
        root: &Path,
        layout: Option<Layout>,
        manifest: Manifest,
        committed: u64,
    ) -> Result<(Self, Option<log::Torn>)> {
        let tags = layout.as_ref().map_or(2, Layout::tags);
        let mut segments = Vec::with_capacity(manifest.segments.len());
        for name in &manifest.segments {
            let s = Segment::open(&root.join(name))?;
            if s.tags() != tags {
                return Err(Error::Corrupt(format!(
                    "{}: {} tables where the store has {tags}",
                    s.path().display(),
                    s.tags()
                )));
            }
            segments.push(s);
        }
        let mut strings = Strings::new();
        for (i, s) in manifest.strings.iter().enumerate() {
            strings.define(i as u32, s.clone())?;
        }
        let (offsets, simhashes) = read_docs(&root.join(DOCS), manifest.docs, manifest.log_end)?;
        let log_path = root.join(LOG_FILE);
        let reader = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&log_path)
            .map_err(|e| io(&log_path, "cannot open", e))?;
        let mut inner = Self {
            root: root.to_path_buf(),
            log: None,
            reader,
            layout,
            strings,
            tables: Tables::new(tags, segments),
            offsets,
            simhashes,
            counters: manifest.counters.clone(),
            manifest,
            moved: BTreeSet::new(),
            pending: Vec::new(),
            // Until the log is open, every record is read from the file.
            pending_at: u64::MAX,
            stale: false,
            replayed_to: 0,
            held: hashbrown::HashMap::new(),
            #[cfg(test)]
            decoded: core::cell::Cell::new(0),
            hot: core::cell::RefCell::default(),
            next_segment: 0,
            merge_inline: true,
            merge_error: None,
        };
        inner.next_segment = inner.manifest.next_segment;
        let from = inner.manifest.log_end;
        inner.replayed_to = from;
        let (log, torn) = Log::open(&log_path, from, committed, &mut |at, payload| {
            inner.frame(at, payload)
        })?;
        inner.pending_at = log.end() + log::HEADER;
        inner.log = Some(log);
        inner.held = hashbrown::HashMap::new();
        Ok((inner, torn))
    }
}

/// Takes the store's lock file: one process at a time.
fn lock_store(root_path: &Path) -> Result<File> {
    let lock_path = root_path.join(LOCK);
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| io(&lock_path, "cannot open", e))?;
    if lock.try_lock().is_err() {
        return Err(Error::Store(format!(
            "{} is open in another process; the embedded backend serves one process \
             (any number of threads): use backend = \"redis\" to share a store between processes",
            root_path.display()
        )));
    }
    Ok(lock)
}

/// Removes segment files the manifest does not name: left by a checkpoint
/// a crash interrupted before its manifest was written.
fn sweep(root: &Path, keep: &[String]) {
    let Ok(dir) = std::fs::read_dir(root) else {
        return;
    };
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.starts_with("seg-") && (name.ends_with(".seg") || name.ends_with(".tmp"));
        if ours && !keep.contains(&name) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// `docs.idx`: 16 bytes per document (record offset, SimHash). Every
/// record it points at lies inside the first `log_end` bytes of the log
/// (past the first frame's header), which catches a damaged file here
/// rather than at a read of a record that is not there.
fn read_docs(path: &Path, docs: u32, log_end: u64) -> Result<(Vec<u64>, Vec<u64>)> {
    if docs == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let bytes = std::fs::read(path).map_err(|e| io(path, "cannot read", e))?;
    let need = docs as usize * 16;
    let Some(body) = bytes.get(..need) else {
        return Err(Error::Corrupt(format!(
            "{}: {} bytes where the manifest needs {need}",
            path.display(),
            bytes.len()
        )));
    };
    let mut offsets = Vec::with_capacity(docs as usize);
    let mut simhashes = Vec::with_capacity(docs as usize);
    for (d, c) in body.chunks_exact(16).enumerate() {
        let (a, b) = c.split_at(8);
        let at = u64::from_le_bytes(a.try_into().unwrap_or_default());
        if at <= log::HEADER || at >= log_end {
            return Err(Error::Corrupt(format!(
                "{}: document {d} points at byte {at} of the log, outside the {log_end} bytes \
                 the checkpoint covers",
                path.display()
            )));
        }
        offsets.push(at);
        simhashes.push(u64::from_le_bytes(b.try_into().unwrap_or_default()));
    }
    Ok((offsets, simhashes))
}

mod apply;

impl StoreBackend for EmbeddedBackend {
    fn init_params(&self, params_json: &str) -> Result<String> {
        let mut g = self.lock()?;
        let path = g.root.join(PARAMS);
        match std::fs::read_to_string(&path) {
            Ok(stored) => Ok(stored),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if !g.offsets.is_empty() {
                    return Err(Error::Corrupt(format!(
                        "{}: missing while the store holds documents",
                        path.display()
                    )));
                }
                let params = HashParams::from_json(params_json)?;
                // An empty first frame: from now on an empty log means a
                // log truncated or replaced, never a new store.
                let log = g
                    .log
                    .as_mut()
                    .ok_or_else(|| Error::Store("embedded store: the log is not open".into()))?;
                log.commit(&[])?;
                g.pending_at = g.log_end() + log::HEADER;
                write_durable(&path, params_json.as_bytes())?;
                g.layout = Some(Layout::from_params(&params)?);
                let tags = g.layout.as_ref().map_or(2, Layout::tags);
                g.tables = Tables::new(tags, Vec::new());
                Ok(params_json.to_owned())
            }
            Err(e) => Err(io(&path, "cannot read", e)),
        }
    }

    fn snapshot(&self, lookup: &Lookup, limit: usize) -> Result<Snapshot> {
        self.lock()?.snapshot(lookup, limit)
    }

    fn update(
        &self,
        lookup: &Lookup,
        limit: usize,
        decide: &mut dyn FnMut(&Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        self.update_many(core::slice::from_ref(lookup), limit, &mut |_, s| decide(s))
    }

    /// All lookups in one commit (one frame, one `fsync`): each decision
    /// sees the writes of the ones before it; all or nothing is stored.
    fn update_many(
        &self,
        lookups: &[Lookup],
        limit: usize,
        decide: &mut dyn FnMut(usize, &Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        let mut g = self.lock()?;
        g.begin();
        let result = (|| -> Result<()> {
            for (i, lookup) in lookups.iter().enumerate() {
                let snap = g.snapshot(lookup, limit)?;
                let ws = decide(i, &snap)?;
                g.apply(ws)?;
            }
            g.commit()
        })();
        if result.is_err() {
            // The in-memory state may hold part of the batch: reload it.
            g.stale = true;
        }
        result?;
        if g.tables.recent() >= self.checkpoint_entries
            || g.log_end() - g.manifest.log_end >= CHECKPOINT_LOG_BYTES
        {
            g.checkpoint()?;
            self.shared.wake.notify_all();
            while g.tables.segments().len() > self.max_segments && g.tables.plan().is_some() {
                if let Some(e) = g.merge_error.take() {
                    return Err(e);
                }
                g = self.wait(g)?;
            }
        }
        Ok(())
    }

    fn document(&self, doc_id: &str) -> Result<Option<CandidateDoc>> {
        let g = self.lock()?;
        Ok(g.find_id(doc_id)?
            .map(|(_, (entry, fingerprints))| CandidateDoc::new(entry, fingerprints)))
    }

    fn counters(&self) -> Result<BTreeMap<String, i64>> {
        Ok(self.lock()?.counters.clone())
    }
}

/// Writes `bytes` to `path` under a temporary name, syncs, renames and
/// syncs the directory.
fn write_durable(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    let result = File::create(&tmp).and_then(|mut f| {
        std::io::Write::write_all(&mut f, bytes)?;
        f.sync_all()
    });
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(path, "cannot write", e));
    }
    std::fs::rename(&tmp, path).map_err(|e| io(path, "cannot rename into place", e))?;
    if let Some(dir) = path.parent() {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| io(dir, "cannot sync", e))?;
    }
    Ok(())
}

impl Inner {
    /// The record at log offset `at` (a varint length, then the bytes),
    /// from the frame being built or the file.
    fn read_record(&self, at: u64) -> Result<Record> {
        let bytes = if at >= self.pending_at {
            let start = usize::try_from(at - self.pending_at).unwrap_or(usize::MAX);
            let mut i = start;
            let n = self
                .pending
                .get(start..)
                .and_then(|b| {
                    let mut j = 0;
                    let n = varint(b, &mut j)?;
                    i += j;
                    usize::try_from(n).ok()
                })
                .ok_or_else(|| self.bad_record(at))?;
            self.pending
                .get(i..i.saturating_add(n))
                .ok_or_else(|| self.bad_record(at))?
                .to_vec()
        } else {
            read_record_bytes(&self.reader, at).map_err(|_| self.bad_record(at))?
        };
        #[cfg(test)]
        self.decoded.set(self.decoded.get() + 1);
        let (entry, fps) = decode_doc(&self.strings, &bytes).map_err(|e| {
            Error::Corrupt(format!(
                "{}: the record at byte {at} is damaged: {e}",
                self.root.join(LOG_FILE).display()
            ))
        })?;
        Ok((entry, fps.unwrap_or_default()))
    }

    fn bad_record(&self, at: u64) -> Error {
        Error::Corrupt(format!(
            "{}: no readable record at byte {at}",
            self.root.join(LOG_FILE).display()
        ))
    }

    /// The document number and record of `id`, if stored.
    fn find_id(&self, id: &str) -> Result<Option<(u32, Record)>> {
        Ok(match self.find_number(id)? {
            Some(doc) => Some((doc, self.record(doc)?)),
            None => None,
        })
    }

    /// The document number of `id`, if stored.
    fn find_number(&self, id: &str) -> Result<Option<u32>> {
        for doc in self.tables.members(TAG_IDS, digest_id(id), usize::MAX) {
            if self.with_record(doc, |r| r.0.doc_id == id)? {
                return Ok(Some(doc));
            }
        }
        Ok(None)
    }

    fn record(&self, doc: u32) -> Result<Record> {
        self.with_record(doc, Clone::clone)
    }

    /// `f` of document `doc`'s record, without a read when it is held.
    fn with_record<T>(&self, doc: u32, f: impl FnOnce(&Record) -> T) -> Result<T> {
        if let Some(r) = self.held_now(doc) {
            return Ok(f(&r.record));
        }
        self.read_doc(doc).map(|(_, r)| f(&r))
    }

    /// Document `doc`'s record if it is held at its current offset.
    fn held_now(&self, doc: u32) -> Option<&std::sync::Arc<Held>> {
        let at = self.offsets.get(doc as usize)?;
        self.held
            .get(&doc)
            .filter(|(held_at, _)| held_at == at)
            .map(|(_, r)| r)
    }

    /// Document `doc`'s record read from the log, with its offset.
    fn read_doc(&self, doc: u32) -> Result<(u64, Record)> {
        let at = *self
            .offsets
            .get(doc as usize)
            .ok_or_else(|| Error::Corrupt(format!("store: document number {doc} is not stored")))?;
        let from_index = doc < self.manifest.docs && !self.moved.contains(&doc);
        match self.read_record(at) {
            Ok(r) => Ok((at, r)),
            // The offset came from docs.idx: it may be the damaged file.
            Err(Error::Corrupt(why)) if from_index => Err(Error::Corrupt(format!(
                "{why} (where {} places document {doc})",
                self.root.join(DOCS).display()
            ))),
            Err(e) => Err(e),
        }
    }
}

/// Reads the varint-prefixed record at `at` from the log file: one read of
/// 4 KiB covers most records.
fn read_record_bytes(file: &File, at: u64) -> std::io::Result<Vec<u8>> {
    let mut head = vec![0u8; 4096];
    let got = read_some_at(file, &mut head, at)?;
    head.truncate(got);
    let mut j = 0;
    let n = varint(&head, &mut j)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| std::io::Error::other("bad length"))?;
    if j + n <= head.len() {
        head.truncate(j + n);
        head.drain(..j);
        return Ok(head);
    }
    if n > (log::MAX_FRAME as usize) {
        return Err(std::io::Error::other("bad length"));
    }
    let mut body = vec![0u8; n];
    file.read_exact_at(&mut body, at + j as u64)?;
    Ok(body)
}

/// Reads up to `buf.len()` bytes at `at`, fewer at the end of the file.
fn read_some_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Used by the snapshot: a chunk owner of `h` among `docs`.
#[cfg(test)]
fn owner_of(h: &[u8; 32], doc: &StoredDocument, fps: &[FingerprintRecord]) -> Option<ChunkOwner> {
    fps.iter()
        .filter(|r| r.fingerprint_type == FingerprintType::Chunk)
        .find(|r| hash_of(r).as_ref() == Some(h))
        .and_then(|r| {
            Some(ChunkOwner {
                doc_id: doc.doc_id.clone(),
                chunk_id: r.chunk_id?,
            })
        })
}

/// Band keys of `records` (empty without a MinHash record).
fn bands_of(layout: &Layout, records: &[FingerprintRecord]) -> Vec<(u16, u64)> {
    match minhash_of(records) {
        Some(sig) if layout.rows > 0 => band_keys(&sig, layout.rows),
        _ => Vec::new(),
    }
}
