//! Accuracy of the fast MinHash scheme next to the default one, on the
//! same pairs: Jaccard-estimate error and LSH recall / precision.
//!
//! ```sh
//! cargo run --release --example fast_minhash_quality -- \
//!     ../shared/corpus/corpus-small.jsonl ../shared/corpus/corpus-small.truth.jsonl
//! ```
//!
//! Arguments: a corpus JSONL (`{"id", "text"}` per line), a truth file
//! (`{"a", "b", ...}` per line: the planted pairs) and optionally a seed
//! for both schemes (default `DEFAULT_SEED`). Both schemes use 128 slots
//! over word 5-shingles of the default canonicalizer.
//!
//! * **Exact Jaccard** of a pair is computed here, from each document's
//!   distinct shingles (the generic tokenizer's tokens, compared by 64-bit
//!   SipHash), not taken from the truth file.
//! * **Planted pairs**: mean absolute error (MAE) and mean signed error of
//!   each scheme's estimate, overall and by the smaller document's shingle
//!   count (below 128, fewer shingles than slots, is where one-permutation
//!   schemes are weakest).
//! * **Synthetic pairs** over a range of J: a document and a copy with a
//!   fraction of its words replaced by fresh ones (fixed seed), sizes from
//!   a few shingles up; MAE by J bucket.
//! * **LSH** at J ≥ 0.8, banding 32 × 4 (`for_recall(0.8, 128, 0.999)`):
//!   recall over the planted pairs with exact J ≥ 0.8 of the candidates
//!   (`query`) and of the verified answers (`query_with_threshold(0.8)`,
//!   estimated J), and precision of the verified pairs over the whole
//!   corpus (a found pair is correct if its exact J ≥ 0.8).

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::io::BufRead;

use txtfp::classical::minhash::{FastLshIndex, FastMinHashFingerprinter, FastMinHashSig};
use txtfp::{
    Canonicalizer, Fingerprinter, LshIndex, LshIndexBuilder, MinHashFingerprinter, MinHashSig,
    ShingleTokenizer, Tokenizer, WordTokenizer, jaccard,
};

type Shingle = ShingleTokenizer<WordTokenizer>;
const H: usize = 128;

struct Doc {
    set: Vec<u64>,
    default: Option<MinHashSig<H>>,
    fast: Option<FastMinHashSig<H>>,
}

struct Schemes {
    canon: Canonicalizer,
    tok: Shingle,
    default: MinHashFingerprinter<Shingle, H>,
    fast: FastMinHashFingerprinter<Shingle, H>,
}

impl Schemes {
    fn new(seed: u64) -> Self {
        let canon = Canonicalizer::default();
        let tok = ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        };
        Schemes {
            default: MinHashFingerprinter::new(canon.clone(), tok).with_seed(seed),
            fast: FastMinHashFingerprinter::new(canon.clone(), tok).with_seed(seed),
            canon,
            tok,
        }
    }

    fn doc(&self, text: &str) -> Doc {
        let mut set = Vec::new();
        self.tok
            .for_each_token(&self.canon.canonicalize(text), &mut |t| {
                let mut h = DefaultHasher::new();
                t.hash(&mut h);
                set.push(h.finish());
            });
        set.sort_unstable();
        set.dedup();
        Doc {
            set,
            default: self.default.fingerprint(text).ok(),
            fast: self.fast.fingerprint(text).ok(),
        }
    }
}

fn exact(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut n) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => (n, i, j) = (n + 1, i + 1, j + 1),
        }
    }
    let union = a.len() + b.len() - n;
    if union == 0 {
        0.0
    } else {
        n as f64 / union as f64
    }
}

/// Sums of absolute and signed errors per scheme.
#[derive(Default, Clone, Copy)]
struct Err2 {
    n: usize,
    abs: [f64; 2],
    signed: [f64; 2],
}

