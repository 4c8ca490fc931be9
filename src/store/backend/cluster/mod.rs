//! [`ClusterBackend`]: one store spread over every master of a Redis
//! Cluster, written by any number of workers on any number of machines,
//! with the decisions a single process would reach ingesting the
//! documents one after another in the store's global order.
//!
//! # Keys (`P` is the configured prefix)
//!
//! | key | type | holds |
//! |---|---|---|
//! | `{P}:ctl` | hash | the sequence, the two watermarks, one lease per batch in flight, committed batch results |
//! | `{P}:pending` | sorted set | committed batches not yet applied everywhere |
//! | `{P}:counters` | hash | counter → integer |
//! | `{P}:params` | string | [`HashParams`](crate::store::HashParams) JSON |
//! | `{P}:layout` | string | the number of groups |
//! | `{P\|g}` for `g` in `0..groups` | hash | group `g`: lookup keys, documents |
//!
//! The braces are hash tags: the control keys share one slot, and each
//! group lands on its own slot, so the groups spread over every master.
//! A group hash has one field per lookup key that hashes to it (CRC-32 of
//! the field) and one per document whose number falls in it (number mod
//! `groups`):
//!
//! | field | value |
//! |---|---|
//! | `s` table:u8 key:u64 | SimHash table members: (number:u64, SimHash:u64)… |
//! | `b` band:u16 key:u64 | MinHash band members: number:u64… |
//! | `c` SHA-256 | first holder:u64, owner:u64 (0: none), chunk id:u32 |
//! | `i` doc id | numbers that carried the id: u64… |
//! | `e` number:u64 | entry and records (the embedded log's binary encoding) |
//! | `x` number:u64 | the id that superseded it |
//! | `_a` | last batch applied |
//!
//! Integers are big-endian; member lists are sorted by number and hold at
//! most `max_candidates` members.
//!
//! # A batch
//!
//! 1. **Reserve** a range of numbers, one per document (`txtfp_reserve`,
//!    with a lease the owner renews while it waits).
//! 2. **Append**, when every earlier batch has (the append watermark):
//!    one `txtfp_append` per group touched, on all masters at once, files
//!    every document under every lookup key and answers each key's earlier
//!    members. Then the watermark moves on; the next batch appends while
//!    this one decides.
//! 3. **Read** the entries of the earlier members while earlier batches
//!    decide (entries and records never change once written).
//! 4. **Decide**, when every earlier batch has (the decide watermark):
//!    apply what committed batches left pending, read the owners of shared
//!    chunks and refresh the statuses read before (and the entries that
//!    were still missing), and run the decision engine on each document in
//!    order, against those and the batch's own earlier documents.
//! 5. **Commit** the result — every change to every group — in one call
//!    on the control slot (`txtfp_commit`), which also adds the counters
//!    and moves the decide watermark: the batch is decided, all or
//!    nothing. Then **apply** it to the groups (`txtfp_apply`, once per
//!    group and in order, whoever applies it) and **confirm**.
//!
//! A worker that dies before its commit stops renewing its lease; the
//! next worker waiting on the watermark voids the batch (its numbers
//! never get entries, so what it appended is ignored) and goes on. One
//! that dies after its commit leaves the result pending; the next decider
//! applies it. Every command is safe to repeat, so a master that restarts
//! (with AOF on) costs a retry.
//!
//! A document with no entry (in flight, voided, or a replay) is never a
//! candidate. A document that ends up not indexed (a duplicate, a replay)
//! is removed again from the lists it was appended to.

mod layout;
mod net;

use std::collections::BTreeMap;

use hashbrown::HashMap;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use redis::{Cmd, Value};

use self::layout::{DocNo, Marker, entry_field, group_of, id_field, members, status_field};
use self::net::{Net, slot};
use super::CandidateDoc;
use super::embedded::codec::{Strings, decode_doc, encode_doc};
use crate::store::records::DocStatus;
use crate::{Error, Result};

/// The Functions library, loaded on every master at open.
const FUNCTIONS: &str = include_str!("functions.lua");

/// Groups of a new store.
pub const DEFAULT_GROUPS: u32 = 1024;

/// A store on a Redis Cluster (feature `store-redis`).
///
/// ```no_run
/// # fn main() -> txtfp::Result<()> {
/// use txtfp::store::backend::ClusterBackend;
/// use txtfp::store::{GlobalFingerprintStore, GlobalStoreConfig};
/// let nodes = vec!["redis://10.0.0.1:7001/".to_owned(), "redis://10.0.0.2:7001/".to_owned()];
/// let backend = ClusterBackend::open(&nodes, "corpus")?;
/// let store = GlobalFingerprintStore::with_backend(GlobalStoreConfig::default(), Box::new(backend))?;
/// # Ok(()) }
/// ```
pub struct ClusterBackend {
    net: Net,
    prefix: String,
    groups: u32,
    /// Key and slot of each group.
    group_keys: Vec<(String, u16)>,
    ctl_slot: u16,
    lease: Duration,
    /// Makes each reservation's token unique.
    worker: String,
    reservations: AtomicU64,
    strings: Strings,
    /// The SimHash radius, once the parameters are known, when the table
    /// masks cover every bit (so a lookup's keys give its SimHash back and
    /// members beyond the radius are dropped before anything is read).
    radius: std::sync::OnceLock<Option<u32>>,
}

