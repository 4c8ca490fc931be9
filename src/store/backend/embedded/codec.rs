//! A compact binary encoding of one stored document: its
//! [`StoredDocument`] entry and, optionally, its [`FingerprintRecord`]s,
//! for an append-only log.
//!
//! JSON spells every field name and writes each fingerprint twice over
//! (hex, and the document id inside every record); this encoding leans on
//! what the records of one document share. Integers are unsigned LEB128
//! varints (canonical: no redundant trailing groups) unless said
//! otherwise; a string is a varint byte length then its UTF-8 bytes.
//!
//! Metadata strings (sources, document types, languages, fingerprint
//! versions, hash parameters) go through a [`Strings`] dictionary and are
//! written as a *slot*: varint `0` then the string inline, or `id + 1`.
//! An optional slot is `0` for `None`, `1` then the string inline, or
//! `id + 2`. Ids and other per-document strings are always inline.
//!
//! ```text
//! doc      = version:u8(=1) doc_id:str source:slot document_type:optslot
//!            language:optslot created_at:varint status decision records
//! status   = 0 (live) | 1 (duplicate) | 2 by:str (superseded)
//! decision = flags:varint code:u8 reason-payload
//!            [doc_id:str] [source:slot] [decided_at:delta]
//!            [matched_doc_id:str] [matched_source:slot]
//!            [superseded:list] [linked_docs:list] [duplicate_chunks:list]
//! records  = 0 (none) | (count + 1):varint record*
//! record   = flags:u8 [ext:u8] [doc_id:str] [chunk:optvarint]
//!            [fingerprint_id:str] value [source:slot] [language:optslot]
//!            [created_at:delta] [fingerprint_version:slot] [hash_params:slot]
//! ```
//!
//! A `delta` is the zigzag varint of the wrapping difference from the
//! entry's `created_at`, so any `u64` round-trips and nearby times are
//! short. Every bracketed field is present only when a flag says the
//! value differs from the one it is usually equal to (see the `D_*`,
//! `R_*` and `X_*` constants).
//!
//! Decoding is defensive: a length or count is checked against the bytes
//! left before anything is allocated, and the total size of the strings a
//! decode creates is capped by the input length (see [`BUDGET_FACTOR`]),
//! because flags that say "same as the entry's id" would otherwise let a
//! few hostile bytes copy a long id thousands of times. The encoder
//! follows the same cap, writing a string inline where a copy would
//! exceed it, so everything it writes decodes.

use std::collections::HashMap;

use crate::store::fingerprints::hex;
use crate::store::records::{
    Action, DecisionRecord, DocStatus, FingerprintRecord, FingerprintType, MatchReason,
    StoredDocument,
};
use crate::{Error, Result};

/// First byte of every encoded document.
pub(crate) const FORMAT_VERSION: u8 = 1;

/// Most strings a [`Strings`] dictionary holds (ids fit in three varint
/// bytes; beyond that, strings are written inline).
pub(crate) const MAX_STRINGS: usize = 65_536;

/// Longest string the dictionary takes: longer ones are rare and cheap to
/// repeat relative to their size, and keeping entries short bounds what
/// one id can make a decoder copy.
pub(crate) const MAX_INTERNED_LEN: usize = 256;

/// A decode may create at most `BUDGET_FACTOR` bytes of strings per input
/// byte, plus [`BUDGET_BASE`]. Hex values need two per raw byte; the rest
/// is headroom so that real documents never need the inline fallback.
const BUDGET_FACTOR: u64 = 4;

/// Strings a decode may create regardless of the input length, so that
/// short documents with several dictionary strings never hit the cap.
const BUDGET_BASE: u64 = 64 * 1024;

// Decision flags.
/// The decision's doc id differs from the entry's (inline follows).
const D_DOC: u32 = 1 << 0;
/// The decision's source differs from the entry's (slot follows).
const D_SOURCE: u32 = 1 << 1;
/// `decided_at` differs from the entry's `created_at` (delta follows).
const D_DECIDED: u32 = 1 << 2;
/// `replayed` is true.
const D_REPLAYED: u32 = 1 << 3;
/// `matched_doc_id` is present.
const D_MATCHED_DOC: u32 = 1 << 4;
/// `matched_source` is present.
const D_MATCHED_SOURCE: u32 = 1 << 5;
/// `superseded` is not empty.
const D_SUPERSEDED: u32 = 1 << 6;
/// `linked_docs` is not empty.
const D_LINKED: u32 = 1 << 7;
/// `duplicate_chunks` is not empty.
const D_DUP_CHUNKS: u32 = 1 << 8;
/// Every decision flag.
const D_ALL: u32 = (1 << 9) - 1;

// Record flags (first byte). Bits 0-1: the kind; bits 2-3: the value mode.
/// The value is the raw bytes of lower-case hex, of the kind's usual
/// length (no length written).
const VALUE_RAW_USUAL: u8 = 0;
/// The value is the raw bytes of lower-case hex, length first.
const VALUE_RAW: u8 = 1;
/// The value is a string inline.
const VALUE_INLINE: u8 = 2;
/// The fingerprint version differs from the previous record's (slot follows).
const R_VERSION: u8 = 1 << 4;
/// The hash parameters differ from the previous record's (slot follows).
const R_PARAMS: u8 = 1 << 5;
/// The chunk number is not the usual one (see [`usual_chunk`]).
const R_CHUNK: u8 = 1 << 6;
/// An extension byte of `X_*` flags follows.
const R_EXT: u8 = 1 << 7;

// Record extension flags: fields that rarely differ from the entry's.
/// The record's doc id differs from the entry's (inline follows).
const X_DOC: u8 = 1 << 0;
/// The fingerprint id is not the canonical one (inline follows).
const X_FID: u8 = 1 << 1;
/// The record's source differs from the entry's (slot follows).
const X_SOURCE: u8 = 1 << 2;
/// The record's language differs from the entry's (optional slot follows).
const X_LANGUAGE: u8 = 1 << 3;
/// The record's `created_at` differs from the entry's (delta follows).
const X_CREATED: u8 = 1 << 4;
/// Every extension flag.
const X_ALL: u8 = (1 << 5) - 1;

/// The intern dictionary of metadata strings, shared by every document of
/// a log. Ids are dense and given in order, so a log replays it by
/// [`define`](Self::define)-ing each persisted string in turn.
///
/// A string interned while encoding is reported to the caller, who must
/// persist it before the document that refers to it; if that fails the
/// dictionary is ahead of the log and must be rebuilt from the log.
#[derive(Debug, Default)]
pub(crate) struct Strings {
    /// The strings, by id.
    by_id: Vec<String>,
    /// The ids, by string.
    ids: HashMap<String, u32>,
    /// Interns nothing: every string is written inline, so a document
    /// decodes on its own (stores without a shared dictionary).
    inline: bool,
}

impl Strings {
    /// An empty dictionary.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// A dictionary that interns nothing.
    #[cfg(feature = "store-redis")]
    pub(crate) fn inline_only() -> Self {
        Self {
            inline: true,
            ..Self::default()
        }
    }

    /// The string with id `id`.
    pub(crate) fn get(&self, id: u32) -> Option<&str> {
        self.by_id.get(id as usize).map(String::as_str)
    }

    /// The id of `s`, if held.
    pub(crate) fn find(&self, s: &str) -> Option<u32> {
        self.ids.get(s).copied()
    }

