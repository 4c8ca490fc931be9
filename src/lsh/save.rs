//! Saving and loading [`LshIndex`] and
//! [`LshCandidateIndex`](crate::LshCandidateIndex) of either scheme (file
//! format: [`persist`](super::persist)).
//!
//! Parameters of an LSH file: `[H, bands, rows, flags]`, flag bit 0 = the
//! payload holds the signatures (set by [`LshIndex`], clear in a
//! candidate index's file). The payload is one [`MinHashSig<H>`] per
//! document, in id order. A scheme with a file header (the fast one, see
//! [`scheme_file`](super::scheme_file)) writes it before that file.

use alloc::format;
use alloc::vec::Vec;

use super::core::Core;
use super::index::LshIndex;
use super::persist::{self, FileView, Header, Kind, Spec, Writer, corrupt, tag};
use super::run::{Run, RunRef};
use super::scheme_file::{self, FileKind};
use crate::classical::minhash::{SCHEMA_VERSION, Scheme};
use crate::{Error, MinHashSig, Result};

/// Flag bit: the payload section holds the signatures.
const HAS_SIGNATURES: u64 = 1;

impl<const H: usize, S: Scheme> LshIndex<H, S> {
    /// Writes the index in the versioned, checksummed format of
    /// ARCHITECTURE.md ("Index files") through `sink`, which receives
    /// consecutive pieces of the file: for the fast scheme, a 16-byte
    /// header (`TXTFPFMH`, the schema word
    /// [`FAST_SCHEMA`](crate::classical::minhash::FAST_SCHEMA) little-endian, six zero bytes)
    /// and then the file of the same buckets and slots.
    pub fn write_to(&self, sink: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        write_lsh::<H, S>(
            FileKind::Full,
            &self.core,
            self.bands,
            self.rows,
            Some(&self.sigs),
            sink,
        )
    }

    /// The index file as bytes.
    ///
    /// ```
    /// use txtfp::{LshIndex, MinHashSig};
    /// let sig = |x: u64| MinHashSig::<8> { hashes: [x; 8], ..MinHashSig::empty() };
    /// let mut idx = LshIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.insert(1, sig(7));
    /// idx.insert(2, sig(7));
    /// let bytes = idx.to_bytes();
    /// let back = LshIndex::<8>::from_bytes(&bytes)?;
    /// assert_eq!(back.query(&sig(7)), [1, 2]);
    /// // One flipped byte is caught by the checksum.
    /// let mut bad = bytes.clone();
    /// bad[100] ^= 1;
    /// assert!(LshIndex::<8>::from_bytes(&bad).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    ///
    /// Neither scheme's index loads the other's files:
    ///
    /// ```
    /// use txtfp::LshIndex;
    /// use txtfp::classical::minhash::{FastLshIndex, FastMinHashSig};
    /// let sig = FastMinHashSig::<8> { hashes: [3; 8], ..FastMinHashSig::empty() };
    /// let mut idx = FastLshIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.insert(1, sig);
    /// let bytes = idx.to_bytes();
    /// assert_eq!(&bytes[..10], b"TXTFPFMH\x01\x46");
    /// assert_eq!(FastLshIndex::<8>::from_bytes(&bytes)?.get(1), Some(&sig));
    /// assert!(LshIndex::<8>::from_bytes(&bytes).is_err());
    /// let default = LshIndex::<8>::with_bands_rows(4, 2)?.to_bytes();
    /// assert!(FastLshIndex::<8>::from_bytes(&default).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        persist::to_vec(|sink| self.write_to(sink))
    }

    /// Reads an index from the bytes of [`to_bytes`](Self::to_bytes) (or a
    /// saved file).
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`] when the bytes are truncated, damaged (checksum),
    /// of another format version or index kind, or structurally invalid;
    /// [`Error::Config`] when the file's `H` is not this index's `H`. The
    /// fast scheme's index also reports [`Error::Config`] for another known
    /// index file (naming what loads it) and [`Error::SchemaMismatch`] for
    /// a header of another schema.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let body = scheme_file::body::<S>(bytes, FileKind::Full, S::INDEX_NAME)?;
        persist::with_view(body, Kind::Lsh, Self::from_view)
    }

    fn from_view(view: &FileView<'_>) -> Result<Self> {
        let parts = Parts::<H>::read(view)?;
        let runs = parts
            .runs
            .iter()
            .map(|r| Run::from_sorted(r.entries.to_vec()));
        Ok(Self {
            bands: parts.bands,
            rows: parts.rows,
            sigs: parts.sigs.iter().map(scheme_file::from_payload).collect(),
            core: Core::from_parts(parts.ids.to_vec(), runs.collect()),
        })
    }

    crate::lsh::persist::save_and_load! {
        /// Saves the index to `path` atomically: the file is written beside it
        /// under a temporary name, flushed, and renamed over `path`, so a crash
        /// never leaves a half-written index where a good one was.
        ///
        /// ```
        /// use txtfp::{LshIndex, MinHashSig};
        /// let dir = std::env::temp_dir().join(format!("txtfp-doc-{}", std::process::id()));
        /// std::fs::create_dir_all(&dir)?;
        /// let path = dir.join("lsh.idx");
        /// let mut idx = LshIndex::<8>::with_bands_rows(4, 2)?;
        /// idx.insert(1, MinHashSig::empty());
        /// idx.save(&path)?;
        /// assert_eq!(LshIndex::<8>::load(&path)?.len(), 1);
        /// # std::fs::remove_dir_all(&dir)?;
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        ///
        /// The fast scheme's index the same way:
        ///
        /// ```
        /// use txtfp::classical::minhash::{FastLshIndex, FastMinHashSig};
        /// let path = std::env::temp_dir().join(format!("txtfp-fast-doc-{}.idx", std::process::id()));
        /// let mut idx = FastLshIndex::<8>::with_bands_rows(4, 2)?;
        /// idx.insert(7, FastMinHashSig::empty());
        /// idx.save(&path)?;
        /// assert!(FastLshIndex::<8>::load(&path)?.contains(7));
        /// # std::fs::remove_file(&path)?;
        /// # Ok::<(), txtfp::Error>(())
        /// ```
    }
}

