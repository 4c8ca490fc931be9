//! One batch through the cluster store: reserve, append, decide, commit,
//! apply (see the module documentation of `cluster`).

use std::collections::BTreeMap;

use hashbrown::HashMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use redis::Cmd;

use super::layout::{
    BatchResult, DocNo, Owner, band_field, chunk_field, chunk_marker, entry_field, id_field,
    members, owner_payload, simhash_field, simhash_of_keys, status_field,
};
use super::read::{assemble, earlier_from, lookup_fields, near};
use super::{ClusterBackend, Docs, Earlier, encode_doc, fcall, num};
use crate::store::backend::embedded::codec::Strings;
use crate::store::backend::{CandidateDoc, Lookup, Snapshot, WriteOp, WriteSet};
use crate::store::records::{DocStatus, StoredDocument};
use crate::{Error, Result};

/// One `txtfp_append` call: the (lookup, field) of each triple, and the
/// arguments.
type GroupCall = (Vec<(usize, usize)>, Vec<Vec<u8>>);

/// What a decision in the batch changed, as later documents of the same
/// batch must see it.
#[derive(Default)]
struct Overlay {
    docs: Docs,
    /// Chunk owners set or cleared in this batch.
    chunks: HashMap<[u8; 32], Option<Owner>>,
    result: BatchResult,
    counters: BTreeMap<String, i64>,
}

impl ClusterBackend {
    fn voided(&self, a: DocNo) -> Error {
        Error::Store(format!(
            "redis cluster store {}: batch {a} was voided: it went {:?} without renewing its \
             lease (the worker stalled) and another worker moved on; nothing of it is stored, \
             so it can be ingested again",
            self.prefix, self.lease
        ))
    }

