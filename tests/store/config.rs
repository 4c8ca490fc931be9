//! `global_fingerprints` configuration: defaults, TOML shapes, validation
//! messages; and the metrics (rates, JSON, text table) on a real store.
#![cfg(feature = "store")]

use crate::support::*;
use txtfp::Error;
use txtfp::store::{
    BackendKind, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument, OnDuplicate,
};

fn config_err(toml: &str) -> String {
    match GlobalStoreConfig::from_toml_str(toml) {
        Err(Error::Config(m)) => m,
        other => panic!("{toml:?}: expected a config error, got {other:?}"),
    }
}

#[test]
fn defaults_are_the_seeds() {
    let c = GlobalStoreConfig::default();
    assert!(c.enabled && c.simhash && c.minhash && c.chunk_hash);
    assert_eq!(c.root_path, std::path::PathBuf::from("fingerprints_global"));
    assert_eq!(
        (
            c.simhash_max_hamming,
            c.minhash_threshold,
            c.minhash_ngram,
            c.minhash_num_perm
        ),
        (3, 0.9, 5, 128)
    );
    assert_eq!(
        (
            c.chunk_size,
            c.chunk_overlap,
            c.fingerprint_version.as_str()
        ),
        (512, 0, "v1")
    );
    assert_eq!(
        (c.backend, c.on_duplicate),
        (BackendKind::Embedded, OnDuplicate::Drop)
    );
    assert!(c.document_type_priority.is_empty() && c.source_priority.is_empty());
    assert_eq!(GlobalStoreConfig::from_toml_str("").unwrap(), c);
}

#[test]
fn every_toml_shape_reads_the_same_section() {
    let keys = "simhash = false\nminhash_threshold = 0.8\nsource_priority = [\"a\", \"b\"]\n";
    let flat = GlobalStoreConfig::from_toml_str(keys).unwrap();
    assert!(!flat.simhash && flat.minhash_threshold == 0.8 && flat.source_priority == ["a", "b"]);
    for wrapped in [
        format!("[global_fingerprints]\n{keys}"),
        format!("[processing.global_fingerprints]\n{keys}"),
        // Inside a whole pipeline file the other sections are not ours.
        format!(
            "stages = [\"exact_dedup\", \"global_dedup\"]\n[global.processing]\nworkers = 4\n[global.processing.global_fingerprints]\n{keys}"
        ),
    ] {
        assert_eq!(
            GlobalStoreConfig::from_toml_str(&wrapped).unwrap(),
            flat,
            "{wrapped}"
        );
    }
    let full = GlobalStoreConfig::from_toml_str(
        r#"[global_fingerprints]
        enabled = true
        root_path = "fp"
        simhash = true
        minhash = true
        chunk_hash = true
        simhash_max_hamming = 3
        minhash_threshold = 0.9
        minhash_ngram = 5
        minhash_num_perm = 128
        chunk_size = 512
        chunk_overlap = 0
        fingerprint_version = "v1"
        document_type_priority = ["books", "wiki", "commoncrawl"]
        source_to_document_type = { class4_hindi_veena = "books", wikipedia_stream = "wiki", dolma_hf = "commoncrawl" }
        source_priority = ["class4_hindi_veena", "dolma_hf"]
        on_duplicate = "mark"
        backend = "redis"
        redis_url = "redis://127.0.0.1:6379/"
        "#,
    )
    .unwrap();
    assert_eq!(full.source_to_document_type["dolma_hf"], "commoncrawl");
    assert_eq!(
        (full.backend, full.on_duplicate),
        (BackendKind::Redis, OnDuplicate::Mark)
    );
    // The TOML form reads back to the same config.
    assert_eq!(
        GlobalStoreConfig::from_toml_str(&full.to_toml_string().unwrap()).unwrap(),
        full
    );
}

