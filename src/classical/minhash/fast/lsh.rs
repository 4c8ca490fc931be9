//! [`FastLshIndex`]: the LSH index for [`FastMinHashSig`] signatures.

use alloc::vec::Vec;
use core::fmt;

use super::FastMinHashSig;
use super::index_file::{self, FULL};
use crate::{LshIndex, LshIndexBuilder, MinHashSig, Result};

/// A banded LSH index of [`FastMinHashSig`] signatures: [`LshIndex`]'s
/// buckets, queries and verification (slot agreement is the Jaccard
/// estimate in both schemes), typed so that only fast-scheme signatures go
/// in and come out. A default-scheme [`MinHashSig`] is a type error here,
/// and a saved default-scheme index file is refused by
/// [`from_bytes`](Self::from_bytes) (and this index's files by
/// [`LshIndex::from_bytes`]).
///
/// ```
/// use txtfp::{
///     Canonicalizer, FastLshIndex, FastMinHashFingerprinter, Fingerprinter, LshIndexBuilder,
///     ShingleTokenizer, WordTokenizer,
/// };
/// let fp = FastMinHashFingerprinter::<_, 128>::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 3, inner: WordTokenizer },
/// );
/// let mut idx = FastLshIndex::<128>::from_builder(LshIndexBuilder::for_threshold(0.5, 128)?)?;
/// idx.insert(1, fp.fingerprint("the quick brown fox jumps over the lazy dog at noon")?);
/// idx.insert(2, fp.fingerprint("astronomers detect faint cosmic background radiation")?);
/// let probe = fp.fingerprint("the quick brown fox jumps over the lazy dog at noon")?;
/// assert_eq!(idx.query_with_threshold(&probe, 0.99), [1]);
/// assert!(!idx.query(&probe).contains(&2));
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// A default-scheme signature does not go in:
///
/// ```compile_fail
/// let mut idx = txtfp::FastLshIndex::<8>::with_bands_rows(4, 2)?;
/// idx.insert(1, txtfp::MinHashSig::<8>::empty());
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone)]
pub struct FastLshIndex<const H: usize> {
    inner: LshIndex<H>,
}

/// The inner index stores the slots under the default layout: the slots
/// are what banding and verification read; the schema word never leaves
/// this type (it is restored by [`from_inner`]).
fn to_inner<const H: usize>(sig: &FastMinHashSig<H>) -> MinHashSig<H> {
    MinHashSig {
        hashes: sig.hashes,
        ..MinHashSig::empty()
    }
}

fn from_inner<const H: usize>(sig: &MinHashSig<H>) -> FastMinHashSig<H> {
    FastMinHashSig {
        hashes: sig.hashes,
        ..FastMinHashSig::empty()
    }
}

