use super::*;

#[test]
fn repo_ids() {
    for ok in ["BAAI/bge-small-en-v1.5", "gpt2", "a_b/c.d-e"] {
        assert!(check_repo_id(ok).is_ok(), "{ok}");
    }
    for bad in ["", "/x", "a/", "a/b/c", "../x", "a/..", "a b/c", "a\\b"] {
        assert!(check_repo_id(bad).is_err(), "{bad}");
    }
}

#[test]
fn missing_cache_entries_are_described() {
    let dir = std::env::temp_dir().join(format!("txtfp-hf-{}", std::process::id()));
    let snap = dir.join("models--org--m").join("snapshots").join("abc");
    std::fs::create_dir_all(snap.join("onnx")).unwrap();
    let err = |id: &str| cached_files(&dir, id).err().unwrap_or_default();
    assert!(err("org/none").contains("refs"), "{}", err("org/none"));
    std::fs::create_dir_all(dir.join("models--org--m").join("refs")).unwrap();
    std::fs::write(dir.join("models--org--m/refs/main"), "abc\n").unwrap();
    assert!(err("org/m").contains("no ONNX file"), "{}", err("org/m"));
    std::fs::write(snap.join("onnx/model_quantized.onnx"), b"x").unwrap();
    assert!(
        err("org/m").contains("no tokenizer.json"),
        "{}",
        err("org/m")
    );
    std::fs::write(snap.join("tokenizer.json"), b"{}").unwrap();
    std::fs::write(snap.join("model.onnx"), b"x").unwrap();
    let files = cached_files(&dir, "org/m").unwrap();
    assert!(files.onnx.ends_with("abc/model.onnx"), "{:?}", files.onnx);
    std::fs::remove_dir_all(&dir).unwrap();
}
