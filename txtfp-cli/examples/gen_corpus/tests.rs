//! A tiny corpus made end to end from the bundled sample, checked against
//! what the benchmarks rely on.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use clap::Parser;
use txtfp::{Canonicalizer, ShingleTokenizer, Tokenizer, WordTokenizer};

use super::{Args, generate, parse_size};
use crate::rng::Rng;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/data/sample.jsonl")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("txtfp-gen-corpus-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn args(out: &Path, threads: usize) -> Args {
    let source = sample();
    Args::try_parse_from([
        "gen_corpus",
        "--source",
        source.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--size",
        "400KB",
        "--shards",
        "3",
        "--seed",
        "7",
        // Enough duplicates in ~160 documents for every kind to show up.
        "--dup-frac",
        "0.4",
        "--exact-share",
        "0.2",
        "--boilerplate-share",
        "0.3",
        "--boilerplate-group",
        "10",
        "--threads",
        &threads.to_string(),
        "--quiet",
    ])
    .expect("valid arguments")
}

/// The file names in `dir` with their bytes.
fn files(dir: &Path) -> HashMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// Word 5-shingle `(shared, union)` recomputed on token strings, not hashes.
fn overlap(a: &str, b: &str) -> (u64, u64) {
    let canon = Canonicalizer::default();
    let tok = ShingleTokenizer {
        k: 5,
        inner: WordTokenizer,
    };
    let set = |t: &str| -> HashSet<String> {
        let c = canon.canonicalize(t);
        tok.tokens(&c).into_string_iter().collect()
    };
    let (a, b) = (set(a), set(b));
    (
        a.intersection(&b).count() as u64,
        a.union(&b).count() as u64,
    )
}

#[test]
fn tiny_corpus_is_consistent_and_the_same_on_any_thread_count() {
    let (one, two) = (scratch("one"), scratch("two"));
    let manifest = generate(&args(&two, 2)).expect("generate");
    generate(&args(&one, 1)).expect("generate again");

    let (a, b) = (files(&two), files(&one));
    let mut names: Vec<_> = a.keys().cloned().collect();
    names.sort();
    assert_eq!(
        names,
        [
            "manifest.json",
            "part-00000.jsonl.zst",
            "part-00001.jsonl.zst",
            "part-00002.jsonl.zst",
            "truth.jsonl"
        ]
    );
    for name in &names {
        assert!(a[name] == b[name], "{name} differs between 1 and 2 threads");
    }
    assert_eq!(manifest["parameters"]["shards"], 3);

    let mut docs: HashMap<String, String> = HashMap::new();
    let mut jsonl = 0;
    for name in names.iter().filter(|n| n.starts_with("part-")) {
        let raw = zstd::decode_all(&a[name][..]).expect("zstd");
        jsonl += raw.len();
        for line in raw.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
            let v: serde_json::Value = serde_json::from_slice(line).unwrap();
            let id = v["id"].as_str().unwrap().to_string();
            let text = v["text"].as_str().unwrap().to_string();
            assert!(docs.insert(id.clone(), text).is_none(), "duplicate id {id}");
        }
    }
    assert_eq!(docs.len() as u64, manifest["counts"]["docs"]);
    assert_eq!(jsonl as u64, manifest["bytes"]["jsonl"]);
    let size = parse_size("400KB").unwrap() as f64;
    assert!((jsonl as f64 - size).abs() < 0.25 * size, "{jsonl} B");

    let truth: Vec<serde_json::Value> = String::from_utf8(a["truth.jsonl"].clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(truth.len() as u64, manifest["truth"]["pairs"]);
    assert!(truth.len() >= 20, "{} pairs", truth.len());
    let mut relations = HashSet::new();
    for t in &truth {
        for side in ["a", "b"] {
            let id = t[side].as_str().unwrap();
            assert!(docs.contains_key(id), "truth names missing {id}");
        }
        assert_ne!(t["a"], t["b"]);
        relations.insert(t["relation"].as_str().unwrap().to_string());
        if t["relation"] == "exact-copy" {
            assert_eq!(
                docs[t["a"].as_str().unwrap()],
                docs[t["b"].as_str().unwrap()]
            );
        }
    }
    assert_eq!(relations.len(), 3, "{relations:?}");

    let mut rng = Rng::new(1, 2, 3);
    for _ in 0..20 {
        let t = &truth[rng.below(truth.len() as u64) as usize];
        let (ida, idb) = (t["a"].as_str().unwrap(), t["b"].as_str().unwrap());
        let (shared, union) = overlap(&docs[ida], &docs[idb]);
        assert_eq!(
            (shared, union),
            (t["shared"].as_u64().unwrap(), t["union"].as_u64().unwrap()),
            "{t}"
        );
        // serde_json's default float parsing may be one ulp off the
        // shortest round-trip decimal written.
        let j = shared as f64 / union as f64;
        assert!((j - t["jaccard"].as_f64().unwrap()).abs() < 1e-12, "{t}");
    }

    // A second run into a used folder is refused; --force replaces it.
    assert!(generate(&args(&one, 1)).is_err());
    let mut again = args(&one, 1);
    again.force = true;
    generate(&again).expect("forced run");
    assert_eq!(files(&one), b);

    for dir in [one, two] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[test]
fn sizes_parse_in_si_and_binary_units() {
    assert_eq!(parse_size("300KB"), Ok(300_000));
    assert_eq!(parse_size("5GB"), Ok(5_000_000_000));
    assert_eq!(parse_size("1.5 MB"), Ok(1_500_000));
    assert_eq!(parse_size("2GiB"), Ok(2 << 30));
    assert_eq!(parse_size("4096"), Ok(4096));
    assert!(parse_size("5XB").is_err());
    assert!(parse_size("0GB").is_err());
}
