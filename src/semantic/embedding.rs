//! [`Embedding`]: a validated dense vector, and [`semantic_similarity`].

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::{Error, Result};

/// The longest embedding accepted (65 536 values, as the sibling `imgfprint`
/// crate). Real sentence models stay below 4 096; the cap bounds what a
/// hostile serialized embedding can make us allocate.
pub const MAX_EMBEDDING_DIM: usize = 65_536;

/// A dense embedding vector, optionally tagged with the model that made it.
///
/// The fields are public, as in txtfp 0.3.2, so 0.3.2 code that builds an
/// `Embedding { vector, model_id }` or reads `e.vector` compiles unchanged.
/// The checks of 0.3.2's defect (COMPAT.md W9) therefore run both where a
/// value is made and where it is used:
///
/// * [`new`](Self::new), [`with_model`](Self::with_model) and
///   deserialization (`serde` feature) reject an empty vector, NaN or
///   infinite values and more than [`MAX_EMBEDDING_DIM`] values;
/// * a value written into the fields directly is checked by
///   [`validate`](Self::validate), which every fallible reader runs:
///   [`dot`](Self::dot), [`semantic_similarity`],
///   [`try_l2_norm`](Self::try_l2_norm),
///   [`try_normalize`](Self::try_normalize) and serialization return
///   `InvalidInput` for it;
/// * the infallible [`l2_norm`](Self::l2_norm) and
///   [`normalize`](Self::normalize) keep 0.3.2's signatures and document what
///   they do with a vector holding NaN or infinity (NaN; unchanged).
///
/// The accessor methods [`vector`](Self::vector) and
/// [`model_id`](Self::model_id) read the same fields.
///
/// ```
/// use txtfp::{Embedding, semantic_similarity};
/// let mut e = Embedding::with_model(vec![3.0, 4.0], Some("demo".into()))?;
/// assert_eq!(e.dim(), 2);
/// assert_eq!(e.l2_norm(), 5.0);
/// e.normalize();
/// assert_eq!(e.vector, [0.6, 0.8]);
/// assert_eq!(e.vector(), &[0.6, 0.8]);
/// assert!(Embedding::new(vec![f32::NAN]).is_err());
///
/// // Built from the fields, as 0.3.2 allowed: checked where it is used.
/// let bad = Embedding { vector: vec![f32::NAN, 1.0], model_id: None };
/// assert!(bad.validate().is_err());
/// assert!(semantic_similarity(&e, &bad).is_err());
/// assert!(e.dot(&bad).is_err());
/// assert!(bad.l2_norm().is_nan());
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Embedding {
    /// The values: non-empty, finite and at most [`MAX_EMBEDDING_DIM`] long
    /// for every value this crate makes; see [`validate`](Self::validate)
    /// for a vector written here directly.
    pub vector: Vec<f32>,
    /// The model that made the vector, if known. Two embeddings that both
    /// carry a model id must carry the same one to be compared.
    pub model_id: Option<String>,
}

impl Embedding {
    /// An embedding without a model id; see [`with_model`](Self::with_model).
    pub fn new(vector: Vec<f32>) -> Result<Self> {
        Self::with_model(vector, None)
    }

    /// An embedding tagged with `model_id`.
    ///
    /// Errors: `InvalidInput("embedding vector is empty")`,
    /// `InvalidInput("embedding contains non-finite values")` (the 0.3.2
    /// messages), or `InvalidInput` naming the length when it exceeds
    /// [`MAX_EMBEDDING_DIM`]. An all-zero vector is accepted (as in 0.3.2);
    /// [`semantic_similarity`] refuses it.
    pub fn with_model(vector: Vec<f32>, model_id: Option<String>) -> Result<Self> {
        check_vector(&vector)?;
        Ok(Self { vector, model_id })
    }

    /// Checks the vector as [`with_model`](Self::with_model) does: needed
    /// only for a value whose public fields were written directly.
    ///
    /// # Errors
    /// `InvalidInput` with the messages of [`with_model`](Self::with_model).
    pub fn validate(&self) -> Result<()> {
        check_vector(&self.vector)
    }

    /// Number of values.
    pub fn dim(&self) -> usize {
        self.vector.len()
    }

    /// The values (the field [`vector`](Self::vector) as a slice).
    pub fn vector(&self) -> &[f32] {
        &self.vector
    }

    /// The model id, if any (the field [`model_id`](Self::model_id) as a
    /// `&str`).
    pub fn model_id(&self) -> Option<&str> {
        self.model_id.as_deref()
    }

    /// The vector and the model id, consuming the embedding.
    pub fn into_parts(self) -> (Vec<f32>, Option<String>) {
        (self.vector, self.model_id)
    }

    /// Euclidean length: the square root of a sequential f32 sum of squares
    /// (as 0.3.2), recomputed in scaled f64 when that sum overflows or
    /// underflows to zero, so the result is finite unless the true norm
    /// exceeds `f32::MAX`, and zero only for a zero vector.
    ///
    /// A vector written into the public field that holds NaN or an
    /// infinity has no norm: the result is NaN (0.3.2 returned NaN or
    /// infinity). An empty vector has norm 0. [`try_l2_norm`](Self::try_l2_norm)
    /// returns an error for both instead.
    pub fn l2_norm(&self) -> f32 {
        if has_non_finite(&self.vector) {
            return f32::NAN;
        }
        norm(&self.vector) as f32
    }

