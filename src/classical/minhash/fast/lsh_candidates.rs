//! [`FastLshCandidateIndex`]: band keys only, for [`FastMinHashSig`]s.

use alloc::vec::Vec;
use core::fmt;

use super::FastMinHashSig;
use super::index_file::{self, KEYS};
use crate::{LshCandidateIndex, LshIndexBuilder, MinHashSig, Result};

/// A banded LSH index of [`FastMinHashSig`] signatures that keeps only ids
/// and band keys, as [`LshCandidateIndex`] does for the default scheme
/// (about 220 bytes a document at 16 × 8 banding instead of 1.25 KB):
/// [`query`](Self::query) answers the candidates of
/// [`FastLshIndex::query`](super::FastLshIndex::query), and verifying them
/// is left to the caller (the stored signatures elsewhere, exact Jaccard on
/// the text). Typed so that only fast-scheme signatures go in, and its files
/// are refused by every other index type and the other way round.
///
/// ```
/// use txtfp::{
///     Canonicalizer, FastLshCandidateIndex, FastMinHashFingerprinter, Fingerprinter,
///     LshIndexBuilder, ShingleTokenizer, WordTokenizer,
/// };
/// let fp = FastMinHashFingerprinter::<_, 128>::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 3, inner: WordTokenizer },
/// );
/// let mut idx =
///     FastLshCandidateIndex::<128>::from_builder(LshIndexBuilder::for_threshold(0.5, 128)?)?;
/// idx.insert(1, &fp.fingerprint("the quick brown fox jumps over the lazy dog at noon")?)?;
/// idx.insert(2, &fp.fingerprint("astronomers detect faint cosmic background radiation")?)?;
/// let probe = fp.fingerprint("the quick brown fox jumps over the lazy dog at noon")?;
/// assert_eq!(idx.query(&probe), [1]);
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// A default-scheme signature does not go in:
///
/// ```compile_fail
/// let mut idx = txtfp::FastLshCandidateIndex::<8>::with_bands_rows(4, 2)?;
/// idx.insert(1, &txtfp::MinHashSig::<8>::empty())?;
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone)]
pub struct FastLshCandidateIndex<const H: usize> {
    inner: LshCandidateIndex<H>,
}

/// The band keys are computed from the slots alone; the schema word never
/// reaches the inner index.
fn to_inner<const H: usize>(sig: &FastMinHashSig<H>) -> MinHashSig<H> {
    MinHashSig {
        hashes: sig.hashes,
        ..MinHashSig::empty()
    }
}

