//! Top-k search on a corpus: `LshForest` (and the exact scan) against exact
//! Jaccard, with the data datasketch's `MinHashLSHForest` needs to be
//! measured on the same sets. Driven by `scripts/bench/vs_datasketch_forest.py`.
//!
//! ```sh
//! cargo run --release --example forest_vs_datasketch --features lsh -- \
//!     CORPUS.jsonl [TRUTH.jsonl] [OUT_DIR] [QUERIES]
//! ```
//!
//! Each document's set is its 5-word shingles after the default
//! canonicalization (the pipeline of `MinHashFingerprinter` with
//! `ShingleTokenizer { k: 5, inner: WordTokenizer }`), each shingle named by
//! its XXH3-64. Writes to `OUT_DIR` (default the temp dir):
//! - `forest_sets.bin`: per document a `u32` count, then the sorted `u64`
//!   shingle hashes (little-endian): the sets datasketch hashes;
//! - `forest_truth.json`: per query its document index, how many of its
//!   true top 10 have positive Jaccard, and the ids that count as a hit
//!   (exact Jaccard > 0 and at least the 10th best).
//!
//! Queries: the first half are documents of planted near-duplicate pairs
//! (the corpus's truth file, when given), the rest evenly spaced documents.
//! A query asks for 11 and drops itself. Prints one JSON object of figures:
//! per MinHash scheme (default and fast signatures of the same texts) the
//! build, query, exact-scan and candidate-factor figures, and, as a
//! diagnostic, recall with strided bands (tree `t` over slots `t, t + l, …`,
//! emulated by permuting every signature's slots the same way).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::time::Instant;

use txtfp::classical::minhash::{Fast, FastMinHashFingerprinter, Scheme};
use txtfp::lsh::forest::{LshForest, LshForestBuilder};
use txtfp::{
    Canonicalizer, Fingerprinter, MinHashFingerprinter, MinHashSig, ShingleTokenizer, Tokenizer,
    WordTokenizer,
};

