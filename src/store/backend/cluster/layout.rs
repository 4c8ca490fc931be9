//! Where the cluster store keeps things: field names in the group hashes,
//! the group of each field, packed member lists, and the encoding of a
//! batch's result (the ops each group applies).

use super::super::embedded::codec::put_varint;
use crate::{Error, Result};

/// A document number: its place in the store's global sequence (from 1).
pub(super) type DocNo = u64;

/// A chunk's owner: the document and its chunk number.
pub(super) type Owner = (DocNo, u32);

/// A chunk marker: its first holder and its owner, if any.
pub(super) type Marker = (DocNo, Option<Owner>);

/// Field of SimHash table `table` under masked bits `key`.
pub(super) fn simhash_field(table: u8, key: u64) -> Vec<u8> {
    let mut f = Vec::with_capacity(10);
    f.push(b's');
    f.push(table);
    f.extend_from_slice(&key.to_be_bytes());
    f
}

/// Field of MinHash band `band` under band key `key`.
pub(super) fn band_field(band: u16, key: u64) -> Vec<u8> {
    let mut f = Vec::with_capacity(11);
    f.push(b'b');
    f.extend_from_slice(&band.to_be_bytes());
    f.extend_from_slice(&key.to_be_bytes());
    f
}

/// Field of a chunk hash (first holder, owner).
pub(super) fn chunk_field(h: &[u8; 32]) -> Vec<u8> {
    let mut f = Vec::with_capacity(33);
    f.push(b'c');
    f.extend_from_slice(h);
    f
}

/// Field of a document id (the numbers that carried it).
pub(super) fn id_field(id: &str) -> Vec<u8> {
    let mut f = Vec::with_capacity(1 + id.len());
    f.push(b'i');
    f.extend_from_slice(id.as_bytes());
    f
}

/// Field of document `n`'s entry and records.
pub(super) fn entry_field(n: DocNo) -> Vec<u8> {
    let mut f = vec![b'e'];
    f.extend_from_slice(&n.to_be_bytes());
    f
}

/// Field of document `n`'s later status (the document that superseded it).
pub(super) fn status_field(n: DocNo) -> Vec<u8> {
    let mut f = vec![b'x'];
    f.extend_from_slice(&n.to_be_bytes());
    f
}

/// Which group holds `field`: documents by number, lookup keys by a CRC-32
/// of the field (stable across versions and machines: it is part of the
/// format).
pub(super) fn group_of(field: &[u8], groups: u32) -> u32 {
    match field.first() {
        Some(b'e' | b'x') if field.len() == 9 => {
            let mut n = [0u8; 8];
            n.copy_from_slice(&field[1..]);
            (u64::from_be_bytes(n) % u64::from(groups)) as u32
        }
        _ => crc32fast::hash(field) % groups,
    }
}

/// The numbers of a packed member list.
///
/// # Errors
///
/// [`Error::Corrupt`] when the length is not a multiple of 8.
pub(super) fn members(v: &[u8]) -> Result<Vec<DocNo>> {
    if !v.len().is_multiple_of(8) {
        return Err(Error::Corrupt(format!(
            "redis cluster store: a member list of {} bytes",
            v.len()
        )));
    }
    Ok(v.chunks_exact(8)
        .map(|m| u64::from_be_bytes(m.try_into().unwrap_or_default()))
        .collect())
}

/// The (number, SimHash) records of a packed SimHash member list.
///
/// # Errors
///
/// [`Error::Corrupt`] when the length is not a multiple of 16.
pub(super) fn simhash_members(v: &[u8]) -> Result<Vec<(DocNo, u64)>> {
    if !v.len().is_multiple_of(16) {
        return Err(Error::Corrupt(format!(
            "redis cluster store: a SimHash member list of {} bytes",
            v.len()
        )));
    }
    Ok(v.chunks_exact(16)
        .map(|m| {
            let n = u64::from_be_bytes(m[..8].try_into().unwrap_or_default());
            let x = u64::from_be_bytes(m[8..].try_into().unwrap_or_default());
            (n, x)
        })
        .collect())
}

/// The SimHash a lookup's table keys give back (the union of the masked
/// bits: the SimHash itself when the masks cover every bit).
pub(super) fn simhash_of_keys(keys: &[(u8, u64)]) -> u64 {
    keys.iter().fold(0, |f, k| f | k.1)
}

/// A chunk marker: its first holder, and its owner `(number, chunk id)`.
pub(super) fn chunk_marker(v: &[u8]) -> Result<Marker> {
    if v.len() != 20 {
        return Err(Error::Corrupt(format!(
            "redis cluster store: a chunk marker of {} bytes",
            v.len()
        )));
    }
    let n = |r: &[u8]| u64::from_be_bytes(r.try_into().unwrap_or_default());
    let first = n(&v[..8]);
    let owner = n(&v[8..16]);
    let chunk = u32::from_be_bytes(v[16..20].try_into().unwrap_or_default());
    Ok((first, (owner != 0).then_some((owner, chunk))))
}