impl<const H: usize> FastLshCandidateIndex<H> {
    /// An empty index with `bands` bands of `rows` slots.
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) unless `bands × rows = H` (the messages of
    /// [`LshCandidateIndex::with_bands_rows`]).
    ///
    /// ```
    /// assert!(txtfp::FastLshCandidateIndex::<128>::with_bands_rows(16, 8).is_ok());
    /// assert!(txtfp::FastLshCandidateIndex::<128>::with_bands_rows(16, 7).is_err());
    /// ```
    pub fn with_bands_rows(bands: usize, rows: usize) -> Result<Self> {
        Ok(Self {
            inner: LshCandidateIndex::with_bands_rows(bands, rows)?,
        })
    }

    /// An empty index with the banding of `builder` (e.g.
    /// [`LshIndexBuilder::for_recall`]).
    ///
    /// # Errors
    /// As [`LshIndexBuilder::try_build`].
    ///
    /// ```
    /// use txtfp::{FastLshCandidateIndex, LshIndexBuilder};
    /// let b = LshIndexBuilder::for_recall(0.8, 128, 0.999)?;
    /// let idx = FastLshCandidateIndex::<128>::from_builder(b)?;
    /// assert_eq!((idx.bands(), idx.rows()), (32, 4));
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn from_builder(builder: LshIndexBuilder) -> Result<Self> {
        let banding = builder.try_build::<H>()?;
        Self::with_bands_rows(banding.bands(), banding.rows())
    }

    /// Number of bands.
    pub fn bands(&self) -> usize {
        self.inner.bands()
    }

    /// Slots per band.
    pub fn rows(&self) -> usize {
        self.inner.rows()
    }

    /// Number of ids stored.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether no id is stored.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Whether `id` is stored.
    pub fn contains(&self, id: u64) -> bool {
        self.inner.contains(id)
    }

    /// Files `id` under the band keys of `sig`, replacing what `id` had.
    ///
    /// # Errors
    /// As [`LshCandidateIndex::insert`]: the index is full (2³¹ − 1 ids) and
    /// `id` is new; the index is then unchanged.
    pub fn insert(&mut self, id: u64, sig: &FastMinHashSig<H>) -> Result<()> {
        self.inner.insert(id, &to_inner(sig))
    }

    /// Inserts a batch of fresh, distinct ids in one pass; all or nothing.
    ///
    /// # Errors
    /// As [`LshCandidateIndex::try_extend`], with the index unchanged.
    ///
    /// ```
    /// use txtfp::{FastLshCandidateIndex, FastMinHashSig};
    /// let sig = |x: u64| FastMinHashSig::<8> { hashes: [x; 8], ..FastMinHashSig::empty() };
    /// let mut idx = FastLshCandidateIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.try_extend([(1, &sig(10)), (2, &sig(20))])?;
    /// assert!(idx.try_extend([(2, &sig(30))]).is_err()); // 2 is stored
    /// assert_eq!(idx.query_batch(&[sig(20), sig(10)]), [vec![2], vec![1]]);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn try_extend<'a, I>(&mut self, items: I) -> Result<()>
    where
        I: IntoIterator<Item = (u64, &'a FastMinHashSig<H>)>,
    {
        let items: Vec<(u64, MinHashSig<H>)> = items
            .into_iter()
            .map(|(id, sig)| (id, to_inner(sig)))
            .collect();
        self.inner
            .try_extend(items.iter().map(|(id, sig)| (*id, sig)))
    }

    /// Removes `id`; returns whether it was stored.
    pub fn remove(&mut self, id: u64) -> bool {
        self.inner.remove(id)
    }

    /// Ids sharing at least one band bucket with `sig`, ascending.
    pub fn query(&self, sig: &FastMinHashSig<H>) -> Vec<u64> {
        self.inner.query(&to_inner(sig))
    }

    /// [`query`](Self::query) of every signature of `sigs`, in order.
    pub fn query_batch(&self, sigs: &[FastMinHashSig<H>]) -> Vec<Vec<u64>> {
        let inner: Vec<MinHashSig<H>> = sigs.iter().map(to_inner).collect();
        self.inner.query_batch(&inner)
    }

    /// Merges pending inserts and removals into the compact layout.
    pub fn compact(&mut self) {
        self.inner.compact();
    }

    /// Heap bytes held.
    pub fn memory_usage(&self) -> usize {
        self.inner.memory_usage()
    }

    /// The index file: a 16-byte header (`TXTFPFMC`, the schema word
    /// [`FAST_SCHEMA`](super::FAST_SCHEMA) little-endian, six zero bytes) and then an
    /// [`LshCandidateIndex`] file of the same buckets (versioned and
    /// checksummed; ARCHITECTURE.md, "Index files").
    ///
    /// ```
    /// use txtfp::{FastLshCandidateIndex, FastLshIndex, FastMinHashSig, LshCandidateIndex};
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
        let mut out = Vec::from(index_file::header(KEYS));
        out.extend_from_slice(&self.inner.to_bytes());
        out
    }

    /// Reads the bytes of [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// - [`Error::Config`](crate::Error::Config) for a default-scheme index file or a
    ///   [`FastLshIndex`](super::FastLshIndex) file, naming the type that
    ///   loads it;
    /// - [`Error::SchemaMismatch`](crate::Error::SchemaMismatch) for a file of another fast schema;
    /// - [`Error::Corrupt`](crate::Error::Corrupt) for anything else that is not such a file, and
    ///   the errors of [`LshCandidateIndex::from_bytes`] for the rest.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let body = index_file::body(bytes, KEYS, "FastLshCandidateIndex")?;
        Ok(Self {
            inner: LshCandidateIndex::from_bytes(body)?,
        })
    }

    /// Saves [`to_bytes`](Self::to_bytes) to `path` atomically (written
    /// beside it under a temporary name, synced, renamed over it).
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io) when the file cannot be written.
    ///
    /// ```
    /// use txtfp::{FastLshCandidateIndex, FastMinHashSig};
    /// let path = std::env::temp_dir().join(format!("txtfp-fastc-doc-{}.idx", std::process::id()));
    /// let mut idx = FastLshCandidateIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.insert(7, &FastMinHashSig::empty())?;
    /// idx.save(&path)?;
    /// assert!(FastLshCandidateIndex::<8>::load(&path)?.contains(7));
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        let bytes = self.to_bytes();
        crate::lsh::save_atomically(path.as_ref(), |sink| sink(&bytes))
    }

    /// Loads a file written by [`save`](Self::save).
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io) when the file cannot be read, and the errors of
    /// [`from_bytes`](Self::from_bytes).
    #[cfg(feature = "std")]
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Self> {
        Self::from_bytes(&std::fs::read(path.as_ref())?)
    }
}

/// A summary, as [`LshCandidateIndex`]'s.
impl<const H: usize> fmt::Debug for FastLshCandidateIndex<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FastLshCandidateIndex")
            .field("h", &H)
            .field("bands", &self.bands())
            .field("rows", &self.rows())
            .field("len", &self.len())
            .finish()
    }
}

#[cfg(test)]
#[path = "lsh_candidates_tests.rs"]
mod tests;
