use super::*;
use alloc::string::ToString;
use alloc::vec;
use proptest::prelude::*;

fn emb(v: &[f32], m: Option<&str>) -> Embedding {
    Embedding::with_model(v.to_vec(), m.map(String::from)).unwrap()
}

#[test]
fn construction_is_validated() {
    let msg = |r: Result<Embedding>| r.unwrap_err().to_string();
    assert_eq!(
        msg(Embedding::new(vec![])),
        "invalid input: embedding vector is empty"
    );
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        assert_eq!(
            msg(Embedding::new(vec![1.0, bad])),
            "invalid input: embedding contains non-finite values"
        );
    }
    assert_eq!(
        msg(Embedding::new(vec![0.5; MAX_EMBEDDING_DIM + 1])),
        "invalid input: embedding has 65537 values; the maximum is 65536"
    );
    assert_eq!(
        Embedding::new(vec![0.5; MAX_EMBEDDING_DIM]).unwrap().dim(),
        MAX_EMBEDDING_DIM
    );
    let zero = Embedding::new(vec![0.0; 3]).unwrap();
    assert_eq!(zero.l2_norm(), 0.0);
    let (v, m) = emb(&[1.0, 2.0], Some("m")).into_parts();
    assert_eq!((v, m.as_deref()), (vec![1.0, 2.0], Some("m")));
}

/// COMPAT.md W9: 0.3.2's public fields are back; a value written there is
/// checked wherever the vector is read, with a typed error or the documented
/// result, never a panic or a silent NaN.
#[test]
fn public_fields_are_validated_where_used() {
    let good = Embedding {
        vector: vec![3.0, 4.0],
        model_id: Some("m".into()),
    };
    assert!(good.validate().is_ok());
    assert_eq!(good, emb(&[3.0, 4.0], Some("m")));
    assert_eq!(good.vector(), good.vector.as_slice());
    assert_eq!(good.model_id(), good.model_id.as_deref());
    assert_eq!(good.try_l2_norm().unwrap(), 5.0);

    let msg = |r: Result<f32>| r.unwrap_err().to_string();
    let cases: [(Vec<f32>, &str); 5] = [
        (vec![], "invalid input: embedding vector is empty"),
        (
            vec![f32::NAN, 4.0],
            "invalid input: embedding contains non-finite values",
        ),
        (
            vec![f32::INFINITY, 4.0],
            "invalid input: embedding contains non-finite values",
        ),
        (
            vec![f32::NEG_INFINITY, f32::NAN],
            "invalid input: embedding contains non-finite values",
        ),
        (
            vec![0.5; MAX_EMBEDDING_DIM + 1],
            "invalid input: embedding has 65537 values; the maximum is 65536",
        ),
    ];
    for (v, want) in cases {
        let len = v.len();
        let bad = Embedding {
            vector: v,
            model_id: Some("m".into()),
        };
        assert_eq!(bad.validate().unwrap_err().to_string(), want);
        assert_eq!(msg(bad.try_l2_norm()), want);
        // With `good`'s length, the checks of the vector are what fails.
        if len == 2 {
            assert_eq!(msg(good.dot(&bad)), want);
            assert_eq!(msg(bad.dot(&good)), want);
            assert_eq!(msg(semantic_similarity(&good, &bad)), want);
            assert_eq!(msg(semantic_similarity(&bad, &good)), want);
        } else {
            assert!(good.dot(&bad).is_err());
            assert!(semantic_similarity(&bad, &good).is_err());
        }
        assert!(bad.dot(&bad).is_err());
        assert!(semantic_similarity(&bad, &bad).is_err());
        let mut n = bad.clone();
        assert_eq!(n.try_normalize().unwrap_err().to_string(), want);
        n.normalize();
        assert_eq!(n.vector.len(), len);
        if len <= 2 {
            // Empty or non-finite: unchanged bit for bit (NaN compares
            // unequal to itself). An over-long finite vector is scaled.
            assert!(
                n.vector
                    .iter()
                    .zip(&bad.vector)
                    .all(|(x, y)| x.to_bits() == y.to_bits())
            );
        }
    }
    let nan = Embedding {
        vector: vec![f32::NAN, 1.0],
        model_id: None,
    };
    assert!(nan.l2_norm().is_nan());
    let inf = Embedding {
        vector: vec![f32::INFINITY, 1.0],
        model_id: None,
    };
    assert!(inf.l2_norm().is_nan());
    let empty = Embedding {
        vector: vec![],
        model_id: None,
    };
    assert_eq!(empty.l2_norm(), 0.0);
    assert_eq!(empty.dim(), 0);
    // Model and dimension checks keep their 0.3.2 precedence.
    let other = Embedding {
        vector: vec![f32::NAN, 1.0],
        model_id: Some("x".into()),
    };
    assert!(matches!(good.dot(&other), Err(Error::ModelMismatch { .. })));
}

