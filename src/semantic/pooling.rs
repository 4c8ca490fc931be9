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
/// assert_eq!(Pooling::Mean.apply(&hidden, 2, &[1, 0])?, vec![0.6, 0.8]);
/// assert_eq!(Pooling::MeanNoNorm.apply(&hidden, 2, &[1, 0])?, vec![3.0, 4.0]);
/// assert!(Pooling::Cls.apply(&hidden[..1], 2, &[1]).is_err()); // 0.3.2 panicked here
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
    /// `attention_mask` (one entry per token; non-zero keeps the token).
    ///
    /// Errors (`InvalidInput`, naming the sizes) instead of 0.3.2's panics and
    /// silent truncation: `hidden_dim` is 0, `hidden` is empty or not a whole
    /// number of rows, the mask length differs from the number of rows, or
    /// (`Mean`, `MeanNoNorm`, `Max`) the mask keeps no token.
    pub fn apply(
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
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;
    use proptest::prelude::*;

    #[test]
    fn bad_shapes_are_errors_not_panics() {
        let e =
            |p: Pooling, h: &[f32], d: usize, m: &[i64]| p.apply(h, d, m).unwrap_err().to_string();
        assert_eq!(
            e(Pooling::Cls, &[1.0], 2, &[1]),
            "invalid input: pooling: 1 hidden values are not a whole number of rows of hidden_dim 2"
        );
        assert_eq!(
            e(Pooling::Mean, &[1.0, 2.0], 0, &[1]),
            "invalid input: pooling: hidden_dim is 0"
        );
        assert_eq!(
            e(Pooling::Max, &[], 3, &[]),
            "invalid input: pooling: hidden states are empty"
        );
        assert_eq!(
            e(Pooling::Mean, &[1.0; 6], 3, &[1]),
            "invalid input: pooling: attention mask has 1 entries for 2 tokens"
        );
        assert_eq!(
            e(Pooling::Mean, &[1.0; 6], 3, &[0, 0]),
            "invalid input: pooling: the attention mask keeps no token"
        );
        assert!(Pooling::Max.apply(&[1.0; 6], 3, &[0, 0]).is_err());
        // Cls ignores the mask.
        assert_eq!(
            Pooling::Cls
                .apply(&[0.0, 2.0, 5.0, 5.0], 2, &[0, 0])
                .unwrap(),
            vec![0.0, 1.0]
        );
    }

    #[test]
    fn max_and_names() {
        let h = [1.0, -5.0, -2.0, 0.0, 9.0, 9.0];
        assert_eq!(
            Pooling::Max.apply(&h, 2, &[1, 1, 0]).unwrap(),
            vec![1.0 / 1.0f32.hypot(0.0), 0.0]
        );
        assert_eq!(
            [
                Pooling::Cls,
                Pooling::Mean,
                Pooling::MeanNoNorm,
                Pooling::Max
            ]
            .map(Pooling::as_str),
            ["cls", "mean", "mean-no-norm", "max"]
        );
        assert!(Pooling::Mean.normalizes() && !Pooling::MeanNoNorm.normalizes());
    }

    /// Plain reference: pick kept rows by index, average or max per column in f64.
    fn reference(p: Pooling, h: &[f32], d: usize, mask: &[i64]) -> Vec<f64> {
        let rows: Vec<&[f32]> = h.chunks(d).collect();
        let kept: Vec<usize> = (0..rows.len()).filter(|&i| mask[i] != 0).collect();
        let mut v: Vec<f64> = (0..d)
            .map(|j| match p {
                Pooling::Cls => f64::from(rows[0][j]),
                Pooling::Mean | Pooling::MeanNoNorm => {
                    kept.iter().map(|&i| f64::from(rows[i][j])).sum::<f64>() / kept.len() as f64
                }
                Pooling::Max => kept
                    .iter()
                    .map(|&i| f64::from(rows[i][j]))
                    .fold(f64::MIN, f64::max),
            })
            .collect();
        if p.normalizes() {
            let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if n > 0.0 {
                v.iter_mut().for_each(|x| *x /= n);
            }
        }
        v
    }

    proptest! {
        #[test]
        fn pooling_matches_reference(
            d in 1usize..8,
            rows in 1usize..10,
            seed in proptest::collection::vec(-10f32..10.0, 80),
            mask_bits in any::<u16>(),
            which in 0usize..4,
        ) {
            let p = [Pooling::Cls, Pooling::Mean, Pooling::MeanNoNorm, Pooling::Max][which];
            let h: Vec<f32> = seed.iter().cycle().take(rows * d).copied().collect();
            let mut mask: Vec<i64> = (0..rows).map(|i| i64::from((mask_bits >> i) & 1)).collect();
            mask[0] = 1; // keep at least one token
            let got = p.apply(&h, d, &mask).unwrap();
            let want = reference(p, &h, d, &mask);
            prop_assert_eq!(got.len(), d);
            for (g, w) in got.iter().zip(&want) {
                prop_assert!((f64::from(*g) - w).abs() < 1e-4, "{:?} vs {:?}", got, want);
            }
        }
    }
}
