//! Top-k similarity search over [`MinHashSig`]s: an LSH Forest (Bawa,
//! Condie and Ganesan, WWW 2005) of `l` prefix trees.
//!
//! A signature of `H` slots is cut into `l` bands of `rows = H / l`
//! consecutive slots; tree `t` orders the stored signatures by band `t`
//! read as a string of slots. Two documents of Jaccard similarity `s` agree
//! on the first `r` slots of a band with probability `s^r`, so the documents
//! that share a long prefix with the query in some tree are the likely
//! near neighbours. A query finds, for each depth `r = rows, rows − 1, …, 1`,
//! the documents that share at least `r` leading slots with it in at least
//! one tree, and stops at the deepest `r` that yields enough candidates
//! ([`LshForestBuilder::candidates_per_result`] × `k`; all of depth 1 at
//! most). The candidates are then ranked by estimated Jaccard similarity over
//! the whole signature (ties by ascending id), and the best `k` returned.
//!
//! ```
//! use txtfp::MinHashSig;
//! use txtfp::lsh::forest::LshForest;
//! let mut forest = LshForest::<8>::new(4)?; // 4 trees of 2 slots
//! let sig = |h: [u64; 8]| MinHashSig::<8> { hashes: h, ..MinHashSig::empty() };
//! forest.insert(1, &sig([1, 2, 3, 4, 5, 6, 7, 8]))?;
//! forest.insert(2, &sig([1, 2, 3, 4, 5, 6, 0, 0]))?; // agrees on 6 of 8 slots
//! forest.insert(3, &sig([9, 9, 9, 9, 9, 9, 9, 9]))?;
//! let top = forest.query(&sig([1, 2, 3, 4, 5, 6, 7, 8]), 2)?;
//! assert_eq!(top, [(1, 1.0), (2, 0.75)]);
//! assert!(forest.query(&sig([1, 2, 3, 4, 5, 6, 7, 8]), 0).is_err());
//! # Ok::<(), txtfp::Error>(())
//! ```
//!
//! # Layout
//!
//! Signatures live in one `Vec` by dense slot. Each tree is a sorted array
//! of slots (ordered by the band's slots, then by slot) with the band's
//! first slot beside it, so the depth-1 range is a binary search over
//! contiguous `u64`s and each deeper range a binary search inside the one
//! before. Inserts go to a pending list that queries scan directly (the
//! results are the same); [`LshForest::index`] sorts it into the trees, and
//! an insert does so by itself once the pending list outgrows half the
//! sorted part; [`LshForest::insert_all`] stores a batch and sorts once. Removal is lazy: removed slots are skipped, and dropped at
//! the next [`LshForest::index`].
//!
//! About `8·H + 12·l + 40` bytes a document (1.2 KB at `H = 128`, `l = 8`).
//! BENCHMARKS.md ("Top-k search") has the figures, against an exact scan
//! ([`LshForest::query_exact`]) and against datasketch's `MinHashLSHForest`.
//!
//! [`MinHashSig`]: crate::MinHashSig

use alloc::format;
use alloc::vec::Vec;
use core::fmt;

use hashbrown::HashMap;

use crate::classical::minhash::{Classic, Scheme};
use crate::{Error, MinHashSig, Result};

mod bytes;
mod query;
#[cfg(feature = "serde")]
mod serde_impl;
#[cfg(test)]
mod tests;
mod tree;

pub use bytes::FOREST_FORMAT_VERSION;
use tree::Tree;

/// Default [`LshForestBuilder::candidates_per_result`]: a query collects at
/// least `2·k` candidates (when that many share a prefix with it) before
/// ranking them.
pub const DEFAULT_CANDIDATES_PER_RESULT: usize = 2;

/// Largest [`LshForestBuilder::candidates_per_result`] accepted.
pub const MAX_CANDIDATES_PER_RESULT: usize = 1 << 16;

/// Most signatures a forest holds (slots are `u32`).
const MAX_DOCS: usize = u32::MAX as usize;

/// Pending inserts beyond which an insert sorts them into the trees by
/// itself, on top of half the sorted part: queries scan pending signatures
/// one by one, so the list is kept small next to the trees while the total
/// sorting work of a long run of inserts stays a small multiple of one sort.
const PENDING_FLOOR: usize = 1024;