impl<const H: usize> FastLshIndex<H> {
    /// An empty index with `bands` bands of `rows` slots.
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) unless `bands × rows = H` (the messages of
    /// [`LshIndex::with_bands_rows`]).
    ///
    /// ```
    /// assert!(txtfp::FastLshIndex::<128>::with_bands_rows(32, 4).is_ok());
    /// assert!(txtfp::FastLshIndex::<128>::with_bands_rows(32, 3).is_err());
    /// ```
    pub fn with_bands_rows(bands: usize, rows: usize) -> Result<Self> {
        Ok(Self {
            inner: LshIndex::with_bands_rows(bands, rows)?,
        })
    }

    /// An empty index with the banding of `builder` (e.g.
    /// [`LshIndexBuilder::for_recall`]).
    ///
    /// # Errors
    /// As [`LshIndexBuilder::try_build`].
    ///
    /// ```
    /// use txtfp::{FastLshIndex, LshIndexBuilder};
    /// let idx = FastLshIndex::<128>::from_builder(LshIndexBuilder::for_recall(0.8, 128, 0.999)?)?;
    /// assert_eq!((idx.bands(), idx.rows()), (32, 4));
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn from_builder(builder: LshIndexBuilder) -> Result<Self> {
        Ok(Self {
            inner: builder.try_build()?,
        })
    }

    /// Number of bands.
    pub fn bands(&self) -> usize {
        self.inner.bands()
    }

    /// Signature slots per band.
    pub fn rows(&self) -> usize {
        self.inner.rows()
    }

    /// Number of stored signatures.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether the index holds no signature.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Stores `sig` under `id`, replacing any signature stored under it.
    ///
    /// # Panics
    /// As [`LshIndex::insert`] (a full index); see [`Self::try_insert`].
    #[track_caller]
    pub fn insert(&mut self, id: u64, sig: FastMinHashSig<H>) {
        self.inner.insert(id, to_inner(&sig));
    }

    /// [`insert`](Self::insert) that reports a full index instead of
    /// panicking.
    ///
    /// # Errors
    /// As [`LshIndex::try_insert`].
    pub fn try_insert(&mut self, id: u64, sig: FastMinHashSig<H>) -> Result<()> {
        self.inner.try_insert(id, to_inner(&sig))
    }

    /// Inserts a batch, as [`LshIndex::try_extend`].
    ///
    /// # Errors
    /// As [`LshIndex::try_extend`].
    ///
    /// ```
    /// use txtfp::{FastLshIndex, FastMinHashSig};
    /// let sig = |x: u64| FastMinHashSig::<4> { hashes: [x; 4], ..FastMinHashSig::empty() };
    /// let mut idx = FastLshIndex::<4>::with_bands_rows(2, 2)?;
    /// idx.try_extend([(1, sig(5)), (2, sig(5)), (3, sig(6))])?;
    /// assert_eq!(idx.query(&sig(5)), [1, 2]);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn try_extend<I>(&mut self, items: I) -> Result<()>
    where
        I: IntoIterator<Item = (u64, FastMinHashSig<H>)>,
    {
        self.inner
            .try_extend(items.into_iter().map(|(id, s)| (id, to_inner(&s))))
    }

    /// Removes and returns the signature stored under `id`.
    pub fn remove(&mut self, id: u64) -> Option<FastMinHashSig<H>> {
        self.inner.remove(id).map(|s| from_inner(&s))
    }

    /// The signature stored under `id`.
    pub fn get(&self, id: u64) -> Option<FastMinHashSig<H>> {
        self.inner.get(id).map(from_inner)
    }

    /// Whether a signature is stored under `id`.
    pub fn contains(&self, id: u64) -> bool {
        self.inner.contains(id)
    }

    /// Ids of all stored signatures, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.inner.ids()
    }

    /// All `(id, signature)` pairs, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, FastMinHashSig<H>)> + '_ {
        self.inner.iter().map(|(id, s)| (id, from_inner(s)))
    }

    /// Candidate ids: those sharing a band bucket with `sig`, ascending
    /// (as [`LshIndex::query`]).
    pub fn query(&self, sig: &FastMinHashSig<H>) -> Vec<u64> {
        self.inner.query(&to_inner(sig))
    }

    /// Verified ids: the candidates whose stored signature has
    /// [`FastMinHashSig::jaccard`]`(sig, stored) >= threshold`, ascending
    /// (as [`LshIndex::query_with_threshold`]; a NaN threshold matches
    /// nothing).
    pub fn query_with_threshold(&self, sig: &FastMinHashSig<H>, threshold: f32) -> Vec<u64> {
        self.inner.query_with_threshold(&to_inner(sig), threshold)
    }

    /// [`query_with_threshold`](Self::query_with_threshold) that rejects a
    /// NaN threshold.
    ///
    /// # Errors
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) when `threshold` is NaN.
    pub fn try_query_with_threshold(
        &self,
        sig: &FastMinHashSig<H>,
        threshold: f32,
    ) -> Result<Vec<u64>> {
        self.inner
            .try_query_with_threshold(&to_inner(sig), threshold)
    }

    /// Compacts the buckets (as [`LshIndex::compact`]).
    pub fn compact(&mut self) {
        self.inner.compact();
    }

    /// Heap bytes the index holds (as [`LshIndex::memory_usage`]).
    pub fn memory_usage(&self) -> usize {
        self.inner.memory_usage()
    }

    /// The index file: a 16-byte header (`TXTFPFMH`, the schema word
    /// [`FAST_SCHEMA`](super::FAST_SCHEMA) little-endian, six zero bytes) and then an
    /// [`LshIndex`] file of the same buckets and slots (versioned and
    /// checksummed; ARCHITECTURE.md, "Index files").
    ///
    /// ```
    /// use txtfp::{FastLshIndex, FastMinHashSig, LshIndex};
    /// let sig = FastMinHashSig::<8> { hashes: [3; 8], ..FastMinHashSig::empty() };
    /// let mut idx = FastLshIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.insert(1, sig);
    /// let bytes = idx.to_bytes();
    /// assert_eq!(FastLshIndex::<8>::from_bytes(&bytes)?.get(1), Some(sig));
    /// // Neither index type loads the other's files.
    /// assert!(LshIndex::<8>::from_bytes(&bytes).is_err());
    /// let default = LshIndex::<8>::with_bands_rows(4, 2)?.to_bytes();
    /// assert!(FastLshIndex::<8>::from_bytes(&default).is_err());
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::from(index_file::header(FULL));
        out.extend_from_slice(&self.inner.to_bytes());
        out
    }

    /// Reads the bytes of [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// - [`Error::Config`](crate::Error::Config) for a default-scheme [`LshIndex`] file or a
    ///   [`FastLshCandidateIndex`](super::FastLshCandidateIndex) file,
    ///   naming the type that loads it;
    /// - [`Error::SchemaMismatch`](crate::Error::SchemaMismatch) for a fast-scheme file of another schema;
    /// - [`Error::Corrupt`](crate::Error::Corrupt) for anything else that is not such a file, and
    ///   the errors of [`LshIndex::from_bytes`] for the rest.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let body = index_file::body(bytes, FULL, "FastLshIndex")?;
        Ok(Self {
            inner: LshIndex::from_bytes(body)?,
        })
    }

    /// Saves [`to_bytes`](Self::to_bytes) to `path` atomically (written
    /// beside it under a temporary name, synced, renamed over it).
    ///
    /// # Errors
    /// [`Error::Io`](crate::Error::Io) when the file cannot be written.
    ///
    /// ```
    /// use txtfp::{FastLshIndex, FastMinHashSig};
    /// let path = std::env::temp_dir().join(format!("txtfp-fast-doc-{}.idx", std::process::id()));
    /// let mut idx = FastLshIndex::<8>::with_bands_rows(4, 2)?;
    /// idx.insert(7, FastMinHashSig::empty());
    /// idx.save(&path)?;
    /// assert!(FastLshIndex::<8>::load(&path)?.contains(7));
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    #[cfg(feature = "std")]
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        // The bytes of `to_bytes`, streamed: the header, then the inner file.
        crate::lsh::save_atomically(path.as_ref(), |sink| {
            sink(&index_file::header(FULL))?;
            self.inner.write_to(sink)
        })
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

/// A summary, as [`LshIndex`]'s.
impl<const H: usize> fmt::Debug for FastLshIndex<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FastLshIndex")
            .field("h", &H)
            .field("bands", &self.bands())
            .field("rows", &self.rows())
            .field("len", &self.len())
            .finish()
    }
}

#[cfg(test)]
#[path = "lsh_tests.rs"]
mod tests;
