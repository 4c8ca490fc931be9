//! [`StoreBackend`]: the one trait a database implements to hold a store,
//! and the plain data that crosses it ([`Snapshot`] in, [`WriteSet`] out).
//!
//! The decision engine never talks to a database. A backend reads the
//! [`Snapshot`] of everything an incoming document's [`Lookup`] keys touch,
//! hands it to the engine, and applies the engine's [`WriteSet`] so that
//! no other writer changed any of those keys in between: redb by running
//! read, decide and write in one write transaction (writers are
//! serialized); Redis by `WATCH`ing every key read, then `MULTI`/`EXEC`,
//! and re-running the whole round when `EXEC` reports a conflict.

#[cfg(feature = "store-redis")]
mod cluster;
mod embedded;
mod redb;
#[cfg(feature = "store-redis")]
mod redis;

use std::collections::BTreeMap;

#[cfg(feature = "store-redis")]
pub use cluster::{ClusterBackend, DEFAULT_GROUPS, MAX_DECIDED};
#[doc(hidden)]
pub use embedded::fuzzing as embedded_fuzzing;
pub use embedded::{EmbeddedBackend, Migrated};
pub use redb::LegacyRedbStore;
#[cfg(feature = "store-redis")]
pub use redis::RedisBackend;

pub use super::fingerprints::Lookup;
use super::records::{FingerprintRecord, FingerprintType, StoredDocument};
use crate::{Error, Result};

/// Who holds a chunk hash: the first indexed document that had it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkOwner {
    /// The document.
    pub doc_id: String,
    /// Its chunk number.
    pub chunk_id: u32,
}

/// A stored document with its fingerprint records.
///
/// Built with [`CandidateDoc::new`]; it keeps its MinHash signature once
/// parsed, so a document that is a candidate of many newcomers (a crowded
/// band) is parsed once while a backend keeps it.
#[derive(Clone)]
pub struct CandidateDoc {
    /// The entry (status, decision).
    pub entry: StoredDocument,
    /// Its fingerprint records.
    pub fingerprints: Vec<FingerprintRecord>,
    minhash: std::sync::OnceLock<Option<Vec<u64>>>,
}

impl CandidateDoc {
    /// A document from its entry and records.
    pub fn new(entry: StoredDocument, fingerprints: Vec<FingerprintRecord>) -> Self {
        Self {
            entry,
            fingerprints,
            minhash: std::sync::OnceLock::new(),
        }
    }

    /// The signature of its MinHash record, parsed on the first call; `None`
    /// without one or when it is not a signature.
    pub fn minhash(&self) -> Option<&[u64]> {
        self.minhash
            .get_or_init(|| {
                self.fingerprints
                    .iter()
                    .find(|r| r.fingerprint_type == FingerprintType::MinHash)
                    .and_then(|r| super::fingerprints::parse_signature(&r.value))
            })
            .as_deref()
    }
}

impl PartialEq for CandidateDoc {
    fn eq(&self, other: &Self) -> bool {
        self.entry == other.entry && self.fingerprints == other.fingerprints
    }
}

impl core::fmt::Debug for CandidateDoc {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CandidateDoc")
            .field("entry", &self.entry)
            .field("fingerprints", &self.fingerprints)
            .finish()
    }
}

/// What a [`Lookup`]'s keys hold right now.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// The entry stored under the lookup's own id, if any.
    pub existing: Option<StoredDocument>,
    /// `(SimHash, doc id)` of every member of the probed SimHash tables.
    pub simhash_hits: Vec<(u64, String)>,
    /// Doc ids in the probed MinHash bands (no repeats).
    pub band_hits: Vec<String>,
    /// Owner of each probed chunk hash, in the lookup's chunk order.
    pub chunk_owners: Vec<Option<ChunkOwner>>,
    /// Entry and records of every document named above (shared: a backend
    /// may hand out the copies it caches).
    pub docs: BTreeMap<String, std::sync::Arc<CandidateDoc>>,
}