impl Err2 {
    fn add(&mut self, truth: f64, est: [f64; 2]) {
        self.n += 1;
        for (s, e) in est.iter().enumerate() {
            self.abs[s] += (e - truth).abs();
            self.signed[s] += e - truth;
        }
    }
    fn row(&self, label: &str) {
        let n = self.n.max(1) as f64;
        println!(
            "| {label} | {} | {:.4} | {:.4} | {:+.4} | {:+.4} |",
            self.n,
            self.abs[0] / n,
            self.abs[1] / n,
            self.signed[0] / n,
            self.signed[1] / n
        );
    }
}

fn estimates(a: &Doc, b: &Doc) -> Option<[f64; 2]> {
    Some([
        f64::from(jaccard(a.default.as_ref()?, b.default.as_ref()?)),
        f64::from(a.fast.as_ref()?.jaccard(b.fast.as_ref()?)),
    ])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: fast_minhash_quality CORPUS.jsonl TRUTH.jsonl [SEED]";
    let corpus = args.next().ok_or(usage)?;
    let truth = args.next().ok_or(usage)?;
    let seed = match args.next() {
        Some(s) => s.parse()?,
        None => txtfp::classical::DEFAULT_SEED,
    };
    let schemes = Schemes::new(seed);

    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut texts: Vec<String> = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(&corpus)?).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line)?;
        let id = match &v["id"] {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        ids.insert(id, texts.len());
        texts.push(v["text"].as_str().ok_or("no \"text\"")?.to_string());
    }
    let docs: Vec<Doc> = texts.iter().map(|t| schemes.doc(t)).collect();
    println!("corpus {corpus}: {} documents", docs.len());

    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(&truth)?).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line)?;
        let pos = |k: &str| v[k].as_str().and_then(|s| ids.get(s)).copied();
        if let (Some(a), Some(b)) = (pos("a"), pos("b")) {
            pairs.push((a.min(b), a.max(b)));
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    println!("truth {truth}: {} planted pairs", pairs.len());

    println!("\nPlanted pairs (estimate − exact J), columns: default, fast\n");
    println!("| pairs | n | MAE default | MAE fast | bias default | bias fast |");
    println!("|---|---:|---:|---:|---:|---:|");
    let (mut all, mut small, mut large) = (Err2::default(), Err2::default(), Err2::default());
    for &(a, b) in &pairs {
        let (x, y) = (&docs[a], &docs[b]);
        let Some(est) = estimates(x, y) else { continue };
        let j = exact(&x.set, &y.set);
        all.add(j, est);
        if x.set.len().min(y.set.len()) < H {
            small.add(j, est);
        } else {
            large.add(j, est);
        }
    }
    all.row("all");
    small.row("smaller doc < 128 shingles");
    large.row("smaller doc >= 128 shingles");

    synthetic(&schemes, &texts);
    lsh(&docs, &pairs)?;
    Ok(())
}

/// A document and a copy with a fraction of its words replaced.
fn synthetic(schemes: &Schemes, texts: &[String]) {
    let mut rng = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut buckets = [Err2::default(); 10];
    let mut by_size: Vec<(usize, Err2)> = [8, 32, 128, 512, usize::MAX]
        .iter()
        .map(|&s| (s, Err2::default()))
        .collect();
    let candidates: Vec<&String> = texts
        .iter()
        .filter(|t| t.split_whitespace().count() >= 8)
        .collect();
    for i in 0..4000 {
        let words: Vec<&str> = candidates[next() as usize % candidates.len()]
            .split_whitespace()
            .collect();
        // Sizes from 8 words up, log-uniform, capped by the document.
        let want = (8.0 * 2f64.powf((next() % 1000) as f64 / 1000.0 * 8.0)) as usize;
        let words = &words[..want.min(words.len())];
        let frac = (i % 20) as f64 / 20.0 * 0.6;
        let b: Vec<String> = words
            .iter()
            .map(|w| {
                if (next() % 10_000) as f64 / 10_000.0 < frac {
                    format!("zq{:x}", next() % 1_000_000)
                } else {
                    w.to_string()
                }
            })
            .collect();
        let (x, y) = (schemes.doc(&words.join(" ")), schemes.doc(&b.join(" ")));
        let Some(est) = estimates(&x, &y) else {
            continue;
        };
        let j = exact(&x.set, &y.set);
        buckets[((j * 10.0) as usize).min(9)].add(j, est);
        let n = x.set.len().min(y.set.len());
        if let Some(slot) = by_size.iter_mut().find(|(s, _)| n < *s) {
            slot.1.add(j, est);
        }
    }
    println!("\nSynthetic pairs by exact J\n");
    println!("| J | n | MAE default | MAE fast | bias default | bias fast |");
    println!("|---|---:|---:|---:|---:|---:|");
    let mut total = Err2::default();
    for (i, b) in buckets.iter().enumerate() {
        if b.n > 0 {
            b.row(&format!(
                "[{:.1}, {:.1})",
                i as f64 / 10.0,
                (i + 1) as f64 / 10.0
            ));
        }
        total.n += b.n;
        for s in 0..2 {
            total.abs[s] += b.abs[s];
            total.signed[s] += b.signed[s];
        }
    }
    total.row("all");
    println!("\nSynthetic pairs by the smaller set's shingle count\n");
    println!("| shingles | n | MAE default | MAE fast | bias default | bias fast |");
    println!("|---|---:|---:|---:|---:|---:|");
    let mut lo = 0;
    for (s, e) in &by_size {
        let label = if *s == usize::MAX {
            format!(">= {lo}")
        } else {
            format!("[{lo}, {s})")
        };
        e.row(&label);
        lo = *s;
    }
}

