//! Reads of the cluster store: the snapshot a decision or a query sees,
//! and the [`StoreBackend`] implementation.

use std::collections::BTreeMap;

use super::layout::{
    DocNo, Owner, band_field, chunk_field, chunk_marker, id_field, members, simhash_field,
    simhash_members, simhash_of_keys,
};
use super::{ClusterBackend, Docs, Earlier};
use crate::store::HashParams;
use crate::store::backend::{CandidateDoc, ChunkOwner, Lookup, Snapshot, StoreBackend, WriteSet};
use crate::store::records::FingerprintType;
use crate::{Error, Result};

/// The snapshot of `lookup` given what its keys hold (`eff`, members in
/// number order), the owner of each of its chunks, and the documents read.
/// Mirrors what the other backends read: the entry under the id first (a
/// replay reads nothing more), then at most `limit` live members of each
/// list and at most `limit` candidate documents.
pub(super) fn assemble(
    lookup: &Lookup,
    eff: &Earlier,
    owners: &[Option<Owner>],
    docs: &Docs,
    limit: usize,
    exact: bool,
) -> Snapshot {
    let mut s = Snapshot::default();
    if let Some(c) = eff.ids.iter().find_map(|n| docs.by_no.get(n)) {
        s.existing = Some(c.entry.clone());
        return s;
    }
    let mut wanted: Vec<DocNo> = Vec::new();
    let mut want = |n: DocNo, id: &str| {
        if wanted.len() < limit && id != lookup.doc_id && !wanted.contains(&n) {
            wanted.push(n);
        }
    };
    for list in &eff.simhash {
        for &(n, v) in list.iter().filter(|m| docs.live(m.0).is_some()).take(limit) {
            let c = &docs.by_no[&n];
            let id = &c.entry.doc_id;
            // A member carries the SimHash its keys gave back: the real one
            // when the masks cover every bit, else the records have it.
            let v = if exact { Some(v) } else { simhash_of(c) };
            let Some(v) = v else { continue };
            if !s.simhash_hits.iter().any(|(_, x)| x == id) {
                want(n, id);
                s.simhash_hits.push((v, id.clone()));
            }
        }
    }
    for list in &eff.bands {
        for &n in list.iter().filter(|&&n| docs.live(n).is_some()).take(limit) {
            let id = &docs.by_no[&n].entry.doc_id;
            if !s.band_hits.contains(id) {
                want(n, id);
                s.band_hits.push(id.clone());
            }
        }
    }
    for o in owners {
        let owner = o.and_then(|(n, chunk_id)| {
            docs.by_no.get(&n).map(|d| ChunkOwner {
                doc_id: d.entry.doc_id.clone(),
                chunk_id,
            })
        });
        if let (Some(ow), Some((n, _))) = (&owner, o) {
            want(*n, &ow.doc_id);
        }
        s.chunk_owners.push(owner);
    }
    for n in wanted {
        if let Some(c) = docs.by_no.get(&n) {
            s.docs
                .insert(c.entry.doc_id.clone(), std::sync::Arc::new(c.clone()));
        }
    }
    s
}

fn simhash_of(c: &CandidateDoc) -> Option<u64> {
    c.fingerprints
        .iter()
        .find(|r| r.fingerprint_type == FingerprintType::SimHash)
        .and_then(|r| u64::from_str_radix(&r.value, 16).ok())
}

/// The fields a lookup files under: id, SimHash tables, bands, chunks.
pub(super) fn lookup_fields(lookup: &Lookup) -> Vec<Vec<u8>> {
    let mut f = vec![id_field(&lookup.doc_id)];
    f.extend(
        lookup
            .simhash_keys
            .iter()
            .map(|&(t, k)| simhash_field(t, k)),
    );
    f.extend(lookup.band_keys.iter().map(|&(b, k)| band_field(b, k)));
    f.extend(lookup.chunk_hashes.iter().map(chunk_field));
    f
}

/// Whether SimHash `v` can match `incoming` (always, without a radius).
pub(super) fn near(v: u64, incoming: u64, radius: Option<u32>) -> bool {
    radius.is_none_or(|r| (v ^ incoming).count_ones() <= r)
}