    /// [`l2_norm`](Self::l2_norm) of a vector that passes
    /// [`validate`](Self::validate).
    ///
    /// # Errors
    /// `InvalidInput` as [`validate`](Self::validate).
    pub fn try_l2_norm(&self) -> Result<f32> {
        self.validate()?;
        Ok(norm(&self.vector) as f32)
    }

    /// Scale to unit length in place. A zero vector stays zero, and so does a
    /// vector written into the public field that holds NaN or an infinity
    /// (it has no norm to divide by); [`try_normalize`](Self::try_normalize)
    /// reports it.
    pub fn normalize(&mut self) {
        if !has_non_finite(&self.vector) {
            normalize_in_place(&mut self.vector);
        }
    }

    /// [`normalize`](Self::normalize) after [`validate`](Self::validate).
    ///
    /// # Errors
    /// `InvalidInput` as [`validate`](Self::validate); the vector is then
    /// left unchanged.
    pub fn try_normalize(&mut self) -> Result<()> {
        self.validate()?;
        normalize_in_place(&mut self.vector);
        Ok(())
    }

    /// Dot product (sequential f32 sum, f64 on overflow).
    ///
    /// Errors: `ModelMismatch` when both model ids are set and differ (checked
    /// first), `DimensionMismatch` when the lengths differ. A model id on one
    /// side only passes. Then `InvalidInput` when either vector fails
    /// [`validate`](Self::validate) (possible only for fields written
    /// directly).
    pub fn dot(&self, other: &Embedding) -> Result<f32> {
        check_compatible(self, other)?;
        self.validate()?;
        other.validate()?;
        let fast: f32 = self
            .vector
            .iter()
            .zip(&other.vector)
            .map(|(x, y)| x * y)
            .sum();
        if fast.is_finite() {
            return Ok(fast);
        }
        let wide: f64 = self
            .vector
            .iter()
            .zip(&other.vector)
            .map(|(&x, &y)| f64::from(x) * f64::from(y))
            .sum();
        Ok(wide as f32)
    }
}

/// Cosine similarity of two embeddings, in `[-1, 1]`.
///
/// Errors: `ModelMismatch` (both ids set and different), `DimensionMismatch`,
/// `InvalidInput` when either vector fails [`Embedding::validate`] (empty or
/// non-finite values written into the public field), and
/// `InvalidInput("cannot compute cosine for a zero-norm embedding")` when
/// either vector is all zeros. The result is clamped to `[-1, 1]` (0.3.2 could
/// return 1.0000001 for equal vectors), and computed in f64 when the f32 sums
/// overflow.
///
/// ```
/// use txtfp::{Embedding, semantic_similarity};
/// let a = Embedding::new(vec![1.0, 0.0])?;
/// let b = Embedding::new(vec![1.0, 1.0])?;
/// assert!((semantic_similarity(&a, &b)? - 0.70710677).abs() < 1e-6);
/// let zero = Embedding::new(vec![0.0, 0.0])?;
/// assert!(semantic_similarity(&a, &zero).is_err());
/// # Ok::<(), txtfp::Error>(())
/// ```
pub fn semantic_similarity(a: &Embedding, b: &Embedding) -> Result<f32> {
    check_compatible(a, b)?;
    a.validate()?;
    b.validate()?;
    let (mut dot, mut aa, mut bb) = (0f32, 0f32, 0f32);
    for (&x, &y) in a.vector.iter().zip(&b.vector) {
        dot += x * y;
        aa += x * x;
        bb += y * y;
    }
    // The f32 sums are exact enough unless they overflow, or underflow to 0
    // for tiny non-zero values: then redo the sums in scaled f64.
    let cos = if dot.is_finite() && aa.is_finite() && bb.is_finite() && aa > 0.0 && bb > 0.0 {
        let c = dot / (aa.sqrt() * bb.sqrt());
        if c.is_finite() {
            f64::from(c)
        } else {
            cosine_f64(&a.vector, &b.vector)?
        }
    } else {
        cosine_f64(&a.vector, &b.vector)?
    };
    Ok(cos.clamp(-1.0, 1.0) as f32)
}

fn zero_norm() -> Error {
    Error::InvalidInput(String::from(
        "cannot compute cosine for a zero-norm embedding",
    ))
}

/// Cosine in f64 after scaling both vectors by their largest magnitude, so
/// neither the products nor the sums can overflow.
fn cosine_f64(a: &[f32], b: &[f32]) -> Result<f64> {
    let scale = |v: &[f32]| v.iter().fold(0f64, |m, &x| m.max(f64::from(x).abs()));
    let (sa, sb) = (scale(a), scale(b));
    if sa == 0.0 || sb == 0.0 {
        return Err(zero_norm());
    }
    let (mut dot, mut aa, mut bb) = (0f64, 0f64, 0f64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (f64::from(x) / sa, f64::from(y) / sb);
        dot += x * y;
        aa += x * x;
        bb += y * y;
    }
    Ok(dot / (aa.sqrt() * bb.sqrt()))
}

