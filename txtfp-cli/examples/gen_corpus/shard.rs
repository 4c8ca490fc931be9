//! One shard: its documents streamed through zstd, and a truth line for
//! each planted duplicate in it.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::Path;

use txtfp::classical::DEFAULT_SEED;
use txtfp::{Canonicalizer, HashFamily, ShingleTokenizer, Tokenizer, WordTokenizer};

use crate::doc::{Plan, Role};

/// Truth histogram: ten bins of width 0.1, then J = 1 exactly.
pub const HIST_BINS: usize = 11;

#[derive(Clone, Debug, Default)]
pub struct ShardStats {
    pub file: String,
    pub docs: u64,
    pub base: u64,
    pub near: u64,
    pub exact: u64,
    pub boilerplate: u64,
    pub text_bytes: u64,
    pub jsonl_bytes: u64,
    pub zst_bytes: u64,
    pub pairs: u64,
    pub hist: [u64; HIST_BINS],
}

pub fn shard_name(index: usize) -> String {
    format!("part-{index:05}.jsonl.zst")
}

pub fn truth_part_name(index: usize) -> String {
    format!("truth-{index:05}.part")
}

pub fn doc_id(slot: u64, width: usize) -> String {
    format!("d{:0width$}", slot + 1)
}

/// Word 5-shingle sets as txtfp's exact-Jaccard verification builds them:
/// default canonical form, then the sorted distinct low halves of the
/// tokens' default XXH3-128 hashes.
pub struct TokenSets {
    canon: Canonicalizer,
    tok: ShingleTokenizer<WordTokenizer>,
    buf: String,
}

impl TokenSets {
    pub fn new() -> Self {
        TokenSets {
            canon: Canonicalizer::default(),
            tok: ShingleTokenizer {
                k: 5,
                inner: WordTokenizer,
            },
            buf: String::new(),
        }
    }

    pub fn set(&mut self, text: &str, out: &mut Vec<u64>) {
        out.clear();
        self.canon.canonicalize_into(text, &mut self.buf);
        self.tok.for_each_token(&self.buf, &mut |t| {
            out.push(HashFamily::Xxh3_64.hash128(t.as_bytes(), DEFAULT_SEED).0);
        });
        out.sort_unstable();
        out.dedup();
    }
}

/// `(|a ∩ b|, |a ∪ b|)` of two sorted distinct sets.
pub fn overlap(a: &[u64], b: &[u64]) -> (usize, usize) {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (shared, a.len() + b.len() - shared)
}

/// Jaccard as a ratio of set sizes; 0 for two empty sets, as txtfp has it.
pub fn jaccard(shared: usize, union: usize) -> f64 {
    if union == 0 {
        0.0
    } else {
        shared as f64 / union as f64
    }
}

/// Writes slots `slots` as shard `index` into `dir`, with its truth lines in
/// a part file that the caller joins in shard order.
pub fn write_shard(
    plan: &Plan<'_>,
    index: usize,
    slots: Range<u64>,
    dir: &Path,
    id_width: usize,
    zstd_level: i32,
) -> io::Result<ShardStats> {
    let name = shard_name(index);
    let file = BufWriter::with_capacity(1 << 20, File::create(dir.join(&name))?);
    let mut zst = zstd::Encoder::new(file, zstd_level)?;
    // zstd's multi-threaded mode, even with one worker, compresses each job
    // as one contiguous buffer, where the single-threaded stream's ring
    // buffer takes a slower two-segment match path: about 20 % less CPU at
    // level 3. Its output is the same for any worker count, and the worker
    // overlaps compression with generating the next documents.
    zst.multithread(1)?;
    let mut truth = BufWriter::new(File::create(dir.join(truth_part_name(index)))?);
    let mut stats = ShardStats {
        file: name,
        ..ShardStats::default()
    };
    let mut sets = TokenSets::new();
    let (mut text, mut source, mut line) = (String::new(), String::new(), Vec::new());
    let (mut set_a, mut set_b) = (Vec::new(), Vec::new());
    for slot in slots {
        let role = plan.role(slot);
        match role.source() {
            None => plan.base_text(slot, &mut text),
            Some(src) => {
                plan.base_text(src, &mut source);
                plan.variant_text(slot, role, &source, &mut text);
            }
        }
        let id = doc_id(slot, id_width);
        line.clear();
        line.extend_from_slice(b"{\"id\":\"");
        line.extend_from_slice(id.as_bytes());
        line.extend_from_slice(b"\",\"text\":");
        serde_json::to_writer(&mut line, &text)?;
        line.extend_from_slice(b"}\n");
        stats.docs += 1;
        stats.text_bytes += text.len() as u64;
        stats.jsonl_bytes += line.len() as u64;
        zst.write_all(&line)?;
        let Some(src) = role.source() else {
            stats.base += 1;
            continue;
        };
        sets.set(&source, &mut set_a);
        sets.set(&text, &mut set_b);
        let (shared, union) = overlap(&set_a, &set_b);
        let j = jaccard(shared, union);
        // Written by hand: `{}` prints the shortest decimal that reads back
        // as the same f64. serde_json 1.0.154 does not always (it wrote
        // 301/310 as 0.970967741935484, one ulp away).
        write!(
            truth,
            "{{\"a\":\"{}\",\"b\":\"{id}\",\"jaccard\":{j},\"shared\":{shared},\"union\":{union},\"relation\":\"{}\"",
            doc_id(src, id_width),
            role.relation(),
        )?;
        match role {
            Role::Base => {}
            Role::Exact { .. } => stats.exact += 1,
            Role::Near { rate, .. } => {
                stats.near += 1;
                write!(truth, ",\"rate\":{}", (rate * 1e6).round() / 1e6)?;
            }
            Role::Boilerplate { group, .. } => {
                stats.boilerplate += 1;
                write!(truth, ",\"group\":{group}")?;
            }
        }
        truth.write_all(b"}\n")?;
        stats.pairs += 1;
        let bin = if union > 0 && shared == union {
            HIST_BINS - 1
        } else {
            ((j * 10.0) as usize).min(HIST_BINS - 2)
        };
        stats.hist[bin] += 1;
    }
    let file = zst.finish()?;
    let file = file.into_inner().map_err(|e| e.into_error())?;
    stats.zst_bytes = file.metadata()?.len();
    truth.flush()?;
    Ok(stats)
}
