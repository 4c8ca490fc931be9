//! [`Pooling`]: token-level hidden states → one sentence vector.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::embedding::normalize_in_place;
use crate::{Error, Result};

/// How a model's per-token hidden states become one sentence vector.
///
/// Use the pooling the model was trained with: BGE, Snowflake Arctic and mxbai
/// use [`Cls`](Pooling::Cls); E5, MiniLM, GTE and nomic use
/// [`Mean`](Pooling::Mean).
///
/// ```
/// use txtfp::Pooling;
/// // Two tokens of width 2; the second is padding.
/// let hidden = [3.0, 4.0, 100.0, 100.0];
/// assert_eq!(Pooling::Mean.try_apply(&hidden, 2, &[1, 0])?, vec![0.6, 0.8]);
/// assert_eq!(Pooling::MeanNoNorm.try_apply(&hidden, 2, &[1, 0])?, vec![3.0, 4.0]);
/// assert!(Pooling::Cls.try_apply(&hidden[..1], 2, &[1]).is_err()); // 0.3.2 panicked here
/// // 0.3.2's signature: an empty vector instead of the error.
/// let v: Vec<f32> = Pooling::Mean.apply(&hidden, 2, &[1, 0]);
/// assert_eq!(v, vec![0.6, 0.8]);
/// assert!(Pooling::Cls.apply(&hidden[..1], 2, &[1]).is_empty());
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Pooling {
    /// The first token's (`[CLS]`) hidden state, L2-normalised.
    Cls,
    /// Average of the tokens the attention mask keeps, L2-normalised.
    Mean,
    /// Average of the kept tokens, not normalised.
    MeanNoNorm,
    /// Element-wise maximum over the kept tokens, L2-normalised.
    Max,
}

impl Pooling {
    /// Whether the pooled vector is scaled to unit length (all but
    /// [`MeanNoNorm`](Pooling::MeanNoNorm)).
    pub const fn normalizes(self) -> bool {
        !matches!(self, Pooling::MeanNoNorm)
    }

    /// Stable lower-case name: `cls`, `mean`, `mean-no-norm`, `max`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Pooling::Cls => "cls",
            Pooling::Mean => "mean",
            Pooling::MeanNoNorm => "mean-no-norm",
            Pooling::Max => "max",
        }
    }

    /// Pool `hidden` (row-major `[tokens, hidden_dim]`) under
    /// `attention_mask` (one entry per token; non-zero keeps the token), with
    /// txtfp 0.3.2's signature.
    ///
    /// The pooled vector, as [`try_apply`](Self::try_apply) computes it; on
    /// input `try_apply` refuses, an **empty** vector (see COMPAT.md W3).
    /// 0.3.2 returned an empty vector for a zero `hidden_dim` or an empty
    /// `hidden` too, but panicked on a `hidden` shorter than one row,
    /// ignored a partial last row and a missing mask entry, and returned a
    /// zero vector when the mask kept no token: all of those now give the
    /// empty vector. Use [`try_apply`](Self::try_apply) to learn why.
    ///
    /// ```
    /// use txtfp::Pooling;
    /// let v: Vec<f32> = Pooling::MeanNoNorm.apply(&[1.0, 2.0, 3.0, 4.0], 2, &[1, 1]);
    /// assert_eq!(v, [2.0, 3.0]);
    /// assert!(Pooling::Mean.apply(&[1.0, 2.0, 3.0, 4.0], 2, &[0, 0]).is_empty());
    /// ```
    pub fn apply(self, hidden: &[f32], hidden_dim: usize, attention_mask: &[i64]) -> Vec<f32> {
        self.try_apply(hidden, hidden_dim, attention_mask)
            .unwrap_or_default()
    }

    /// Pool `hidden` (row-major `[tokens, hidden_dim]`) under
    /// `attention_mask` (one entry per token; non-zero keeps the token),
    /// reporting bad input.
    ///
    /// Errors (`InvalidInput`, naming the sizes) instead of 0.3.2's panics and
    /// silent truncation: `hidden_dim` is 0, `hidden` is empty or not a whole
    /// number of rows, the mask length differs from the number of rows, or
    /// (`Mean`, `MeanNoNorm`, `Max`) the mask keeps no token.
    ///
    /// ```
    /// use txtfp::Pooling;
    /// let err = Pooling::Mean.try_apply(&[1.0; 6], 3, &[1]).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid input: pooling: attention mask has 1 entries for 2 tokens"
    /// );
    /// ```
    pub fn try_apply(
        self,
        hidden: &[f32],
        hidden_dim: usize,
        attention_mask: &[i64],
    ) -> Result<Vec<f32>> {
        let rows = check_shape(hidden.len(), hidden_dim, attention_mask.len())?;
        let mut kept = hidden
            .chunks_exact(hidden_dim)
            .zip(attention_mask)
            .filter(|&(_, &m)| m != 0)
            .map(|(row, _)| row);
        let mut out = match self {
            Pooling::Cls => hidden[..hidden_dim].to_vec(),
            Pooling::Mean | Pooling::MeanNoNorm => {
                let mut sum = kept.next().ok_or_else(no_token)?.to_vec();
                let mut n = 1u32;
                for row in kept {
                    sum.iter_mut().zip(row).for_each(|(s, x)| *s += x);
                    n += 1;
                }
                let n = n as f32;
                sum.iter_mut().for_each(|s| *s /= n);
                sum
            }
            Pooling::Max => {
                let mut max = kept.next().ok_or_else(no_token)?.to_vec();
                for row in kept {
                    max.iter_mut().zip(row).for_each(|(m, &x)| *m = m.max(x));
                }
                max
            }
        };
        debug_assert!(rows > 0);
        if self.normalizes() {
            normalize_in_place(&mut out);
        }
        Ok(out)
    }
}

fn no_token() -> Error {
    Error::InvalidInput(String::from("pooling: the attention mask keeps no token"))
}

fn check_shape(len: usize, dim: usize, mask: usize) -> Result<usize> {
    if dim == 0 {
        return Err(Error::InvalidInput(String::from(
            "pooling: hidden_dim is 0",
        )));
    }
    if len == 0 {
        return Err(Error::InvalidInput(String::from(
            "pooling: hidden states are empty",
        )));
    }
    if !len.is_multiple_of(dim) {
        return Err(Error::InvalidInput(format!(
            "pooling: {len} hidden values are not a whole number of rows of hidden_dim {dim}"
        )));
    }
    let rows = len / dim;
    if mask != rows {
        return Err(Error::InvalidInput(format!(
            "pooling: attention mask has {mask} entries for {rows} tokens"
        )));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests;