fn fcall(name: &str, keys: &[&[u8]], args: Vec<Vec<u8>>) -> Cmd {
    let mut c = redis::cmd("FCALL");
    c.arg(name).arg(keys.len());
    for k in keys {
        c.arg(*k);
    }
    for a in args {
        c.arg(a);
    }
    c
}

fn num(v: &Value) -> Option<i64> {
    redis::from_redis_value_ref::<i64>(v).ok()
}

impl ClusterBackend {
    /// Connects through `nodes` (`redis://host:port/` of any masters; the
    /// others are found from the slot map), loads the server functions on
    /// every master, and opens (or creates) the store named `prefix`.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when no node answers, a URL is not
    /// `redis://host:port/`, the servers lack Functions (Redis < 7), or the
    /// store was created with another layout.
    pub fn open(nodes: &[String], prefix: &str) -> Result<Self> {
        let net = Net::connect(nodes, Duration::from_secs(60))?;
        let mut load = redis::cmd("FUNCTION");
        load.arg("LOAD").arg("REPLACE").arg(FUNCTIONS);
        net.on_every_master(&load)?;
        let ctl = format!("{{{prefix}}}:ctl");
        let ctl_slot = slot(ctl.as_bytes());
        let layout_key = format!("{{{prefix}}}:layout");
        let wanted = format!("format=1 groups={DEFAULT_GROUPS}");
        let mut set = redis::cmd("SET");
        set.arg(&layout_key).arg(&wanted).arg("NX");
        let mut get = redis::cmd("GET");
        get.arg(&layout_key);
        let got = net.round(&[(ctl_slot, set), (ctl_slot, get)])?;
        let layout: String = redis::from_redis_value_ref(&got[1])
            .map_err(|e| Error::Store(format!("redis cluster store {prefix}: layout: {e}")))?;
        let groups = layout
            .strip_prefix("format=1 groups=")
            .and_then(|g| g.parse::<u32>().ok())
            .filter(|&g| (1..=1 << 20).contains(&g))
            .ok_or_else(|| {
                Error::Store(format!(
                    "redis cluster store {prefix}: unknown layout {layout:?} (written by a newer txtfp?)"
                ))
            })?;
        let group_keys = (0..groups)
            .map(|g| {
                let k = format!("{{{prefix}|{g}}}");
                let s = slot(k.as_bytes());
                (k, s)
            })
            .collect();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Ok(Self {
            net,
            prefix: prefix.to_owned(),
            groups,
            group_keys,
            ctl_slot,
            lease: Duration::from_secs(30),
            worker: format!("{:x}-{nanos:x}", std::process::id()),
            reservations: AtomicU64::new(0),
            strings: Strings::inline_only(),
            radius: std::sync::OnceLock::new(),
        })
    }

