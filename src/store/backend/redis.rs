//! [`RedisBackend`]: the store on a Redis server, shared by any number of
//! processes on any number of machines.
//!
//! Keys (`P` is the configured prefix; the braces are a Redis Cluster hash
//! tag, so one store lives in one slot and its transactions are legal):
//!
//! | key | type | value |
//! |---|---|---|
//! | `{P}:params` | string | [`HashParams`](crate::store::HashParams) JSON |
//! | `{P}:doc:<id>` | string | [`StoredDocument`](crate::store::StoredDocument) JSON |
//! | `{P}:fp:<id>` | string | `[FingerprintRecord]` JSON |
//! | `{P}:sh:<table>:<masked bits hex>` | set | `"<simhash hex>:<doc id>"` |
//! | `{P}:mh:<band>:<band key hex>` | set | doc ids |
//! | `{P}:ch:<sha-256 hex>` | string | `"<chunk number>:<doc id>"` |
//! | `{P}:counters` | hash | counter → integer |
//!
//! An ingest is an optimistic transaction: `WATCH` the document's own key,
//! then (one pipeline) `WATCH` and read every bucket its fingerprints
//! probe, then `WATCH` and read the candidates' entries, decide in Rust,
//! and apply the writes in `MULTI`/`EXEC`. If any watched key changed
//! meanwhile `EXEC` does nothing and the round starts again (bounded
//! retries with a growing, jittered pause). Four round trips per ingest
//! when nothing conflicts.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use redis::{Connection, Pipeline, Value};

use super::{
    Bucket, Buckets, CandidateDoc, Lookup, Reads, Snapshot, StoreBackend, Write, WriteSet,
    encode_chunk_owner, parse_doc, parse_fps, read_snapshot, to_json,
};
use crate::store::fingerprints::hex;
use crate::{Error, Result};

/// Conflicting rounds tolerated before an ingest gives up.
const MAX_ATTEMPTS: u32 = 200;

/// Connect / read / write timeout of a connection.
const TIMEOUT: Duration = Duration::from_secs(30);

/// A store on a Redis server (feature `store-redis`).
///
/// Thread-safe: each call takes a connection from a small pool (a `WATCH`
/// belongs to a connection, so concurrent ingests never share one).
pub struct RedisBackend {
    client: redis::Client,
    url: String,
    pool: Mutex<Vec<Connection>>,
    keys: Keys,
}

fn redis_err(url: &str, e: impl core::fmt::Display) -> Error {
    Error::Store(format!("redis {url}: {e}"))
}

/// Key names under one prefix.
struct Keys {
    tag: String,
}

impl Keys {
    fn params(&self) -> String {
        format!("{}:params", self.tag)
    }
    fn doc(&self, id: &str) -> String {
        format!("{}:doc:{id}", self.tag)
    }
    fn fp(&self, id: &str) -> String {
        format!("{}:fp:{id}", self.tag)
    }
    fn simhash(&self, table: u8, key: u64) -> String {
        format!("{}:sh:{table}:{key:016x}", self.tag)
    }
    fn band(&self, band: u16, key: u64) -> String {
        format!("{}:mh:{band}:{key:016x}", self.tag)
    }
    fn chunk(&self, h: &[u8; 32]) -> String {
        format!("{}:ch:{}", self.tag, hex(h))
    }
    fn counters(&self) -> String {
        format!("{}:counters", self.tag)
    }
}

impl RedisBackend {
    /// Connects to `url` (`redis://host:port/db`) and checks the server
    /// answers. `prefix` names the store (one store per prefix).
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the URL is invalid or the server does not
    /// answer.
    pub fn open(url: &str, prefix: &str) -> Result<Self> {
        let client = redis::Client::open(url).map_err(|e| redis_err(url, e))?;
        let b = Self {
            client,
            url: url.to_owned(),
            pool: Mutex::new(Vec::new()),
            keys: Keys {
                tag: format!("{{{prefix}}}"),
            },
        };
        let mut con = b.connection()?;
        redis::cmd("PING")
            .query::<String>(&mut con)
            .map_err(|e| redis_err(url, e))?;
        b.give_back(con);
        Ok(b)
    }

    fn connection(&self) -> Result<Connection> {
        if let Some(c) = self.pool.lock().ok().and_then(|mut p| p.pop()) {
            return Ok(c);
        }
        let con = self
            .client
            .get_connection_with_timeout(TIMEOUT)
            .map_err(|e| redis_err(&self.url, e))?;
        con.set_read_timeout(Some(TIMEOUT))
            .map_err(|e| redis_err(&self.url, e))?;
        con.set_write_timeout(Some(TIMEOUT))
            .map_err(|e| redis_err(&self.url, e))?;
        Ok(con)
    }