/// The parameters of an [`LshForest`]: `num_perm` (the signature's slot
/// count, which must be the forest's `H`), `trees` (`l`, which must divide
/// `num_perm`) and how many candidates a query gathers per result. Nothing
/// is checked until [`try_build`](Self::try_build).
///
/// ```
/// use txtfp::lsh::forest::{LshForest, LshForestBuilder};
/// let forest: LshForest<128> = LshForestBuilder::new(128, 8).try_build()?;
/// assert_eq!((forest.trees(), forest.rows()), (8, 16));
/// let err = LshForestBuilder::new(128, 7).try_build::<128, txtfp::classical::minhash::Classic>();
/// assert_eq!(err.unwrap_err().to_string(), "config error: trees (7) must divide num_perm (128)");
/// let err = LshForestBuilder::new(64, 8).try_build::<128, txtfp::classical::minhash::Classic>();
/// assert_eq!(
///     err.unwrap_err().to_string(),
///     "config error: num_perm (64) must equal the signature's slot count H = 128"
/// );
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LshForestBuilder {
    /// Slots of the signatures to index; must equal `H`.
    pub num_perm: usize,
    /// Number of prefix trees `l`; each covers `num_perm / l` slots.
    pub trees: usize,
    /// A query descends to shorter prefixes until it has at least
    /// `candidates_per_result · k` candidates (or reaches depth 1).
    pub candidates_per_result: usize,
}

impl Default for LshForestBuilder {
    /// 128 slots, 8 trees (datasketch's defaults), 2 candidates per result.
    fn default() -> Self {
        Self::new(128, 8)
    }
}

impl LshForestBuilder {
    /// A builder for `num_perm`-slot signatures in `trees` trees, with
    /// [`DEFAULT_CANDIDATES_PER_RESULT`].
    pub const fn new(num_perm: usize, trees: usize) -> Self {
        Self {
            num_perm,
            trees,
            candidates_per_result: DEFAULT_CANDIDATES_PER_RESULT,
        }
    }

    /// Sets how many candidates a query gathers per requested result before
    /// it stops descending: `1` stops as soon as `k` documents share a
    /// prefix (fastest), larger values look at more documents (higher
    /// recall). Checked by [`try_build`](Self::try_build).
    pub const fn candidates_per_result(mut self, m: usize) -> Self {
        self.candidates_per_result = m;
        self
    }

    /// An empty forest with these parameters.
    ///
    /// # Errors
    /// [`Error::Config`] when `num_perm != H`, when `trees` is zero or does
    /// not divide `num_perm`, or when `candidates_per_result` is zero or
    /// above [`MAX_CANDIDATES_PER_RESULT`].
    pub fn try_build<const H: usize, S: Scheme>(self) -> Result<LshForest<H, S>> {
        check_params(self.num_perm, self.trees, self.candidates_per_result, H)?;
        Ok(LshForest {
            rows: H / self.trees,
            per_result: self.candidates_per_result,
            sigs: Vec::new(),
            ids: Vec::new(),
            live: Vec::new(),
            slot_of: HashMap::new(),
            trees: (0..self.trees).map(|_| Tree::default()).collect(),
            sorted: 0,
            dead: 0,
        })
    }
}

/// Checks the parameters of a forest of `h`-slot signatures.
pub(crate) fn check_params(
    num_perm: usize,
    trees: usize,
    per_result: usize,
    h: usize,
) -> Result<()> {
    if num_perm != h {
        return Err(Error::Config(format!(
            "num_perm ({num_perm}) must equal the signature's slot count H = {h}"
        )));
    }
    if trees == 0 || h == 0 {
        return Err(Error::Config(format!(
            "trees ({trees}) and num_perm ({h}) must be > 0"
        )));
    }
    if !h.is_multiple_of(trees) {
        return Err(Error::Config(format!(
            "trees ({trees}) must divide num_perm ({h})"
        )));
    }
    if per_result == 0 || per_result > MAX_CANDIDATES_PER_RESULT {
        return Err(Error::Config(format!(
            "candidates_per_result must be in 1..={MAX_CANDIDATES_PER_RESULT}; got {per_result}"
        )));
    }
    Ok(())
}