/// Recall and precision at J ≥ 0.8 for both schemes.
fn lsh(docs: &[Doc], pairs: &[(usize, usize)]) -> Result<(), Box<dyn std::error::Error>> {
    let t = 0.8f32;
    let banding = LshIndexBuilder::for_recall(f64::from(t), H, 0.999)?;
    let mut def: LshIndex<H> = banding.try_build()?;
    let mut fast: FastLshIndex<H> = FastLshIndex::from_builder(banding)?;
    for (i, d) in docs.iter().enumerate() {
        if let Some(s) = d.default {
            def.insert(i as u64, s);
        }
        if let Some(s) = d.fast {
            fast.insert(i as u64, s);
        }
    }
    let truth: Vec<(usize, usize)> = pairs
        .iter()
        .copied()
        .filter(|&(a, b)| exact(&docs[a].set, &docs[b].set) >= f64::from(t))
        .collect();
    println!(
        "\nLSH at J >= {t}, banding {}x{}: {} planted pairs with exact J >= {t}\n",
        banding.bands,
        banding.rows,
        truth.len()
    );
    println!(
        "| scheme | candidate recall | verified recall | verified pairs (corpus) | precision |"
    );
    println!("|---|---:|---:|---:|---:|");
    type Query<'a> = Box<dyn Fn(usize, bool) -> Vec<u64> + 'a>;
    let runs: [(&str, Query); 2] = [
        (
            "default",
            Box::new(|i, verify| match docs[i].default {
                Some(s) if verify => def.query_with_threshold(&s, t),
                Some(s) => def.query(&s),
                None => Vec::new(),
            }),
        ),
        (
            "fast",
            Box::new(|i, verify| match docs[i].fast {
                Some(s) if verify => fast.query_with_threshold(&s, t),
                Some(s) => fast.query(&s),
                None => Vec::new(),
            }),
        ),
    ];
    for (name, query) in runs {
        let recall = |verify: bool| {
            let hit = truth
                .iter()
                .filter(|&&(a, b)| query(a, verify).contains(&(b as u64)))
                .count();
            hit as f64 / truth.len().max(1) as f64
        };
        let (cand, ver) = (recall(false), recall(true));
        let mut found: HashSet<(usize, usize)> = HashSet::new();
        for i in 0..docs.len() {
            for j in query(i, true) {
                let j = j as usize;
                if j > i {
                    found.insert((i, j));
                }
            }
        }
        let correct = found
            .iter()
            .filter(|&&(a, b)| exact(&docs[a].set, &docs[b].set) >= f64::from(t))
            .count();
        println!(
            "| {name} | {cand:.4} | {ver:.4} | {} | {:.4} |",
            found.len(),
            correct as f64 / found.len().max(1) as f64
        );
    }
    Ok(())
}