    /// How many strings it holds.
    pub(crate) fn len(&self) -> usize {
        self.by_id.len()
    }

    /// The id of `s`, adding it (and pushing `(id, s)` to `new`) if it is
    /// not held yet. `None` when `s` is longer than [`MAX_INTERNED_LEN`]
    /// or the dictionary is full: the caller writes `s` inline.
    pub(crate) fn intern(&mut self, s: &str, new: &mut Vec<(u32, String)>) -> Option<u32> {
        if let Some(&id) = self.ids.get(s) {
            return Some(id);
        }
        if self.inline || s.len() > MAX_INTERNED_LEN || self.by_id.len() >= MAX_STRINGS {
            return None;
        }
        let id = u32::try_from(self.by_id.len()).ok()?;
        self.by_id.push(s.to_owned());
        self.ids.insert(s.to_owned(), id);
        new.push((id, s.to_owned()));
        Some(id)
    }

    /// Adds `s` as id `id` when replaying a log.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] unless `id` is the next id, and `s` is new and
    /// could have been interned (no longer than [`MAX_INTERNED_LEN`], the
    /// dictionary not full): [`intern`](Self::intern) never writes
    /// anything else, so anything else means a damaged log.
    pub(crate) fn define(&mut self, id: u32, s: String) -> Result<()> {
        if id as usize != self.by_id.len() {
            return Err(Error::Corrupt(format!(
                "embedded string dictionary: id {id} defined after {} strings",
                self.by_id.len()
            )));
        }
        if s.len() > MAX_INTERNED_LEN || self.by_id.len() >= MAX_STRINGS {
            return Err(Error::Corrupt(format!(
                "embedded string dictionary: id {id} is out of bounds ({} bytes)",
                s.len()
            )));
        }
        if self.ids.contains_key(&s) {
            return Err(Error::Corrupt(format!(
                "embedded string dictionary: id {id} repeats an earlier string"
            )));
        }
        self.ids.insert(s.clone(), id);
        self.by_id.push(s);
        Ok(())
    }
}

/// Appends the encoding of `entry` and `records` (`None`: no records,
/// distinct from an empty list) to `out`. Strings it adds to `strings`
/// are pushed to `new`, in id order, to be persisted before `out`.
pub(crate) fn encode_doc(
    strings: &mut Strings,
    new: &mut Vec<(u32, String)>,
    entry: &StoredDocument,
    records: Option<&[FingerprintRecord]>,
    out: &mut Vec<u8>,
) {
    let mut e = Encoder {
        strings,
        new,
        done: Vec::new(),
        body: Vec::new(),
        produced: 0,
    };
    e.body.push(FORMAT_VERSION);
    e.str(&entry.doc_id);
    e.slot(&entry.source);
    e.opt_slot(entry.document_type.as_deref());
    e.opt_slot(entry.language.as_deref());
    put_varint(&mut e.body, entry.created_at);
    match &entry.status {
        DocStatus::Live => e.body.push(0),
        DocStatus::Duplicate => e.body.push(1),
        DocStatus::Superseded { by } => {
            e.body.push(2);
            e.str(by);
        }
    }
    e.flush(&[]);
    e.decision(entry);
    match records {
        None => e.body.push(0),
        Some(rs) => {
            put_varint(&mut e.body, rs.len() as u64 + 1);
            e.flush(&[]);
            let mut ctx = RecordContext::new();
            for r in rs {
                e.record(entry, &mut ctx, r);
            }
        }
    }
    e.flush(&[]);
    out.extend_from_slice(&e.done);
}

/// Decodes what [`encode_doc`] wrote, with the dictionary it used (or one
/// replayed from the strings it reported).
///
/// # Errors
///
/// [`Error::Corrupt`] when `bytes` is not exactly one encoded document:
/// unknown version, truncated, trailing bytes, an unknown string id, bad
/// UTF-8, a flag or tag out of range, a non-canonical varint, or more
/// string data than the input can account for.
pub(crate) fn decode_doc(
    strings: &Strings,
    bytes: &[u8],
) -> Result<(StoredDocument, Option<Vec<FingerprintRecord>>)> {
    let mut r = Reader {
        bytes,
        pos: 0,
        strings,
        budget: BUDGET_BASE.saturating_add(BUDGET_FACTOR.saturating_mul(bytes.len() as u64)),
    };
    let version = r.byte()?;
    if version != FORMAT_VERSION {
        return Err(r.corrupt(&format!("unknown format version {version}")));
    }
    let doc_id = r.str()?;
    let source = r.slot()?;
    let document_type = r.opt_slot()?;
    let language = r.opt_slot()?;
    let created_at = r.varint()?;
    let status = match r.byte()? {
        0 => DocStatus::Live,
        1 => DocStatus::Duplicate,
        2 => DocStatus::Superseded { by: r.str()? },
        t => return Err(r.corrupt(&format!("unknown status {t}"))),
    };
    let decision = r.decision(&doc_id, &source, created_at)?;
    let entry = StoredDocument {
        doc_id,
        source,
        document_type,
        language,
        created_at,
        status,
        decision,
    };
    let records = match r.varint()? {
        0 => None,
        n => {
            let n = r.count(n - 1)?;
            let mut rs = Vec::with_capacity(n);
            let mut ctx = RecordContext::new();
            for _ in 0..n {
                rs.push(r.record(&entry, &mut ctx)?);
            }
            Some(rs)
        }
    };
    if r.pos != bytes.len() {
        return Err(r.corrupt("trailing bytes"));
    }
    Ok((entry, records))
}

/// What a record is compared with besides the entry: the record before it.
struct RecordContext {
    /// The previous record's fingerprint version and hash parameters.
    prev: Option<(String, String)>,
    /// The chunk number a chunk record usually has next.
    next_chunk: Option<u32>,
}

impl RecordContext {
    fn new() -> Self {
        Self {
            prev: None,
            next_chunk: Some(0),
        }
    }

    /// Remembers `r` as the previous record.
    fn advance(&mut self, r: &FingerprintRecord) {
        if let Some(c) = r.chunk_id {
            self.next_chunk = c.checked_add(1);
        }
        match &mut self.prev {
            Some((v, p)) => {
                if *v != r.fingerprint_version {
                    v.clone_from(&r.fingerprint_version);
                }
                if *p != r.hash_params {
                    p.clone_from(&r.hash_params);
                }
            }
            None => self.prev = Some((r.fingerprint_version.clone(), r.hash_params.clone())),
        }
    }

    fn prev_version(&self) -> Option<&str> {
        self.prev.as_ref().map(|(v, _)| v.as_str())
    }

    fn prev_params(&self) -> Option<&str> {
        self.prev.as_ref().map(|(_, p)| p.as_str())
    }
}

/// The chunk number a record of `kind` usually has: the next one for a
/// chunk record (ingest numbers chunks 0, 1, ...), none for the others.
fn usual_chunk(kind: FingerprintType, ctx: &RecordContext) -> Option<u32> {
    match kind {
        FingerprintType::Chunk => ctx.next_chunk,
        FingerprintType::SimHash | FingerprintType::MinHash => None,
    }
}

