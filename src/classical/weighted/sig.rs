//! [`WeightedMinHashSig`], its byte format and the estimators.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use hashbrown::HashMap;

use super::WEIGHTED_SCHEMA;
use super::sampler::{check_weight, no_weight};
use crate::{Error, Result};

/// Bytes before the slots: schema, zero, slot count, seed.
const HEADER: usize = 16;

/// A weighted MinHash signature: the sampler's seed and one `u64` per slot,
/// each a hash of the slot's sample `(element, t)`.
///
/// Persisted form ([`Self::to_bytes`], little-endian): schema word
/// [`WEIGHTED_SCHEMA`] (`0x5701`, 2 bytes), two zero bytes, the slot count
/// `n` (4 bytes), the seed (8 bytes), then the `n` slots (8 bytes each):
/// `16 + 8·n` bytes.
///
/// ```
/// use txtfp::classical::weighted::{WeightedMinHashSig, WeightedMinHasher};
/// let sig = WeightedMinHasher::new(2, 9)?.sketch(&[(1, 1.0)])?;
/// let bytes = sig.to_bytes();
/// assert_eq!(&bytes[..8], [0x01, 0x57, 0, 0, 2, 0, 0, 0]);
/// assert_eq!(WeightedMinHashSig::from_bytes(&bytes)?, sig);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "Raw", into = "Raw"))]
pub struct WeightedMinHashSig {
    seed: u64,
    slots: Vec<u64>,
}

/// The serde shape: `{"schema":22273,"seed":…,"slots":[…]}` in
/// human-readable formats, a 3-tuple in binary ones; checked on reading.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename = "WeightedMinHashSig", deny_unknown_fields)]
struct Raw {
    schema: u16,
    seed: u64,
    slots: Vec<u64>,
}

#[cfg(feature = "serde")]
impl From<WeightedMinHashSig> for Raw {
    fn from(s: WeightedMinHashSig) -> Self {
        Raw {
            schema: WEIGHTED_SCHEMA,
            seed: s.seed,
            slots: s.slots,
        }
    }
}

#[cfg(feature = "serde")]
impl TryFrom<Raw> for WeightedMinHashSig {
    type Error = Error;
    fn try_from(r: Raw) -> Result<Self> {
        if r.schema != WEIGHTED_SCHEMA {
            return Err(Error::SchemaMismatch {
                expected: WEIGHTED_SCHEMA,
                actual: r.schema,
            });
        }
        Self::from_parts(r.seed, r.slots)
    }
}

impl WeightedMinHashSig {
    pub(super) fn new_unchecked(seed: u64, slots: Vec<u64>) -> Self {
        Self { seed, slots }
    }

    /// A signature from its seed and slots (e.g. read from a column store).
    ///
    /// # Errors
    /// [`Error::InvalidInput`] if `slots` is empty or longer than
    /// [`MAX_NUM_PERM`](super::MAX_NUM_PERM).
    pub fn from_parts(seed: u64, slots: Vec<u64>) -> Result<Self> {
        if slots.is_empty() || slots.len() > super::MAX_NUM_PERM {
            return Err(Error::InvalidInput(format!(
                "a WeightedMinHashSig has 1 to {} slots, got {}",
                super::MAX_NUM_PERM,
                slots.len()
            )));
        }
        Ok(Self { seed, slots })
    }

    /// The sampler's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The slot values.
    pub fn slots(&self) -> &[u64] {
        &self.slots
    }

    /// The number of slots (at least 1).
    pub fn num_perm(&self) -> usize {
        self.slots.len()
    }

    /// The persisted form (see the type's documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + 8 * self.slots.len());
        out.extend_from_slice(&WEIGHTED_SCHEMA.to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        // `from_parts` and the sampler keep the count within u32.
        out.extend_from_slice(&(self.slots.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.seed.to_le_bytes());
        for s in &self.slots {
            out.extend_from_slice(&s.to_le_bytes());
        }
        out
    }

    /// Parses [`Self::to_bytes`]'s output; any alignment. Nothing is
    /// allocated before the length is checked against the slot count.
    ///
    /// # Errors
    /// - [`Error::Corrupt`] if the input is shorter than the header, its
    ///   reserved bytes are not zero, the slot count is 0 or above
    ///   [`MAX_NUM_PERM`](super::MAX_NUM_PERM), or the length is not
    ///   `16 + 8·n`;
    /// - [`Error::SchemaMismatch`] if the schema word is not
    ///   [`WEIGHTED_SCHEMA`] (e.g. MinHash signature bytes).
    ///
    /// ```
    /// use txtfp::classical::weighted::WeightedMinHashSig;
    /// let err = WeightedMinHashSig::from_bytes(&[1, 0, 0, 0]).unwrap_err();
    /// assert_eq!(err.to_string(), "corrupt data: WeightedMinHashSig needs 16 header bytes, got 4");
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let Some((header, body)) = bytes.split_at_checked(HEADER) else {
            return Err(Error::Corrupt(format!(
                "WeightedMinHashSig needs {HEADER} header bytes, got {}",
                bytes.len()
            )));
        };
        let schema = u16::from_le_bytes([header[0], header[1]]);
        if schema != WEIGHTED_SCHEMA {
            return Err(Error::SchemaMismatch {
                expected: WEIGHTED_SCHEMA,
                actual: schema,
            });
        }
        if header[2] != 0 || header[3] != 0 {
            return Err(Error::Corrupt(String::from(
                "WeightedMinHashSig reserved bytes 2..4 must be zero",
            )));
        }
        let n = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
        let seed = u64::from_le_bytes(header[8..16].try_into().unwrap_or([0; 8]));
        if n == 0 || n > super::MAX_NUM_PERM || body.len() != 8 * n {
            return Err(Error::Corrupt(format!(
                "WeightedMinHashSig of {n} slots needs {} slot bytes, got {}",
                8 * n,
                body.len()
            )));
        }
        let slots = body
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])))
            .collect();
        Ok(Self { seed, slots })
    }
}