    pub(super) fn run_batch(
        &self,
        lookups: &[Lookup],
        limit: usize,
        decide: &mut dyn FnMut(usize, &Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        // A document whose id is stored already replays that decision and
        // changes nothing, wherever it falls in the order: answer it now,
        // without numbering or filing it.
        let stored = self.stored_entries(lookups)?;
        if stored.iter().all(Option::is_none) {
            return self.run_sequenced(lookups, limit, decide);
        }
        let mut rest: Vec<usize> = Vec::new();
        for (i, entry) in stored.into_iter().enumerate() {
            match entry {
                Some(existing) => {
                    let snap = Snapshot {
                        existing: Some(existing),
                        ..Snapshot::default()
                    };
                    if !decide(i, &snap)?.ops.is_empty() {
                        return Err(Error::Store(format!(
                            "redis cluster store {}: a replay asked for writes",
                            self.prefix
                        )));
                    }
                }
                None => rest.push(i),
            }
        }
        if rest.is_empty() {
            return Ok(());
        }
        let subset: Vec<Lookup> = rest.iter().map(|&i| lookups[i].clone()).collect();
        self.run_sequenced(&subset, limit, &mut |j, s| decide(rest[j], s))
    }

    /// The stored entry of each lookup's id, if any (two rounds: the id
    /// lists, then the entries of the numbers they hold).
    fn stored_entries(&self, lookups: &[Lookup]) -> Result<Vec<Option<StoredDocument>>> {
        let fields: Vec<Vec<u8>> = lookups.iter().map(|l| id_field(&l.doc_id)).collect();
        let vals = self.read_fields(&fields)?;
        let lists: Vec<Vec<DocNo>> = vals
            .iter()
            .map(|v| members(v.as_deref().unwrap_or_default()))
            .collect::<Result<_>>()?;
        let nos: Vec<DocNo> = lists.iter().flatten().copied().collect();
        if nos.is_empty() {
            return Ok(vec![None; lookups.len()]);
        }
        let mut docs = Docs::default();
        self.fetch_docs(&nos, &mut docs)?;
        Ok(lists
            .iter()
            .map(|l| {
                l.iter()
                    .find_map(|n| docs.by_no.get(n))
                    .map(|c| c.entry.clone())
            })
            .collect())
    }

    fn run_sequenced(
        &self,
        lookups: &[Lookup],
        limit: usize,
        decide: &mut dyn FnMut(usize, &Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        let token = format!(
            "{}-{}",
            self.worker,
            self.reservations.fetch_add(1, Ordering::Relaxed)
        );
        let v = self.ctl_call(
            "txtfp_reserve",
            &[],
            vec![
                lookups.len().to_string().into_bytes(),
                self.lease_ms(),
                token.into_bytes(),
            ],
        )?;
        let a = num(&v)
            .and_then(|a| DocNo::try_from(a).ok())
            .ok_or_else(|| {
                Error::Store(format!(
                    "redis cluster store {}: bad reservation {v:?}",
                    self.prefix
                ))
            })?;
        let out = self.run_reserved(a, lookups, limit, decide);
        if out.is_err() {
            // Frees the watermark at once rather than after the lease; a
            // no-op once committed.
            let _ = self.ctl_call("txtfp_abandon", &[], vec![a.to_string().into_bytes()]);
        }
        out
    }

    fn run_reserved(
        &self,
        a: DocNo,
        lookups: &[Lookup],
        limit: usize,
        decide: &mut dyn FnMut(usize, &Snapshot) -> Result<WriteSet>,
    ) -> Result<()> {
        self.wait_turn(a, "A")?;
        let fields: Vec<Vec<Vec<u8>>> = lookups.iter().map(lookup_fields).collect();
        let earlier = self.append(a, lookups, &fields, limit)?;
        let v = self.ctl_call(
            "txtfp_appended",
            &[],
            vec![a.to_string().into_bytes(), self.lease_ms()],
        )?;
        if num(&v) != Some(1) {
            return Err(self.voided(a));
        }
        // Read the earlier documents while earlier batches decide: entries
        // and records never change once written, only the status does.
        let mut ov = Overlay::default();
        let nos: Vec<DocNo> = earlier.iter().flat_map(Earlier::numbers).collect();
        self.fetch_docs(&nos, &mut ov.docs)?;
        self.wait_turn(a, "D")?;
        self.apply_pending(a)?;
        let owners = self.read_owners(lookups, &earlier)?;
        self.refresh_docs(&mut ov.docs)?;
        let owned: Vec<DocNo> = owners.values().flatten().map(|o| o.0).collect();
        self.fetch_docs(&owned, &mut ov.docs)?;
        let in_batch = in_batch_members(&fields);
        let simhashes: Vec<u64> = lookups
            .iter()
            .map(|l| simhash_of_keys(&l.simhash_keys))
            .collect();
        let radius = self.radius();
        for (i, lookup) in lookups.iter().enumerate() {
            let n = a + i as DocNo;
            let near_ones = InBatch {
                members: &in_batch,
                simhashes: &simhashes,
                radius,
                a,
            };
            let eff = with_batch(&earlier[i], lookup, &fields[i], &near_ones, i);
            let chunk_owners: Vec<Option<Owner>> = lookup
                .chunk_hashes
                .iter()
                .map(|h| match ov.chunks.get(h) {
                    Some(o) => *o,
                    None => owners.get(h).copied().flatten(),
                })
                .collect();
            let snap = assemble(
                lookup,
                &eff,
                &chunk_owners,
                &ov.docs,
                limit,
                radius.is_some(),
            );
            let ws = decide(i, &snap)?;
            self.record(n, lookup, &fields[i], ws, &mut ov)?;
        }
        let mut args = vec![a.to_string().into_bytes(), ov.result.encode()];
        for (name, delta) in &ov.counters {
            args.push(name.clone().into_bytes());
            args.push(delta.to_string().into_bytes());
        }
        let (counters, pending) = (self.key("counters"), self.key("pending"));
        let v = self.ctl_call("txtfp_commit", &[&counters, &pending], args)?;
        if num(&v) != Some(1) {
            return Err(self.voided(a));
        }
        // Decided. Applying is anyone's job from here: a failure now leaves
        // the result pending for the next decider.
        self.apply(a, &ov.result)?;
        self.ctl_call(
            "txtfp_confirm",
            &[&pending],
            vec![a.to_string().into_bytes()],
        )?;
        Ok(())
    }

    /// Waits until batch `a` holds the watermark of `phase` (`A` or `D`),
    /// renewing its lease at every look.
    fn wait_turn(&self, a: DocNo, phase: &str) -> Result<()> {
        let mut pause = Duration::from_micros(100);
        loop {
            let v = self.ctl_call(
                "txtfp_turn",
                &[],
                vec![
                    a.to_string().into_bytes(),
                    phase.as_bytes().to_vec(),
                    self.lease_ms(),
                ],
            )?;
            match num(&v) {
                Some(1) => return Ok(()),
                Some(0) => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(4));
                }
                _ => return Err(self.voided(a)),
            }
        }
    }

