//! LocalProvider on a real model (all-MiniLM-L6-v2 via scripts/setup-onnx.sh).
#![cfg(feature = "semantic")]

use std::path::Path;

use crate::support::{cosine, minilm, sentences, setup};
use txtfp::{
    Embedding, EmbeddingProvider, Error, Fingerprint, LocalProvider, Pooling, semantic_similarity,
};

fn assert_close(a: &Embedding, b: &Embedding, min_cos: f64, what: &str) {
    let c = cosine(a.vector(), b.vector());
    assert!(c >= min_cos, "{what}: cosine {c}");
}

#[test]
fn reads_dimension_pooling_and_length_from_the_model() {
    let Some((_, p)) = minilm("reads_dimension") else {
        return;
    };
    assert_eq!(p.dimension(), 384);
    assert_eq!(p.model_id(), "sentence-transformers/all-MiniLM-L6-v2");
    assert_eq!(p.pooling(), Pooling::Mean);
    assert_eq!(p.max_seq_len(), 128); // tokenizer.json's truncation
    assert_eq!((p.query_prefix(), p.doc_prefix()), ("", ""));
    let e = p.embed("hello world").unwrap();
    assert_eq!(e.dim(), 384);
    assert_eq!(e.model_id(), Some("sentence-transformers/all-MiniLM-L6-v2"));
    assert!((e.l2_norm() - 1.0).abs() < 1e-5);
    let f = Fingerprint::Embedding(e);
    assert_eq!(
        f.name(),
        "embedding/sentence-transformers/all-MiniLM-L6-v2-v1"
    );
    assert_eq!(f.metadata().byte_size, 4 * 384);
    assert!(format!("{p:?}").contains("dimension: 384"));
}

#[test]
fn batch_equals_one_by_one_in_input_order() {
    let Some((_, p)) = minilm("batch_equals_one_by_one") else {
        return;
    };
    let mut texts = sentences();
    texts.push(String::new());
    let batch = p.embed_batch(&texts).unwrap();
    assert_eq!(batch.len(), texts.len());
    for (t, b) in texts.iter().zip(&batch) {
        let one = p.embed_document(t).unwrap();
        assert_close(&one, b, 0.99999, t);
    }
    // A batch size that does not divide the input, and a window boundary.
    let s = setup("batch_size").unwrap();
    let small = LocalProvider::builder()
        .onnx_path(s.onnx())
        .tokenizer_path(s.tokenizer())
        .batch_size(5)
        .build()
        .unwrap();
    let again = small.embed_batch(&texts).unwrap();
    for (a, b) in batch.iter().zip(&again) {
        assert_close(a, b, 0.99999, "batch_size 5");
    }
    assert!(p.embed_batch::<&str>(&[]).unwrap().is_empty());
}

#[test]
fn long_input_is_truncated_without_tokenizing_all_of_it() {
    let Some((_, p)) = minilm("long_input") else {
        return;
    };
    let base: String = (0..300).map(|i| format!("word{i} ")).collect();
    let a = p.embed_document(&base).unwrap();
    // Far beyond max_seq_len: the kept tokens, and so the vector, are identical.
    let huge = format!("{base}{}", "tail ".repeat(200_000));
    let b = p.embed_document(&huge).unwrap();
    assert_eq!(a.vector(), b.vector());
    let c = p
        .embed_document(&(0..127).map(|i| format!("word{i} ")).collect::<String>())
        .unwrap();
    assert_close(&a, &c, 0.99, "same first 128 tokens");
}

#[test]
fn prefixes_come_from_the_table_and_are_prepended() {
    let Some((s, plain)) = minilm("prefixes") else {
        return;
    };
    let e5 = LocalProvider::builder()
        .model_id("intfloat/e5-small-v2") // the table's prefixes, on MiniLM's weights
        .onnx_path(s.onnx())
        .tokenizer_path(s.tokenizer())
        .build()
        .unwrap();
    assert_eq!(
        (e5.query_prefix(), e5.doc_prefix()),
        ("query: ", "passage: ")
    );
    let q = e5.embed_query("where is the station").unwrap();
    let d = e5.embed_document("where is the station").unwrap();
    assert_eq!(
        q.vector(),
        e5.embed_query_batch(&["where is the station"]).unwrap()[0].vector()
    );
    assert_close(
        &q,
        &plain.embed_document("query: where is the station").unwrap(),
        0.999999,
        "query prefix",
    );
    assert_close(
        &d,
        &plain
            .embed_document("passage: where is the station")
            .unwrap(),
        0.999999,
        "doc prefix",
    );
    assert!(cosine(q.vector(), d.vector()) < 0.9999);
    // The model ids differ, so the guard refuses to mix them.
    assert!(matches!(
        semantic_similarity(&q, &plain.embed("x").unwrap()),
        Err(Error::ModelMismatch { .. })
    ));
}