const K: usize = 10;
const TREES: usize = 8;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let corpus = args
        .first()
        .ok_or("usage: CORPUS.jsonl [TRUTH.jsonl] [OUT_DIR] [QUERIES]")?;
    let truth = args.get(1).filter(|s| !s.is_empty());
    let out_dir = args
        .get(2)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let n_queries: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(500);

    // Documents, their shingle sets and signatures.
    let mut ids: Vec<String> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    for line in BufReader::new(std::fs::File::open(corpus)?).lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        ids.push(v["id"].as_str().unwrap_or_default().to_string());
        texts.push(v["text"].as_str().unwrap_or_default().to_string());
    }
    let canon = Canonicalizer::default();
    let shingles = ShingleTokenizer::new(5, WordTokenizer)?;
    let fp = MinHashFingerprinter::<_, 128>::new(canon.clone(), shingles);
    let mut sets: Vec<Vec<u64>> = Vec::with_capacity(texts.len());
    let mut sigs: Vec<Option<MinHashSig<128>>> = Vec::with_capacity(texts.len());
    for text in &texts {
        let c = canon.canonicalize(text);
        let mut set = Vec::new();
        shingles.for_each_token(&c, &mut |t| {
            set.push(xxhash_rust::xxh3::xxh3_64(t.as_bytes()))
        });
        set.sort_unstable();
        set.dedup();
        sets.push(set);
        sigs.push(fp.fingerprint(text).ok());
    }

    // Queries.
    let index_of: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let mut queries: Vec<usize> = Vec::new();
    if let Some(truth) = truth {
        for line in BufReader::new(std::fs::File::open(truth)?).lines() {
            let v: serde_json::Value = serde_json::from_str(&line?)?;
            if v["planted"].as_bool() == Some(true)
                && let Some(&i) = v["a"].as_str().and_then(|a| index_of.get(a))
                && sigs[i].is_some()
                && !queries.contains(&i)
            {
                queries.push(i);
                if queries.len() == n_queries / 2 {
                    break;
                }
            }
        }
    }
    let step = (sets.len() / (n_queries - queries.len()).max(1)).max(1);
    let mut i = 0;
    while queries.len() < n_queries && i < sets.len() {
        if sigs[i].is_some() && !queries.contains(&i) {
            queries.push(i);
        }
        i += step;
    }

    // Exact top 10 by Jaccard on the shingle sets, through an inverted index.
    let mut postings: HashMap<u64, Vec<u32>> = HashMap::new();
    for (d, set) in sets.iter().enumerate() {
        for &s in set {
            postings.entry(s).or_default().push(d as u32);
        }
    }
    let mut truth_out = Vec::new();
    let mut relevant: Vec<(usize, Vec<u64>)> = Vec::new();
    for &q in &queries {
        let mut inter: HashMap<u32, u32> = HashMap::new();
        for s in &sets[q] {
            for &d in &postings[s] {
                *inter.entry(d).or_default() += 1;
            }
        }
        let mut js: Vec<(f64, u32)> = inter
            .into_iter()
            .filter(|&(d, _)| d as usize != q)
            .map(|(d, n)| {
                let u = sets[q].len() + sets[d as usize].len() - n as usize;
                (n as f64 / u as f64, d)
            })
            .collect();
        js.sort_by(|a, b| b.0.total_cmp(&a.0));
        let positive = js.len().min(K);
        let rel: Vec<u64> = if positive == 0 {
            Vec::new()
        } else {
            let cutoff = js[positive - 1].0;
            js.iter()
                .take_while(|x| x.0 >= cutoff)
                .map(|x| u64::from(x.1))
                .collect()
        };
        truth_out.push(serde_json::json!({"q": q, "positive": positive, "relevant": rel}));
        relevant.push((positive, rel));
    }
    std::fs::write(
        out_dir.join("forest_truth.json"),
        serde_json::to_vec(&truth_out)?,
    )?;
    let mut f = std::io::BufWriter::new(std::fs::File::create(out_dir.join("forest_sets.bin"))?);
    for set in &sets {
        f.write_all(&(set.len() as u32).to_le_bytes())?;
        for s in set {
            f.write_all(&s.to_le_bytes())?;
        }
    }
    f.flush()?;

    // Fast-scheme signatures of the same texts, for the per-scheme figures.
    let fast_fp = FastMinHashFingerprinter::<_, 128>::new(canon.clone(), shingles);
    let fast_sigs: Vec<Option<MinHashSig<128, Fast>>> =
        texts.iter().map(|t| fast_fp.fingerprint(t).ok()).collect();
    drop(texts);
    let ev = Eval {
        queries: &queries,
        relevant: &relevant,
    };
    let classic = ev.measure(&sigs, None, true)?;
    let fast = ev.measure(&fast_sigs, None, true)?;
    // Strided bands (tree t over slots t, t + l, ...), emulated by permuting slots.
    let perm: Vec<usize> = (0..TREES).flat_map(|t| (t..128).step_by(TREES)).collect();
    let classic_strided = ev.measure(&sigs, Some(&perm), false)?;
    let fast_strided = ev.measure(&fast_sigs, Some(&perm), false)?;
    let figures = serde_json::json!({
        "docs": classic["docs"],
        "queries": queries.len(),
        "trees": TREES,
        "num_perm": 128,
        "classic": classic,
        "fast": fast,
        "classic_strided": classic_strided,
        "fast_strided": fast_strided,
    });
    println!("{figures}");
    Ok(())
}

struct Eval<'a> {
    queries: &'a [usize],
    relevant: &'a [(usize, Vec<u64>)],
}