/// An LSH Forest of [`MinHashSig<H, S>`] signatures under caller-chosen
/// `u64` ids, for top-k queries by estimated Jaccard similarity (see the
/// [module documentation](self)). Queries take `&self`; every insert is
/// queryable at once.
///
/// ```
/// use txtfp::{Canonicalizer, Fingerprinter, MinHashFingerprinter, ShingleTokenizer, WordTokenizer};
/// use txtfp::lsh::forest::LshForest;
/// let fp = MinHashFingerprinter::<_, 128>::new(
///     Canonicalizer::default(),
///     ShingleTokenizer { k: 2, inner: WordTokenizer },
/// );
/// let mut forest = LshForest::<128>::new(8)?;
/// let docs = [
///     "the quick brown fox jumps over the lazy dog by the river bank",
///     "the quick brown fox jumps over the lazy dog by the river side",
///     "a completely different sentence about astronomy and distant stars",
/// ];
/// for (id, text) in docs.iter().enumerate() {
///     forest.insert(id as u64, &fp.fingerprint(text)?)?;
/// }
/// forest.index(); // optional: sorts pending inserts into the trees
/// let top = forest.query(&fp.fingerprint(docs[0])?, 2)?;
/// assert_eq!(top[0], (0, 1.0));
/// assert_eq!(top[1].0, 1);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone)]
pub struct LshForest<const H: usize, S: Scheme = Classic> {
    /// Slots per tree, `H / l`.
    rows: usize,
    /// Candidates gathered per requested result.
    per_result: usize,
    /// Signature of each slot (stale for removed slots).
    sigs: Vec<MinHashSig<H, S>>,
    /// Id of each slot.
    ids: Vec<u64>,
    /// Whether each slot still holds its id's signature.
    live: Vec<bool>,
    /// Slot of each live id.
    slot_of: HashMap<u64, u32>,
    /// One sorted array per tree over slots `0..sorted`.
    trees: Vec<Tree>,
    /// Slots `0..sorted` are in the trees; `sorted..` are pending.
    sorted: usize,
    /// Removed or replaced slots not yet dropped.
    dead: usize,
}

impl<const H: usize, S: Scheme> LshForest<H, S> {
    /// An empty forest of `trees` trees over `H`-slot signatures, with the
    /// default [`LshForestBuilder::candidates_per_result`].
    ///
    /// # Errors
    /// [`Error::Config`] when `trees` is zero or does not divide `H`.
    ///
    /// ```
    /// use txtfp::lsh::forest::LshForest;
    /// assert!(LshForest::<128>::new(8).is_ok());
    /// assert!(LshForest::<128>::new(0).is_err());
    /// assert!(LshForest::<128>::new(256).is_err());
    /// ```
    pub fn new(trees: usize) -> Result<Self> {
        LshForestBuilder::new(H, trees).try_build()
    }

    /// Number of trees `l`.
    pub fn trees(&self) -> usize {
        self.trees.len()
    }

    /// Slots per tree, `H / l` (the deepest prefix a query matches).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The signature's slot count, `H`.
    pub const fn num_perm(&self) -> usize {
        H
    }

    /// Candidates a query gathers per requested result.
    pub fn candidates_per_result(&self) -> usize {
        self.per_result
    }

    /// Number of stored signatures.
    pub fn len(&self) -> usize {
        self.slot_of.len()
    }

    /// Whether no signature is stored.
    pub fn is_empty(&self) -> bool {
        self.slot_of.is_empty()
    }

    /// Whether a signature is stored under `id`.
    pub fn contains(&self, id: u64) -> bool {
        self.slot_of.contains_key(&id)
    }

    /// The signature stored under `id`.
    pub fn get(&self, id: u64) -> Option<&MinHashSig<H, S>> {
        self.slot_of.get(&id).map(|&s| &self.sigs[s as usize])
    }

    /// Number of inserts not yet sorted into the trees (queries see them
    /// all the same; [`index`](Self::index) sorts them).
    pub fn pending(&self) -> usize {
        self.sigs.len() - self.sorted
    }

