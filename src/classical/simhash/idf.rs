//! The caller-supplied inverse-document-frequency table of
//! [`Weighting::IdfWeighted`](super::Weighting::IdfWeighted).

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;

use hashbrown::HashMap;

use crate::{Error, Result};

/// Token → IDF weight. Tokens absent from the table weigh `1.0`.
///
/// Keys are compared with tokens *after* canonicalization (so store them
/// case-folded and normalized, as the canonicalizer would produce them).
/// Weights are finite and non-negative: [`IdfTable::try_from_pairs`] rejects
/// anything else, [`IdfTable::from_pairs`] skips it. (txtfp 0.3.2 accepted
/// NaN, infinite and negative weights and then treated NaN as `1.0` and let
/// negative ones invert bits — COMPAT.md W11.)
///
/// Cloning is cheap: the entries are shared behind an `Arc`.
///
/// ```
/// use txtfp::IdfTable;
/// let t = IdfTable::from_pairs([("the", 0.1_f32), ("dog", 4.0), ("the", 0.2)]);
/// assert_eq!(t.len(), 2);
/// assert_eq!(t.get("the"), 0.2); // later duplicates overwrite
/// assert_eq!(t.get("cat"), 1.0); // absent tokens weigh 1.0
/// ```
#[derive(Clone, Default)]
pub struct IdfTable {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    weights: HashMap<String, f32>,
    /// Cached [`IdfTable::content_hash`]; 0 for the empty table.
    content_hash: u64,
}

impl IdfTable {
    /// Builds a table from `(token, weight)` pairs; a later pair for the same
    /// token overwrites an earlier one. Pairs whose weight is NaN, infinite or
    /// negative are skipped (their tokens keep weight `1.0` unless another,
    /// valid pair sets them); use [`IdfTable::try_from_pairs`] to be told.
    ///
    /// ```
    /// use txtfp::IdfTable;
    /// let t = IdfTable::from_pairs([("the", f32::NAN), ("dog", -3.0), ("cat", 2.5)]);
    /// assert_eq!((t.len(), t.get("the"), t.get("cat")), (1, 1.0, 2.5));
    /// ```
    pub fn from_pairs<I, S>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (S, f32)>,
        S: Into<String>,
    {
        let mut weights = HashMap::new();
        for (tok, w) in pairs {
            if valid_weight(w) {
                weights.insert(tok.into(), normalize_zero(w));
            }
        }
        Self::from_map(weights)
    }

    /// Like [`IdfTable::from_pairs`], but a NaN, infinite or negative weight is
    /// an error instead of being skipped.
    ///
    /// # Errors
    /// [`Error::InvalidInput`] naming the first offending token and weight.
    ///
    /// ```
    /// use txtfp::IdfTable;
    /// assert_eq!(IdfTable::try_from_pairs([("a", 0.5_f32)])?.get("a"), 0.5);
    /// let err = IdfTable::try_from_pairs([("dog", -3.0_f32)]).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid input: IDF weight of token \"dog\" must be finite and non-negative, got -3"
    /// );
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    pub fn try_from_pairs<I, S>(pairs: I) -> Result<Self>
    where
        I: IntoIterator<Item = (S, f32)>,
        S: Into<String>,
    {
        let mut weights = HashMap::new();
        for (tok, w) in pairs {
            let tok = tok.into();
            if !valid_weight(w) {
                return Err(Error::InvalidInput(alloc::format!(
                    "IDF weight of token {tok:?} must be finite and non-negative, got {w}"
                )));
            }
            weights.insert(tok, normalize_zero(w));
        }
        Ok(Self::from_map(weights))
    }

    fn from_map(weights: HashMap<String, f32>) -> Self {
        let content_hash = hash_entries(&weights);
        Self {
            inner: Arc::new(Inner {
                weights,
                content_hash,
            }),
        }
    }

