//! COMPAT.md W9 (`Embedding`'s public fields) and W3 (`Pooling::apply`
//! returns `Vec<f32>`). In 0.3.2 these lived under `semantic`; here
//! `semantic-core` has them without the ONNX Runtime dependencies.
#![cfg(feature = "semantic-core")]

use txtfp::{Embedding, Error, Pooling, semantic_similarity};

#[test]
fn embedding_public_fields_compile() {
    let mut e = Embedding {
        vector: vec![3.0, 4.0],
        model_id: Some("m".to_string()),
    };
    let v: &Vec<f32> = &e.vector;
    assert_eq!(v.len(), 2);
    let id: &Option<String> = &e.model_id;
    assert_eq!(id.as_deref(), Some("m"));
    e.vector.push(0.0);
    e.model_id = None;
    assert_eq!(e.dim(), 3);
    let made = Embedding::with_model(vec![3.0, 4.0, 0.0], None).unwrap();
    assert_eq!(made, e);
    let Embedding { vector, model_id } = made;
    assert_eq!((vector, model_id), (vec![3.0, 4.0, 0.0], None));
    assert_eq!(e.l2_norm(), 5.0);
    e.normalize();
    assert_eq!(e.vector, vec![0.6, 0.8, 0.0]);
    assert!((semantic_similarity(&e, &e).unwrap() - 1.0).abs() < 1e-6);
}

/// The fix: an empty or non-finite vector written into the field is refused
/// wherever the vector is read, never a panic or a silent NaN.
#[test]
fn embedding_written_fields_are_checked_where_used() {
    let good = Embedding::new(vec![1.0, 0.0]).unwrap();
    for vector in [vec![], vec![f32::NAN, 1.0], vec![1.0, f32::INFINITY]] {
        let bad = Embedding {
            vector,
            model_id: None,
        };
        assert!(matches!(bad.validate(), Err(Error::InvalidInput(_))));
        for r in [
            good.dot(&bad),
            bad.dot(&good),
            semantic_similarity(&good, &bad),
            semantic_similarity(&bad, &good),
            bad.try_l2_norm(),
        ] {
            assert!(
                matches!(
                    r,
                    Err(Error::InvalidInput(_) | Error::DimensionMismatch { .. })
                ),
                "{r:?}"
            );
        }
        let n = bad.l2_norm();
        assert!(n.is_nan() || (bad.vector.is_empty() && n == 0.0), "{n}");
        let mut m = bad.clone();
        assert!(m.try_normalize().is_err());
        m.normalize();
        assert_eq!(m.vector.len(), bad.vector.len());
        #[cfg(feature = "serde")]
        assert!(serde_json::to_string(&bad).is_err());
    }
    #[cfg(feature = "serde")]
    assert!(serde_json::from_str::<Embedding>(r#"{"vector":[],"model_id":null}"#).is_err());
}

#[test]
fn pooling_apply_returns_a_vec() {
    let hidden = [3.0, 4.0, 100.0, 100.0];
    let v: Vec<f32> = Pooling::Mean.apply(&hidden, 2, &[1, 0]);
    assert_eq!(v, vec![0.6, 0.8]);
    let cls: Vec<f32> = Pooling::Cls.apply(&hidden, 2, &[1, 1]);
    assert_eq!(cls, vec![0.6, 0.8]);
    let raw: Vec<f32> = Pooling::MeanNoNorm.apply(&hidden, 2, &[1, 0]);
    assert_eq!(raw, vec![3.0, 4.0]);
}

/// The fix: input 0.3.2 panicked on (or silently truncated) gives an empty
/// vector, and `try_apply` says why.
#[test]
fn pooling_bad_input_is_empty_not_a_panic() {
    assert!(Pooling::Cls.apply(&[1.0], 2, &[1]).is_empty());
    assert!(Pooling::Mean.apply(&[1.0, 2.0, 3.0], 2, &[1, 1]).is_empty());
    assert!(Pooling::Mean.apply(&[1.0, 2.0], 2, &[0]).is_empty());
    assert!(matches!(
        Pooling::Cls.try_apply(&[1.0], 2, &[1]),
        Err(Error::InvalidInput(_))
    ));
}

/// The `LocalProvider` calls of the reference harness (compiled, not run:
/// running needs an ONNX model and runtime).
#[cfg(feature = "semantic")]
#[allow(dead_code)]
fn local_provider_as_0_3_2(onnx: &str, tok: &str, text: &str) -> txtfp::Result<Vec<f32>> {
    use txtfp::{EmbeddingProvider, LocalProvider};
    let provider = LocalProvider::builder()
        .model_id("all-MiniLM-L6-v2")
        .onnx_path(onnx)
        .tokenizer_path(tok)
        .pooling(Pooling::Mean)
        .build()?;
    let e = provider.embed_document(text)?;
    let _dim: usize = e.dim() + provider.dimension();
    let _id: &str = provider.model_id();
    Ok(provider.embed(text)?.vector)
}