    /// Files every lookup of the batch under every key; what each key held
    /// before the batch.
    fn append(
        &self,
        a: DocNo,
        lookups: &[Lookup],
        all_fields: &[Vec<Vec<u8>>],
        limit: usize,
    ) -> Result<Vec<Earlier>> {
        // Per group: the (lookup, field index) of each triple, and the args.
        let mut by_group: BTreeMap<u32, GroupCall> = BTreeMap::new();
        let cap = limit.max(1).to_string().into_bytes();
        for (i, (lookup, fields)) in lookups.iter().zip(all_fields).enumerate() {
            let n = (a + i as DocNo).to_be_bytes();
            let f_i = simhash_of_keys(&lookup.simhash_keys).to_be_bytes();
            let ns = lookup.simhash_keys.len();
            for (k, f) in fields.iter().enumerate() {
                let (g, _) = self.group(f);
                let e = by_group
                    .entry(g)
                    .or_insert_with(|| (Vec::new(), vec![a.to_string().into_bytes(), cap.clone()]));
                e.0.push((i, k));
                e.1.push(f.clone());
                // SimHash members carry the SimHash, so that a later
                // lookup drops those beyond the radius before reading them.
                e.1.push(if (1..=ns).contains(&k) {
                    [n, f_i].concat()
                } else {
                    n.to_vec()
                });
            }
        }
        let mut slots_of: Vec<Vec<(usize, usize)>> = Vec::with_capacity(by_group.len());
        let cmds: Vec<(u16, Cmd)> = by_group
            .into_iter()
            .map(|(g, (slots, args))| {
                let (key, s) = &self.group_keys[g as usize];
                slots_of.push(slots);
                (*s, fcall("txtfp_append", &[key.as_bytes()], args))
            })
            .collect();
        let replies = self.net.round(&cmds)?;
        let mut vals: Vec<Vec<Option<Vec<u8>>>> =
            all_fields.iter().map(|f| vec![None; f.len()]).collect();
        for (slots, reply) in slots_of.iter().zip(replies) {
            let bad = |what: &str| {
                Error::Corrupt(format!(
                    "redis cluster store {}: append reply: {what}",
                    self.prefix
                ))
            };
            let redis::Value::Array(items) = reply else {
                return Err(bad("not an array"));
            };
            for pair in items.chunks(2) {
                let [redis::Value::Int(t), redis::Value::BulkString(v)] = pair else {
                    return Err(bad("not (index, value) pairs"));
                };
                let &(i, k) = usize::try_from(*t)
                    .ok()
                    .and_then(|t| slots.get(t.wrapping_sub(1)))
                    .ok_or_else(|| bad("index out of range"))?;
                vals[i][k] = Some(v.clone());
            }
        }
        lookups
            .iter()
            .zip(all_fields)
            .zip(&vals)
            .map(|((l, f), v)| earlier_from(l, f, v, a, self.radius()))
            .collect()
    }

    /// The current owner of every chunk an earlier document had (a chunk
    /// no earlier document had has none).
    fn read_owners(
        &self,
        lookups: &[Lookup],
        earlier: &[Earlier],
    ) -> Result<HashMap<[u8; 32], Option<Owner>>> {
        let mut hashes: Vec<[u8; 32]> = Vec::new();
        for (l, e) in lookups.iter().zip(earlier) {
            for (h, m) in l.chunk_hashes.iter().zip(&e.chunks) {
                if m.is_some() {
                    hashes.push(*h);
                }
            }
        }
        hashes.sort_unstable();
        hashes.dedup();
        let fields: Vec<Vec<u8>> = hashes.iter().map(chunk_field).collect();
        let vals = if fields.is_empty() {
            Vec::new()
        } else {
            self.read_fields(&fields)?
        };
        let mut out = HashMap::new();
        for (h, v) in hashes.into_iter().zip(vals) {
            let owner = match v {
                Some(v) => chunk_marker(&v)?.1,
                None => None,
            };
            out.insert(h, owner);
        }
        Ok(out)
    }