#[test]
fn invalid_values_name_the_key_and_the_value() {
    let cases = [
        (
            "simhash = false\nminhash = false\nchunk_hash = false",
            "at least one of simhash, minhash, chunk_hash",
        ),
        (
            "minhash_threshold = 0.0",
            "minhash_threshold must be in (0, 1]; got 0",
        ),
        (
            "minhash_threshold = 1.5",
            "minhash_threshold must be in (0, 1]; got 1.5",
        ),
        (
            "minhash_threshold = nan",
            "minhash_threshold must be in (0, 1]; got NaN",
        ),
        (
            "minhash_partial_threshold = 0.95",
            "minhash_partial_threshold must be in (0, minhash_threshold = 0.9]; got 0.95",
        ),
        (
            "chunk_size = 100\nchunk_overlap = 100",
            "chunk_overlap (100) must be smaller than chunk_size (100)",
        ),
        ("chunk_size = 0", "chunk_size must be in 1..="),
        ("minhash_ngram = 0", "minhash_ngram must be in 1..="),
        (
            "minhash_num_perm = 100",
            "minhash_num_perm must be 64, 128 or 256; got 100",
        ),
        (
            "simhash_max_hamming = 9",
            "simhash_max_hamming must be at most 7; got 9",
        ),
        (
            "fingerprint_version = \"\"",
            "fingerprint_version must be 1 to 64 bytes",
        ),
        (
            "source_priority = [\"a\", \"a\"]",
            "source_priority lists \"a\" twice",
        ),
        ("backend = \"redis\"", "backend = \"redis\" needs redis_url"),
        (
            "backend = \"redis\"\nredis_url = \"http://x\"",
            "redis_url must start with redis:// or unix://",
        ),
        (
            "redis_prefix = \"a{b}\"",
            "redis_prefix must be 1 to 128 bytes without braces",
        ),
        (
            "max_candidates = 0",
            "max_doc_bytes and max_candidates must be positive",
        ),
        ("simhash_max_hamming = -1", "global_fingerprints:"),
        ("backend = \"s3\"", "unknown variant `s3`"),
        ("chunk_sise = 5", "unknown field `chunk_sise`"),
        ("[global_fingerprints]\nsimhash = \"yes\"", "invalid type"),
        ("this is not toml", "global_fingerprints TOML:"),
    ];
    for (toml, want) in cases {
        let m = config_err(toml);
        assert!(m.contains(want), "{toml:?}: {m:?} lacks {want:?}");
    }
    // A disabled config validates (with nothing on), but opens no store.
    let mut off = GlobalStoreConfig::from_toml_str(
        "enabled = false\nsimhash = false\nminhash = false\nchunk_hash = false",
    )
    .unwrap();
    off.root_path = temp_dir("store-cfg-off");
    assert!(
        matches!(GlobalFingerprintStore::open(off.clone()), Err(Error::Config(m)) if m.contains("enabled = false"))
    );
    assert!(!off.root_path.exists(), "a disabled config creates nothing");
}

