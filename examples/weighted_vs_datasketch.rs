//! Weighted MinHash and b-bit signatures on a corpus, with the data that
//! datasketch's `WeightedMinHashGenerator` and `bBitMinHash` need to be
//! measured on the same sets. Driven by `scripts/bench/vs_datasketch_weighted.py`.
//!
//! ```sh
//! cargo run --release --example weighted_vs_datasketch --features weighted-minhash -- \
//!     CORPUS.jsonl [TRUTH.jsonl] [OUT_DIR] [PAIRS]
//! ```
//!
//! Weighted sets: each document's words after the default canonicalization
//! (`WeightedMinHashFingerprinter` with `WordTokenizer`), weighted by raw
//! count (TF); 128 slots. Words rather than 5-word shingles because
//! datasketch keeps three `128 × vocabulary` float matrices, which the
//! shingle vocabulary would make tens of GB; our rate on 5-word shingles is
//! printed too. b-bit: `MinHashSig<128>` of 5-word shingles, `b = 1` and 2,
//! against the exact Jaccard of the shingle sets.
//!
//! Writes to `OUT_DIR` (default the temp dir):
//! - `wmh_tf.txt`: per document one line of `word_id:tf` pairs (ids are
//!   the order of first appearance in the corpus), the vectors datasketch
//!   sketches;
//! - `wmh_shingles.txt`: for each document in a pair, `doc<TAB>` and its
//!   5-shingle XXH3-64 hashes in hex (the sets datasketch's MinHash hashes);
//! - `wmh_pairs.tsv`: `kind a b exact_weighted exact_jaccard` per pair.
//!
//! Pairs: the planted near-duplicates of the truth file (when given; else
//! documents that share a signature band) and as many evenly spread random
//! pairs. Prints one JSON object of figures. Rates are single-threaded.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::time::Instant;

use txtfp::classical::minhash::BBitSignature;
use txtfp::classical::weighted::{
    WeightedMinHashFingerprinter, WeightedMinHashSig, weighted_jaccard, weighted_jaccard_exact,
};
use txtfp::{
    Canonicalizer, Fingerprinter, MinHashFingerprinter, MinHashSig, ShingleTokenizer, Tokenizer,
    WordTokenizer,
};