#[test]
fn default_model_id_tells_models_apart() {
    let Some(s) = setup("default_model_id") else {
        return;
    };
    let a = LocalProvider::from_onnx(&s.onnx(), &s.tokenizer(), Pooling::Mean).unwrap();
    let b = LocalProvider::from_onnx(&s.onnx(), &s.tokenizer(), Pooling::Mean).unwrap();
    let c = LocalProvider::from_onnx(&s.onnx(), &s.tokenizer(), Pooling::Cls).unwrap();
    assert!(
        a.model_id().starts_with("local-onnx:") && a.model_id().len() == "local-onnx:".len() + 16
    );
    assert_eq!(a.model_id(), b.model_id());
    assert_ne!(a.model_id(), c.model_id());
    let (ea, ec) = (a.embed("same text").unwrap(), c.embed("same text").unwrap());
    assert!(matches!(
        semantic_similarity(&ea, &ec),
        Err(Error::ModelMismatch { .. })
    ));
    // Cls and Max are unit length; MeanNoNorm is the un-normalised Mean.
    assert!((ec.l2_norm() - 1.0).abs() < 1e-5);
    let max = LocalProvider::from_onnx(&s.onnx(), &s.tokenizer(), Pooling::Max).unwrap();
    assert!((max.embed("same text").unwrap().l2_norm() - 1.0).abs() < 1e-5);
    let raw = LocalProvider::from_onnx(&s.onnx(), &s.tokenizer(), Pooling::MeanNoNorm).unwrap();
    let mut r = raw.embed("same text").unwrap();
    assert!((r.l2_norm() - 1.0).abs() > 1e-3);
    r.normalize();
    assert_close(&r, &ea, 0.999999, "MeanNoNorm normalised = Mean");
}

#[test]
fn concurrent_callers_get_the_sequential_results() {
    let Some((_, p)) = minilm("concurrent_callers") else {
        return;
    };
    let texts = sentences();
    let want: Vec<Embedding> = texts.iter().map(|t| p.embed(t).unwrap()).collect();
    std::thread::scope(|sc| {
        for k in 0..4 {
            let (p, texts, want) = (p.clone(), &texts, &want);
            sc.spawn(move || {
                for (i, t) in texts.iter().enumerate().skip(k) {
                    let got = if i % 2 == 0 {
                        p.embed(t).unwrap()
                    } else {
                        p.embed_batch(&[t]).unwrap().remove(0)
                    };
                    assert_close(&got, &want[i], 0.99999, t);
                }
            });
        }
    });
    // Overlapping callers were served by separate sessions (no single lock):
    // the pool grew to its limit (the number of cores).
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(
        format!("{p:?}").contains(&format!("sessions: {cores}")),
        "{p:?}"
    );
}

#[test]
fn paraphrases_score_above_unrelated_pairs() {
    let Some((_, p)) = minilm("paraphrases") else {
        return;
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/semantic_pairs.tsv");
    let data = std::fs::read_to_string(path).unwrap();
    let (mut para, mut unrel) = (Vec::new(), Vec::new());
    for line in data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 3, "{line}");
        let e = p.embed_batch(&[f[1], f[2]]).unwrap();
        let s = semantic_similarity(&e[0], &e[1]).unwrap();
        match f[0] {
            "para" => para.push((s, line)),
            "unrel" => unrel.push((s, line)),
            other => panic!("bad label {other}"),
        }
    }
    assert!(para.len() >= 10 && unrel.len() >= 10);
    let min_para = para
        .iter()
        .cloned()
        .fold((f32::MAX, ""), |a, b| if b.0 < a.0 { b } else { a });
    let max_unrel = unrel
        .iter()
        .cloned()
        .fold((f32::MIN, ""), |a, b| if b.0 > a.0 { b } else { a });
    eprintln!("lowest paraphrase {min_para:?}\nhighest unrelated {max_unrel:?}");
    assert!(min_para.0 > max_unrel.0, "{min_para:?} <= {max_unrel:?}");
}