/// One change to the store.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum WriteOp {
    /// Insert or replace a document entry.
    PutDoc(Box<StoredDocument>),
    /// Insert or replace a document's fingerprint records.
    PutFingerprints(String, Vec<FingerprintRecord>),
    /// File a document in SimHash table `table` under `key`.
    SimHashAdd {
        /// Table number.
        table: u8,
        /// Masked bits.
        key: u64,
        /// The full SimHash (verified on lookup).
        value: u64,
        /// The document.
        doc_id: String,
    },
    /// Remove what `SimHashAdd` with the same fields filed.
    SimHashRemove {
        /// Table number.
        table: u8,
        /// Masked bits.
        key: u64,
        /// The full SimHash.
        value: u64,
        /// The document.
        doc_id: String,
    },
    /// File a document in MinHash band `band` under `key`.
    BandAdd {
        /// Band number.
        band: u16,
        /// Band key.
        key: u64,
        /// The document.
        doc_id: String,
    },
    /// Remove what `BandAdd` with the same fields filed.
    BandRemove {
        /// Band number.
        band: u16,
        /// Band key.
        key: u64,
        /// The document.
        doc_id: String,
    },
    /// Set the owner of a chunk hash.
    ChunkSet([u8; 32], ChunkOwner),
    /// Forget a chunk hash.
    ChunkRemove([u8; 32]),
    /// Add `delta` to a named counter.
    Count(String, i64),
}

/// Which bucket set a [`BucketEdit`] changes.
#[derive(Clone, Copy)]
pub(crate) enum Bucket {
    /// SimHash table `table`, under its masked bits.
    SimHash(u8),
    /// MinHash band `band`, under its band key.
    Band(u16),
}

/// A [`WriteOp`] as a backend applies it. Both backends store SimHash
/// tables and MinHash bands alike (sets of strings under a bucket and a
/// key), so the four ops that add and remove members become one
/// [`Write::Bucket`].
pub(crate) enum Write {
    PutDoc(Box<StoredDocument>),
    PutFingerprints(String, Vec<FingerprintRecord>),
    Bucket(BucketEdit),
    ChunkSet([u8; 32], ChunkOwner),
    ChunkRemove([u8; 32]),
    Count(String, i64),
}

/// Add (`add`) or remove `member` (encoded for SimHash, the doc id for
/// bands) in `bucket` under `key`.
pub(crate) struct BucketEdit {
    pub bucket: Bucket,
    pub key: u64,
    pub member: String,
    pub add: bool,
}

impl From<WriteOp> for Write {
    fn from(op: WriteOp) -> Self {
        let (bucket, key, member, add) = match op {
            WriteOp::PutDoc(d) => return Self::PutDoc(d),
            WriteOp::PutFingerprints(id, recs) => return Self::PutFingerprints(id, recs),
            WriteOp::ChunkSet(h, owner) => return Self::ChunkSet(h, owner),
            WriteOp::ChunkRemove(h) => return Self::ChunkRemove(h),
            WriteOp::Count(name, delta) => return Self::Count(name, delta),
            WriteOp::SimHashAdd {
                table,
                key,
                value,
                doc_id,
            } => (
                Bucket::SimHash(table),
                key,
                encode_simhash_member(value, &doc_id),
                true,
            ),
            WriteOp::SimHashRemove {
                table,
                key,
                value,
                doc_id,
            } => (
                Bucket::SimHash(table),
                key,
                encode_simhash_member(value, &doc_id),
                false,
            ),
            WriteOp::BandAdd { band, key, doc_id } => (Bucket::Band(band), key, doc_id, true),
            WriteOp::BandRemove { band, key, doc_id } => (Bucket::Band(band), key, doc_id, false),
        };
        Self::Bucket(BucketEdit {
            bucket,
            key,
            member,
            add,
        })
    }
}

/// The engine's answer: changes to apply together, or none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteSet {
    /// In order.
    pub ops: Vec<WriteOp>,
}

/// A database that can hold a global fingerprint store.
///
/// Implementations must make [`update`](Self::update) atomic with respect
/// to every other `update` on the same store, from any thread or process
/// that can reach it: no write may land between the snapshot `decide`
/// sees and the application of its [`WriteSet`].
pub trait StoreBackend: Send + Sync {
    /// Stores `params_json` if the store has no parameters yet, and returns
    /// the parameters it holds afterwards (so the first writer wins a race
    /// between two openers).
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the database fails.
    fn init_params(&self, params_json: &str) -> Result<String>;