    /// Stores `sig` under `id`, replacing any signature stored under the
    /// same id. Sorts the pending inserts into the trees once they outnumber
    /// half the sorted ones plus 1024.
    ///
    /// # Errors
    /// - [`Error::InvalidInput`] when `sig.schema` is not the scheme's
    ///   schema word (a signature of the other scheme, or damaged);
    /// - [`Error::Config`] when the forest already holds 2³² − 1 slots.
    ///
    /// ```
    /// use txtfp::MinHashSig;
    /// use txtfp::lsh::forest::LshForest;
    /// let mut forest = LshForest::<4>::new(2)?;
    /// let mut sig = MinHashSig::<4>::empty();
    /// forest.insert(7, &sig)?;
    /// sig.schema = 0x4601; // the fast scheme's word on a default-scheme type
    /// assert!(forest.insert(8, &sig).is_err());
    /// assert_eq!(forest.len(), 1);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn insert(&mut self, id: u64, sig: &MinHashSig<H, S>) -> Result<()> {
        self.push(id, sig)?;
        if self.pending() > PENDING_FLOOR + self.sorted / 2 {
            self.index();
        }
        Ok(())
    }

    /// Stores every `(id, signature)` of `docs` as [`insert`](Self::insert)
    /// would, in order (a later id replaces an earlier one), then sorts them
    /// into the trees once, with [`index`](Self::index): the fastest way to
    /// build a forest, since no intermediate sort is made.
    ///
    /// # Errors
    /// As [`insert`](Self::insert), at the first bad signature; the pairs
    /// before it stay stored (queryable, not yet sorted in) and the rest
    /// are not read.
    ///
    /// ```
    /// use txtfp::MinHashSig;
    /// use txtfp::lsh::forest::LshForest;
    /// let sig = |h: [u64; 4]| MinHashSig::<4> { hashes: h, ..MinHashSig::empty() };
    /// let mut forest = LshForest::<4>::new(2)?;
    /// forest.insert_all([(1, sig([1, 2, 3, 4])), (2, sig([1, 2, 0, 0]))])?;
    /// assert_eq!((forest.len(), forest.pending()), (2, 0));
    /// assert_eq!(forest.query(&sig([1, 2, 3, 4]), 2)?, [(1, 1.0), (2, 0.5)]);
    /// let bad = MinHashSig::<4> { schema: 0x4601, ..sig([5, 5, 5, 5]) };
    /// assert!(forest.insert_all([(3, sig([3, 3, 3, 3])), (4, bad)]).is_err());
    /// assert_eq!((forest.len(), forest.pending()), (3, 1));
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn insert_all<I>(&mut self, docs: I) -> Result<()>
    where
        I: IntoIterator<Item = (u64, MinHashSig<H, S>)>,
    {
        let docs = docs.into_iter();
        // The lower bound of the size hint never over-allocates.
        let more = docs.size_hint().0.min(MAX_DOCS - self.sigs.len());
        self.sigs.reserve(more);
        self.ids.reserve(more);
        self.live.reserve(more);
        self.slot_of.reserve(more);
        for (id, sig) in docs {
            self.push(id, &sig)?;
        }
        self.index();
        Ok(())
    }

    /// Stores `sig` under `id` as a pending slot.
    fn push(&mut self, id: u64, sig: &MinHashSig<H, S>) -> Result<()> {
        check_sig(sig)?;
        if self.sigs.len() >= MAX_DOCS {
            return Err(Error::Config(format!(
                "an LshForest holds at most {MAX_DOCS} slots; call index() to drop removed ones"
            )));
        }
        let slot = self.sigs.len() as u32;
        if let Some(old) = self.slot_of.insert(id, slot) {
            self.live[old as usize] = false;
            self.dead += 1;
        }
        self.sigs.push(*sig);
        self.ids.push(id);
        self.live.push(true);
        Ok(())
    }

    /// Removes the signature stored under `id`; `false` if there was none.
    pub fn remove(&mut self, id: u64) -> bool {
        match self.slot_of.remove(&id) {
            Some(slot) => {
                self.live[slot as usize] = false;
                self.dead += 1;
                true
            }
            None => false,
        }
    }

    /// Sorts every pending insert into the trees and drops removed slots,
    /// so that queries do only binary searches. Queries are correct without
    /// it; call it after a batch of inserts for the fastest queries.
    pub fn index(&mut self) {
        if self.pending() == 0 && self.dead == 0 {
            return;
        }
        if self.dead > 0 {
            self.compact();
        }
        let rows = self.rows;
        for (t, tree) in self.trees.iter_mut().enumerate() {
            *tree = Tree::build(&self.sigs, t * rows, rows);
        }
        self.sorted = self.sigs.len();
    }

    /// Drops removed slots and renumbers the rest, in slot order.
    fn compact(&mut self) {
        let mut next = 0usize;
        for slot in 0..self.sigs.len() {
            if self.live[slot] {
                self.sigs[next] = self.sigs[slot];
                self.ids[next] = self.ids[slot];
                self.slot_of.insert(self.ids[next], next as u32);
                next += 1;
            }
        }
        self.sigs.truncate(next);
        self.ids.truncate(next);
        self.live.clear();
        self.live.resize(next, true);
        self.dead = 0;
    }

    /// Approximate heap bytes held (signatures, ids, trees, id map).
    pub fn memory_usage(&self) -> usize {
        self.sigs.capacity() * core::mem::size_of::<MinHashSig<H, S>>()
            + self.ids.capacity() * 8
            + self.live.capacity()
            + self.slot_of.capacity() * 16
            + self.trees.iter().map(Tree::memory_usage).sum::<usize>()
    }
}

/// Rejects a signature whose schema word is not the scheme's.
fn check_sig<const H: usize, S: Scheme>(sig: &MinHashSig<H, S>) -> Result<()> {
    if sig.schema != S::SCHEMA {
        return Err(Error::InvalidInput(format!(
            "signature schema {:#06x} is not {}'s {:#06x}",
            sig.schema,
            S::SIG_NAME,
            S::SCHEMA
        )));
    }
    Ok(())
}

impl<const H: usize, S: Scheme> fmt::Debug for LshForest<H, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LshForest")
            .field("h", &H)
            .field("scheme", &S::SIG_NAME)
            .field("trees", &self.trees.len())
            .field("rows", &self.rows)
            .field("candidates_per_result", &self.per_result)
            .field("len", &self.len())
            .field("pending", &self.pending())
            .finish()
    }
}