/// The fingerprint id ingest gives a record, if its kind and chunk number
/// have one.
fn canonical_fid(doc_id: &str, kind: FingerprintType, chunk: Option<u32>) -> Option<String> {
    match kind {
        FingerprintType::SimHash => Some(format!("{doc_id}/simhash")),
        FingerprintType::MinHash => Some(format!("{doc_id}/minhash")),
        FingerprintType::Chunk => chunk.map(|c| format!("{doc_id}/chunk/{c}")),
    }
}

/// Raw byte length of a kind's usual value (a 64-bit SimHash, a SHA-256);
/// MinHash signatures come in several lengths, so theirs is written.
fn usual_value_len(kind: FingerprintType) -> Option<usize> {
    match kind {
        FingerprintType::SimHash => Some(8),
        FingerprintType::Chunk => Some(32),
        FingerprintType::MinHash => None,
    }
}

fn kind_code(kind: FingerprintType) -> u8 {
    match kind {
        FingerprintType::SimHash => 0,
        FingerprintType::MinHash => 1,
        FingerprintType::Chunk => 2,
    }
}

fn action_code(a: Action) -> u8 {
    match a {
        Action::Accept => 0,
        Action::Drop => 1,
        Action::MarkDuplicate => 2,
        Action::Replace => 3,
        Action::Link => 4,
        Action::MarkPartial => 5,
    }
}

fn reason_code(r: MatchReason) -> u8 {
    match r {
        MatchReason::NoMatch => 0,
        MatchReason::SimHash { .. } => 1,
        MatchReason::MinHash { .. } => 2,
        MatchReason::PartialMinHash { .. } => 3,
        MatchReason::ChunkOverlap { .. } => 4,
    }
}

/// Whether `s` is what [`hex`] writes for some bytes: only then may the
/// bytes be stored instead of the text.
fn is_plain_hex(s: &str) -> bool {
    s.len().is_multiple_of(2) && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn nibble(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        _ => b - b'a' + 10,
    }
}

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// `v - base`, wrapping, zigzag-mapped so small differences either way are
/// small numbers.
fn zigzag_delta(v: u64, base: u64) -> u64 {
    let d = v.wrapping_sub(base) as i64;
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag_delta(z: u64, base: u64) -> u64 {
    let d = ((z >> 1) as i64) ^ -((z & 1) as i64);
    base.wrapping_add(d as u64)
}

/// Encoding state. Each record (and the decision) is written to `body`
/// first because its flags depend on choices made while writing it.
struct Encoder<'a> {
    strings: &'a mut Strings,
    new: &'a mut Vec<(u32, String)>,
    /// Finished bytes of this document.
    done: Vec<u8>,
    /// Bytes of the part being written, after its flags.
    body: Vec<u8>,
    /// Bytes of strings the decoder will create so far, to stay within
    /// the budget [`Reader`] enforces.
    produced: u64,
}

impl Encoder<'_> {
    /// Moves `flags` and `body` to `done`.
    fn flush(&mut self, flags: &[u8]) {
        self.done.extend_from_slice(flags);
        self.done.append(&mut self.body);
    }

    /// Whether the decoder may create `len` more bytes of strings that the
    /// input does not spell out. Only bytes written so far count towards
    /// the allowance (flags not yet written are a bonus), so the total
    /// stays below what the decoder allows for the finished document.
    fn may_copy(&self, len: usize) -> bool {
        let written = (self.done.len() + self.body.len()) as u64;
        let allowance = BUDGET_BASE.saturating_add(BUDGET_FACTOR.saturating_mul(written));
        self.produced.saturating_add(len as u64) <= allowance
    }

    /// Records that the decoder will create `len` bytes of strings.
    fn produce(&mut self, len: usize) {
        self.produced = self.produced.saturating_add(len as u64);
    }

    /// `s` inline.
    fn str(&mut self, s: &str) {
        put_varint(&mut self.body, s.len() as u64);
        self.body.extend_from_slice(s.as_bytes());
        self.produce(s.len());
    }

    /// The dictionary id of `s`, if it may and can be interned.
    fn id(&mut self, s: &str) -> Option<u32> {
        if s.len() > MAX_INTERNED_LEN || !self.may_copy(s.len()) {
            return None;
        }
        let id = self.strings.intern(s, self.new)?;
        self.produce(s.len());
        Some(id)
    }

    fn slot(&mut self, s: &str) {
        match self.id(s) {
            Some(id) => put_varint(&mut self.body, u64::from(id) + 1),
            None => {
                self.body.push(0);
                self.str(s);
            }
        }
    }

    fn opt_slot(&mut self, s: Option<&str>) {
        let Some(s) = s else {
            self.body.push(0);
            return;
        };
        match self.id(s) {
            Some(id) => put_varint(&mut self.body, u64::from(id) + 2),
            None => {
                self.body.push(1);
                self.str(s);
            }
        }
    }

    /// Whether to write a flag meaning "a copy of `len` bytes", booking it.
    fn copy(&mut self, len: usize) -> bool {
        if self.may_copy(len) {
            self.produce(len);
            true
        } else {
            false
        }
    }

    fn list(&mut self, items: &[String]) {
        put_varint(&mut self.body, items.len() as u64);
        for s in items {
            self.str(s);
        }
    }

    fn decision(&mut self, entry: &StoredDocument) {
        let d = &entry.decision;
        let mut flags = 0u32;
        self.body
            .push(action_code(d.action) | (reason_code(d.reason) << 3));
        match d.reason {
            MatchReason::NoMatch => {}
            MatchReason::SimHash { distance } => put_varint(&mut self.body, distance.into()),
            MatchReason::MinHash { jaccard } | MatchReason::PartialMinHash { jaccard } => {
                self.body
                    .extend_from_slice(&jaccard.to_bits().to_le_bytes());
            }
            MatchReason::ChunkOverlap { shared, total } => {
                put_varint(&mut self.body, shared.into());
                put_varint(&mut self.body, total.into());
            }
        }
        if d.doc_id != entry.doc_id || !self.copy(d.doc_id.len()) {
            flags |= D_DOC;
            self.str(&d.doc_id);
        }
        if d.source != entry.source || !self.copy(d.source.len()) {
            flags |= D_SOURCE;
            self.slot(&d.source);
        }
        if d.decided_at != entry.created_at {
            flags |= D_DECIDED;
            put_varint(&mut self.body, zigzag_delta(d.decided_at, entry.created_at));
        }
        if d.replayed {
            flags |= D_REPLAYED;
        }
        if let Some(m) = &d.matched_doc_id {
            flags |= D_MATCHED_DOC;
            self.str(m);
        }
        if let Some(m) = &d.matched_source {
            flags |= D_MATCHED_SOURCE;
            self.slot(m);
        }
        if !d.superseded.is_empty() {
            flags |= D_SUPERSEDED;
            self.list(&d.superseded);
        }
        if !d.linked_docs.is_empty() {
            flags |= D_LINKED;
            self.list(&d.linked_docs);
        }
        if !d.duplicate_chunks.is_empty() {
            flags |= D_DUP_CHUNKS;
            put_varint(&mut self.body, d.duplicate_chunks.len() as u64);
            for &c in &d.duplicate_chunks {
                put_varint(&mut self.body, c.into());
            }
        }
        let mut head = Vec::with_capacity(2);
        put_varint(&mut head, flags.into());
        self.flush(&head);
    }

    fn record(&mut self, entry: &StoredDocument, ctx: &mut RecordContext, r: &FingerprintRecord) {
        let kind = r.fingerprint_type;
        let mut flags = kind_code(kind);
        let mut ext = 0u8;
        if r.doc_id != entry.doc_id || !self.copy(r.doc_id.len()) {
            ext |= X_DOC;
            self.str(&r.doc_id);
        }
        if r.chunk_id != usual_chunk(kind, ctx) {
            flags |= R_CHUNK;
            put_varint(&mut self.body, r.chunk_id.map_or(0, |c| u64::from(c) + 1));
        }
        let canonical = canonical_fid(&r.doc_id, kind, r.chunk_id);
        if canonical.as_deref() != Some(r.fingerprint_id.as_str())
            || !self.copy(r.fingerprint_id.len())
        {
            ext |= X_FID;
            self.str(&r.fingerprint_id);
        }
        if is_plain_hex(&r.value) {
            let n = r.value.len() / 2;
            if usual_value_len(kind) == Some(n) {
                flags |= VALUE_RAW_USUAL << 2;
            } else {
                flags |= VALUE_RAW << 2;
                put_varint(&mut self.body, n as u64);
            }
            self.body.extend(
                r.value
                    .as_bytes()
                    .chunks_exact(2)
                    .map(|p| (nibble(p[0]) << 4) | nibble(p[1])),
            );
            self.produce(r.value.len());
        } else {
            flags |= VALUE_INLINE << 2;
            self.str(&r.value);
        }
        if r.source != entry.source || !self.copy(r.source.len()) {
            ext |= X_SOURCE;
            self.slot(&r.source);
        }
        let lang_len = r.language.as_ref().map_or(0, String::len);
        if r.language != entry.language || !self.copy(lang_len) {
            ext |= X_LANGUAGE;
            self.opt_slot(r.language.as_deref());
        }
        if r.created_at != entry.created_at {
            ext |= X_CREATED;
            put_varint(&mut self.body, zigzag_delta(r.created_at, entry.created_at));
        }
        if ctx.prev_version() != Some(r.fingerprint_version.as_str())
            || !self.copy(r.fingerprint_version.len())
        {
            flags |= R_VERSION;
            self.slot(&r.fingerprint_version);
        }
        if ctx.prev_params() != Some(r.hash_params.as_str()) || !self.copy(r.hash_params.len()) {
            flags |= R_PARAMS;
            self.slot(&r.hash_params);
        }
        ctx.advance(r);
        if ext == 0 {
            self.flush(&[flags]);
        } else {
            self.flush(&[flags | R_EXT, ext]);
        }
    }
}