#[test]
fn guards_run_in_the_0_3_2_order() {
    let a = emb(&[1.0, 0.0], Some("a"));
    let b = emb(&[1.0, 0.0, 0.0], Some("b"));
    // Model mismatch wins over the dimension mismatch.
    assert!(matches!(a.dot(&b), Err(Error::ModelMismatch { .. })));
    assert_eq!(
        semantic_similarity(&a, &b).unwrap_err().to_string(),
        "model id mismatch: a = a, b = b"
    );
    let c = emb(&[1.0, 0.0, 0.0], None);
    assert_eq!(
        semantic_similarity(&a, &c).unwrap_err().to_string(),
        "dimension mismatch: a = 2, b = 3"
    );
    // A model id on one side only is not a mismatch.
    let d = emb(&[0.0, 2.0], None);
    assert_eq!(a.dot(&d).unwrap(), 0.0);
    assert_eq!(semantic_similarity(&a, &d).unwrap(), 0.0);
    let zero = emb(&[0.0, 0.0], None);
    assert_eq!(
        semantic_similarity(&a, &zero).unwrap_err().to_string(),
        "invalid input: cannot compute cosine for a zero-norm embedding"
    );
}

#[test]
fn norms_match_the_sequential_f32_definition() {
    let v = [0.1f32, -0.7, 2.5, 1e-3, 3.25];
    let e = emb(&v, None);
    let want = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert_eq!(e.l2_norm().to_bits(), want.to_bits());
    let mut n = e.clone();
    n.normalize();
    for (x, y) in n.vector().iter().zip(v) {
        assert_eq!(x.to_bits(), (y / want).to_bits());
    }
    let mut z = emb(&[0.0; 4], None);
    z.normalize();
    assert_eq!(z.vector(), &[0.0; 4]);
}

#[test]
fn huge_values_do_not_overflow() {
    let big = emb(&[3e38, -3e38, 1e38], Some("m"));
    let mut n = big.clone();
    n.normalize();
    assert!((n.l2_norm() - 1.0).abs() < 1e-6, "{:?}", n.vector());
    assert!(big.l2_norm().is_infinite()); // the true norm (4.4e38) exceeds f32::MAX
    let s = semantic_similarity(&big, &big).unwrap();
    assert!((s - 1.0).abs() < 1e-6);
    let other = emb(&[3e38, 3e38, 0.0], None);
    assert!(semantic_similarity(&big, &other).unwrap().abs() < 0.2);
    assert!(big.dot(&big).unwrap().is_infinite());
    let small = emb(&[1e-30, 2e-30], None);
    assert!((semantic_similarity(&small, &small).unwrap() - 1.0).abs() < 1e-6);
    assert!(small.l2_norm() > 0.0);
    let mut s = small.clone();
    s.normalize();
    assert!((s.l2_norm() - 1.0).abs() < 1e-6);
}

fn cosine_ref(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| f64::from(x) * f64::from(y))
        .sum();
    let na: f64 = a.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