    /// Applies the results committed below `a` that are not confirmed yet.
    fn apply_pending(&self, a: DocNo) -> Result<()> {
        let pending = self.key("pending");
        let v = self.ctl_call(
            "txtfp_pending",
            &[&pending],
            vec![a.to_string().into_bytes()],
        )?;
        let items: Vec<Vec<u8>> = redis::from_redis_value_ref(&v).map_err(|e| {
            Error::Corrupt(format!(
                "redis cluster store {}: pending reply: {e}",
                self.prefix
            ))
        })?;
        for pair in items.chunks(2) {
            let [start, blob] = pair else { break };
            let s: DocNo = std::str::from_utf8(start)
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| {
                    Error::Corrupt(format!(
                        "redis cluster store {}: pending batch {start:?}",
                        self.prefix
                    ))
                })?;
            let r = BatchResult::decode(blob)?;
            self.apply(s, &r)?;
            self.ctl_call("txtfp_confirm", &[&pending], vec![start.clone()])?;
        }
        Ok(())
    }

    /// Applies batch `a`'s result to its groups (each at most once).
    fn apply(&self, a: DocNo, r: &BatchResult) -> Result<()> {
        let cmds: Vec<(u16, Cmd)> = r
            .groups
            .iter()
            .map(|(g, ops)| {
                let (key, s) = &self.group_keys[*g as usize];
                let mut args = vec![a.to_string().into_bytes()];
                for op in ops {
                    args.push(vec![op.code]);
                    args.push(op.field.clone());
                    args.push(op.payload.clone());
                }
                (*s, fcall("txtfp_apply", &[key.as_bytes()], args))
            })
            .collect();
        self.net.round(&cmds)?;
        Ok(())
    }

    /// Turns document `n`'s write set into the batch result and the overlay.
    fn record(
        &self,
        n: DocNo,
        lookup: &Lookup,
        fields: &[Vec<u8>],
        ws: WriteSet,
        ov: &mut Overlay,
    ) -> Result<()> {
        let groups = self.groups;
        let own = lookup.doc_id.as_str();
        let mut entry = None;
        let mut records = None;
        let no_of = |docs: &Docs, id: &str| -> Result<DocNo> {
            docs.no_of.get(id).copied().ok_or_else(|| {
                Error::Store(format!(
                    "redis cluster store: the engine changed {id:?}, which it was not shown"
                ))
            })
        };
        for op in ws.ops {
            match op {
                WriteOp::PutDoc(e) if e.doc_id == own => entry = Some(*e),
                WriteOp::PutDoc(e) => {
                    let m = no_of(&ov.docs, &e.doc_id)?;
                    let DocStatus::Superseded { by } = &e.status else {
                        return Err(Error::Store(format!(
                            "redis cluster store: unexpected status change of {:?}",
                            e.doc_id
                        )));
                    };
                    ov.result
                        .push(groups, b'X', status_field(m), by.clone().into_bytes());
                    if let Some(c) = ov.docs.by_no.get_mut(&m) {
                        c.entry.status = e.status.clone();
                    }
                }
                WriteOp::PutFingerprints(id, recs) if id == own => records = Some(recs),
                WriteOp::PutFingerprints(id, _) => {
                    return Err(Error::Store(format!(
                        "redis cluster store: unexpected records of {id:?}"
                    )));
                }
                WriteOp::SimHashAdd { .. } | WriteOp::BandAdd { .. } => {}
                WriteOp::SimHashRemove {
                    table, key, doc_id, ..
                } => {
                    let m = no_of(&ov.docs, &doc_id)?;
                    ov.result.push(
                        groups,
                        b'R',
                        simhash_field(table, key),
                        m.to_be_bytes().to_vec(),
                    );
                }
                WriteOp::BandRemove { band, key, doc_id } => {
                    let m = no_of(&ov.docs, &doc_id)?;
                    ov.result.push(
                        groups,
                        b'R',
                        band_field(band, key),
                        m.to_be_bytes().to_vec(),
                    );
                }
                WriteOp::ChunkSet(h, owner) => {
                    ov.result.push(
                        groups,
                        b'O',
                        chunk_field(&h),
                        owner_payload(n, owner.chunk_id),
                    );
                    ov.chunks.insert(h, Some((n, owner.chunk_id)));
                }
                WriteOp::ChunkRemove(h) => {
                    ov.result.push(groups, b'Z', chunk_field(&h), Vec::new());
                    ov.chunks.insert(h, None);
                }
                WriteOp::Count(name, delta) => *ov.counters.entry(name).or_default() += delta,
            }
        }
        let me = n.to_be_bytes().to_vec();
        // The id's list, then the SimHash tables' and the bands'.
        let lists = &fields[..=lookup.simhash_keys.len() + lookup.band_keys.len()];
        match entry {
            Some(e) => {
                let mut bytes = Vec::new();
                encode_doc(
                    &mut Strings::inline_only(),
                    &mut Vec::new(),
                    &e,
                    records.as_deref(),
                    &mut bytes,
                );
                ov.result.push(groups, b'E', entry_field(n), bytes);
                if e.status != DocStatus::Live {
                    // Not indexed: out of the lists it was appended to.
                    for f in &lists[1..] {
                        ov.result.push(groups, b'R', f.clone(), me.clone());
                    }
                }
                ov.docs
                    .insert(n, CandidateDoc::new(e, records.unwrap_or_default()));
            }
            None => {
                // A replay: stores nothing, files nowhere.
                for f in lists {
                    ov.result.push(groups, b'R', f.clone(), me.clone());
                }
            }
        }
        Ok(())
    }
}

