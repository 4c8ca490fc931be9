//! [`LegacyRedbStore`]: the earlier embedded format, one redb file,
//! `<root_path>/store.redb`; kept to read such a store and to convert it
//! (`txtfp store migrate`, [`LegacyRedbStore::migrate`](super::LegacyRedbStore::migrate)).
//!
//! Tables (all keys and values are the same strings the Redis backend
//! stores, so the two layouts read alike):
//!
//! | table | key | value |
//! |---|---|---|
//! | `meta` | `"params"` | [`HashParams`](crate::store::HashParams) JSON |
//! | `docs` | doc id | [`StoredDocument`](crate::store::StoredDocument) JSON |
//! | `fingerprints` | doc id | `[FingerprintRecord]` JSON |
//! | `simhash` (multimap) | `table << 64 \| masked bits` | `"<simhash hex>:<doc id>"` |
//! | `bands` (multimap) | `band << 64 \| band key` | doc id |
//! | `chunks` | SHA-256 (32 bytes) | `"<chunk number>:<doc id>"` |
//! | `counters` | name | `i64` |

use std::collections::BTreeMap;
use std::path::Path;

use redb::{
    Database, MultimapTableDefinition, ReadableDatabase, ReadableMultimapTable, ReadableTable,
    TableDefinition,
};

use super::{
    Bucket, Buckets, CandidateDoc, ChunkOwner, Lookup, Reads, Snapshot, StoreBackend, Write,
    WriteSet, encode_chunk_owner, parse_candidate, read_snapshot, to_json,
};
use crate::{Error, Result};

const META: TableDefinition<&str, &str> = TableDefinition::new("meta");
const DOCS: TableDefinition<&str, &str> = TableDefinition::new("docs");
const FPS: TableDefinition<&str, &str> = TableDefinition::new("fingerprints");
const SIMHASH: MultimapTableDefinition<u128, &str> = MultimapTableDefinition::new("simhash");
const BANDS: MultimapTableDefinition<u128, &str> = MultimapTableDefinition::new("bands");
const CHUNKS: TableDefinition<&[u8], &str> = TableDefinition::new("chunks");
const COUNTERS: TableDefinition<&str, i64> = TableDefinition::new("counters");

/// File name of the database under `root_path`.
pub const DB_FILE: &str = "store.redb";

/// A store in an embedded [redb](https://docs.rs/redb) database.
///
/// Every [`update`](StoreBackend::update) is one redb write transaction:
/// the snapshot is read, the decision made and the writes applied before
/// the commit, and redb runs one write transaction at a time, so any
/// number of threads may share the backend. A commit is durable when it
/// returns (redb's `Durability::Immediate`): a process killed afterwards
/// keeps it, one killed before leaves no trace of it.
///
/// redb locks the file: a second process opening the same store gets
/// [`Error::Store`]. Many processes share a store through the Redis
/// backend instead.
pub struct LegacyRedbStore {
    db: Database,
}

fn db_err(e: impl core::fmt::Display) -> Error {
    Error::Store(format!("embedded database: {e}"))
}

impl LegacyRedbStore {
    /// The stored parameters (JSON), if any.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the database fails.
    pub fn params(&self) -> Result<Option<String>> {
        let tx = self.db.begin_read().map_err(db_err)?;
        let meta = tx.open_table(META).map_err(db_err)?;
        get_str(&meta, "params")
    }

    /// Every stored document with its records, in id order.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] / [`Error::Corrupt`] when the database fails or a
    /// value does not parse; `each`'s error.
    pub fn for_each_document(
        &self,
        each: &mut dyn FnMut(CandidateDoc) -> Result<()>,
    ) -> Result<()> {
        let tx = self.db.begin_read().map_err(db_err)?;
        let docs = tx.open_table(DOCS).map_err(db_err)?;
        let fps = tx.open_table(FPS).map_err(db_err)?;
        for row in docs.iter().map_err(db_err)? {
            let (k, v) = row.map_err(db_err)?;
            let recs = get_str(&fps, k.value())?;
            each(parse_candidate(v.value(), recs.as_deref())?)?;
        }
        Ok(())
    }

    /// Every chunk hash with its owner.
    ///
    /// # Errors
    ///
    /// As [`for_each_document`](Self::for_each_document).
    pub fn chunks(&self) -> Result<Vec<([u8; 32], ChunkOwner)>> {
        let tx = self.db.begin_read().map_err(db_err)?;
        let t = tx.open_table(CHUNKS).map_err(db_err)?;
        let mut out = Vec::new();
        for row in t.iter().map_err(db_err)? {
            let (k, v) = row.map_err(db_err)?;
            let h: [u8; 32] = k
                .value()
                .try_into()
                .map_err(|_| Error::Corrupt("legacy store: a chunk hash is not 32 bytes".into()))?;
            out.push((h, super::decode_chunk_owner(v.value())?));
        }
        Ok(out)
    }