    /// Returns a connection in a clean state to the pool (a connection that
    /// failed is dropped instead, by not calling this).
    fn give_back(&self, con: Connection) {
        if let Ok(mut p) = self.pool.lock()
            && p.len() < 16
        {
            p.push(con);
        }
    }

    fn err(&self, e: impl core::fmt::Display) -> Error {
        redis_err(&self.url, e)
    }

    /// One optimistic round: `Some(())` when applied, `None` on conflict.
    fn try_update(
        &self,
        con: &mut Connection,
        lookup: &Lookup,
        limit: usize,
        decide: &mut dyn FnMut(&Snapshot) -> Result<WriteSet>,
    ) -> Result<Option<()>> {
        let snap = {
            let mut r = RedisReads {
                backend: self,
                con: &mut *con,
                watch: true,
            };
            read_snapshot(&mut r, lookup, limit)?
        };
        let ws = decide(&snap)?;
        if ws.ops.is_empty() {
            redis::cmd("UNWATCH").exec(con).map_err(|e| self.err(e))?;
            return Ok(Some(()));
        }
        let mut p = redis::pipe();
        p.atomic();
        self.queue_writes(&mut p, ws)?;
        // Something non-ignored, so an applied EXEC is `Some` and an aborted
        // one (nil) is `None`.
        p.cmd("PING");
        let done: Option<(String,)> = p.query(con).map_err(|e| self.err(e))?;
        Ok(done.map(|_| ()))
    }

    fn queue_writes(&self, p: &mut Pipeline, ws: WriteSet) -> Result<()> {
        let k = &self.keys;
        for op in ws.ops {
            match Write::from(op) {
                Write::PutDoc(d) => {
                    p.cmd("SET")
                        .arg(k.doc(&d.doc_id))
                        .arg(to_json(&d)?)
                        .ignore();
                }
                Write::PutFingerprints(id, recs) => {
                    p.cmd("SET").arg(k.fp(&id)).arg(to_json(&recs)?).ignore();
                }
                Write::Bucket(edit) => {
                    let set = match edit.bucket {
                        Bucket::SimHash(t) => k.simhash(t, edit.key),
                        Bucket::Band(b) => k.band(b, edit.key),
                    };
                    p.cmd(if edit.add { "SADD" } else { "SREM" })
                        .arg(set)
                        .arg(edit.member)
                        .ignore();
                }
                Write::ChunkSet(h, owner) => {
                    p.cmd("SET")
                        .arg(k.chunk(&h))
                        .arg(encode_chunk_owner(&owner))
                        .ignore();
                }
                Write::ChunkRemove(h) => {
                    p.cmd("DEL").arg(k.chunk(&h)).ignore();
                }
                Write::Count(name, delta) => {
                    p.cmd("HINCRBY")
                        .arg(k.counters())
                        .arg(name)
                        .arg(delta)
                        .ignore();
                }
            }
        }
        Ok(())
    }
}

/// [`Reads`] over one connection; with `watch`, every key is `WATCH`ed in
/// the same pipeline that reads it.
struct RedisReads<'a> {
    backend: &'a RedisBackend,
    con: &'a mut Connection,
    watch: bool,
}

impl RedisReads<'_> {
    fn get_all(&mut self, keys: &[String]) -> Result<Vec<Option<String>>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut p = redis::pipe();
        if self.watch {
            p.cmd("WATCH").arg(keys).ignore();
        }
        p.cmd("MGET").arg(keys);
        let (v,): (Vec<Option<String>>,) = p.query(self.con).map_err(|e| self.backend.err(e))?;
        Ok(v)
    }
}

