//! [`LshCandidateIndex`]: banded LSH without stored signatures, for either
//! MinHash scheme.

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;

use super::builder::check_banding;
use super::core::Core;
use super::index::full_error;
use super::persist::{self, Kind};
use super::run::Run;
use super::scheme_file::{self, FileKind};
use super::{band_key_at, band_keys};
use crate::classical::minhash::{Classic, Scheme};
use crate::{LshIndexBuilder, MinHashSig, Result};

/// A banded LSH index that keeps only ids and band keys: about 220 bytes a
/// document at 16 × 8 banding instead of 1.25 KB, for pipelines that verify
/// candidates elsewhere (exact Jaccard on the text, a database lookup) or
/// only need the candidate pairs.
///
/// Band keys, banding rules and candidate sets are those of [`LshIndex`]
/// (`query` answers the same ids); what it cannot do without signatures is
/// verify a similarity ([`LshIndex::query_with_threshold`]) or return a
/// stored signature. The scheme `S` of the signatures it takes defaults to
/// [`Classic`]; [`FastLshCandidateIndex`](crate::classical::minhash::FastLshCandidateIndex) is
/// the fast scheme's.
///
/// [`LshIndex`]: crate::LshIndex
/// [`LshIndex::query_with_threshold`]: crate::LshIndex::query_with_threshold
///
/// ```
/// use txtfp::{LshCandidateIndex, MinHashSig};
/// let sig = |x: u64| MinHashSig::<8> { hashes: [x, x, x, x, 1, 2, 3, x], ..MinHashSig::empty() };
/// let mut idx = LshCandidateIndex::<8>::with_bands_rows(4, 2)?;
/// idx.insert(1, &sig(5));
/// idx.insert(2, &sig(6)); // shares the bands [1, 2] with id 1
/// assert_eq!(idx.query(&sig(5)), [1, 2]);
/// idx.remove(2);
/// assert_eq!(idx.query(&sig(5)), [1]);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone)]
pub struct LshCandidateIndex<const H: usize, S: Scheme = Classic> {
    bands: usize,
    rows: usize,
    pub(super) core: Core,
    scheme: PhantomData<S>,
}

impl<const H: usize, S: Scheme> LshCandidateIndex<H, S> {
    /// An empty index with `bands` bands of `rows` slots.
    ///
    /// # Errors
    ///
    /// [`Error::Config`](crate::Error::Config) unless `bands × rows = H` (the messages of
    /// [`LshIndex::with_bands_rows`](crate::LshIndex::with_bands_rows)).
    pub fn with_bands_rows(bands: usize, rows: usize) -> Result<Self> {
        check_banding(bands, rows, H)?;
        Ok(Self {
            bands,
            rows,
            core: Core::new(bands),
            scheme: PhantomData,
        })
    }