/// `WeightedMinHashSig<n>[` + the first `min(4, n)` slots in hex + `]`.
impl fmt::Display for WeightedMinHashSig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WeightedMinHashSig<{}>[", self.slots.len())?;
        for (i, h) in self.slots.iter().take(4).enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{h:016x}")?;
        }
        if self.slots.len() > 4 {
            write!(f, ", ..+{} more", self.slots.len() - 4)?;
        }
        f.write_str("]")
    }
}

impl fmt::Debug for WeightedMinHashSig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WeightedMinHashSig")
            .field("seed", &self.seed)
            .field("slots", &self.slots)
            .finish()
    }
}

/// Estimated weighted Jaccard similarity: the fraction of slots on which
/// `a` and `b` hold the same sample.
///
/// # Errors
/// - [`Error::DimensionMismatch`] if the slot counts differ;
/// - [`Error::InvalidInput`] if the seeds differ (the samples are not
///   comparable).
///
/// ```
/// use txtfp::classical::weighted::{WeightedMinHasher, weighted_jaccard};
/// let a = WeightedMinHasher::new(64, 1)?.sketch(&[(1, 1.0)])?;
/// let b = WeightedMinHasher::new(32, 1)?.sketch(&[(1, 1.0)])?;
/// assert_eq!(weighted_jaccard(&a, &a)?, 1.0);
/// assert_eq!(weighted_jaccard(&a, &b).unwrap_err().to_string(), "dimension mismatch: a = 64, b = 32");
/// # Ok::<(), txtfp::Error>(())
/// ```
pub fn weighted_jaccard(a: &WeightedMinHashSig, b: &WeightedMinHashSig) -> Result<f64> {
    if a.slots.len() != b.slots.len() {
        return Err(Error::DimensionMismatch {
            a: a.slots.len(),
            b: b.slots.len(),
        });
    }
    if a.seed != b.seed {
        return Err(Error::InvalidInput(format!(
            "weighted signatures of different seeds ({:#x} and {:#x}) are not comparable",
            a.seed, b.seed
        )));
    }
    let equal = a.slots.iter().zip(&b.slots).filter(|(x, y)| x == y).count();
    Ok(equal as f64 / a.slots.len() as f64)
}

/// The exact weighted (Ruzicka) Jaccard similarity
/// `Σ min(aₖ, bₖ) / Σ max(aₖ, bₖ)` over the union of keys (a key missing
/// from one side weighs 0 there; a repeated key's weights are summed).
///
/// # Errors
/// [`Error::InvalidInput`] if a weight is negative, NaN or infinite, or
/// neither set has a positive weight.
///
/// ```
/// use txtfp::classical::weighted::weighted_jaccard_exact;
/// assert_eq!(weighted_jaccard_exact(&[(1, 2.0), (2, 2.0)], &[(1, 1.0), (3, 1.0)])?, 0.2);
/// assert!(weighted_jaccard_exact(&[(1, f64::NAN)], &[(1, 1.0)]).is_err());
/// # Ok::<(), txtfp::Error>(())
/// ```
pub fn weighted_jaccard_exact(a: &[(u64, f64)], b: &[(u64, f64)]) -> Result<f64> {
    let mut m: HashMap<u64, (f64, f64)> = HashMap::with_capacity(a.len() + b.len());
    for &(k, w) in a {
        check_weight(k, w)?;
        m.entry(k).or_default().0 += w;
    }
    for &(k, w) in b {
        check_weight(k, w)?;
        m.entry(k).or_default().1 += w;
    }
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for &(x, y) in m.values() {
        num += x.min(y);
        den += x.max(y);
    }
    if den <= 0.0 {
        return Err(no_weight());
    }
    Ok(num / den)
}