/// Decoding state over one encoded document.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    strings: &'a Strings,
    /// Bytes of strings this decode may still create.
    budget: u64,
}

impl<'a> Reader<'a> {
    fn corrupt(&self, what: &str) -> Error {
        Error::Corrupt(format!(
            "embedded store document, byte {} of {}: {what}",
            self.pos,
            self.bytes.len()
        ))
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Books `len` bytes of strings about to be created.
    fn spend(&mut self, len: usize) -> Result<()> {
        match self.budget.checked_sub(len as u64) {
            Some(b) => {
                self.budget = b;
                Ok(())
            }
            None => Err(self.corrupt("more string data than the input accounts for")),
        }
    }

    fn byte(&mut self) -> Result<u8> {
        let b = *self
            .bytes
            .get(self.pos)
            .ok_or_else(|| self.corrupt("truncated"))?;
        self.pos += 1;
        Ok(b)
    }

    fn take(&mut self, n: u64) -> Result<&'a [u8]> {
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.remaining())
            .ok_or_else(|| self.corrupt(&format!("length {n} exceeds the bytes left")))?;
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err(self.corrupt("varint overflows 64 bits"));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                if b == 0 && shift > 0 {
                    return Err(self.corrupt("varint has a redundant trailing group"));
                }
                return Ok(v);
            }
        }
        Err(self.corrupt("varint longer than 10 bytes"))
    }

    fn u32(&mut self) -> Result<u32> {
        let v = self.varint()?;
        u32::try_from(v).map_err(|_| self.corrupt(&format!("{v} exceeds 32 bits")))
    }

    /// A count of items that each take at least one byte.
    fn count(&self, n: u64) -> Result<usize> {
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.remaining())
            .ok_or_else(|| self.corrupt(&format!("count {n} exceeds the bytes left")))
    }

    fn str(&mut self) -> Result<String> {
        let n = self.varint()?;
        let start = self.pos;
        let b = self.take(n)?;
        self.spend(b.len())?;
        match core::str::from_utf8(b) {
            Ok(s) => Ok(s.to_owned()),
            Err(_) => {
                self.pos = start;
                Err(self.corrupt("string is not UTF-8"))
            }
        }
    }

    /// A copy of a string already decoded (a flag said "the same").
    fn copy(&mut self, s: &str) -> Result<String> {
        self.spend(s.len())?;
        Ok(s.to_owned())
    }

    fn interned(&mut self, id: u64) -> Result<String> {
        let s = u32::try_from(id)
            .ok()
            .and_then(|id| self.strings.get(id))
            .ok_or_else(|| self.corrupt(&format!("unknown string id {id}")))?;
        self.spend(s.len())?;
        Ok(s.to_owned())
    }

    fn slot(&mut self) -> Result<String> {
        match self.varint()? {
            0 => self.str(),
            n => self.interned(n - 1),
        }
    }

    fn opt_slot(&mut self) -> Result<Option<String>> {
        match self.varint()? {
            0 => Ok(None),
            1 => self.str().map(Some),
            n => self.interned(n - 2).map(Some),
        }
    }

    /// A list flagged as not empty.
    fn list(&mut self) -> Result<Vec<String>> {
        let n = self.varint()?;
        let n = self.count(n)?;
        if n == 0 {
            return Err(self.corrupt("list flagged as not empty is empty"));
        }
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.str()?);
        }
        Ok(v)
    }

    fn decision(&mut self, doc_id: &str, source: &str, created_at: u64) -> Result<DecisionRecord> {
        let flags = self.u32()?;
        if flags & !D_ALL != 0 {
            return Err(self.corrupt(&format!("unknown decision flags {flags:#x}")));
        }
        let code = self.byte()?;
        let action = match code & 7 {
            0 => Action::Accept,
            1 => Action::Drop,
            2 => Action::MarkDuplicate,
            3 => Action::Replace,
            4 => Action::Link,
            5 => Action::MarkPartial,
            a => return Err(self.corrupt(&format!("unknown action {a}"))),
        };
        let reason = match code >> 3 {
            0 => MatchReason::NoMatch,
            1 => MatchReason::SimHash {
                distance: self.u32()?,
            },
            t @ (2 | 3) => {
                let b = self.take(8)?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                let jaccard = f64::from_bits(u64::from_le_bytes(a));
                if t == 2 {
                    MatchReason::MinHash { jaccard }
                } else {
                    MatchReason::PartialMinHash { jaccard }
                }
            }
            4 => MatchReason::ChunkOverlap {
                shared: self.u32()?,
                total: self.u32()?,
            },
            t => return Err(self.corrupt(&format!("unknown match reason {t}"))),
        };
        let doc_id = if flags & D_DOC != 0 {
            self.str()?
        } else {
            self.copy(doc_id)?
        };
        let source = if flags & D_SOURCE != 0 {
            self.slot()?
        } else {
            self.copy(source)?
        };
        let decided_at = if flags & D_DECIDED != 0 {
            unzigzag_delta(self.varint()?, created_at)
        } else {
            created_at
        };
        let matched_doc_id = (flags & D_MATCHED_DOC != 0)
            .then(|| self.str())
            .transpose()?;
        let matched_source = (flags & D_MATCHED_SOURCE != 0)
            .then(|| self.slot())
            .transpose()?;
        let superseded = if flags & D_SUPERSEDED != 0 {
            self.list()?
        } else {
            Vec::new()
        };
        let linked_docs = if flags & D_LINKED != 0 {
            self.list()?
        } else {
            Vec::new()
        };
        let duplicate_chunks = if flags & D_DUP_CHUNKS != 0 {
            let n = self.varint()?;
            let n = self.count(n)?;
            if n == 0 {
                return Err(self.corrupt("list flagged as not empty is empty"));
            }
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                v.push(self.u32()?);
            }
            v
        } else {
            Vec::new()
        };
        Ok(DecisionRecord {
            doc_id,
            source,
            action,
            reason,
            matched_doc_id,
            matched_source,
            superseded,
            linked_docs,
            duplicate_chunks,
            decided_at,
            replayed: flags & D_REPLAYED != 0,
        })
    }

    fn record(
        &mut self,
        entry: &StoredDocument,
        ctx: &mut RecordContext,
    ) -> Result<FingerprintRecord> {
        let flags = self.byte()?;
        let ext = if flags & R_EXT != 0 {
            let x = self.byte()?;
            if x == 0 || x & !X_ALL != 0 {
                return Err(self.corrupt(&format!("bad record extension flags {x:#x}")));
            }
            x
        } else {
            0
        };
        let kind = match flags & 3 {
            0 => FingerprintType::SimHash,
            1 => FingerprintType::MinHash,
            2 => FingerprintType::Chunk,
            _ => return Err(self.corrupt("unknown fingerprint kind 3")),
        };
        let doc_id = if ext & X_DOC != 0 {
            self.str()?
        } else {
            self.copy(&entry.doc_id)?
        };
        let chunk_id = if flags & R_CHUNK != 0 {
            match self.varint()? {
                0 => None,
                n => Some(
                    u32::try_from(n - 1)
                        .map_err(|_| self.corrupt(&format!("chunk number {} too big", n - 1)))?,
                ),
            }
        } else {
            usual_chunk(kind, ctx)
        };
        let fingerprint_id = if ext & X_FID != 0 {
            self.str()?
        } else {
            let len = canonical_fid_len(&doc_id, kind, chunk_id)
                .ok_or_else(|| self.corrupt("chunk record without a number has no usual id"))?;
            self.spend(len)?;
            canonical_fid(&doc_id, kind, chunk_id).unwrap_or_default()
        };
        let value = match (flags >> 2) & 3 {
            VALUE_RAW_USUAL => {
                let n = usual_value_len(kind)
                    .ok_or_else(|| self.corrupt("MinHash value without a length"))?;
                self.hex(n as u64)?
            }
            VALUE_RAW => {
                let n = self.varint()?;
                self.hex(n)?
            }
            VALUE_INLINE => self.str()?,
            _ => return Err(self.corrupt("unknown value mode 3")),
        };
        let source = if ext & X_SOURCE != 0 {
            self.slot()?
        } else {
            self.copy(&entry.source)?
        };
        let language = if ext & X_LANGUAGE != 0 {
            self.opt_slot()?
        } else {
            entry
                .language
                .as_deref()
                .map(|l| self.copy(l))
                .transpose()?
        };
        let created_at = if ext & X_CREATED != 0 {
            unzigzag_delta(self.varint()?, entry.created_at)
        } else {
            entry.created_at
        };
        let fingerprint_version = if flags & R_VERSION != 0 {
            self.slot()?
        } else {
            let v = ctx
                .prev_version()
                .ok_or_else(|| self.corrupt("first record refers to a previous version"))?;
            self.spend(v.len())?;
            v.to_owned()
        };
        let hash_params = if flags & R_PARAMS != 0 {
            self.slot()?
        } else {
            let p = ctx
                .prev_params()
                .ok_or_else(|| self.corrupt("first record refers to previous parameters"))?;
            self.spend(p.len())?;
            p.to_owned()
        };
        let r = FingerprintRecord {
            fingerprint_id,
            fingerprint_type: kind,
            value,
            doc_id,
            chunk_id,
            source,
            language,
            created_at,
            fingerprint_version,
            hash_params,
        };
        ctx.advance(&r);
        Ok(r)
    }

    /// `n` raw bytes as lower-case hex.
    fn hex(&mut self, n: u64) -> Result<String> {
        let n = self.count(n)?;
        self.spend(n.saturating_mul(2))?;
        let b = self.take(n as u64)?;
        Ok(hex(b))
    }
}

