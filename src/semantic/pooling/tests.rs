use super::*;
use alloc::string::ToString;
use alloc::vec;
use proptest::prelude::*;

#[test]
fn bad_shapes_are_errors_not_panics() {
    let e =
        |p: Pooling, h: &[f32], d: usize, m: &[i64]| p.try_apply(h, d, m).unwrap_err().to_string();
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
    assert!(Pooling::Max.try_apply(&[1.0; 6], 3, &[0, 0]).is_err());
    // Cls ignores the mask.
    assert_eq!(
        Pooling::Cls
            .try_apply(&[0.0, 2.0, 5.0, 5.0], 2, &[0, 0])
            .unwrap(),
        vec![0.0, 1.0]
    );
}

/// COMPAT.md W3: 0.3.2's signature, no panic, an empty vector where
/// `try_apply` reports an error.
#[test]
fn apply_keeps_the_0_3_2_signature() {
    let f: fn(Pooling, &[f32], usize, &[i64]) -> Vec<f32> = Pooling::apply;
    let h = [3.0, 4.0, 1.0, 1.0];
    for p in [
        Pooling::Cls,
        Pooling::Mean,
        Pooling::MeanNoNorm,
        Pooling::Max,
    ] {
        assert_eq!(f(p, &h, 2, &[1, 1]), p.try_apply(&h, 2, &[1, 1]).unwrap());
        let bad: [(&[f32], usize, &[i64]); 5] = [
            (&h[..1], 2, &[1]),
            (&h, 0, &[1, 1]),
            (&[], 2, &[]),
            (&h, 2, &[1]),
            (&h[..3], 2, &[1, 1]),
        ];
        for (hidden, d, mask) in bad {
            assert!(p.try_apply(hidden, d, mask).is_err());
            assert!(p.apply(hidden, d, mask).is_empty());
        }
    }
    assert!(Pooling::Mean.apply(&h, 2, &[0, 0]).is_empty());
    assert!(Pooling::Max.apply(&h, 2, &[0, 0]).is_empty());
}

#[test]
fn max_and_names() {
    let h = [1.0, -5.0, -2.0, 0.0, 9.0, 9.0];
    assert_eq!(
        Pooling::Max.try_apply(&h, 2, &[1, 1, 0]).unwrap(),
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
        let got = p.try_apply(&h, d, &mask).unwrap();
        let want = reference(p, &h, d, &mask);
        prop_assert_eq!(got.len(), d);
        for (g, w) in got.iter().zip(&want) {
            prop_assert!((f64::from(*g) - w).abs() < 1e-4, "{:?} vs {:?}", got, want);
        }
    }
}
