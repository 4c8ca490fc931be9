//! Tests of the corpus reader and writer on small files made in a
//! temporary directory.

mod jsonl;
#[cfg(feature = "parquet")]
mod parquet;
mod resolve;
mod write;

use std::io::Write;
use std::path::{Path, PathBuf};

use super::*;

/// A document copied out of its block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Owned {
    pub(super) key: Key,
    pub(super) id: Option<String>,
    pub(super) text: String,
    pub(super) raw: Vec<u8>,
}

impl From<&Doc<'_>> for Owned {
    fn from(d: &Doc<'_>) -> Self {
        Owned {
            key: d.key,
            id: d.id.as_deref().map(str::to_owned),
            text: d.text.to_string(),
            raw: d.raw.to_vec(),
        }
    }
}

/// What reading a shard gave: the documents, the skips, and the error that
/// ended it, if any.
#[derive(Debug, Default)]
pub(super) struct Read {
    pub(super) docs: Vec<Owned>,
    pub(super) skips: Vec<Skip>,
    pub(super) error: Option<CorpusError>,
    pub(super) blocks: usize,
}

pub(super) fn read_shard(shard: &Shard, opts: &ReadOptions) -> Read {
    let mut out = Read::default();
    let blocks = match shard.blocks(opts) {
        Ok(b) => b,
        Err(e) => {
            out.error = Some(e);
            return out;
        }
    };
    for block in blocks {
        match block {
            Ok(block) => {
                out.blocks += 1;
                let (docs, skips) = block.docs();
                // The block's rows increase, and its records are its docs
                // and skips.
                assert_eq!(docs.len() + skips.len(), block.len());
                let rows: Vec<u64> = (0..block.len()).filter_map(|i| block.row(i)).collect();
                assert!(rows.windows(2).all(|w| w[0] < w[1]), "{rows:?}");
                out.docs.extend(docs.iter().map(Owned::from));
                out.skips.extend(skips);
            }
            Err(e) => {
                out.error = Some(e);
                break;
            }
        }
    }
    out
}

/// Every shard of `corpus`, read in order; panics on an error.
pub(super) fn read_corpus(corpus: &Corpus, opts: &ReadOptions) -> (Vec<Owned>, Vec<Skip>) {
    let mut docs = Vec::new();
    let mut skips = Vec::new();
    for shard in corpus.shards() {
        let r = read_shard(shard, opts);
        if let Some(e) = r.error {
            panic!("reading {}: {e}", shard.name());
        }
        docs.extend(r.docs);
        skips.extend(r.skips);
    }
    (docs, skips)
}

pub(super) fn resolve<S: AsRef<std::ffi::OsStr>>(inputs: &[S]) -> Corpus {
    Corpus::resolve(inputs, &ResolveOptions::default()).expect("resolve")
}

pub(super) fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

pub(super) fn zst(data: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(data, 1).unwrap()
}

/// `n` JSONL records, some with string ids, some with numeric ones, texts
/// with and without escapes.
pub(super) fn lines(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        if i % 3 == 0 {
            writeln!(
                out,
                r#"{{"id": {i}, "meta": {{"k": [1, 2]}}, "text": "doc \"{i}\"\n"}}"#
            )
        } else {
            writeln!(out, r#"{{"text": "document number {i}", "id": "s{i:03}"}}"#)
        }
        .unwrap();
    }
    out
}

pub(super) fn write(path: &Path, bytes: &[u8]) -> PathBuf {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
    path.to_path_buf()
}

#[test]
fn corpus_error_converts_into_the_crate_error() {
    let e = Corpus::resolve(["/no/such/input"], &ResolveOptions::default()).unwrap_err();
    let msg = e.to_string();
    let crate_err: crate::Error = e.into();
    assert_eq!(crate_err.to_string(), msg);
    assert!(msg.starts_with("/no/such/input: "), "{msg}");
    assert!(std::error::Error::source(&crate_err).is_some());
}