/// Length of [`canonical_fid`] without building it, so the budget is
/// checked before allocating.
fn canonical_fid_len(doc_id: &str, kind: FingerprintType, chunk: Option<u32>) -> Option<usize> {
    let digits = |c: u32| c.checked_ilog10().map_or(1, |l| l as usize + 1);
    match kind {
        FingerprintType::SimHash => Some(doc_id.len() + "/simhash".len()),
        FingerprintType::MinHash => Some(doc_id.len() + "/minhash".len()),
        FingerprintType::Chunk => chunk.map(|c| doc_id.len() + "/chunk/".len() + digits(c)),
    }
}

#[cfg(test)]
mod tests {
    use proptest::collection::vec;
    use proptest::option;
    use proptest::prelude::*;

    use super::*;
    use crate::store::fingerprints::signature_hex;

    /// An ingest time in milliseconds, as `now_ms` gives them.
    const NOW: u64 = 1_717_000_000_123;

    /// splitmix64: reproducible fingerprint bits without a random crate.
    fn mix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn accept(doc_id: &str, source: &str) -> DecisionRecord {
        DecisionRecord {
            doc_id: doc_id.to_owned(),
            source: source.to_owned(),
            action: Action::Accept,
            reason: MatchReason::NoMatch,
            matched_doc_id: None,
            matched_source: None,
            superseded: Vec::new(),
            linked_docs: Vec::new(),
            duplicate_chunks: Vec::new(),
            decided_at: NOW,
            replayed: false,
        }
    }