    /// A read-only snapshot for `lookup`, at most `limit` members per
    /// bucket (queries).
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the database fails, [`Error::Corrupt`] when a
    /// stored value does not parse.
    fn snapshot(&self, lookup: &Lookup, limit: usize) -> Result<Snapshot>;

    /// Reads the snapshot for `lookup`, calls `decide` on it and applies the
    /// returned [`WriteSet`], atomically. `decide` may run more than once
    /// (after a conflict); only the last run's writes are applied. An
    /// error from `decide` aborts with nothing written.
    ///
    /// # Errors
    ///
    /// `decide`'s error, or as [`snapshot`](Self::snapshot).
    fn update(
        &self,
        lookup: &Lookup,
        limit: usize,
        decide: &mut dyn FnMut(&Snapshot) -> Result<WriteSet>,
    ) -> Result<()>;

    /// [`update`](Self::update) for several lookups in order, `decide`
    /// getting each one's index. The default applies them one by one (each
    /// atomic; after an error the earlier ones stay applied); a backend may
    /// apply them all in one transaction (the embedded one does: one
    /// commit, all or nothing). Either way each decision sees the writes of
    /// the ones before it.
    ///
    /// # Errors
    ///
    /// As [`update`](Self::update).
    fn update_many(
        &self,
        lookups: &[Lookup],
        limit: usize,
        decide: &mut dyn FnMut(usize, &Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        for (i, lookup) in lookups.iter().enumerate() {
            self.update(lookup, limit, &mut |s| decide(i, s))?;
        }
        Ok(())
    }

    /// A stored document and its records.
    ///
    /// # Errors
    ///
    /// As [`snapshot`](Self::snapshot).
    fn document(&self, doc_id: &str) -> Result<Option<CandidateDoc>>;

    /// Every counter, by name.
    ///
    /// # Errors
    ///
    /// As [`snapshot`](Self::snapshot).
    fn counters(&self) -> Result<BTreeMap<String, i64>>;
}

/// A backend behind an [`Arc`](std::sync::Arc) is a backend: the store
/// and the code that opened it can both hold it (for instance to call
/// [`EmbeddedBackend::wait_for_merges`](crate::store::backend::EmbeddedBackend::wait_for_merges)
/// while the store ingests).
impl<T: StoreBackend + ?Sized> StoreBackend for std::sync::Arc<T> {
    fn init_params(&self, params_json: &str) -> Result<String> {
        (**self).init_params(params_json)
    }

    fn snapshot(&self, lookup: &Lookup, limit: usize) -> Result<Snapshot> {
        (**self).snapshot(lookup, limit)
    }