impl Reads for RedisReads<'_> {
    fn docs(&mut self, ids: &[String]) -> Result<Vec<Option<String>>> {
        let keys: Vec<String> = ids.iter().map(|id| self.backend.keys.doc(id)).collect();
        self.get_all(&keys)
    }

    fn fps(&mut self, ids: &[String]) -> Result<Vec<Option<String>>> {
        let keys: Vec<String> = ids.iter().map(|id| self.backend.keys.fp(id)).collect();
        self.get_all(&keys)
    }

    fn buckets(&mut self, lookup: &Lookup, limit: usize) -> Result<Buckets> {
        let k = &self.backend.keys;
        let sets: Vec<String> = lookup
            .simhash_keys
            .iter()
            .map(|&(t, key)| k.simhash(t, key))
            .chain(lookup.band_keys.iter().map(|&(b, key)| k.band(b, key)))
            .collect();
        let chunks: Vec<String> = lookup.chunk_hashes.iter().map(|h| k.chunk(h)).collect();
        if sets.is_empty() && chunks.is_empty() {
            return Ok(Buckets::default());
        }
        let mut p = redis::pipe();
        if self.watch {
            p.cmd("WATCH").arg(&sets).arg(&chunks).ignore();
        }
        for s in &sets {
            p.cmd("SMEMBERS").arg(s);
        }
        if !chunks.is_empty() {
            p.cmd("MGET").arg(&chunks);
        }
        let mut vals: Vec<Value> = p.query(self.con).map_err(|e| self.backend.err(e))?;
        let chunk_vals = if chunks.is_empty() {
            Value::Array(Vec::new())
        } else {
            vals.pop().unwrap_or(Value::Nil)
        };
        let mut b = Buckets::default();
        let n_sh = lookup.simhash_keys.len();
        for (i, v) in vals.into_iter().enumerate() {
            let mut members: Vec<String> =
                redis::from_redis_value(v).map_err(|e| self.backend.err(e))?;
            // Sets are unordered: sort so the cut at `limit` (and so the
            // decision) does not depend on the server's hash order.
            members.sort_unstable();
            members.truncate(limit);
            if i < n_sh {
                b.simhash.push(members)
            } else {
                b.bands.push(members)
            }
        }
        b.chunks = redis::from_redis_value(chunk_vals).map_err(|e| self.backend.err(e))?;
        Ok(b)
    }
}

impl StoreBackend for RedisBackend {
    fn init_params(&self, params_json: &str) -> Result<String> {
        let mut con = self.connection()?;
        let key = self.keys.params();
        let (_, stored): (Option<String>, Option<String>) = redis::pipe()
            .cmd("SET")
            .arg(&key)
            .arg(params_json)
            .arg("NX")
            .cmd("GET")
            .arg(&key)
            .query(&mut con)
            .map_err(|e| self.err(e))?;
        self.give_back(con);
        stored
            .ok_or_else(|| Error::Store(format!("redis {}: {key} vanished after SET NX", self.url)))
    }

    fn snapshot(&self, lookup: &Lookup, limit: usize) -> Result<Snapshot> {
        let mut con = self.connection()?;
        let s = read_snapshot(
            &mut RedisReads {
                backend: self,
                con: &mut con,
                watch: false,
            },
            lookup,
            limit,
        )?;
        self.give_back(con);
        Ok(s)
    }

    fn update(
        &self,
        lookup: &Lookup,
        limit: usize,
        decide: &mut dyn FnMut(&Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        let mut con = self.connection()?;
        for attempt in 0..MAX_ATTEMPTS {
            // An error drops the connection (it may hold WATCHes).
            if self.try_update(&mut con, lookup, limit, decide)?.is_some() {
                self.give_back(con);
                return Ok(());
            }
            // Conflict: back off a little (more each time, jittered by the
            // clock so colliding writers spread out).
            let jitter = u64::from(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.subsec_nanos())
                    % 1000,
            );
            std::thread::sleep(Duration::from_micros(
                u64::from(attempt.min(20)) * 200 + jitter,
            ));
        }
        Err(Error::Store(format!(
            "redis {}: ingest of {:?} conflicted {MAX_ATTEMPTS} times in a row; nothing was written",
            self.url, lookup.doc_id
        )))
    }

    fn document(&self, doc_id: &str) -> Result<Option<CandidateDoc>> {
        let mut con = self.connection()?;
        let (entry, fps): (Option<String>, Option<String>) = redis::pipe()
            .cmd("GET")
            .arg(self.keys.doc(doc_id))
            .cmd("GET")
            .arg(self.keys.fp(doc_id))
            .query(&mut con)
            .map_err(|e| self.err(e))?;
        self.give_back(con);
        let Some(entry) = entry else { return Ok(None) };
        Ok(Some(CandidateDoc::new(
            parse_doc(&entry)?,
            fps.as_deref()
                .map(parse_fps)
                .transpose()?
                .unwrap_or_default(),
        )))
    }

    fn counters(&self) -> Result<BTreeMap<String, i64>> {
        let mut con = self.connection()?;
        let c: BTreeMap<String, i64> = redis::cmd("HGETALL")
            .arg(self.keys.counters())
            .query(&mut con)
            .map_err(|e| self.err(e))?;
        self.give_back(con);
        Ok(c)
    }
}