    /// A document as ingest stores it with the default config: SimHash,
    /// 128-slot MinHash and `chunks` chunk records, plainly accepted.
    fn typical(doc_id: &str, chunks: usize, seed: u64) -> (StoredDocument, Vec<FingerprintRecord>) {
        let source = "wikipedia_stream";
        let entry = StoredDocument {
            doc_id: doc_id.to_owned(),
            source: source.to_owned(),
            document_type: Some("encyclopedia".to_owned()),
            language: Some("en".to_owned()),
            created_at: NOW,
            status: DocStatus::Live,
            decision: accept(doc_id, source),
        };
        let rec = |kind, id: String, value: String, chunk, params: &str| FingerprintRecord {
            fingerprint_id: id,
            fingerprint_type: kind,
            value,
            doc_id: doc_id.to_owned(),
            chunk_id: chunk,
            source: source.to_owned(),
            language: Some("en".to_owned()),
            created_at: NOW,
            fingerprint_version: "v1".to_owned(),
            hash_params: params.to_owned(),
        };
        let mut s = seed;
        let sig: Vec<u64> = (0..128).map(|_| mix(&mut s)).collect();
        let mut records = vec![
            rec(
                FingerprintType::SimHash,
                format!("{doc_id}/simhash"),
                format!("{:016x}", mix(&mut s)),
                None,
                "tokens=words;max_hamming=3;tables=4",
            ),
            rec(
                FingerprintType::MinHash,
                format!("{doc_id}/minhash"),
                signature_hex(&sig),
                None,
                "ngram=5;num_perm=128;bands=32;rows=4",
            ),
        ];
        for i in 0..chunks {
            let h: Vec<u8> = (0..4).flat_map(|_| mix(&mut s).to_le_bytes()).collect();
            records.push(rec(
                FingerprintType::Chunk,
                format!("{doc_id}/chunk/{i}"),
                hex(&h),
                Some(i as u32),
                "unit=words;size=200;overlap=0;hash=sha256",
            ));
        }
        (entry, records)
    }

    /// Equality with `f64`s compared by bits (NaN is not equal to itself).
    fn same_reason(a: MatchReason, b: MatchReason) -> bool {
        match (a, b) {
            (MatchReason::MinHash { jaccard: x }, MatchReason::MinHash { jaccard: y })
            | (
                MatchReason::PartialMinHash { jaccard: x },
                MatchReason::PartialMinHash { jaccard: y },
            ) => x.to_bits() == y.to_bits(),
            _ => a == b,
        }
    }

    fn same_doc(a: &StoredDocument, b: &StoredDocument) -> bool {
        if !same_reason(a.decision.reason, b.decision.reason) {
            return false;
        }
        let (mut a, mut b) = (a.clone(), b.clone());
        a.decision.reason = MatchReason::NoMatch;
        b.decision.reason = MatchReason::NoMatch;
        a == b
    }

    fn encode(
        strings: &mut Strings,
        entry: &StoredDocument,
        records: Option<&[FingerprintRecord]>,
    ) -> Vec<u8> {
        let mut new = Vec::new();
        let mut out = Vec::new();
        encode_doc(strings, &mut new, entry, records, &mut out);
        out
    }

    /// Encodes, checks that the bytes are appended to what `out` held and
    /// decode back, and returns the encoding.
    fn round_trip(
        strings: &mut Strings,
        entry: &StoredDocument,
        records: Option<&[FingerprintRecord]>,
    ) -> Vec<u8> {
        let mut new = Vec::new();
        let mut out = vec![0xee];
        encode_doc(strings, &mut new, entry, records, &mut out);
        assert_eq!(out[0], 0xee);
        let bytes = out.split_off(1);
        let (e, r) = decode_doc(strings, &bytes).unwrap();
        assert!(same_doc(&e, entry), "{e:?} != {entry:?}");
        assert_eq!(r.as_deref(), records);
        bytes
    }

    const ACTIONS: [Action; 6] = [
        Action::Accept,
        Action::Drop,
        Action::MarkDuplicate,
        Action::Replace,
        Action::Link,
        Action::MarkPartial,
    ];

    fn reasons() -> [MatchReason; 9] {
        [
            MatchReason::NoMatch,
            MatchReason::SimHash { distance: 2 },
            MatchReason::SimHash { distance: u32::MAX },
            MatchReason::MinHash { jaccard: 0.875 },
            MatchReason::MinHash { jaccard: f64::NAN },
            MatchReason::PartialMinHash { jaccard: 0.5 },
            MatchReason::PartialMinHash { jaccard: -0.0 },
            MatchReason::ChunkOverlap {
                shared: 3,
                total: 5,
            },
            MatchReason::ChunkOverlap {
                shared: u32::MAX,
                total: 0,
            },
        ]
    }

    fn statuses() -> [DocStatus; 3] {
        [
            DocStatus::Live,
            DocStatus::Duplicate,
            DocStatus::Superseded {
                by: "wiki-7/with/slashes".to_owned(),
            },
        ]
    }

    #[test]
    fn realistic_documents_round_trip() {
        let mut strings = Strings::new();
        for chunks in 0..=5 {
            let (entry, records) = typical(&format!("wiki-{chunks:06}"), chunks, chunks as u64);
            round_trip(&mut strings, &entry, Some(&records));
            round_trip(&mut strings, &entry, None);
            round_trip(&mut strings, &entry, Some(&[]));
        }
        // One dictionary entry per distinct string, shared by all documents.
        assert_eq!(strings.len(), 7);
    }

    #[test]
    fn every_action_reason_and_status_round_trips() {
        let mut strings = Strings::new();
        let (base, records) = typical("web-1", 3, 9);
        for action in ACTIONS {
            for reason in reasons() {
                for status in statuses() {
                    let mut e = base.clone();
                    e.status = status;
                    e.decision.action = action;
                    e.decision.reason = reason;
                    round_trip(&mut strings, &e, Some(&records));
                    e.decision.matched_doc_id = Some("wiki-2".into());
                    e.decision.matched_source = Some("wikipedia_stream".into());
                    e.decision.superseded = vec!["a".into(), String::new()];
                    e.decision.linked_docs = vec!["b/c".into()];
                    e.decision.duplicate_chunks = vec![0, 2, u32::MAX];
                    e.decision.decided_at = NOW - 1;
                    e.decision.replayed = true;
                    round_trip(&mut strings, &e, None);
                }
            }
        }
    }

    #[test]
    fn typical_document_is_small() {
        let mut strings = Strings::new();
        for chunks in 1..=5 {
            let (entry, records) = typical(&format!("wiki-{chunks:06}"), chunks, 42);
            let mut new = Vec::new();
            let mut first = Vec::new();
            encode_doc(&mut strings, &mut new, &entry, Some(&records), &mut first);
            new.clear();
            let mut again = Vec::new();
            encode_doc(&mut strings, &mut new, &entry, Some(&records), &mut again);
            assert!(new.is_empty(), "strings interned twice: {new:?}");
            let json = serde_json::to_string(&entry).unwrap().len()
                + serde_json::to_string(&records).unwrap().len();
            eprintln!(
                "{chunks} chunk(s): {} bytes encoded, {json} bytes as JSON",
                again.len()
            );
            assert!(
                again.len() <= 1024 + 8 + 32 * chunks + 60,
                "{} bytes",
                again.len()
            );
        }
    }

    #[test]
    fn non_canonical_values_and_ids_round_trip() {
        let mut strings = Strings::new();
        let (entry, records) = typical("x", 2, 1);
        let mut odd = records.clone();
        odd[0].value = "ABCDEF0123456789".into();
        odd[1].value = "abc".into();
        odd[2].value = String::new();
        odd[3].value = "0g".into();
        odd[2].fingerprint_id = "x/chunk/00".into();
        odd[3].chunk_id = None;
        odd[0].chunk_id = Some(u32::MAX);
        odd[1].doc_id = "y".into();
        odd[1].language = None;
        odd[2].source = "other".into();
        odd[3].created_at = 0;
        odd[0].created_at = u64::MAX;
        odd[1].fingerprint_version = "v2".into();
        round_trip(&mut strings, &entry, Some(&odd));
        let mut e = entry.clone();
        e.doc_id = String::new();
        e.source = "s".repeat(MAX_INTERNED_LEN + 1);
        e.document_type = None;
        e.language = Some(String::new());
        e.created_at = u64::MAX;
        e.decision.decided_at = 0;
        round_trip(&mut strings, &e, Some(&odd));
    }