    /// Opens (or creates) the store under `root_path`.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the directory cannot be created; [`Error::Store`]
    /// when the file cannot be opened, is not a redb database, or is open
    /// in another process.
    pub fn open(root_path: &Path) -> Result<Self> {
        std::fs::create_dir_all(root_path)?;
        let path = root_path.join(DB_FILE);
        let db = Database::create(&path).map_err(|e| match e {
            redb::DatabaseError::DatabaseAlreadyOpen => Error::Store(format!(
                "{} is open in another process; the embedded backend serves one process \
                 (any number of threads): use backend = \"redis\" to share a store between processes",
                path.display()
            )),
            other => Error::Store(format!("embedded database {}: {other}", path.display())),
        })?;
        let tx = db.begin_write().map_err(db_err)?;
        {
            tx.open_table(META).map_err(db_err)?;
            tx.open_table(DOCS).map_err(db_err)?;
            tx.open_table(FPS).map_err(db_err)?;
            tx.open_multimap_table(SIMHASH).map_err(db_err)?;
            tx.open_multimap_table(BANDS).map_err(db_err)?;
            tx.open_table(CHUNKS).map_err(db_err)?;
            tx.open_table(COUNTERS).map_err(db_err)?;
        }
        tx.commit().map_err(db_err)?;
        Ok(Self { db })
    }
}

/// [`Reads`] over open redb tables (read-only or inside the write
/// transaction).
struct RedbReads<'a, T, M, C> {
    docs: &'a T,
    fps: &'a T,
    simhash: &'a M,
    bands: &'a M,
    chunks: &'a C,
}

fn get_str<T: ReadableTable<&'static str, &'static str>>(t: &T, k: &str) -> Result<Option<String>> {
    Ok(t.get(k).map_err(db_err)?.map(|g| g.value().to_owned()))
}

fn members<M: ReadableMultimapTable<u128, &'static str>>(
    m: &M,
    key: u128,
    limit: usize,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for v in m.get(key).map_err(db_err)?.take(limit) {
        out.push(v.map_err(db_err)?.value().to_owned());
    }
    Ok(out)
}

impl<T, M, C> Reads for RedbReads<'_, T, M, C>
where
    T: ReadableTable<&'static str, &'static str>,
    M: ReadableMultimapTable<u128, &'static str>,
    C: ReadableTable<&'static [u8], &'static str>,
{
    fn docs(&mut self, ids: &[String]) -> Result<Vec<Option<String>>> {
        ids.iter().map(|id| get_str(self.docs, id)).collect()
    }
    fn fps(&mut self, ids: &[String]) -> Result<Vec<Option<String>>> {
        ids.iter().map(|id| get_str(self.fps, id)).collect()
    }
    fn buckets(&mut self, lookup: &Lookup, limit: usize) -> Result<Buckets> {
        let mut b = Buckets::default();
        for &(t, k) in &lookup.simhash_keys {
            b.simhash
                .push(members(self.simhash, wide(t.into(), k), limit)?);
        }
        for &(band, k) in &lookup.band_keys {
            b.bands
                .push(members(self.bands, wide(band.into(), k), limit)?);
        }
        for h in &lookup.chunk_hashes {
            let owner = self
                .chunks
                .get(&h[..])
                .map_err(db_err)?
                .map(|g| g.value().to_owned());
            b.chunks.push(owner);
        }
        Ok(b)
    }
}

/// The tables, open for writing in one transaction.
struct Tables<'t> {
    docs: redb::Table<'t, &'static str, &'static str>,
    fps: redb::Table<'t, &'static str, &'static str>,
    simhash: redb::MultimapTable<'t, u128, &'static str>,
    bands: redb::MultimapTable<'t, u128, &'static str>,
    chunks: redb::Table<'t, &'static [u8], &'static str>,
    counters: redb::Table<'t, &'static str, i64>,
}

impl Tables<'_> {
    fn apply(&mut self, ws: WriteSet) -> Result<()> {
        for op in ws.ops {
            match Write::from(op) {
                Write::PutDoc(d) => {
                    let json = to_json(&d)?;
                    self.docs
                        .insert(d.doc_id.as_str(), json.as_str())
                        .map_err(db_err)?;
                }
                Write::PutFingerprints(id, recs) => {
                    let json = to_json(&recs)?;
                    self.fps
                        .insert(id.as_str(), json.as_str())
                        .map_err(db_err)?;
                }
                Write::Bucket(edit) => {
                    let (table, hi) = match edit.bucket {
                        Bucket::SimHash(t) => (&mut self.simhash, t.into()),
                        Bucket::Band(b) => (&mut self.bands, b.into()),
                    };
                    let key = wide(hi, edit.key);
                    let member = edit.member.as_str();
                    if edit.add {
                        table.insert(key, member).map_err(db_err)?;
                    } else {
                        table.remove(key, member).map_err(db_err)?;
                    }
                }
                Write::ChunkSet(h, owner) => {
                    let m = encode_chunk_owner(&owner);
                    self.chunks.insert(&h[..], m.as_str()).map_err(db_err)?;
                }
                Write::ChunkRemove(h) => {
                    self.chunks.remove(&h[..]).map_err(db_err)?;
                }
                Write::Count(name, delta) => {
                    let now = self
                        .counters
                        .get(name.as_str())
                        .map_err(db_err)?
                        .map_or(0, |g| g.value());
                    self.counters
                        .insert(name.as_str(), now.saturating_add(delta))
                        .map_err(db_err)?;
                }
            }
        }
        Ok(())
    }
}