/// The 12-byte owner payload of an `O` op.
pub(super) fn owner_payload(n: DocNo, chunk: u32) -> Vec<u8> {
    let mut p = n.to_be_bytes().to_vec();
    p.extend_from_slice(&chunk.to_be_bytes());
    p
}

/// One change a group applies (see `apply` in `functions.lua`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Op {
    /// `E`, `X`, `R`, `O` or `Z`.
    pub code: u8,
    pub field: Vec<u8>,
    pub payload: Vec<u8>,
}

/// A batch's result: the ops of each group, in order.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct BatchResult {
    pub groups: std::collections::BTreeMap<u32, Vec<Op>>,
}

impl BatchResult {
    pub(super) fn push(&mut self, groups: u32, code: u8, field: Vec<u8>, payload: Vec<u8>) {
        let g = group_of(&field, groups);
        self.groups.entry(g).or_default().push(Op {
            code,
            field,
            payload,
        });
    }

    /// `count (group nops (code field payload)*)*`, varints and
    /// length-prefixed bytes.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, self.groups.len() as u64);
        for (g, ops) in &self.groups {
            put_varint(&mut out, u64::from(*g));
            put_varint(&mut out, ops.len() as u64);
            for op in ops {
                out.push(op.code);
                put_varint(&mut out, op.field.len() as u64);
                out.extend_from_slice(&op.field);
                put_varint(&mut out, op.payload.len() as u64);
                out.extend_from_slice(&op.payload);
            }
        }
        out
    }

    /// # Errors
    ///
    /// [`Error::Corrupt`] when `bytes` is not exactly one encoded result.
    pub(super) fn decode(bytes: &[u8]) -> Result<Self> {
        let mut r = Cursor { bytes, pos: 0 };
        let mut out = Self::default();
        let n = r.varint()?;
        for _ in 0..n {
            let g = u32::try_from(r.varint()?).map_err(|_| r.bad())?;
            let count = r.varint()?;
            let mut ops = Vec::new();
            for _ in 0..count {
                let code = r.take(1)?[0];
                if !matches!(code, b'E' | b'X' | b'R' | b'O' | b'Z') {
                    return Err(r.bad());
                }
                let fl = r.varint()?;
                let field = r.take(fl)?.to_vec();
                let pl = r.varint()?;
                let payload = r.take(pl)?.to_vec();
                ops.push(Op {
                    code,
                    field,
                    payload,
                });
            }
            out.groups.insert(g, ops);
        }
        if r.pos != bytes.len() {
            return Err(r.bad());
        }
        Ok(out)
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn bad(&self) -> Error {
        Error::Corrupt(format!(
            "redis cluster store: a batch result is damaged at byte {}",
            self.pos
        ))
    }

    fn varint(&mut self) -> Result<u64> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = *self.bytes.get(self.pos).ok_or_else(|| self.bad())?;
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.bad())
    }

    fn take(&mut self, n: u64) -> Result<&[u8]> {
        let n = usize::try_from(n).map_err(|_| self.bad())?;
        let end = self.pos.checked_add(n).ok_or_else(|| self.bad())?;
        let s = self.bytes.get(self.pos..end).ok_or_else(|| self.bad())?;
        self.pos = end;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn results_round_trip(ops in proptest::collection::vec(
            (0u8..5, proptest::collection::vec(any::<u8>(), 0..40), proptest::collection::vec(any::<u8>(), 0..40)),
            0..30,
        )) {
            let mut r = BatchResult::default();
            for (c, f, p) in ops {
                r.push(64, b"EXROZ"[c as usize], f, p);
            }
            let bytes = r.encode();
            prop_assert_eq!(BatchResult::decode(&bytes).unwrap(), r);
            for cut in 0..bytes.len() {
                prop_assert!(BatchResult::decode(&bytes[..cut]).is_err());
            }
        }

        #[test]
        fn hostile_results_are_errors(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = BatchResult::decode(&bytes);
        }
    }

    #[test]
    fn documents_spread_by_number_keys_by_hash() {
        assert_eq!(group_of(&entry_field(4097), 4096), 1);
        assert_eq!(group_of(&status_field(4097), 4096), 1);
        let f = band_field(3, 42);
        assert_eq!(group_of(&f, 4096), crc32fast::hash(&f) % 4096);
        assert_eq!(
            members(&[[0; 7].as_slice(), &[9]].concat()).unwrap(),
            vec![9]
        );
        assert!(members(&[0; 12]).is_err());
        let rec = [5u64.to_be_bytes(), 0xabcu64.to_be_bytes()].concat();
        assert_eq!(simhash_members(&rec).unwrap(), vec![(5, 0xabc)]);
        assert!(simhash_members(&rec[..8]).is_err());
        assert_eq!(
            chunk_marker(&[[0, 0, 0, 0, 0, 0, 0, 5].as_slice(), &[0; 12]].concat()).unwrap(),
            (5, None)
        );
    }
}