    #[test]
    fn dictionary_interns_defines_and_refuses() {
        let mut s = Strings::new();
        let mut new = Vec::new();
        assert_eq!(s.intern("en", &mut new), Some(0));
        assert_eq!(s.intern("fr", &mut new), Some(1));
        assert_eq!(s.intern("en", &mut new), Some(0));
        assert_eq!(new, vec![(0, "en".to_owned()), (1, "fr".to_owned())]);
        assert_eq!(s.intern(&"a".repeat(MAX_INTERNED_LEN + 1), &mut new), None);
        assert!(s.intern(&"a".repeat(MAX_INTERNED_LEN), &mut new).is_some());
        assert_eq!((s.get(1), s.get(3), s.len()), (Some("fr"), None, 3));

        let mut r = Strings::new();
        let corrupt = |e: Result<()>| matches!(e, Err(Error::Corrupt(_)));
        assert!(corrupt(r.define(1, "fr".into())));
        r.define(0, "en".into()).unwrap();
        assert!(corrupt(r.define(1, "en".into())));
        assert!(corrupt(r.define(1, "x".repeat(MAX_INTERNED_LEN + 1))));
        r.define(1, "fr".into()).unwrap();
        assert_eq!(r.get(1), Some("fr"));

        let mut full = Strings::new();
        for i in 0..MAX_STRINGS {
            full.define(i as u32, i.to_string()).unwrap();
        }
        new.clear();
        assert_eq!(full.intern("new", &mut new), None);
        assert_eq!(full.intern("7", &mut new), Some(7));
        assert!(new.is_empty());
        assert!(corrupt(full.define(MAX_STRINGS as u32, "new".into())));
        // A full dictionary still encodes everything, inline.
        let (entry, records) = typical("full", 1, 3);
        round_trip(&mut full, &entry, Some(&records));
    }

    fn is_corrupt<T>(r: &Result<T>) -> bool {
        matches!(r, Err(Error::Corrupt(_)))
    }

    #[test]
    fn damaged_encodings_are_corrupt_or_decode_without_panicking() {
        let mut strings = Strings::new();
        let (mut entry, records) = typical("wiki-1", 2, 5);
        entry.decision.reason = MatchReason::MinHash { jaccard: 0.9 };
        entry.decision.matched_doc_id = Some("wiki-0".into());
        entry.decision.superseded = vec!["old".into()];
        entry.decision.duplicate_chunks = vec![1];
        let bytes = encode(&mut strings, &entry, Some(&records));
        for n in 0..bytes.len() {
            assert!(is_corrupt(&decode_doc(&strings, &bytes[..n])), "prefix {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(is_corrupt(&decode_doc(&strings, &longer)));
        let mut v2 = bytes.clone();
        v2[0] = 2;
        assert!(is_corrupt(&decode_doc(&strings, &v2)));
        assert!(is_corrupt(&decode_doc(&Strings::new(), &bytes)));
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                let r = decode_doc(&strings, &b);
                assert!(r.is_ok() || is_corrupt(&r));
            }
        }
    }

    fn corrupt_saying<T>(r: Result<T>, what: &str) -> bool {
        matches!(r, Err(Error::Corrupt(m)) if m.contains(what))
    }

    #[test]
    fn huge_claimed_lengths_allocate_nothing() {
        let s = Strings::new();
        // A string, then a record count, claiming far more than follows.
        let mut b = vec![FORMAT_VERSION];
        put_varint(&mut b, u64::MAX);
        assert!(corrupt_saying(decode_doc(&s, &b), "exceeds the bytes left"));
        let mut b = vec![FORMAT_VERSION, 0, 0, 1, b's', 0, 0, 0, 0, 0, 0];
        put_varint(&mut b, u64::MAX);
        assert!(corrupt_saying(decode_doc(&s, &b), "count"));
        // An overlong and an overflowing varint.
        let b = [FORMAT_VERSION, 0x80, 0x00];
        assert!(corrupt_saying(decode_doc(&s, &b), "redundant"));
        let mut b = vec![FORMAT_VERSION];
        b.extend([0xff; 9]);
        b.push(0x02);
        assert!(corrupt_saying(decode_doc(&s, &b), "overflows"));
    }

    /// A long id and one-byte records that each say "same id as the
    /// entry" must not make the decoder build gigabytes of copies.
    #[test]
    fn copies_are_capped_by_the_input_length() {
        let s = Strings::new();
        let id = "x".repeat(1 << 20);
        let mut b = vec![FORMAT_VERSION];
        put_varint(&mut b, id.len() as u64);
        b.extend_from_slice(id.as_bytes());
        b.extend([0, 1, b's', 0, 0, 0, 0, 0, 0]);
        let n = 100_000u64;
        put_varint(&mut b, n + 1);
        // First record: SimHash, empty raw value, version and params inline.
        b.extend([VALUE_RAW << 2 | R_VERSION | R_PARAMS, 0, 0, 0, 0, 0]);
        for _ in 1..n {
            b.extend([VALUE_RAW << 2, 0]);
        }
        assert!(corrupt_saying(decode_doc(&s, &b), "more string data"));
    }

    /// What the encoder writes stays within the decoder's cap, even for
    /// long strings repeated across many records (written inline then).
    #[test]
    fn long_repeated_strings_round_trip() {
        let mut strings = Strings::new();
        let (mut entry, records) = typical("", 0, 8);
        entry.doc_id = "d".repeat(20_000);
        entry.source = "s".repeat(5_000);
        entry.language = Some("l".repeat(5_000));
        entry.decision.doc_id.clone_from(&entry.doc_id);
        entry.decision.source.clone_from(&entry.source);
        let mut recs = Vec::new();
        for i in 0..60u32 {
            let mut r = records[i as usize % 2].clone();
            r.value = String::new();
            r.doc_id.clone_from(&entry.doc_id);
            r.source.clone_from(&entry.source);
            r.language.clone_from(&entry.language);
            r.fingerprint_type = FingerprintType::Chunk;
            r.chunk_id = Some(i);
            r.fingerprint_id = format!("{}/chunk/{i}", entry.doc_id);
            recs.push(r);
        }
        let bytes = round_trip(&mut strings, &entry, Some(&recs));
        // Copies alone would have made it a few hundred bytes.
        assert!(bytes.len() > 100_000, "{}", bytes.len());
    }

    fn text() -> BoxedStrategy<String> {
        prop_oneof![
            Just(String::new()),
            "[a-z0-9/._-]{0,12}",
            "[0-9a-f]{0,24}",
            "[0-9a-fA-F]{0,24}",
            any::<String>(),
        ]
        .boxed()
    }

    fn value() -> BoxedStrategy<String> {
        prop_oneof![
            text(),
            vec(any::<u8>(), 0..48).prop_map(|b| hex(&b)),
            vec(any::<u8>(), 8).prop_map(|b| hex(&b)),
            vec(any::<u8>(), 32).prop_map(|b| hex(&b)),
            vec(any::<u8>(), 1..48).prop_map(|b| hex(&b).to_uppercase()),
        ]
        .boxed()
    }