/// For each field, the batch's lookups that file under it, in order.
fn in_batch_members(fields: &[Vec<Vec<u8>>]) -> HashMap<&[u8], Vec<usize>> {
    let mut m: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (i, fs) in fields.iter().enumerate() {
        for f in fs {
            let list = m.entry(f.as_slice()).or_default();
            if list.last() != Some(&i) {
                list.push(i);
            }
        }
    }
    m
}

/// The batch's own documents, as later ones in it see them.
struct InBatch<'a> {
    members: &'a HashMap<&'a [u8], Vec<usize>>,
    /// Each lookup's SimHash (from its keys).
    simhashes: &'a [u64],
    radius: Option<u32>,
    a: DocNo,
}

/// `earlier` plus the batch's documents before `i` under the same keys
/// (`fields`: lookup `i`'s, as [`lookup_fields`] lists them).
fn with_batch(
    earlier: &Earlier,
    lookup: &Lookup,
    fields: &[Vec<u8>],
    b: &InBatch<'_>,
    i: usize,
) -> Earlier {
    let before = |f: &[u8]| {
        b.members
            .get(f)
            .into_iter()
            .flatten()
            .copied()
            .take_while(move |&j| j < i)
    };
    let ns = lookup.simhash_keys.len();
    let mut e = Earlier {
        ids: earlier.ids.clone(),
        simhash: earlier.simhash.clone(),
        bands: earlier.bands.clone(),
        chunks: earlier.chunks.clone(),
    };
    let no = |j: usize| b.a + j as DocNo;
    e.ids.extend(before(&fields[0]).map(no));
    let mine = b.simhashes[i];
    for (k, list) in e.simhash.iter_mut().enumerate() {
        list.extend(
            before(&fields[1 + k])
                .map(|j| (no(j), b.simhashes[j]))
                .filter(|&(_, v)| near(v, mine, b.radius)),
        );
    }
    for (k, list) in e.bands.iter_mut().enumerate() {
        list.extend(before(&fields[1 + ns + k]).map(no));
    }
    e
}