proptest! {
    #[test]
    fn cosine_matches_an_f64_reference(
        pair in (1usize..64).prop_flat_map(|n| (
            proptest::collection::vec(-1e3f32..1e3, n),
            proptest::collection::vec(-1e3f32..1e3, n),
        ))
    ) {
        let (a, b) = pair;
        prop_assume!(a.iter().any(|&x| x != 0.0) && b.iter().any(|&x| x != 0.0));
        let s = semantic_similarity(&emb(&a, Some("m")), &emb(&b, Some("m"))).unwrap();
        prop_assert!((-1.0..=1.0).contains(&s));
        prop_assert!((f64::from(s) - cosine_ref(&a, &b)).abs() < 1e-4, "{} vs {}", s, cosine_ref(&a, &b));
        let mut na = emb(&a, None);
        na.normalize();
        prop_assert!((na.l2_norm() - 1.0).abs() < 1e-5);
    }
}

#[cfg(feature = "serde")]
mod serde_tests {
    use super::*;

    #[test]
    fn json_shape_is_the_0_3_2_one() {
        let e = emb(&[0.5, -1.0], Some("m"));
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(json, r#"{"vector":[0.5,-1.0],"model_id":"m"}"#);
        assert_eq!(serde_json::from_str::<Embedding>(&json).unwrap(), e);
        let none = emb(&[1.0], None);
        assert_eq!(
            serde_json::to_string(&none).unwrap(),
            r#"{"vector":[1.0],"model_id":null}"#
        );
        let missing: Embedding = serde_json::from_str(r#"{"vector":[2.0]}"#).unwrap();
        assert_eq!(missing, emb(&[2.0], None));
    }

    /// A value written into the public fields is checked on the way out.
    #[test]
    fn serialization_is_validated() {
        for (v, want) in [
            (vec![], "embedding vector is empty"),
            (vec![f32::NAN], "embedding contains non-finite values"),
        ] {
            let bad = Embedding {
                vector: v,
                model_id: None,
            };
            let err = serde_json::to_string(&bad).unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
            let f = crate::Fingerprint::Embedding(bad);
            assert!(serde_json::to_string(&f).is_err());
        }
    }

    #[test]
    fn deserialization_is_validated() {
        let err = |s: &str| {
            serde_json::from_str::<Embedding>(s)
                .unwrap_err()
                .to_string()
        };
        assert!(err(r#"{"vector":[],"model_id":null}"#).contains("embedding vector is empty"));
        assert!(err(r#"{"vector":[1.0],"extra":1}"#).contains("unknown field"));
        assert!(
            err(r#"{"vector":[1e39]}"#).contains("non-finite")
                || err(r#"{"vector":[1e39]}"#).contains("invalid")
        );
        let long = format!(
            "{{\"vector\":[{}]}}",
            vec!["0.5"; MAX_EMBEDDING_DIM + 1].join(",")
        );
        assert!(
            err(&long).contains("more than 65536 values"),
            "{}",
            err(&long)
        );
    }
}

#[cfg(all(feature = "serde", feature = "std"))]
#[test]
fn fingerprint_wraps_embeddings() {
    let e = emb(&[0.25, 0.5], Some("m"));
    let f = crate::Fingerprint::Embedding(e.clone());
    assert_eq!(f.name(), "embedding/m-v1");
    let meta = f.metadata();
    assert_eq!(
        (
            meta.byte_size,
            meta.model_id.as_deref(),
            meta.schema_version
        ),
        (8, Some("m"), 1)
    );
    let json = serde_json::to_string(&f).unwrap();
    assert_eq!(
        json,
        r#"{"Embedding":{"vector":[0.25,0.5],"model_id":"m"}}"#
    );
    assert_eq!(
        serde_json::from_str::<crate::Fingerprint>(&json).unwrap(),
        f
    );
    assert!(serde_json::from_str::<crate::Fingerprint>(r#"{"Embedding":{"vector":[]}}"#).is_err());
    assert_eq!(
        crate::Fingerprint::Embedding(emb(&[1.0], None)).name(),
        "embedding-v1"
    );
}