    /// Sets how long a batch may go without its owner renewing its lease
    /// before another worker voids it (default 30 s). Every wait renews
    /// it, so only a worker that stopped loses its batch.
    #[must_use]
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(100));
        self
    }

    /// Sets how long a failing round (a master down, the cluster
    /// reconfiguring) is retried before an error (default 60 s).
    #[must_use]
    pub fn with_patience(mut self, patience: Duration) -> Self {
        self.net.patience = patience;
        self
    }

    /// Masters serving the cluster's slots.
    pub fn masters(&self) -> usize {
        self.net.masters()
    }

    fn radius(&self) -> Option<u32> {
        self.radius.get().copied().flatten()
    }

    fn key(&self, suffix: &str) -> String {
        format!("{{{}}}:{suffix}", self.prefix)
    }

    fn group(&self, field: &[u8]) -> (u32, &(String, u16)) {
        let g = group_of(field, self.groups);
        (g, &self.group_keys[g as usize])
    }

    fn lease_ms(&self) -> Vec<u8> {
        self.lease.as_millis().to_string().into_bytes()
    }

    fn ctl_call(&self, name: &str, extra_keys: &[&str], args: Vec<Vec<u8>>) -> Result<Value> {
        let ctl = self.key("ctl");
        let mut keys: Vec<&[u8]> = vec![ctl.as_bytes()];
        keys.extend(extra_keys.iter().map(|k| k.as_bytes()));
        let c = fcall(name, &keys, args);
        Ok(self.net.round(&[(self.ctl_slot, c)])?.remove(0))
    }

    /// HMGET of `fields`, grouped: one command per group, one round.
    fn read_fields(&self, fields: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        let mut by_group: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, f) in fields.iter().enumerate() {
            by_group.entry(self.group(f).0).or_default().push(i);
        }
        let cmds: Vec<(u16, Cmd)> = by_group
            .iter()
            .map(|(g, idx)| {
                let (key, s) = &self.group_keys[*g as usize];
                let mut c = redis::cmd("HMGET");
                c.arg(key);
                for &i in idx {
                    c.arg(&fields[i]);
                }
                (*s, c)
            })
            .collect();
        let replies = self.net.round(&cmds)?;
        let mut out = vec![None; fields.len()];
        for ((_, idx), reply) in by_group.iter().zip(replies) {
            let vals: Vec<Option<Vec<u8>>> = redis::from_redis_value_ref(&reply)
                .map_err(|e| Error::Corrupt(format!("redis cluster store: HMGET reply: {e}")))?;
            for (&i, v) in idx.iter().zip(vals) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// Entries and records of documents `nos` (those that have one).
    fn fetch_docs(&self, nos: &[DocNo], docs: &mut Docs) -> Result<()> {
        let want: Vec<DocNo> = {
            let mut w: Vec<DocNo> = nos
                .iter()
                .copied()
                .filter(|n| !docs.fetched.contains_key(n))
                .collect();
            w.sort_unstable();
            w.dedup();
            w
        };
        if want.is_empty() {
            return Ok(());
        }
        let fields: Vec<Vec<u8>> = want
            .iter()
            .flat_map(|&n| [entry_field(n), status_field(n)])
            .collect();
        let vals = self.read_fields(&fields)?;
        for (k, &n) in want.iter().enumerate() {
            let (e, x) = (&vals[2 * k], &vals[2 * k + 1]);
            let Some(e) = e else {
                docs.fetched.insert(n, false);
                continue;
            };
            let (mut entry, records) = decode_doc(&self.strings, e).map_err(|err| {
                Error::Corrupt(format!(
                    "redis cluster store {}: document {n}: {err}",
                    self.prefix
                ))
            })?;
            if let Some(by) = x {
                entry.status = DocStatus::Superseded {
                    by: String::from_utf8_lossy(by).into_owned(),
                };
            }
            docs.insert(n, CandidateDoc::new(entry, records.unwrap_or_default()));
        }
        Ok(())
    }

    /// Brings documents read before the batch's turn up to date: the
    /// status of those that had an entry, the entry of those that had none
    /// yet (their batch was still deciding).
    fn refresh_docs(&self, docs: &mut Docs) -> Result<()> {
        let known: Vec<DocNo> = docs.by_no.keys().copied().collect();
        let missing: Vec<DocNo> = docs
            .fetched
            .iter()
            .filter(|(_, had)| !**had)
            .map(|(n, _)| *n)
            .collect();
        if known.is_empty() && missing.is_empty() {
            return Ok(());
        }
        let fields: Vec<Vec<u8>> = known.iter().map(|&n| status_field(n)).collect();
        let vals = if fields.is_empty() {
            Vec::new()
        } else {
            self.read_fields(&fields)?
        };
        for (n, x) in known.iter().zip(vals) {
            if let (Some(by), Some(c)) = (x, docs.by_no.get_mut(n)) {
                c.entry.status = DocStatus::Superseded {
                    by: String::from_utf8_lossy(&by).into_owned(),
                };
            }
        }
        for n in &missing {
            docs.fetched.remove(n);
        }
        self.fetch_docs(&missing, docs)
    }

    /// The document numbers filed under `id`.
    fn id_numbers(&self, id: &str) -> Result<Vec<DocNo>> {
        let f = id_field(id);
        let v = self.read_fields(core::slice::from_ref(&f))?.remove(0);
        members(&v.unwrap_or_default())
    }
}

/// Documents read (or decided) so far, by number.
#[derive(Default)]
struct Docs {
    /// Whether each number read has an entry.
    fetched: HashMap<DocNo, bool>,
    by_no: HashMap<DocNo, CandidateDoc>,
    no_of: HashMap<String, DocNo>,
}

impl Docs {
    fn insert(&mut self, n: DocNo, c: CandidateDoc) {
        self.fetched.insert(n, true);
        self.no_of.entry(c.entry.doc_id.clone()).or_insert(n);
        self.by_no.insert(n, c);
    }

    fn live(&self, n: DocNo) -> Option<&CandidateDoc> {
        self.by_no
            .get(&n)
            .filter(|c| c.entry.status == DocStatus::Live)
    }
}

/// What a lookup's keys held before its batch (or, for a query, now).
#[derive(Default)]
struct Earlier {
    ids: Vec<DocNo>,
    /// (number, SimHash) of the members within the radius.
    simhash: Vec<Vec<(DocNo, u64)>>,
    bands: Vec<Vec<DocNo>>,
    /// Each chunk's marker, if an earlier document had it.
    chunks: Vec<Option<Marker>>,
}

impl Earlier {
    /// Every document number it names, for reading their entries: a
    /// chunk's first holder too, as it is most often the owner the decide
    /// step reads later.
    fn numbers(&self) -> impl Iterator<Item = DocNo> + '_ {
        self.ids
            .iter()
            .copied()
            .chain(self.simhash.iter().flatten().map(|m| m.0))
            .chain(self.bands.iter().flatten().copied())
            .chain(
                self.chunks
                    .iter()
                    .flatten()
                    .flat_map(|(first, owner)| [Some(*first), owner.map(|o| o.0)])
                    .flatten(),
            )
    }
}

mod batch;
mod read;

pub use read::MAX_DECIDED;
#[cfg(test)]
mod tests;