#[test]
fn builder_errors_name_what_is_wrong() {
    let Some(s) = setup("builder_errors") else {
        return;
    };
    let msg = |b: txtfp::LocalProviderBuilder| b.build().unwrap_err().to_string();
    assert_eq!(
        msg(LocalProvider::builder().tokenizer_path(s.tokenizer())),
        "config error: LocalProviderBuilder: onnx_path is required"
    );
    assert_eq!(
        msg(LocalProvider::builder().onnx_path(s.onnx())),
        "config error: LocalProviderBuilder: tokenizer_path is required"
    );
    let dir = std::env::temp_dir().join(format!("txtfp-sem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad_tok = dir.join("tokenizer.json");
    std::fs::write(&bad_tok, "{ not json").unwrap();
    let e = LocalProvider::builder()
        .model_id("m")
        .onnx_path(s.onnx())
        .tokenizer_path(&bad_tok)
        .build()
        .unwrap_err();
    assert!(
        matches!(e, Error::Tokenizer(_)) && e.to_string().contains("tokenizer.json"),
        "{e}"
    );
    let bad_onnx = dir.join("model.onnx");
    std::fs::write(&bad_onnx, b"not a model").unwrap();
    let e = LocalProvider::builder()
        .model_id("m")
        .onnx_path(&bad_onnx)
        .tokenizer_path(s.tokenizer())
        .build()
        .unwrap_err();
    assert!(
        matches!(e, Error::Onnx(_)) && e.to_string().contains("model.onnx"),
        "{e}"
    );
    let e = LocalProvider::builder()
        .model_id("m")
        .onnx_path(dir.join("none.onnx"))
        .tokenizer_path(s.tokenizer())
        .build()
        .unwrap_err();
    assert!(matches!(e, Error::Onnx(_)), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)] // the cache uses symlinks
/// A Hugging Face cache laid out as `huggingface-cli download` leaves it:
/// blobs named by hash, snapshot entries as symlinks into them.
fn fake_hf_cache(root: &Path, id: &str, files: &[(&str, &Path)]) {
    let repo = root.join(format!("models--{}", id.replace('/', "--")));
    let commit = "0123456789abcdef0123456789abcdef01234567";
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::create_dir_all(repo.join("blobs")).unwrap();
    std::fs::write(repo.join("refs/main"), commit).unwrap();
    for (i, (name, src)) in files.iter().enumerate() {
        let blob = repo.join("blobs").join(format!("blob{i:04}"));
        std::fs::copy(src, &blob).unwrap();
        let link = repo.join("snapshots").join(commit).join(name);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&blob, &link).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn hf_cache_with_external_data() {
    let Some((s, plain)) = minilm("hf_cache") else {
        return;
    };
    let Some(ext) = s.external.clone() else {
        eprintln!("*** SKIPPED hf_cache_with_external_data: no external-data model ***");
        return;
    };
    let root = std::env::temp_dir().join(format!("txtfp-hfcache-{}", std::process::id()));
    let id = "sentence-transformers/all-MiniLM-L6-v2";
    fake_hf_cache(
        &root,
        id,
        &[
            ("onnx/model.onnx", &ext.join("model.onnx")),
            ("onnx/model.onnx_data", &ext.join("model.onnx_data")),
            ("tokenizer.json", &ext.join("tokenizer.json")),
        ],
    );
    let p = LocalProvider::from_hf_cache(id, &root).unwrap();
    assert_eq!(
        (p.model_id(), p.pooling(), p.dimension()),
        (id, Pooling::Mean, 384)
    );
    for t in ["The quick brown fox.", "Zwei Hunde spielen im Park."] {
        assert_close(&p.embed(t).unwrap(), &plain.embed(t).unwrap(), 0.99999, t);
    }
    let e = LocalProvider::from_hf_cache("org/absent", &root)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("org/absent")
            && e.contains("not in the Hugging Face cache")
            && e.contains("refs"),
        "{e}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[cfg(unix)] // the cache uses symlinks
/// `from_pretrained` reads HF_HUB_CACHE; environment variables are per
/// process, so the check runs in a child process of this test binary.
#[test]
fn from_pretrained_uses_the_cache_from_the_environment() {
    if std::env::var_os("TXTFP_CHILD_HF_CACHE").is_some() {
        let e = LocalProvider::from_pretrained("org/absent")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not in the Hugging Face cache"), "{e}");
        let p = LocalProvider::from_pretrained("sentence-transformers/all-MiniLM-L6-v2").unwrap();
        assert_eq!(p.dimension(), 384);
        return;
    }
    let Some(s) = setup("from_pretrained") else {
        return;
    };
    let root = std::env::temp_dir().join(format!("txtfp-hfenv-{}", std::process::id()));
    fake_hf_cache(
        &root,
        "sentence-transformers/all-MiniLM-L6-v2",
        &[
            ("onnx/model.onnx", &s.onnx()),
            ("tokenizer.json", &s.tokenizer()),
        ],
    );
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "local::from_pretrained_uses_the_cache_from_the_environment",
            "--nocapture",
        ])
        .env("TXTFP_CHILD_HF_CACHE", "1")
        .env("HF_HUB_CACHE", &root)
        .env("HF_HUB_OFFLINE", "1")
        .env("ORT_DYLIB_PATH", &s.ort)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&root).unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && text.contains("1 passed"), "{text}");
}

#[test]
fn max_seq_len_falls_back_to_tokenizer_config() {
    let Some(s) = setup("max_seq_len") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("txtfp-maxlen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut tok: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.tokenizer()).unwrap()).unwrap();
    tok["truncation"] = serde_json::Value::Null;
    std::fs::write(dir.join("tokenizer.json"), tok.to_string()).unwrap();
    let build = || {
        LocalProvider::builder()
            .model_id("m")
            .onnx_path(s.onnx())
            .tokenizer_path(dir.join("tokenizer.json"))
            .build()
            .unwrap()
    };
    assert_eq!(build().max_seq_len(), 512);
    std::fs::write(
        dir.join("tokenizer_config.json"),
        r#"{"model_max_length": 256}"#,
    )
    .unwrap();
    assert_eq!(build().max_seq_len(), 256);
    std::fs::write(
        dir.join("tokenizer_config.json"),
        r#"{"model_max_length": 1000000000000000019884624838656}"#,
    )
    .unwrap();
    assert_eq!(build().max_seq_len(), 512);
    std::fs::remove_dir_all(&dir).unwrap();
}