impl Eval<'_> {
    fn recall(&self, answers: &[Vec<u64>]) -> f64 {
        let (mut hits, mut wanted) = (0usize, 0usize);
        for (got, (positive, rel)) in answers.iter().zip(self.relevant) {
            let found = got.iter().filter(|id| rel.contains(id)).count();
            hits += found.min(*positive);
            wanted += positive;
        }
        hits as f64 / wanted.max(1) as f64
    }

    fn run<S: Scheme>(
        &self,
        forest: &LshForest<128, S>,
        sigs: &[Option<MinHashSig<128, S>>],
        exact: bool,
    ) -> Result<(f64, Vec<Vec<u64>>), txtfp::Error> {
        let mut best = f64::INFINITY;
        let mut answers = Vec::new();
        for _ in 0..3 {
            answers.clear();
            let t = Instant::now();
            for &q in self.queries {
                let sig = sigs[q].as_ref().expect("queries have signatures");
                let top = if exact {
                    forest.query_exact(sig, K + 1)?
                } else {
                    forest.query(sig, K + 1)?
                };
                answers.push(
                    top.into_iter()
                        .map(|(id, _)| id)
                        .filter(|&id| id != q as u64)
                        .take(K)
                        .collect(),
                );
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        Ok((best, answers))
    }

    /// Build, query, exact-scan and candidate-factor figures of one scheme.
    fn measure<S: Scheme>(
        &self,
        sigs: &[Option<MinHashSig<128, S>>],
        perm: Option<&[usize]>,
        full: bool,
    ) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
        let sigs: Vec<Option<MinHashSig<128, S>>> = match perm {
            None => sigs.to_vec(),
            Some(p) => sigs
                .iter()
                .map(|s| {
                    s.map(|mut s| {
                        let h = s.hashes;
                        for (i, &j) in p.iter().enumerate() {
                            s.hashes[i] = h[j];
                        }
                        s
                    })
                })
                .collect(),
        };
        let docs: Vec<(u64, MinHashSig<128, S>)> = sigs
            .iter()
            .enumerate()
            .filter_map(|(d, s)| s.map(|s| (d as u64, s)))
            .collect();
        // Build: `insert_all` (one sort), and the insert loop plus `index()`.
        let (mut build_s, mut loop_s) = (f64::INFINITY, f64::INFINITY);
        let mut forest = LshForest::<128, S>::new(TREES)?;
        for _ in 0..3 {
            let t = Instant::now();
            let mut fresh = LshForest::<128, S>::new(TREES)?;
            fresh.insert_all(docs.iter().copied())?;
            build_s = build_s.min(t.elapsed().as_secs_f64());
            forest = fresh;
            let t = Instant::now();
            let mut fresh = LshForest::<128, S>::new(TREES)?;
            for (id, s) in &docs {
                fresh.insert(*id, s)?;
            }
            fresh.index();
            loop_s = loop_s.min(t.elapsed().as_secs_f64());
        }
        let n = self.queries.len() as f64;
        let (forest_s, forest_answers) = self.run(&forest, &sigs, false)?;
        let (exact_s, exact_answers) = self.run(&forest, &sigs, true)?;
        let mut sweep = Vec::new();
        if full {
            for m in [1usize, 2, 4, 8, 16] {
                let mut tuned: LshForest<128, S> = LshForestBuilder::new(128, TREES)
                    .candidates_per_result(m)
                    .try_build()?;
                tuned.insert_all(docs.iter().copied())?;
                let (s, answers) = self.run(&tuned, &sigs, false)?;
                sweep.push(serde_json::json!({"candidates_per_result": m, "query_per_s": n / s, "recall_at_10": self.recall(&answers)}));
            }
        }
        Ok(serde_json::json!({
            "docs": docs.len(),
            "build_s": build_s,
            "build_per_s": docs.len() as f64 / build_s,
            "build_insert_loop_per_s": docs.len() as f64 / loop_s,
            "query_per_s": n / forest_s,
            "recall_at_10": self.recall(&forest_answers),
            "exact_scan_query_per_s": n / exact_s,
            "exact_scan_recall_at_10": self.recall(&exact_answers),
            "memory_bytes": forest.memory_usage(),
            "candidates_per_result": forest.candidates_per_result(),
            "sweep": sweep,
        }))
    }
}