/// Writes a `kind` LSH file of scheme `S` of `core`'s contents (the
/// scheme's header first, if it has one); with `sigs` (indexed by slot)
/// the payload section holds the signatures, without it there is none
/// ([`LshCandidateIndex`](crate::LshCandidateIndex)).
pub(crate) fn write_lsh<const H: usize, S: Scheme>(
    kind: FileKind,
    core: &Core,
    bands: usize,
    rows: usize,
    sigs: Option<&[MinHashSig<H, S>]>,
    mut sink: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    if let Some(header) = scheme_file::header::<S>(kind) {
        sink(&header)?;
    }
    let super::core::Dense { order, runs } = core.dense();
    let n = order.len() as u64;
    let mut specs = alloc::vec![Spec {
        tag: tag::IDS,
        aux: 0,
        len: n * 8
    }];
    if sigs.is_some() {
        specs.push(Spec {
            tag: tag::PAYLOAD,
            aux: 0,
            len: n * core::mem::size_of::<MinHashSig<H>>() as u64,
        });
    }
    for (t, run) in runs.iter().enumerate() {
        specs.extend(persist::run_specs(t as u32, run.as_ref()));
    }
    let flags = if sigs.is_some() { HAS_SIGNATURES } else { 0 };
    let header = Header {
        kind: Kind::Lsh,
        params: [H as u64, bands as u64, rows as u64, flags],
        docs: n,
    };
    let mut w = Writer::begin(&mut sink, header, specs)?;
    let ids: Vec<u64> = order.iter().map(|e| e.0).collect();
    w.write_pod(&ids)?;
    if let Some(sigs) = sigs {
        for chunk in order.chunks(1024) {
            let part: Vec<MinHashSig<H>> = chunk
                .iter()
                .map(|&(_, s)| scheme_file::to_payload(&sigs[s as usize]))
                .collect();
            w.write_pod(&part)?;
        }
    }
    for run in &runs {
        persist::write_run(&mut w, run.as_ref())?;
    }
    w.finish()
}

/// The validated sections of an LSH file, borrowed in place.
pub(crate) struct Parts<'a, const H: usize> {
    pub(crate) bands: usize,
    pub(crate) rows: usize,
    pub(crate) ids: &'a [u64],
    pub(crate) sigs: &'a [MinHashSig<H>],
    pub(crate) runs: Vec<RunRef<'a>>,
}

impl<'a, const H: usize> Parts<'a, H> {
    /// The sections of a file with signatures ([`LshIndex`]).
    pub(crate) fn read(view: &FileView<'a>) -> Result<Self> {
        Self::read_flagged(view, true)
    }

    /// The sections of a file without signatures
    /// ([`LshCandidateIndex`](crate::LshCandidateIndex)); `sigs` is empty.
    pub(crate) fn read_keys_only(view: &FileView<'a>) -> Result<Self> {
        Self::read_flagged(view, false)
    }

    fn read_flagged(view: &FileView<'a>, with_sigs: bool) -> Result<Self> {
        let [h, bands, rows, flags] = view.header.params;
        if h != H as u64 {
            return Err(Error::Config(format!(
                "index file holds H = {h} signatures, this index has H = {H}"
            )));
        }
        if bands.checked_mul(rows) != Some(h) || bands == 0 {
            return Err(corrupt(format!("{bands} bands × {rows} rows ≠ H = {h}")));
        }
        match (flags, with_sigs) {
            (HAS_SIGNATURES, true) | (0, false) => {}
            (0, true) => {
                return Err(Error::Config(
                    "index file has no signatures; open it as LshCandidateIndex".into(),
                ));
            }
            (HAS_SIGNATURES, false) => {
                return Err(Error::Config(
                    "index file stores signatures; open it as LshIndex".into(),
                ));
            }
            _ => return Err(corrupt(format!("unknown flags {flags:#x}"))),
        }
        if view.header.docs > super::table::MAX_SLOTS as u64 {
            return Err(corrupt(format!("{} documents", view.header.docs)));
        }
        let ids = view.ids()?;
        let sigs: &[MinHashSig<H>] = if with_sigs {
            view.array(tag::PAYLOAD, view.header.docs)?
        } else {
            &[]
        };
        if let Some(bad) = sigs
            .iter()
            .position(|s| s.schema != SCHEMA_VERSION || s._pad != [0; 6])
        {
            return Err(corrupt(format!(
                "signature {bad} has schema {} or non-zero padding",
                sigs[bad].schema
            )));
        }
        let runs = (0..bands as u32)
            .map(|t| view.run(t))
            .collect::<Result<Vec<_>>>()?;
        if let Some(t) = runs.iter().position(|r| r.len() as u64 != view.header.docs) {
            return Err(corrupt(format!(
                "table {t} has {} entries for {} documents",
                runs[t].len(),
                view.header.docs
            )));
        }
        Ok(Self {
            bands: bands as usize,
            rows: rows as usize,
            ids,
            sigs,
            runs,
        })
    }
}