const SLOTS: usize = 128;

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let corpus = args
        .first()
        .ok_or("usage: CORPUS.jsonl [TRUTH.jsonl] [OUT_DIR] [PAIRS]")?;
    let truth = args.get(1).filter(|s| !s.is_empty());
    let out_dir = args
        .get(2)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let n_pairs: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(200);

    let mut ids: Vec<String> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    for line in BufReader::new(std::fs::File::open(corpus)?).lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        ids.push(v["id"].as_str().unwrap_or_default().to_string());
        texts.push(v["text"].as_str().unwrap_or_default().to_string());
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    let canon = Canonicalizer::default();
    let words = WeightedMinHashFingerprinter::new(canon.clone(), WordTokenizer, SLOTS)?;
    let shingles = ShingleTokenizer::new(5, WordTokenizer)?;
    let words5 = WeightedMinHashFingerprinter::new(canon.clone(), shingles, SLOTS)?;

    // Whole pipeline, words: canonicalize, tokenize, count, sketch.
    let t = Instant::now();
    let mut sigs: Vec<Option<WeightedMinHashSig>> = Vec::with_capacity(texts.len());
    let mut buf = String::new();
    for text in &texts {
        sigs.push(words.fingerprint_with_buffer(text, &mut buf).ok());
    }
    let full_words = secs(t);
    // The weighted sets alone, then the sampler alone on them.
    let t = Instant::now();
    let sets: Vec<Option<Vec<(u64, f64)>>> = texts
        .iter()
        .map(|x| words.weighted_set_with_buffer(x, &mut buf).ok())
        .collect();
    let sets_words = secs(t);
    let t = Instant::now();
    for s in sets.iter().flatten() {
        black_box(words.hasher().sketch(s)?);
    }
    let sketch_words = secs(t);
    let nnz: usize = sets.iter().flatten().map(Vec::len).sum();
    // The reference (the paper's formulas) on the first 300 documents.
    let sample: Vec<&Vec<(u64, f64)>> = sets.iter().flatten().take(300).collect();
    let t = Instant::now();
    for s in &sample {
        black_box(words.hasher().sketch_reference(s)?);
    }
    let reference_per_doc = secs(t) / sample.len() as f64;
    let t = Instant::now();
    for s in &sample {
        black_box(words.hasher().sketch(s)?);
    }
    let fast_sample_per_doc = secs(t) / sample.len() as f64;
    // Whole pipeline, 5-word shingles.
    let t = Instant::now();
    for text in &texts {
        let _ = black_box(words5.fingerprint_with_buffer(text, &mut buf));
    }
    let full_shingles = secs(t);

    // Vocabulary ids for datasketch's dense vectors.
    let mut vocab: HashMap<u64, u32> = HashMap::new();
    let mut tf_out = String::new();
    for s in &sets {
        if let Some(s) = s {
            for (i, &(k, w)) in s.iter().enumerate() {
                let next = vocab.len() as u32;
                let id = *vocab.entry(k).or_insert(next);
                let _ = write!(tf_out, "{}{id}:{w}", if i > 0 { " " } else { "" });
            }
        }
        tf_out.push('\n');
    }
    std::fs::write(out_dir.join("wmh_tf.txt"), tf_out)?;

    // Pairs.
    let ok = |i: usize| sigs[i].is_some();
    let index_of: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let mut near: Vec<(usize, usize)> = Vec::new();
    if let Some(truth) = truth {
        for line in BufReader::new(std::fs::File::open(truth)?).lines() {
            let v: serde_json::Value = serde_json::from_str(&line?)?;
            if v["planted"].as_bool() == Some(true)
                && let (Some(&a), Some(&b)) = (
                    v["a"].as_str().and_then(|a| index_of.get(a)),
                    v["b"].as_str().and_then(|b| index_of.get(b)),
                )
                && ok(a)
                && ok(b)
            {
                near.push((a, b));
                if near.len() == n_pairs {
                    break;
                }
            }
        }
    } else {
        let mut band: HashMap<(u64, u64), usize> = HashMap::new();
        for (i, s) in sigs.iter().enumerate() {
            if let Some(s) = s
                && let Some(&j) = band.get(&(s.slots()[0], s.slots()[1]))
                && near.len() < n_pairs
            {
                near.push((j, i));
            } else if let Some(s) = s {
                band.insert((s.slots()[0], s.slots()[1]), i);
            }
        }
    }
    let valid: Vec<usize> = (0..sigs.len()).filter(|&i| ok(i)).collect();
    let mut random: Vec<(usize, usize)> = Vec::new();
    for p in 0..n_pairs.min(valid.len() / 2) {
        let a = valid[(p * 7919) % valid.len()];
        let b = valid[(p * 104_729 + valid.len() / 2) % valid.len()];
        if a != b {
            random.push((a, b));
        }
    }

    // MinHash of 5-shingles for the b-bit part, and exact shingle sets of
    // the documents in pairs.
    let mh = MinHashFingerprinter::<_, SLOTS>::new(canon.clone(), shingles);
    let t = Instant::now();
    let mhs: Vec<Option<MinHashSig<SLOTS>>> =
        texts.iter().map(|x| mh.fingerprint(x).ok()).collect();
    let minhash_secs = secs(t);
    let in_pairs: HashSet<usize> = near
        .iter()
        .chain(&random)
        .flat_map(|&(a, b)| [a, b])
        .collect();
    let mut shingle_sets: HashMap<usize, HashSet<u64>> = HashMap::new();
    let mut sh_out = String::new();
    let mut docs: Vec<usize> = in_pairs.into_iter().collect();
    docs.sort_unstable();
    for &d in &docs {
        let c = canon.canonicalize(&texts[d]);
        let mut set = HashSet::new();
        shingles.for_each_token(&c, &mut |t| {
            set.insert(xxhash_rust::xxh3::xxh3_64(t.as_bytes()));
        });
        let _ = write!(sh_out, "{d}\t");
        let mut v: Vec<&u64> = set.iter().collect();
        v.sort_unstable();
        for (i, h) in v.iter().enumerate() {
            let _ = write!(sh_out, "{}{h:016x}", if i > 0 { " " } else { "" });
        }
        sh_out.push('\n');
        shingle_sets.insert(d, set);
    }
    std::fs::write(out_dir.join("wmh_shingles.txt"), sh_out)?;

    let set_jaccard = |a: usize, b: usize| -> f64 {
        let (x, y) = (&shingle_sets[&a], &shingle_sets[&b]);
        let inter = x.intersection(y).count();
        let union = x.len() + y.len() - inter;
        if union == 0 {
            0.0
        } else {
            inter as f64 / union as f64
        }
    };
    let mut pairs_out = String::new();
    let mut err = serde_json::Map::new();
    let bbits: Vec<u8> = vec![1, 2];
    for (kind, list) in [("near", &near), ("random", &random)] {
        let (mut e_w, mut n_w) = (0.0, 0usize);
        let mut e_b = vec![(0.0, 0.0, 0usize); bbits.len()];
        let mut e_full = 0.0;
        for &(a, b) in list.iter() {
            let exact_w =
                weighted_jaccard_exact(sets[a].as_ref().unwrap(), sets[b].as_ref().unwrap())?;
            let exact_j = set_jaccard(a, b);
            let _ = writeln!(pairs_out, "{kind}\t{a}\t{b}\t{exact_w}\t{exact_j}");
            let est = weighted_jaccard(sigs[a].as_ref().unwrap(), sigs[b].as_ref().unwrap())?;
            e_w += (est - exact_w).abs();
            n_w += 1;
            if let (Some(x), Some(y)) = (&mhs[a], &mhs[b]) {
                e_full += (f64::from(x.jaccard(y)) - exact_j).abs();
                for (slot, &bb) in bbits.iter().enumerate() {
                    let (bx, by) = (
                        BBitSignature::from_sig(x, bb)?,
                        BBitSignature::from_sig(y, bb)?,
                    );
                    e_b[slot].0 += (bx.jaccard(&by)? - exact_j).abs();
                    e_b[slot].1 += (bx.match_fraction(&by)? - exact_j).abs();
                    e_b[slot].2 += 1;
                }
            }
        }
        let n = n_w.max(1) as f64;
        err.insert(format!("{kind}_pairs"), n_w.into());
        err.insert(format!("{kind}_weighted_mae"), (e_w / n).into());
        err.insert(
            format!("{kind}_minhash_mae"),
            (e_full / e_b[0].2.max(1) as f64).into(),
        );
        for (slot, &bb) in bbits.iter().enumerate() {
            let m = e_b[slot].2.max(1) as f64;
            err.insert(format!("{kind}_bbit{bb}_mae"), (e_b[slot].0 / m).into());
            err.insert(
                format!("{kind}_bbit{bb}_uncorrected_mae"),
                (e_b[slot].1 / m).into(),
            );
        }
    }
    std::fs::write(out_dir.join("wmh_pairs.tsv"), pairs_out)?;

    // b-bit build and compare rates over every document's MinHash.
    let all_mh: Vec<&MinHashSig<SLOTS>> = mhs.iter().flatten().collect();
    let mut bbit_rates = serde_json::Map::new();
    for &bb in &bbits {
        let t = Instant::now();
        let packed: Vec<BBitSignature> = all_mh
            .iter()
            .map(|m| BBitSignature::from_sig(m, bb))
            .collect::<Result<_, _>>()?;
        let build = secs(t);
        let t = Instant::now();
        let mut acc = 0.0;
        let rounds = 20;
        for _ in 0..rounds {
            for w in packed.windows(2) {
                acc += w[0].jaccard(&w[1])?;
            }
        }
        black_box(acc);
        let cmp = secs(t) / (rounds * (packed.len() - 1)) as f64;
        bbit_rates.insert(
            format!("bbit{bb}_build_per_sec"),
            (packed.len() as f64 / build).into(),
        );
        bbit_rates.insert(format!("bbit{bb}_jaccard_per_sec"), (1.0 / cmp).into());
        bbit_rates.insert(format!("bbit{bb}_bytes"), packed[0].to_bytes().len().into());
    }

    let n_docs = sigs.iter().flatten().count();
    let mb = bytes as f64 / 1e6;
    let out = serde_json::json!({
        "docs": texts.len(),
        "docs_sketched": n_docs,
        "mb": mb,
        "vocab_words": vocab.len(),
        "nnz_words": nnz,
        "wmh_words_full_docs_per_sec": texts.len() as f64 / full_words,
        "wmh_words_full_mb_per_sec": mb / full_words,
        "wmh_words_sets_secs": sets_words,
        "wmh_words_sketch_docs_per_sec": n_docs as f64 / sketch_words,
        "wmh_words_sketch_secs": sketch_words,
        "wmh_reference_per_doc_ms": reference_per_doc * 1e3,
        "wmh_fast_sample_per_doc_ms": fast_sample_per_doc * 1e3,
        "wmh_shingle5_full_docs_per_sec": texts.len() as f64 / full_shingles,
        "wmh_shingle5_full_mb_per_sec": mb / full_shingles,
        "minhash128_shingle5_docs_per_sec": texts.len() as f64 / minhash_secs,
        "errors": err,
        "bbit": bbit_rates,
    });
    std::io::stdout().write_all(format!("{out}\n").as_bytes())?;
    Ok(())
}