/// An [`Earlier`] from the values of [`lookup_fields`] (in that order),
/// keeping members numbered below `below`, and SimHash members within
/// `radius` of the lookup's SimHash.
pub(super) fn earlier_from(
    lookup: &Lookup,
    fields: &[Vec<u8>],
    vals: &[Option<Vec<u8>>],
    below: DocNo,
    radius: Option<u32>,
) -> Result<Earlier> {
    let incoming = simhash_of_keys(&lookup.simhash_keys);
    let mut e = Earlier::default();
    let (ns, nb) = (lookup.simhash_keys.len(), lookup.band_keys.len());
    for (k, v) in vals.iter().enumerate().take(fields.len()) {
        let v = v.as_deref().unwrap_or_default();
        if k > ns + nb {
            let marker = if v.is_empty() {
                None
            } else {
                Some(chunk_marker(v)?)
            };
            e.chunks.push(marker.filter(|m| m.0 < below));
            continue;
        }
        if k >= 1 && k <= ns {
            e.simhash.push(
                simhash_members(v)?
                    .into_iter()
                    .filter(|&(m, x)| m < below && near(x, incoming, radius))
                    .collect(),
            );
            continue;
        }
        let ms: Vec<DocNo> = members(v)?.into_iter().filter(|&m| m < below).collect();
        if k == 0 {
            e.ids = ms;
        } else {
            e.bands.push(ms);
        }
    }
    Ok(e)
}

/// Most document numbers [`ClusterBackend::decided`] reads in one call.
pub const MAX_DECIDED: usize = 1 << 16;

impl ClusterBackend {
    /// The documents numbered `from .. from + count` that were decided and
    /// stored (replays and voided numbers have none), in the store's global
    /// order: the order in which a single process ingesting them one after
    /// another reaches the same decisions.
    ///
    /// At most [`MAX_DECIDED`] numbers are read per call (a larger `count`
    /// is cut to it); page on from the last number returned.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when the cluster fails, [`Error::Corrupt`] when an
    /// entry does not decode.
    pub fn decided(&self, from: u64, count: usize) -> Result<Vec<(u64, CandidateDoc)>> {
        let count = count.min(MAX_DECIDED) as u64;
        let nos: Vec<DocNo> = (from..from.saturating_add(count)).collect();
        let mut docs = Docs::default();
        self.fetch_docs(&nos, &mut docs)?;
        let mut out: Vec<(u64, CandidateDoc)> = docs.by_no.into_iter().collect();
        out.sort_unstable_by_key(|d| d.0);
        Ok(out)
    }
}

impl StoreBackend for ClusterBackend {
    fn init_params(&self, params_json: &str) -> Result<String> {
        let key = self.key("params");
        let mut set = redis::cmd("SET");
        set.arg(&key).arg(params_json).arg("NX");
        let mut get = redis::cmd("GET");
        get.arg(&key);
        let got = self
            .net
            .round(&[(self.ctl_slot, set), (self.ctl_slot, get)])?;
        let stored: String = redis::from_redis_value_ref(&got[1]).map_err(|e| {
            Error::Corrupt(format!("redis cluster store {}: params: {e}", self.prefix))
        })?;
        let p = HashParams::from_json(&stored)?;
        let radius = if p.simhash {
            let masks = crate::lsh::SimHashLayout::for_distance(p.simhash_max_hamming)?;
            let all = masks.masks().iter().fold(0u64, |a, m| a | m) == u64::MAX;
            all.then_some(p.simhash_max_hamming)
        } else {
            None
        };
        let _ = self.radius.set(radius);
        Ok(stored)
    }

    fn snapshot(&self, lookup: &Lookup, limit: usize) -> Result<Snapshot> {
        let fields = lookup_fields(lookup);
        let vals = self.read_fields(&fields)?;
        let eff = earlier_from(lookup, &fields, &vals, DocNo::MAX, self.radius())?;
        let owners: Vec<Option<Owner>> = eff.chunks.iter().map(|m| m.and_then(|m| m.1)).collect();
        let mut docs = Docs::default();
        let nos: Vec<DocNo> = eff.numbers().collect();
        self.fetch_docs(&nos, &mut docs)?;
        Ok(assemble(
            lookup,
            &eff,
            &owners,
            &docs,
            limit,
            self.radius().is_some(),
        ))
    }

    fn update(
        &self,
        lookup: &Lookup,
        limit: usize,
        decide: &mut dyn FnMut(&Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        self.run_batch(core::slice::from_ref(lookup), limit, &mut |_, s| decide(s))
    }

    fn update_many(
        &self,
        lookups: &[Lookup],
        limit: usize,
        decide: &mut dyn FnMut(usize, &Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        if lookups.is_empty() {
            return Ok(());
        }
        self.run_batch(lookups, limit, decide)
    }

    fn document(&self, doc_id: &str) -> Result<Option<CandidateDoc>> {
        let nos = self.id_numbers(doc_id)?;
        let mut docs = Docs::default();
        self.fetch_docs(&nos, &mut docs)?;
        Ok(nos.iter().find_map(|n| docs.by_no.remove(n)))
    }

    fn counters(&self) -> Result<BTreeMap<String, i64>> {
        let mut c = redis::cmd("HGETALL");
        c.arg(self.key("counters"));
        let v = self.net.round(&[(self.ctl_slot, c)])?.remove(0);
        redis::from_redis_value_ref(&v).map_err(|e| {
            Error::Corrupt(format!(
                "redis cluster store {}: counters: {e}",
                self.prefix
            ))
        })
    }
}
