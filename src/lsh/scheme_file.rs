//! The 16-byte header a scheme's index files start with, when the scheme
//! has one (the fast scheme; the default scheme's files are txtfp 0.3.2's
//! and have none): a magic, the scheme's schema word little-endian, six
//! zero bytes. An ordinary index file of the same buckets follows it, its
//! signatures stored under the default layout (only the slots matter to
//! the buckets and the verification).

use alloc::format;

use crate::classical::minhash::{Classic, MinHashSig, Scheme};
use crate::classical::minhash::{FAST_INDEX_MAGICS, IndexMagics};
use crate::{Error, Result};

pub(super) const HEADER: usize = 16;
/// The default scheme's index files, with or without signatures.
const DEFAULT: [u8; 8] = *b"TXTFPIX\0";

/// The index files a reader may be handed, what they are and what loads
/// them.
const KNOWN: [([u8; 8], &str, &str); 3] = [
    (
        DEFAULT,
        "a default-scheme LshIndex file (MinHashSig signatures; with band keys only, an \
         LshCandidateIndex file)",
        "LshIndex::from_bytes or LshCandidateIndex::from_bytes",
    ),
    (
        FAST_INDEX_MAGICS.full,
        "a FastLshIndex file (with signatures)",
        "FastLshIndex::from_bytes",
    ),
    (
        FAST_INDEX_MAGICS.keys,
        "a FastLshCandidateIndex file (band keys only)",
        "FastLshCandidateIndex::from_bytes",
    ),
];

/// Which of a scheme's two file kinds.
#[derive(Clone, Copy)]
pub(super) enum FileKind {
    /// With signatures ([`LshIndex`](crate::LshIndex)).
    Full,
    /// Band keys only ([`LshCandidateIndex`](crate::LshCandidateIndex)).
    Keys,
}

fn magic_of(m: IndexMagics, kind: FileKind) -> [u8; 8] {
    match kind {
        FileKind::Full => m.full,
        FileKind::Keys => m.keys,
    }
}

/// The header of a `kind` file of scheme `S`, if the scheme has one.
pub(super) fn header<S: Scheme>(kind: FileKind) -> Option<[u8; HEADER]> {
    let magic = magic_of(S::INDEX_MAGICS?, kind);
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(&magic);
    h[8..10].copy_from_slice(&S::SCHEMA.to_le_bytes());
    Some(h)
}

/// The bytes after the header of a `kind` file of scheme `S` named `name`
/// (all of `bytes` when the scheme has no header).
///
/// # Errors
/// - [`Error::Config`] for another known index file, naming what loads it;
/// - [`Error::SchemaMismatch`] for a file of another schema;
/// - [`Error::Corrupt`] for any other bytes.
pub(super) fn body<'a, S: Scheme>(bytes: &'a [u8], kind: FileKind, name: &str) -> Result<&'a [u8]> {
    let Some(magics) = S::INDEX_MAGICS else {
        return Ok(bytes);
    };
    let magic = magic_of(magics, kind);
    for (other, what, loader) in KNOWN {
        if other != magic && bytes.starts_with(&other) {
            return Err(Error::Config(format!(
                "this is {what}, not a {name} file; load it with {loader}"
            )));
        }
    }
    if bytes.len() < HEADER || bytes[..8] != magic {
        return Err(Error::Corrupt(format!(
            "not a {name} file: expected the magic {:02x?}, got {:02x?}",
            magic,
            &bytes[..bytes.len().min(8)]
        )));
    }
    let schema = u16::from_le_bytes([bytes[8], bytes[9]]);
    if schema != S::SCHEMA {
        return Err(Error::SchemaMismatch {
            expected: S::SCHEMA,
            actual: schema,
        });
    }
    if bytes[10..HEADER].iter().any(|&b| b != 0) {
        return Err(Error::Corrupt(format!(
            "{name} header bytes 10..16 must be zero, got {:02x?}",
            &bytes[10..HEADER]
        )));
    }
    Ok(&bytes[HEADER..])
}

/// `sig` as the file stores it: as it is in a file without a header; with
/// one, its slots under the default layout (the header carries the
/// scheme).
#[inline]
pub(super) fn to_payload<const H: usize, S: Scheme>(sig: &MinHashSig<H, S>) -> MinHashSig<H> {
    if S::INDEX_MAGICS.is_none() {
        MinHashSig {
            schema: sig.schema,
            _pad: sig._pad,
            hashes: sig.hashes,
        }
    } else {
        MinHashSig::<H, Classic> {
            hashes: sig.hashes,
            ..MinHashSig::empty()
        }
    }
}

/// A stored signature (schema and pad already checked) in scheme `S`.
#[inline]
pub(super) fn from_payload<const H: usize, S: Scheme>(sig: &MinHashSig<H>) -> MinHashSig<H, S> {
    MinHashSig {
        hashes: sig.hashes,
        ..MinHashSig::empty()
    }
}