    fn time() -> BoxedStrategy<u64> {
        prop_oneof![
            Just(NOW),
            NOW - 5_000..NOW + 5_000,
            any::<u64>(),
            Just(0),
            Just(u64::MAX),
        ]
        .boxed()
    }

    fn jaccard() -> BoxedStrategy<f64> {
        prop_oneof![
            any::<u64>().prop_map(f64::from_bits),
            Just(f64::NAN),
            Just(-f64::NAN),
            Just(-0.0),
            Just(f64::INFINITY),
            0.0..=1.0f64,
        ]
        .boxed()
    }

    fn reason() -> BoxedStrategy<MatchReason> {
        prop_oneof![
            Just(MatchReason::NoMatch),
            any::<u32>().prop_map(|distance| MatchReason::SimHash { distance }),
            jaccard().prop_map(|jaccard| MatchReason::MinHash { jaccard }),
            jaccard().prop_map(|jaccard| MatchReason::PartialMinHash { jaccard }),
            (any::<u32>(), any::<u32>())
                .prop_map(|(shared, total)| MatchReason::ChunkOverlap { shared, total }),
        ]
        .boxed()
    }

    fn entry() -> impl Strategy<Value = StoredDocument> {
        let status = prop_oneof![
            Just(DocStatus::Live),
            Just(DocStatus::Duplicate),
            text().prop_map(|by| DocStatus::Superseded { by }),
        ];
        let head = (
            text(),
            text(),
            option::of(text()),
            option::of(text()),
            time(),
            status,
        );
        let decision = (
            option::of(text()),
            option::of(text()),
            proptest::sample::select(ACTIONS.to_vec()),
            reason(),
            option::of(text()),
            option::of(text()),
            vec(text(), 0..3),
            vec(text(), 0..3),
            vec(any::<u32>(), 0..4),
            option::of(time()),
            any::<bool>(),
        );
        (head, decision).prop_map(
            |(
                (doc_id, source, document_type, language, created_at, status),
                (d_doc, d_source, action, reason, md, ms, superseded, linked, dup, at, replayed),
            )| {
                StoredDocument {
                    decision: DecisionRecord {
                        doc_id: d_doc.unwrap_or_else(|| doc_id.clone()),
                        source: d_source.unwrap_or_else(|| source.clone()),
                        action,
                        reason,
                        matched_doc_id: md,
                        matched_source: ms,
                        superseded,
                        linked_docs: linked,
                        duplicate_chunks: dup,
                        decided_at: at.unwrap_or(created_at),
                        replayed,
                    },
                    doc_id,
                    source,
                    document_type,
                    language,
                    created_at,
                    status,
                }
            },
        )
    }

    /// A record's fields; `None` means "as ingest would make it" (the
    /// entry's value, the canonical id, the next chunk number).
    type RawRecord = (
        u8,
        Option<String>,
        String,
        Option<String>,
        Option<Option<u32>>,
        Option<String>,
        Option<Option<String>>,
        Option<u64>,
        String,
        String,
    );

    fn raw_record() -> impl Strategy<Value = RawRecord> {
        let shared = || prop_oneof![Just("v1".to_owned()), Just("p=1".to_owned()), text()];
        let chunk = prop_oneof![
            Just(None),
            (0u32..4).prop_map(Some),
            Just(Some(u32::MAX)),
            any::<u32>().prop_map(Some),
        ];
        (
            0u8..3,
            option::of(text()),
            value(),
            option::of(text()),
            option::of(chunk),
            option::of(text()),
            option::of(option::of(text())),
            option::of(time()),
            shared(),
            shared(),
        )
    }

    fn build(entry: &StoredDocument, raws: Vec<RawRecord>) -> Vec<FingerprintRecord> {
        let mut next = 0u32;
        raws.into_iter()
            .map(
                |(k, fid, value, doc, chunk, source, language, at, version, params)| {
                    let kind = [
                        FingerprintType::SimHash,
                        FingerprintType::MinHash,
                        FingerprintType::Chunk,
                    ][k as usize];
                    let chunk_id = chunk.unwrap_or_else(|| {
                        (kind == FingerprintType::Chunk).then(|| {
                            next += 1;
                            next - 1
                        })
                    });
                    let doc_id = doc.unwrap_or_else(|| entry.doc_id.clone());
                    FingerprintRecord {
                        fingerprint_id: fid.unwrap_or_else(|| {
                            canonical_fid(&doc_id, kind, chunk_id).unwrap_or_default()
                        }),
                        fingerprint_type: kind,
                        value,
                        doc_id,
                        chunk_id,
                        source: source.unwrap_or_else(|| entry.source.clone()),
                        language: language.unwrap_or_else(|| entry.language.clone()),
                        created_at: at.unwrap_or(entry.created_at),
                        fingerprint_version: version,
                        hash_params: params,
                    }
                },
            )
            .collect()
    }

    fn sample() -> impl Strategy<Value = (StoredDocument, Option<Vec<FingerprintRecord>>)> {
        (entry(), option::of(vec(raw_record(), 0..6)))
            .prop_map(|(e, raws)| (e.clone(), raws.map(|r| build(&e, r))))
    }

    proptest! {
        #[test]
        fn any_documents_round_trip_through_a_replayed_dictionary(
            (a, ra) in sample(),
            (b, rb) in sample(),
        ) {
            let mut strings = Strings::new();
            let mut new = Vec::new();
            let mut ea = Vec::new();
            encode_doc(&mut strings, &mut new, &a, ra.as_deref(), &mut ea);
            let mut eb = Vec::new();
            encode_doc(&mut strings, &mut new, &b, rb.as_deref(), &mut eb);
            let mut replayed = Strings::new();
            for (id, s) in new {
                replayed.define(id, s).unwrap();
            }
            prop_assert_eq!(replayed.len(), strings.len());
            for (bytes, e, r) in [(&ea, &a, &ra), (&eb, &b, &rb)] {
                for dict in [&strings, &replayed] {
                    let (de, dr) = decode_doc(dict, bytes).unwrap();
                    prop_assert!(same_doc(&de, e), "{:?} != {:?}", de, e);
                    prop_assert_eq!(&dr, r);
                }
            }
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..600)) {
            let (entry, records) = typical("wiki-1", 1, 0);
            let mut strings = Strings::new();
            encode(&mut strings, &entry, Some(&records));
            let r = decode_doc(&strings, &bytes);
            prop_assert!(r.is_ok() || is_corrupt(&r));
            let mut v = vec![FORMAT_VERSION];
            v.extend_from_slice(&bytes);
            let r = decode_doc(&strings, &v);
            prop_assert!(r.is_ok() || is_corrupt(&r));
        }

        #[test]
        fn truncated_or_flipped_encodings_never_panic(
            (e, r) in sample(),
            flips in vec((any::<prop::sample::Index>(), 1u8..=255), 1..8),
        ) {
            let mut strings = Strings::new();
            let bytes = encode(&mut strings, &e, r.as_deref());
            for n in 0..bytes.len() {
                prop_assert!(is_corrupt(&decode_doc(&strings, &bytes[..n])));
            }
            for (i, mask) in flips {
                let mut b = bytes.clone();
                b[i.index(bytes.len())] ^= mask;
                let d = decode_doc(&strings, &b);
                prop_assert!(d.is_ok() || is_corrupt(&d));
            }
        }
    }
}