/// `hi << 64 | lo`: one key for a (table, bits) pair.
fn wide(hi: u64, lo: u64) -> u128 {
    (u128::from(hi) << 64) | u128::from(lo)
}

impl StoreBackend for LegacyRedbStore {
    fn init_params(&self, params_json: &str) -> Result<String> {
        let tx = self.db.begin_write().map_err(db_err)?;
        let stored = {
            let mut meta = tx.open_table(META).map_err(db_err)?;
            match get_str(&meta, "params")? {
                Some(s) => s,
                None => {
                    meta.insert("params", params_json).map_err(db_err)?;
                    params_json.to_owned()
                }
            }
        };
        tx.commit().map_err(db_err)?;
        Ok(stored)
    }

    fn snapshot(&self, lookup: &Lookup, limit: usize) -> Result<Snapshot> {
        let tx = self.db.begin_read().map_err(db_err)?;
        let docs = tx.open_table(DOCS).map_err(db_err)?;
        let fps = tx.open_table(FPS).map_err(db_err)?;
        let simhash = tx.open_multimap_table(SIMHASH).map_err(db_err)?;
        let bands = tx.open_multimap_table(BANDS).map_err(db_err)?;
        let chunks = tx.open_table(CHUNKS).map_err(db_err)?;
        let mut r = RedbReads {
            docs: &docs,
            fps: &fps,
            simhash: &simhash,
            bands: &bands,
            chunks: &chunks,
        };
        read_snapshot(&mut r, lookup, limit)
    }

    fn update(
        &self,
        lookup: &Lookup,
        limit: usize,
        decide: &mut dyn FnMut(&Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        self.update_many(core::slice::from_ref(lookup), limit, &mut |_, s| decide(s))
    }

    /// All lookups in one write transaction (one commit, one fsync): each
    /// decision sees the writes of the ones before it; all or nothing is
    /// stored.
    fn update_many(
        &self,
        lookups: &[Lookup],
        limit: usize,
        decide: &mut dyn FnMut(usize, &Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        // One write transaction at a time: no snapshot can go stale before
        // the commit. Dropping `tx` on an error aborts it.
        let tx = self.db.begin_write().map_err(db_err)?;
        {
            let mut t = Tables {
                docs: tx.open_table(DOCS).map_err(db_err)?,
                fps: tx.open_table(FPS).map_err(db_err)?,
                simhash: tx.open_multimap_table(SIMHASH).map_err(db_err)?,
                bands: tx.open_multimap_table(BANDS).map_err(db_err)?,
                chunks: tx.open_table(CHUNKS).map_err(db_err)?,
                counters: tx.open_table(COUNTERS).map_err(db_err)?,
            };
            for (i, lookup) in lookups.iter().enumerate() {
                let snap = {
                    let mut r = RedbReads {
                        docs: &t.docs,
                        fps: &t.fps,
                        simhash: &t.simhash,
                        bands: &t.bands,
                        chunks: &t.chunks,
                    };
                    read_snapshot(&mut r, lookup, limit)?
                };
                t.apply(decide(i, &snap)?)?;
            }
        }
        tx.commit().map_err(db_err)
    }

    fn document(&self, doc_id: &str) -> Result<Option<CandidateDoc>> {
        let tx = self.db.begin_read().map_err(db_err)?;
        let docs = tx.open_table(DOCS).map_err(db_err)?;
        let Some(entry) = get_str(&docs, doc_id)? else {
            return Ok(None);
        };
        let fps = tx.open_table(FPS).map_err(db_err)?;
        let fps = get_str(&fps, doc_id)?;
        parse_candidate(&entry, fps.as_deref()).map(Some)
    }

    fn counters(&self) -> Result<BTreeMap<String, i64>> {
        let tx = self.db.begin_read().map_err(db_err)?;
        let t = tx.open_table(COUNTERS).map_err(db_err)?;
        let mut out = BTreeMap::new();
        for row in t.iter().map_err(db_err)? {
            let (k, v) = row.map_err(db_err)?;
            out.insert(k.value().to_owned(), v.value());
        }
        Ok(out)
    }
}
