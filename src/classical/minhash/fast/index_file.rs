//! The 16-byte header of the fast scheme's index files: a magic, the
//! schema word [`FAST_SCHEMA`] little-endian, six zero bytes. An ordinary
//! index file of the same buckets follows it.

use alloc::format;

use super::FAST_SCHEMA;
use crate::{Error, Result};

pub(super) const HEADER: usize = 16;
/// [`FastLshIndex`](super::FastLshIndex) files (with signatures).
pub(super) const FULL: [u8; 8] = *b"TXTFPFMH";
/// [`FastLshCandidateIndex`](super::FastLshCandidateIndex) files.
pub(super) const KEYS: [u8; 8] = *b"TXTFPFMC";
/// The default scheme's index files, with or without signatures.
const DEFAULT: [u8; 8] = *b"TXTFPIX\0";

/// The other index files a reader may be handed, what they are and what
/// loads them.
const KNOWN: [([u8; 8], &str, &str); 3] = [
    (
        DEFAULT,
        "a default-scheme LshIndex file (MinHashSig signatures; with band keys only, an \
         LshCandidateIndex file)",
        "LshIndex::from_bytes or LshCandidateIndex::from_bytes",
    ),
    (
        FULL,
        "a FastLshIndex file (with signatures)",
        "FastLshIndex::from_bytes",
    ),
    (
        KEYS,
        "a FastLshCandidateIndex file (band keys only)",
        "FastLshCandidateIndex::from_bytes",
    ),
];

pub(super) fn header(magic: [u8; 8]) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(&magic);
    h[8..10].copy_from_slice(&FAST_SCHEMA.to_le_bytes());
    h
}

/// The bytes after the header of a `name` file (magic `magic`).
///
/// # Errors
/// - [`Error::Config`] for another known index file, naming what loads it;
/// - [`Error::SchemaMismatch`] for a file of another fast schema;
/// - [`Error::Corrupt`] for any other bytes.
pub(super) fn body<'a>(bytes: &'a [u8], magic: [u8; 8], name: &str) -> Result<&'a [u8]> {
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
    if schema != FAST_SCHEMA {
        return Err(Error::SchemaMismatch {
            expected: FAST_SCHEMA,
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
