//! Stage 1: fingerprint every document; spill its content key and its keys
//! (MinHash band keys, or the SimHash signature) as sorted runs; record its
//! id and whether it is empty.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::records::{BandRec, ContentRec};
use super::runs::Spiller;
use super::workdir::{Bits, WorkDir, io_error};
use super::{DocumentSource, ExternalOptions};
use crate::classical::FingerprintBatch;
use crate::classical::minhash::Scheme;
use crate::dedup::EmptyDocuments;
use crate::{Error, MinHashSig, Result, SimHash64};

pub(super) const STAGE: &str = "sketch";

/// What the sketch stage leaves for the others.
pub(super) struct Sketch {
    pub(super) dir: PathBuf,
    pub(super) documents: u64,
    pub(super) empty: u64,
    pub(super) bytes: u64,
}

impl Sketch {
    /// The band runs of `band`, in the order written.
    pub(super) fn band_runs(&self, band: usize) -> Result<Vec<PathBuf>> {
        runs_with_prefix(&self.dir, &format!("band-{band:03}-"))
    }

    /// The content-key runs.
    pub(super) fn content_runs(&self) -> Result<Vec<PathBuf>> {
        runs_with_prefix(&self.dir, "content-")
    }
}

/// The `.run` files of `dir` whose names start with `prefix`, sorted.
pub(super) fn runs_with_prefix(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| io_error(dir, "cannot list", e))? {
        let entry = entry.map_err(|e| io_error(dir, "cannot list", e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(prefix) && name.ends_with(".run") {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

/// What a method spills for each document: `keys()` keys, each sorted into
/// its own runs (`band-BBB-*.run`).
pub(super) trait Sketcher: Sync {
    /// Keys per document.
    fn keys(&self) -> usize;
    /// The document's keys, or the fingerprinter's error.
    fn sketch(&self, text: &str, buf: &mut String) -> Result<Vec<u64>>;
}

/// MinHash: one key per band, the band's rows hashed together.
pub(super) struct BandKeys<'a, F> {
    pub(super) fp: &'a F,
    pub(super) bands: usize,
    pub(super) rows: usize,
}

impl<F, S, const H: usize> Sketcher for BandKeys<'_, F>
where
    F: FingerprintBatch<Output = MinHashSig<H, S>> + Sync,
    S: Scheme,
{
    fn keys(&self) -> usize {
        self.bands
    }

    fn sketch(&self, text: &str, buf: &mut String) -> Result<Vec<u64>> {
        let sig = self.fp.fingerprint_reusing(text, buf)?;
        Ok((0..self.bands)
            .map(|b| crate::lsh::band_key_at(&sig.hashes, self.rows, b))
            .collect())
    }
}

/// SimHash: the 64-bit signature itself, one key.
pub(super) struct Signature<'a, F>(pub(super) &'a F);

impl<F> Sketcher for Signature<'_, F>
where
    F: FingerprintBatch<Output = SimHash64> + Sync,
{
    fn keys(&self) -> usize {
        1
    }

    fn sketch(&self, text: &str, buf: &mut String) -> Result<Vec<u64>> {
        Ok(vec![self.0.fingerprint_reusing(text, buf)?.0])
    }
}

/// In-memory bytes of one buffered band record (`BandRec` is padded to 16).
pub(super) const BAND_REC_BYTES: usize = 16;
const CONTENT_REC_BYTES: usize = 32;

/// Largest number of documents one run addresses (positions are `u32`;
/// the last value is kept free as a "none" marker).
pub(super) const MAX_DOCUMENTS: u64 = u32::MAX as u64 - 1;

/// Runs stage 1, or reads its summary when it already finished.
pub(super) fn run<K, D>(
    work: &WorkDir,
    sketcher: &K,
    empty_policy: EmptyDocuments,
    source: &D,
    options: &ExternalOptions,
) -> Result<(Sketch, bool)>
where
    K: Sketcher,
    D: DocumentSource + ?Sized,
{
    if let Some(summary) = work.marker(STAGE)? {
        let dir = work.stage_dir(STAGE, false)?;
        return Ok((parse_summary(&dir, &summary)?, true));
    }
    let dir = work.stage_dir(STAGE, true)?;
    let bands = sketcher.keys();
    let band_cap = options.memory() / 2 / BAND_REC_BYTES / bands.max(1);
    let mut band_spill: Vec<Spiller<BandRec>> = (0..bands)
        .map(|b| Spiller::new(&dir, &format!("band-{b:03}"), band_cap))
        .collect();
    let mut content = Spiller::new(&dir, "content", options.memory() / 16 / CONTENT_REC_BYTES);
    let ids_path = dir.join("ids.dat");
    let idx_path = dir.join("ids.idx");
    let keys_path = dir.join("keys.bin");
    let create = |p: &Path| {
        File::create(p)
            .map(|f| BufWriter::with_capacity(1 << 20, f))
            .map_err(|e| io_error(p, "cannot create", e))
    };
    let (mut ids, mut idx) = (create(&ids_path)?, create(&idx_path)?);
    let mut keys_out = create(&keys_path)?;
    let mut id_bytes = 0u64;
    let mut empties: Vec<u32> = Vec::new();
    let mut n: u64 = 0;
    let mut bytes: u64 = 0;
    let total = source.total_bytes();

    source.read(&mut |docs, batch_bytes| {
        if n + docs.len() as u64 > MAX_DOCUMENTS {
            return Err(Error::InvalidInput(format!(
                "dedup: more than {MAX_DOCUMENTS} documents in one out-of-core run"
            )));
        }
        let sketched: Vec<(u128, Result<Vec<u64>>)> = docs
            .par_iter()
            .map_init(String::new, |buf, d| {
                let hash = crate::dedup::parts::content_key(d.text);
                (hash, sketcher.sketch(d.text, buf))
            })
            .collect();
        for (d, (hash, keys)) in docs.iter().zip(sketched) {
            let pos = n as u32;
            match keys {
                Ok(keys) => {
                    content.push(ContentRec { hash, pos })?;
                    for (spill, key) in band_spill.iter_mut().zip(keys) {
                        spill.push(BandRec { key, pos })?;
                    }
                }
                Err(Error::InvalidInput(m))
                    if m == super::super::engine::EMPTY_DOCUMENT
                        && empty_policy != EmptyDocuments::Error =>
                {
                    empties.push(pos);
                }
                Err(Error::InvalidInput(m)) => {
                    return Err(Error::InvalidInput(format!(
                        "dedup: document id {} (item {n}): {m}",
                        d.id
                    )));
                }
                Err(e) => return Err(e),
            }
            ids.write_all(d.id.as_bytes())
                .map_err(|e| io_error(&ids_path, "cannot write", e))?;
            id_bytes += d.id.len() as u64;
            idx.write_all(&id_bytes.to_le_bytes())
                .map_err(|e| io_error(&idx_path, "cannot write", e))?;
            keys_out
                .write_all(&d.key.to_le_bytes())
                .map_err(|e| io_error(&keys_path, "cannot write", e))?;
            n += 1;
        }
        bytes += batch_bytes;
        options.report(STAGE, bytes, total);
        Ok(())
    })?;

    // The last runs of every band are sorted and written side by side.
    let (bands_done, content_done) = rayon::join(
        || {
            band_spill
                .into_par_iter()
                .try_for_each(|spill| spill.finish().map(drop))
        },
        || content.finish(),
    );
    bands_done?;
    content_done?;
    for (mut w, p) in [(ids, &ids_path), (idx, &idx_path), (keys_out, &keys_path)] {
        w.flush().map_err(|e| io_error(p, "cannot write", e))?;
    }
    let bits = Bits::new(n as usize);
    for &e in &empties {
        bits.set(e);
    }
    bits.save(&dir.join("empty.bits"))?;
    let summary = format!("documents {n}\nempty {}\nbytes {bytes}\n", empties.len());
    work.finish(STAGE, &summary)?;
    Ok((
        Sketch {
            dir,
            documents: n,
            empty: empties.len() as u64,
            bytes,
        },
        false,
    ))
}

/// Reads `key value` lines written by a stage marker.
pub(super) fn summary_value(summary: &str, key: &str) -> Result<u64> {
    summary
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok())
        .ok_or_else(|| Error::Corrupt(format!("stage marker lacks `{key}`: {summary:?}")))
}

fn parse_summary(dir: &Path, summary: &str) -> Result<Sketch> {
    Ok(Sketch {
        dir: dir.to_path_buf(),
        documents: summary_value(summary, "documents")?,
        empty: summary_value(summary, "empty")?,
        bytes: summary_value(summary, "bytes")?,
    })
}