    fn update(
        &self,
        lookup: &Lookup,
        limit: usize,
        decide: &mut dyn FnMut(&Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        (**self).update(lookup, limit, decide)
    }

    fn update_many(
        &self,
        lookups: &[Lookup],
        limit: usize,
        decide: &mut dyn FnMut(usize, &Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        (**self).update_many(lookups, limit, decide)
    }

    fn document(&self, doc_id: &str) -> Result<Option<CandidateDoc>> {
        (**self).document(doc_id)
    }

    fn counters(&self) -> Result<BTreeMap<String, i64>> {
        (**self).counters()
    }
}

/// Primitive reads a backend offers to [`read_snapshot`], as stored
/// strings (JSON for entries and records, encoded members for buckets),
/// in batches so that a networked backend makes one round trip per
/// batch. Each answer has one item per key, in order.
pub(crate) trait Reads {
    fn docs(&mut self, ids: &[String]) -> Result<Vec<Option<String>>>;
    fn fps(&mut self, ids: &[String]) -> Result<Vec<Option<String>>>;
    /// SimHash table members, band members and chunk owners of a lookup.
    fn buckets(&mut self, lookup: &Lookup, limit: usize) -> Result<Buckets>;
}

/// Raw bucket contents of a lookup.
#[derive(Default)]
pub(crate) struct Buckets {
    pub simhash: Vec<Vec<String>>,
    pub bands: Vec<Vec<String>>,
    pub chunks: Vec<Option<String>>,
}

/// The snapshot of `lookup`, through `r`. Reads at most `limit` members
/// of a bucket and `limit` candidate documents (bounded work on a crowded
/// bucket).
pub(crate) fn read_snapshot(r: &mut dyn Reads, lookup: &Lookup, limit: usize) -> Result<Snapshot> {
    let own = r.docs(core::slice::from_ref(&lookup.doc_id))?;
    let mut s = Snapshot {
        existing: own
            .into_iter()
            .next()
            .flatten()
            .map(|j| parse_doc(&j))
            .transpose()?,
        ..Snapshot::default()
    };
    if s.existing.is_some() {
        // A replay decides nothing: no need to read further.
        return Ok(s);
    }
    let b = r.buckets(lookup, limit)?;
    let mut wanted: Vec<String> = Vec::new();
    let want = |id: &str, wanted: &mut Vec<String>| {
        if wanted.len() < limit && id != lookup.doc_id && !wanted.iter().any(|w| w == id) {
            wanted.push(id.to_owned());
        }
    };
    for m in b.simhash.iter().flatten() {
        let (v, d) = decode_simhash_member(m)?;
        if !s.simhash_hits.iter().any(|(_, x)| *x == d) {
            want(&d, &mut wanted);
            s.simhash_hits.push((v, d));
        }
    }
    for d in b.bands.into_iter().flatten() {
        if !s.band_hits.contains(&d) {
            want(&d, &mut wanted);
            s.band_hits.push(d);
        }
    }
    for m in &b.chunks {
        let owner = m.as_deref().map(decode_chunk_owner).transpose()?;
        if let Some(o) = &owner {
            want(&o.doc_id, &mut wanted);
        }
        s.chunk_owners.push(owner);
    }
    let entries = r.docs(&wanted)?;
    let records = r.fps(&wanted)?;
    for ((id, entry), recs) in wanted.into_iter().zip(entries).zip(records) {
        let Some(entry) = entry else { continue };
        s.docs.insert(
            id,
            std::sync::Arc::new(parse_candidate(&entry, recs.as_deref())?),
        );
    }
    Ok(s)
}

/// A stored entry and its records (none stored: no records) as read back.
pub(crate) fn parse_candidate(entry: &str, fps: Option<&str>) -> Result<CandidateDoc> {
    let fingerprints = match fps {
        Some(j) => parse_fps(j)?,
        None => Vec::new(),
    };
    Ok(CandidateDoc::new(parse_doc(entry)?, fingerprints))
}

pub(crate) fn parse_doc(json: &str) -> Result<StoredDocument> {
    serde_json::from_str(json).map_err(|e| Error::Corrupt(format!("store document entry: {e}")))
}

pub(crate) fn parse_fps(json: &str) -> Result<Vec<FingerprintRecord>> {
    serde_json::from_str(json)
        .map_err(|e| Error::Corrupt(format!("store fingerprint records: {e}")))
}

pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::Store(format!("encoding a record: {e}")))
}

/// `"<16 hex digits>:<doc id>"`.
pub(crate) fn encode_simhash_member(value: u64, doc_id: &str) -> String {
    format!("{value:016x}:{doc_id}")
}

pub(crate) fn decode_simhash_member(m: &str) -> Result<(u64, String)> {
    m.split_once(':')
        .and_then(|(v, d)| Some((u64::from_str_radix(v, 16).ok()?, d.to_owned())))
        .ok_or_else(|| Error::Corrupt(format!("store SimHash bucket member {m:?}")))
}

/// `"<chunk number>:<doc id>"`.
pub(crate) fn encode_chunk_owner(o: &ChunkOwner) -> String {
    format!("{}:{}", o.chunk_id, o.doc_id)
}

pub(crate) fn decode_chunk_owner(m: &str) -> Result<ChunkOwner> {
    m.split_once(':')
        .and_then(|(c, d)| {
            Some(ChunkOwner {
                chunk_id: c.parse().ok()?,
                doc_id: d.to_owned(),
            })
        })
        .ok_or_else(|| Error::Corrupt(format!("store chunk owner {m:?}")))
}