    /// The weight of `token`, or `1.0` when the table does not list it.
    #[inline]
    pub fn get(&self, token: &str) -> f32 {
        self.inner.weights.get(token).copied().unwrap_or(1.0)
    }

    /// Number of tokens listed.
    pub fn len(&self) -> usize {
        self.inner.weights.len()
    }

    /// `true` when no token is listed (every token then weighs `1.0`).
    pub fn is_empty(&self) -> bool {
        self.inner.weights.is_empty()
    }

    /// A 64-bit digest of the entries, independent of insertion order: equal
    /// tables have equal hashes. It is what an IDF fingerprinter's
    /// `config_hash()` mixes in, so that signatures made with different
    /// tables are never mistaken for comparable. `0` for the empty table.
    ///
    /// ```
    /// use txtfp::IdfTable;
    /// let a = IdfTable::from_pairs([("x", 1.5_f32), ("y", 2.0)]);
    /// let b = IdfTable::from_pairs([("y", 2.0_f32), ("x", 1.5)]);
    /// assert_eq!(a.content_hash(), b.content_hash());
    /// assert_ne!(a.content_hash(), IdfTable::from_pairs([("x", 1.25_f32)]).content_hash());
    /// ```
    pub fn content_hash(&self) -> u64 {
        self.inner.content_hash
    }

    /// The entries, in no particular order.
    ///
    /// ```
    /// use txtfp::IdfTable;
    /// let t = IdfTable::from_pairs([("a", 0.5_f32)]);
    /// assert_eq!(t.iter().collect::<Vec<_>>(), [("a", 0.5)]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&str, f32)> + '_ {
        self.inner.weights.iter().map(|(k, &w)| (k.as_str(), w))
    }
}

fn valid_weight(w: f32) -> bool {
    w.is_finite() && w >= 0.0
}

/// `-0.0` and `0.0` weigh the same; store one form so that equal tables
/// hash equally.
fn normalize_zero(w: f32) -> f32 {
    if w == 0.0 { 0.0 } else { w }
}

fn sorted(weights: &HashMap<String, f32>) -> Vec<(&str, f32)> {
    let mut v: Vec<(&str, f32)> = weights.iter().map(|(k, &w)| (k.as_str(), w)).collect();
    v.sort_unstable_by(|a, b| a.0.cmp(b.0));
    v
}

/// XXH3-64 over `LE64(len) ++ token ++ LE32(weight bits)` per entry in token
/// order. The length prefix keeps `("ab","c")` and `("a","bc")` apart.
fn hash_entries(weights: &HashMap<String, f32>) -> u64 {
    if weights.is_empty() {
        return 0;
    }
    let mut h = xxhash_rust::xxh3::Xxh3Default::new();
    for (tok, w) in sorted(weights) {
        h.update(&(tok.len() as u64).to_le_bytes());
        h.update(tok.as_bytes());
        h.update(&w.to_bits().to_le_bytes());
    }
    h.digest()
}

impl PartialEq for IdfTable {
    fn eq(&self, other: &Self) -> bool {
        // Weights are never NaN, so map equality is a true equivalence.
        Arc::ptr_eq(&self.inner, &other.inner) || self.inner.weights == other.inner.weights
    }
}

impl fmt::Debug for IdfTable {
    // Tables can hold millions of entries: show their size and identity only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdfTable")
            .field("len", &self.len())
            .field(
                "content_hash",
                &format_args!("{:016x}", self.content_hash()),
            )
            .finish()
    }
}

/// Serialized as a map `token → weight`, sorted by token. Deserialization
/// goes through [`IdfTable::try_from_pairs`], so invalid weights are rejected.
#[cfg(feature = "serde")]
impl serde::Serialize for IdfTable {
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        s.collect_map(sorted(&self.inner.weights))
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for IdfTable {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        let map = <alloc::collections::BTreeMap<String, f32>>::deserialize(d)?;
        IdfTable::try_from_pairs(map).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
