//! Pair precision and recall of `txtfp::dedup::MinHashDedup` against the
//! exact Jaccard similarity of every pair of documents.
//!
//! ```sh
//! cargo run --release --features parallel --example dedup_quality -- \
//!     ../shared/corpus/corpus-small.jsonl ../shared/corpus/corpus-small.truth.txtfp.jsonl
//! ```
//!
//! Arguments: a corpus JSONL (`{"id", "text"}` per line), then any number of
//! truth files (`{"a", "b", "jaccard", ...}` per line) to cross-check.
//!
//! **What counts as a true pair.** Two documents whose *exact* Jaccard
//! similarity is at least the threshold `t`, where a document's set is its
//! distinct word 5-shingles under txtfp's tokenization (default
//! `Canonicalizer`, `ShingleTokenizer { k: 5, inner: WordTokenizer }`), and
//! `J >= t` is decided in exact rational arithmetic (`100·|A∩B| >=
//! 100t·|A∪B|`). The truth files are not used as the truth: they list only
//! the planted pairs plus accidental pairs a bottom-32 sketch happened to
//! find, and their `jaccard` uses an approximation of the UAX #29 word
//! rules. Instead every pair with `J >= 0.5` is found by an exact all-pairs
//! join (prefix filtering over token ranks, then a full merge of both sets),
//! so the truth is complete. Shingles are compared by 64-bit SipHash
//! (`DefaultHasher`), independent of the hashes txtfp uses; a collision
//! would need ~2³² shingles in one pair of documents.
//!
//! A found pair is a pair the run lists (`record_pairs(true)`); precision =
//! found ∩ true / found, recall = found ∩ true / true. A run lists the pairs
//! it verified, not every pair of a cluster, so pair recall undercounts what
//! the run merges; two measures of the outcome itself follow it:
//!
//! - *cluster recall*: the true pairs whose two documents end up in one
//!   cluster;
//! - *drop precision / recall*: the documents the run drops against those an
//!   ideal run drops (the connected components of the true pairs, each
//!   keeping its first document).
//!
//! Documents without a token are kept and compared with nothing.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::BufRead;
use std::time::Instant;

use rayon::prelude::*;

use txtfp::dedup::{EmptyDocuments, MinHashDedup, MinHashScheme, Verification};
use txtfp::{Canonicalizer, LshIndexBuilder, ShingleTokenizer, Tokenizer, WordTokenizer};

/// The thresholds reported, in hundredths (exact arithmetic).
const THRESHOLDS: [u64; 4] = [50, 70, 80, 90];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let corpus = args
        .next()
        .ok_or("usage: dedup_quality CORPUS.jsonl [TRUTH.jsonl ...]")?;
    let truth_files: Vec<String> = args.collect();

    let (names, texts) = read_corpus(&corpus)?;
    let position: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    println!("corpus {corpus}: {} documents", texts.len());

    let t0 = Instant::now();
    let sets = token_sets(&texts);
    let t1 = Instant::now();
    let truth = all_pairs(&sets, THRESHOLDS[0]);
    println!(
        "exact join: {} pairs with J >= 0.5 ({} documents without a token); sets {:.1}s, join {:.1}s",
        truth.len(),
        sets.iter().filter(|s| s.is_empty()).count(),
        (t1 - t0).as_secs_f64(),
        t1.elapsed().as_secs_f64()
    );
    for path in &truth_files {
        cross_check(path, &position, &sets, &truth)?;
    }

    println!();
    println!(
        "| t | scheme | banding | verification | true pairs | found | correct | precision | recall | FP in [t−0.05, t) | FN in [t, t+0.05) | cluster recall | drop precision | drop recall | seconds |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for &t100 in &THRESHOLDS {
        let t = t100 as f32 / 100.0;
        let want: Vec<(u32, u32)> = truth
            .iter()
            .filter(|p| at_least(p.inter, p.union, t100))
            .map(|p| (p.a, p.b))
            .collect();
        let ideal_drops = dropped_by_components(texts.len(), &want);
        let recall_banding = MinHashDedup::new().with_threshold(t).banding()?;
        let (default, fast) = (MinHashScheme::Default, MinHashScheme::Fast);
        let runs = [
            (default, recall_banding, Verification::None),
            (default, recall_banding, Verification::Estimated),
            (default, recall_banding, Verification::Exact),
            (
                default,
                LshIndexBuilder::for_threshold(t, 128)?,
                Verification::Estimated,
            ),
            (fast, recall_banding, Verification::None),
            (fast, recall_banding, Verification::Estimated),
            (fast, recall_banding, Verification::Exact),
        ];
        for (scheme, banding, verification) in runs {
            let dedup = MinHashDedup::new()
                .with_scheme(scheme)
                .with_threshold(t)
                .with_banding(banding)
                .with_verification(verification)
                .with_empty_documents(EmptyDocuments::Keep)
                .with_record_pairs(true);
            let start = Instant::now();
            let report = dedup.run_texts(&texts)?;
            let secs = start.elapsed().as_secs_f64();
            let found: Vec<(u32, u32)> = report
                .pairs
                .iter()
                .map(|p| (p.a as u32, p.b as u32))
                .collect();
            let m = score(&found, &want, &sets, t100);
            let cluster: Vec<Option<usize>> = report.decisions.iter().map(|d| d.cluster).collect();
            let together = want
                .iter()
                .filter(|&&(a, b)| {
                    cluster[a as usize].is_some() && cluster[a as usize] == cluster[b as usize]
                })
                .count();
            let drops: Vec<bool> = report.decisions.iter().map(|d| !d.keep).collect();
            let both = drops
                .iter()
                .zip(&ideal_drops)
                .filter(|(x, y)| **x && **y)
                .count();
            let (run_drops, ideal) = (
                drops.iter().filter(|x| **x).count(),
                ideal_drops.iter().filter(|x| **x).count(),
            );
            println!(
                "| {t} | {scheme:?} | {}×{} | {verification:?} | {} | {} | {} | {:.4} | {:.4} | {} | {} | {:.4} | {:.4} | {:.4} | {secs:.2} |",
                banding.bands,
                banding.rows,
                want.len(),
                found.len(),
                m.correct,
                m.correct as f64 / found.len().max(1) as f64,
                m.correct as f64 / want.len().max(1) as f64,
                m.fp_near,
                m.fn_near,
                together as f64 / want.len().max(1) as f64,
                both as f64 / run_drops.max(1) as f64,
                both as f64 / ideal.max(1) as f64,
            );
        }
    }
    Ok(())
}