/// The shared guard of `dot` and `semantic_similarity`: model ids first, then
/// lengths (the 0.3.2 order).
fn check_compatible(a: &Embedding, b: &Embedding) -> Result<()> {
    if let (Some(x), Some(y)) = (&a.model_id, &b.model_id)
        && x != y
    {
        return Err(Error::ModelMismatch {
            a: x.clone(),
            b: y.clone(),
        });
    }
    if a.vector.len() != b.vector.len() {
        return Err(Error::DimensionMismatch {
            a: a.vector.len(),
            b: b.vector.len(),
        });
    }
    Ok(())
}

pub(crate) fn check_vector(v: &[f32]) -> Result<()> {
    if v.is_empty() {
        return Err(Error::InvalidInput(String::from(
            "embedding vector is empty",
        )));
    }
    if v.len() > MAX_EMBEDDING_DIM {
        return Err(Error::InvalidInput(format!(
            "embedding has {} values; the maximum is {MAX_EMBEDDING_DIM}",
            v.len()
        )));
    }
    if has_non_finite(v) {
        return Err(Error::InvalidInput(String::from(
            "embedding contains non-finite values",
        )));
    }
    Ok(())
}

/// Whether a value is NaN or infinite: such a vector has no norm.
fn has_non_finite(v: &[f32]) -> bool {
    v.iter().any(|x| !x.is_finite())
}

/// L2 norm as f64: the f32 sequential sum when it is finite and non-zero,
/// else (overflow, or tiny values whose squares underflow) a scaled f64 sum.
fn norm(v: &[f32]) -> f64 {
    let sq: f32 = v.iter().map(|x| x * x).sum();
    if sq.is_finite() && sq > 0.0 {
        return f64::from(sq.sqrt());
    }
    let m = v.iter().fold(0f64, |m, &x| m.max(f64::from(x).abs()));
    if m == 0.0 {
        return 0.0;
    }
    let s: f64 = v.iter().map(|&x| (f64::from(x) / m).powi(2)).sum();
    m * s.sqrt()
}

/// Divide by the L2 norm when it is positive (and representable); shared with
/// pooling so that providers and `Embedding::normalize` agree bit for bit.
pub(crate) fn normalize_in_place(v: &mut [f32]) {
    let n = norm(v);
    if n > 0.0 && n.is_finite() {
        if n <= f64::from(f32::MAX) {
            let n = n as f32;
            v.iter_mut().for_each(|x| *x /= n);
        } else {
            v.iter_mut().for_each(|x| *x = (f64::from(*x) / n) as f32);
        }
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    //! JSON shape of 0.3.2 (`{"vector":[…],"model_id":null}`), validated on the
    //! way in, with the length capped *while* reading.

    use super::{Embedding, MAX_EMBEDDING_DIM, check_vector};
    use alloc::string::String;
    use alloc::vec::Vec;
    use core::fmt;
    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::ser::{SerializeStruct, Serializer};
    use serde::{Deserialize, Serialize};

    impl Serialize for Embedding {
        /// Refuses a vector that fails [`Embedding::validate`] (written into
        /// the public field): JSON would write NaN as `null`, which no
        /// reader, this one included, takes back.
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            check_vector(&self.vector).map_err(serde::ser::Error::custom)?;
            let mut st = s.serialize_struct("Embedding", 2)?;
            st.serialize_field("vector", &self.vector)?;
            st.serialize_field("model_id", &self.model_id)?;
            st.end()
        }
    }

    struct CappedVector(Vec<f32>);

    impl<'de> Deserialize<'de> for CappedVector {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = CappedVector;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    write!(f, "a sequence of at most {MAX_EMBEDDING_DIM} floats")
                }
                fn visit_seq<A: SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<CappedVector, A::Error> {
                    let hint = seq.size_hint().unwrap_or(0).min(MAX_EMBEDDING_DIM);
                    let mut v = Vec::with_capacity(hint);
                    while let Some(x) = seq.next_element::<f32>()? {
                        if v.len() == MAX_EMBEDDING_DIM {
                            return Err(de::Error::custom(alloc::format!(
                                "embedding has more than {MAX_EMBEDDING_DIM} values"
                            )));
                        }
                        v.push(x);
                    }
                    Ok(CappedVector(v))
                }
            }
            d.deserialize_seq(V)
        }
    }

    #[derive(Deserialize)]
    #[serde(rename = "Embedding", deny_unknown_fields)]
    struct Raw {
        vector: CappedVector,
        #[serde(default)]
        model_id: Option<String>,
    }

    impl<'de> Deserialize<'de> for Embedding {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let raw = Raw::deserialize(d)?;
            check_vector(&raw.vector.0).map_err(de::Error::custom)?;
            Ok(Embedding {
                vector: raw.vector.0,
                model_id: raw.model_id,
            })
        }
    }
}

#[cfg(test)]
mod tests;