    /// An empty index with the banding of `builder` (e.g.
    /// [`LshIndexBuilder::for_recall`]).
    ///
    /// # Errors
    /// As [`LshIndexBuilder::try_build`].
    ///
    /// ```
    /// use txtfp::LshIndexBuilder;
    /// use txtfp::classical::minhash::FastLshCandidateIndex;
    /// let b = LshIndexBuilder::for_recall(0.8, 128, 0.999)?;
    /// let idx = FastLshCandidateIndex::<128>::from_builder(b)?;
    /// assert_eq!((idx.bands(), idx.rows()), (32, 4));
    /// assert!(FastLshCandidateIndex::<128>::with_bands_rows(16, 7).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn from_builder(builder: LshIndexBuilder) -> Result<Self> {
        Self::with_bands_rows(builder.bands, builder.rows)
    }

    crate::lsh::builder::banding_accessors!();
    crate::lsh::core::core_accessors!("document");

    /// Files `id` under the band keys of `sig`, replacing what `id` had.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when `id` is new and the index already holds
    /// 2³¹ − 1 ids; the index is then unchanged.
    pub fn insert(&mut self, id: u64, sig: &MinHashSig<H, S>) -> Result<()> {
        if self.core.slot(id).is_some() {
            self.core.kill(id);
        } else if !self.core.fits(1) {
            return Err(full_error(1));
        }
        let (_, slot) = self.core.alloc(id).ok_or_else(|| full_error(1))?;
        self.core.link(slot, band_keys(&sig.hashes, self.rows));
        self.core.maybe_compact();
        Ok(())
    }

    /// Inserts a batch of fresh, distinct ids, sorted into the band tables
    /// in one pass; all or nothing.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInput`](crate::Error::InvalidInput), with the index unchanged, when an id is
    /// already stored, repeated in the batch, or the batch does not fit.
    ///
    /// ```
    /// use txtfp::classical::minhash::{FastLshCandidateIndex, FastMinHashSig};
    /// let sig = |x: u64| FastMinHashSig::<8> { hashes: [x; 8], ..FastMinHashSig::empty() };
    /// let mut idx = FastLshCandidateIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.try_extend([(1, &sig(10)), (2, &sig(20))])?;
    /// assert!(idx.try_extend([(2, &sig(30))]).is_err()); // 2 is stored
    /// assert_eq!(idx.query_batch(&[sig(20), sig(10)]), [vec![2], vec![1]]);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn try_extend<'a, I>(&mut self, items: I) -> Result<()>
    where
        I: IntoIterator<Item = (u64, &'a MinHashSig<H, S>)>,
    {
        let items: Vec<(u64, &MinHashSig<H, S>)> = items.into_iter().collect();
        let slots = self
            .core
            .alloc_fresh(items.iter().map(|e| e.0), "LshCandidateIndex::try_extend")?;
        let rows = self.rows;
        self.core.link_computed(&slots, false, |i, t| {
            band_key_at(&items[i].1.hashes, rows, t)
        });
        Ok(())
    }

    /// Removes `id`; returns whether it was stored.
    pub fn remove(&mut self, id: u64) -> bool {
        let found = self.core.kill(id).is_some();
        self.core.maybe_compact();
        found
    }

    /// Ids sharing at least one band bucket with `sig`, ascending (the
    /// candidates of [`LshIndex::query`](crate::LshIndex::query)).
    pub fn query(&self, sig: &MinHashSig<H, S>) -> Vec<u64> {
        let mut slots = Vec::with_capacity(2 * self.bands);
        self.core
            .candidates(band_keys(&sig.hashes, self.rows), &mut slots);
        slots.sort_unstable();
        slots.dedup();
        let mut out: Vec<u64> = slots.into_iter().map(|s| self.core.id(s)).collect();
        out.sort_unstable();
        out
    }

    /// Merges pending inserts and removals into the compact layout.
    pub fn compact(&mut self) {
        self.core.compact();
        self.core.shrink_to_fit();
    }

    /// Heap bytes held.
    pub fn memory_usage(&self) -> usize {
        self.core.heap_bytes() + self.bands * core::mem::size_of::<Run>()
    }

    /// The index file (format of ARCHITECTURE.md, "Index files"; flags 0:
    /// no payload section). For the fast scheme, a 16-byte header
    /// (`TXTFPFMC`, the schema word [`FAST_SCHEMA`](crate::classical::minhash::FAST_SCHEMA)
    /// little-endian, six zero bytes) comes first.
    ///
    /// ```
    /// use txtfp::LshCandidateIndex;
    /// use txtfp::classical::minhash::{FastLshCandidateIndex, FastLshIndex, FastMinHashSig};
    /// let sig = FastMinHashSig::<8> { hashes: [3; 8], ..FastMinHashSig::empty() };
    /// let mut idx = FastLshCandidateIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.insert(1, &sig)?;
    /// let bytes = idx.to_bytes();
    /// assert_eq!(FastLshCandidateIndex::<8>::from_bytes(&bytes)?.query(&sig), [1]);
    /// // No other index type loads its files, nor it theirs.
    /// assert!(LshCandidateIndex::<8>::from_bytes(&bytes).is_err());
    /// assert!(FastLshIndex::<8>::from_bytes(&bytes).is_err());
    /// let default = LshCandidateIndex::<8>::with_bands_rows(4, 2)?.to_bytes();
    /// assert!(FastLshCandidateIndex::<8>::from_bytes(&default).is_err());
    /// let full = FastLshIndex::<8>::with_bands_rows(4, 2)?.to_bytes();
    /// assert!(FastLshCandidateIndex::<8>::from_bytes(&full).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        persist::to_vec(|sink| self.write_to(sink))
    }

    /// Writes [`to_bytes`](Self::to_bytes) through `sink`, which receives
    /// consecutive pieces of the file.
    pub fn write_to(&self, sink: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        super::save::write_lsh::<H, S>(
            FileKind::Keys,
            &self.core,
            self.bands,
            self.rows,
            None,
            sink,
        )
    }

    /// Reads the bytes of [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// [`Error::Corrupt`](crate::Error::Corrupt) for truncated, damaged or foreign bytes;
    /// [`Error::Config`](crate::Error::Config) for another `H` or a file with signatures (load
    /// those as [`LshIndex`](crate::LshIndex)). The fast scheme's index
    /// also reports [`Error::Config`](crate::Error::Config) for another
    /// known index file (naming what loads it) and
    /// [`Error::SchemaMismatch`](crate::Error::SchemaMismatch) for a header
    /// of another schema.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let body = scheme_file::body::<S>(bytes, FileKind::Keys, S::CANDIDATE_INDEX_NAME)?;
        persist::with_view(body, Kind::Lsh, |view| {
            let parts = super::save::Parts::<H>::read_keys_only(view)?;
            let runs = parts
                .runs
                .iter()
                .map(|r| Run::from_sorted(r.entries.to_vec()));
            Ok(Self {
                bands: parts.bands,
                rows: parts.rows,
                core: Core::from_parts(parts.ids.to_vec(), runs.collect()),
                scheme: PhantomData,
            })
        })
    }

    crate::lsh::persist::save_and_load! {
        /// Saves [`to_bytes`](Self::to_bytes) to `path` atomically (written
        /// beside it under a temporary name, synced, renamed over it).
        ///
        /// ```
        /// use txtfp::classical::minhash::{FastLshCandidateIndex, FastMinHashSig};
        /// let path = std::env::temp_dir().join(format!("txtfp-fastc-doc-{}.idx", std::process::id()));
        /// let mut idx = FastLshCandidateIndex::<8>::with_bands_rows(4, 2)?;
        /// idx.insert(7, &FastMinHashSig::empty())?;
        /// idx.save(&path)?;
        /// assert!(FastLshCandidateIndex::<8>::load(&path)?.contains(7));
        /// # std::fs::remove_file(&path)?;
        /// # Ok::<(), txtfp::Error>(())
        /// ```
    }
}

/// A summary, under the index's name (`LshCandidateIndex` or
/// `FastLshCandidateIndex`).
impl<const H: usize, S: Scheme> fmt::Debug for LshCandidateIndex<H, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let banding = (H, self.bands, self.rows);
        super::builder::debug_banded(f, S::CANDIDATE_INDEX_NAME, banding, self.len())
    }
}

#[cfg(test)]
mod tests;