#[test]
fn from_path_reads_a_file() {
    let dir = temp_dir("store-cfg-file");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("pipeline.toml");
    std::fs::write(&f, "[global_fingerprints]\nchunk_size = 128\n").unwrap();
    assert_eq!(GlobalStoreConfig::from_path(&f).unwrap().chunk_size, 128);
    assert!(matches!(
        GlobalStoreConfig::from_path(dir.join("missing.toml")),
        Err(Error::Io(_))
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn each_kind_alone_works() {
    let docs = sample();
    for (name, flags) in [
        ("simhash", (true, false, false)),
        ("minhash", (false, true, false)),
        ("chunk", (false, false, true)),
    ] {
        let mut cfg = dataset_config();
        (cfg.simhash, cfg.minhash, cfg.chunk_hash) = flags;
        cfg.root_path = temp_dir(&format!("store-cfg-{name}"));
        let store = GlobalFingerprintStore::open(cfg.clone()).unwrap();
        let a = store
            .ingest(&IncomingDocument::new("a", docs[3].text.clone(), "ds0"))
            .unwrap();
        let b = store
            .ingest(&IncomingDocument::new("b", docs[3].text.clone(), "ds0"))
            .unwrap();
        assert!(a.action.is_indexed(), "{name}: {a:?}");
        // SimHash or MinHash alone drop the copy; chunk hashes alone only link it.
        let want = if name == "chunk" {
            txtfp::store::Action::Link
        } else {
            txtfp::store::Action::Drop
        };
        assert_eq!(b.action, want, "{name}");
        let kinds = store.fingerprints("a").unwrap();
        assert!(
            kinds.iter().all(|r| format!("{:?}", r.fingerprint_type)
                .to_lowercase()
                .starts_with(name)),
            "{name}: {kinds:?}"
        );
        drop(store);
        std::fs::remove_dir_all(&cfg.root_path).unwrap();
    }
}

#[test]
fn metrics_rates_json_and_table() {
    let mut cfg = dataset_config();
    cfg.root_path = temp_dir("store-metrics");
    let store = GlobalFingerprintStore::open(cfg.clone()).unwrap();
    let docs = sample();
    let empty = store.metrics().unwrap();
    assert_eq!(
        (empty.duplication_rate(), empty.chunk_reuse_rate()),
        (0.0, 0.0)
    );
    // ds0 holds 10 documents; ds1 repeats 4 of them and adds 2; ds0
    // repeats one of its own under a new id.
    for d in &docs[..10] {
        store
            .ingest(&IncomingDocument::new(
                format!("ds0/{}", d.id),
                d.text.clone(),
                "ds0",
            ))
            .unwrap();
    }
    for d in docs[..4].iter().chain(&docs[20..22]) {
        store
            .ingest(&IncomingDocument::new(
                format!("ds1/{}", d.id),
                d.text.clone(),
                "ds1",
            ))
            .unwrap();
    }
    store
        .ingest(&IncomingDocument::new(
            "ds0/again",
            docs[0].text.clone(),
            "ds0",
        ))
        .unwrap();
    let m = store.metrics().unwrap();
    assert_eq!(
        (m.docs, m.duplicates, m.kept, m.cross_source_duplicates),
        (17, 5, 12, 4)
    );
    assert!((m.duplication_rate() - 5.0 / 17.0).abs() < 1e-12);
    assert!((m.cross_dataset_collision_rate() - 0.8).abs() < 1e-12);
    assert_eq!(m.top_duplicated_sources(1), [("ds1".to_owned(), 4)]);
    assert_eq!(
        m.top_duplicated_sources(5),
        [("ds1".to_owned(), 4), ("ds0".to_owned(), 1)]
    );
    let dom = m.source_dominance();
    assert_eq!(dom[0].0, "ds0");
    assert!((dom[0].1 - 10.0 / 12.0).abs() < 1e-12 && (dom[1].1 - 2.0 / 12.0).abs() < 1e-12);
    assert!(m.chunks >= 12);

    let j: serde_json::Value = serde_json::from_str(&m.to_json()).unwrap();
    assert_eq!(j["docs"], 17);
    assert_eq!(j["top_duplicated_sources"][0]["source"], "ds1");
    assert!((j["duplication_rate"].as_f64().unwrap() - 5.0 / 17.0).abs() < 1e-12);
    assert_eq!(j["sources"].as_array().unwrap().len(), 2);

    let table = m.to_string();
    let words: Vec<String> = table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert!(
        words.contains(&"duplicates 5 (29.41% of documents)".to_owned()),
        "{table}"
    );
    assert!(
        words.contains(&"cross-dataset 4 (80.00% of duplicates)".to_owned()),
        "{table}"
    );
    let ds1 = table.lines().find(|l| l.starts_with("ds1")).unwrap();
    assert_eq!(
        ds1.split_whitespace().collect::<Vec<_>>(),
        ["ds1", "6", "2", "4", "66.67%", "16.67%"]
    );
    drop(store);
    std::fs::remove_dir_all(&cfg.root_path).unwrap();
}