fn read_corpus(path: &str) -> Result<(Vec<String>, Vec<String>), Box<dyn std::error::Error>> {
    let (mut names, mut texts) = (Vec::new(), Vec::new());
    for (n, line) in std::io::BufReader::new(std::fs::File::open(path)?)
        .lines()
        .enumerate()
    {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line)?;
        let text = v["text"]
            .as_str()
            .ok_or_else(|| format!("{path}:{}: no \"text\"", n + 1))?;
        names.push(match &v["id"] {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        texts.push(text.to_string());
    }
    Ok((names, texts))
}

/// Each document's distinct shingles as sorted token ranks: rarest token
/// first (fewest documents), ties by hash. The order is what makes the
/// prefix filter of [`all_pairs`] selective.
fn token_sets(texts: &[String]) -> Vec<Vec<u32>> {
    let canon = Canonicalizer::default();
    let tok = ShingleTokenizer {
        k: 5,
        inner: WordTokenizer,
    };
    let hashed: Vec<Vec<u64>> = texts
        .par_iter()
        .map(|text| {
            let mut v = Vec::new();
            tok.for_each_token(&canon.canonicalize(text), &mut |t| {
                let mut h = DefaultHasher::new();
                t.hash(&mut h);
                v.push(h.finish());
            });
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let mut all: Vec<u64> = hashed.iter().flatten().copied().collect();
    all.par_sort_unstable();
    let mut by_freq: Vec<(u32, u64)> = Vec::new();
    for run in all.chunk_by(|a, b| a == b) {
        by_freq.push((run.len() as u32, run[0]));
    }
    by_freq.sort_unstable();
    let rank_of: HashMap<u64, u32> = by_freq
        .iter()
        .enumerate()
        .map(|(r, &(_, h))| (h, r as u32))
        .collect();
    hashed
        .par_iter()
        .map(|hs| {
            let mut ranks: Vec<u32> = hs.iter().map(|h| rank_of[h]).collect();
            ranks.sort_unstable();
            ranks
        })
        .collect()
}

/// A pair `a < b` (input positions) with its exact counts.
struct TruePair {
    a: u32,
    b: u32,
    inter: u64,
    union: u64,
}

/// `inter / union >= t100 / 100`, exactly.
fn at_least(inter: u64, union: u64, t100: u64) -> bool {
    union > 0 && 100 * inter >= t100 * union
}

fn intersection(x: &[u32], y: &[u32]) -> u64 {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => (n, i, j) = (n + 1, i + 1, j + 1),
        }
    }
    n
}

/// Every pair with `J >= t100 / 100` (AllPairs, Bayardo et al. 2007). If
/// `J(x, y) >= t` then `|x ∩ y| >= ⌈t·|x|⌉`, so the first
/// `|x| − ⌈t·|x|⌉ + 1` ranks of `x` and the matching prefix of `y` share a
/// rank: indexing and probing prefixes finds every such pair; each
/// candidate is then merged in full.
fn all_pairs(sets: &[Vec<u32>], t100: u64) -> Vec<TruePair> {
    let prefix = |len: usize| len - (t100 * len as u64).div_ceil(100) as usize + 1;
    let mut order: Vec<usize> = (0..sets.len()).filter(|&i| !sets[i].is_empty()).collect();
    // Shortest first, so probes only meet shorter-or-equal sets.
    order.sort_by_key(|&i| (sets[i].len(), i));
    let mut postings: HashMap<u32, Vec<usize>> = HashMap::new();
    let mut out = Vec::new();
    let mut seen: Vec<usize> = vec![usize::MAX; sets.len()];
    for &x in &order {
        let sx = &sets[x];
        let min_len = (t100 * sx.len() as u64).div_ceil(100) as usize;
        for &r in &sx[..prefix(sx.len())] {
            if let Some(list) = postings.get(&r) {
                for &y in list {
                    if seen[y] == x || sets[y].len() < min_len {
                        continue;
                    }
                    seen[y] = x;
                    let inter = intersection(sx, &sets[y]);
                    let union = (sx.len() + sets[y].len()) as u64 - inter;
                    if at_least(inter, union, t100) {
                        let (a, b) = (x.min(y) as u32, x.max(y) as u32);
                        out.push(TruePair { a, b, inter, union });
                    }
                }
            }
        }
        for &r in &sx[..prefix(sx.len())] {
            postings.entry(r).or_default().push(x);
        }
    }
    out.sort_by_key(|p| (p.a, p.b));
    out
}

/// Which documents an ideal run drops: every member of a connected
/// component of `pairs` but its first.
fn dropped_by_components(n: usize, pairs: &[(u32, u32)]) -> Vec<bool> {
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    for &(a, b) in pairs {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        // The smaller root wins, so every root is its component's first.
        parent[ra.max(rb) as usize] = ra.min(rb);
    }
    (0..n as u32).map(|i| root(&mut parent, i) != i).collect()
}

struct Score {
    correct: usize,
    /// False positives whose exact J is within 0.05 below the threshold.
    fp_near: usize,
    /// Missed true pairs whose exact J is within 0.05 above the threshold.
    fn_near: usize,
}

fn score(found: &[(u32, u32)], want: &[(u32, u32)], sets: &[Vec<u32>], t100: u64) -> Score {
    let want_set: std::collections::HashSet<(u32, u32)> = want.iter().copied().collect();
    let found_set: std::collections::HashSet<(u32, u32)> = found.iter().copied().collect();
    let jaccard_at_least = |&(a, b): &(u32, u32), t: u64| {
        let (x, y) = (&sets[a as usize], &sets[b as usize]);
        let inter = intersection(x, y);
        at_least(inter, (x.len() + y.len()) as u64 - inter, t)
    };
    let correct = found.iter().filter(|p| want_set.contains(p)).count();
    let fp_near = found
        .iter()
        .filter(|p| !want_set.contains(p) && jaccard_at_least(p, t100 - 5))
        .count();
    let fn_near = want
        .iter()
        .filter(|p| !found_set.contains(p) && !jaccard_at_least(p, t100 + 5))
        .count();
    Score {
        correct,
        fp_near,
        fn_near,
    }
}

/// How a truth file relates to the exact join: which of its pairs clear
/// each threshold by its own `jaccard` (or `jaccard_txtfp`) and by ours, and
/// how many exact pairs it does not list.
fn cross_check(
    path: &str,
    position: &HashMap<&str, usize>,
    sets: &[Vec<u32>],
    truth: &[TruePair],
) -> Result<(), Box<dyn std::error::Error>> {
    let mut listed: Vec<((u32, u32), f64)> = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(path)?).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line)?;
        let pos = |k: &str| {
            v[k].as_str()
                .and_then(|s| position.get(s))
                .map(|&p| p as u32)
                .ok_or_else(|| format!("{path}: unknown id in {line}"))
        };
        let (a, b) = (pos("a")?, pos("b")?);
        let j = v
            .get("jaccard_txtfp")
            .unwrap_or(&v["jaccard"])
            .as_f64()
            .unwrap_or(f64::NAN);
        listed.push(((a.min(b), a.max(b)), j));
    }
    println!("truth file {path}: {} pairs", listed.len());
    let listed_set: std::collections::HashSet<(u32, u32)> = listed.iter().map(|p| p.0).collect();
    for &t100 in &THRESHOLDS {
        let t = t100 as f64 / 100.0;
        let (mut by_file, mut agree) = (0, 0);
        for &((a, b), j) in &listed {
            let (x, y) = (&sets[a as usize], &sets[b as usize]);
            let inter = intersection(x, y);
            let ours = at_least(inter, (x.len() + y.len()) as u64 - inter, t100);
            by_file += usize::from(j >= t - 1e-9);
            agree += usize::from((j >= t - 1e-9) == ours);
        }
        let exact: Vec<&TruePair> = truth
            .iter()
            .filter(|p| at_least(p.inter, p.union, t100))
            .collect();
        let unlisted = exact
            .iter()
            .filter(|p| !listed_set.contains(&(p.a, p.b)))
            .count();
        println!(
            "  t={t}: {by_file} listed pairs have J >= t by the file; the file and the exact J agree on {agree}/{}; \
             exact pairs >= t: {}, of which not listed: {unlisted}",
            listed.len(),
            exact.len()
        );
    }
    Ok(())
}
