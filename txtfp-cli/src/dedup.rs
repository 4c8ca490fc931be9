//! `txtfp dedup`: read a corpus, run the library's [`MinHashDedup`] or
//! [`SimHashDedup`] over it, write the kept records, the clusters and a
//! report.

use std::time::Instant;

use txtfp::dedup::{EmptyDocuments, MinHashDedup, MinHashScheme, SimHashDedup, Verification};
use txtfp::{
    Canonicalizer, DedupReport, MinHashFingerprinter, ShingleTokenizer, SimHashFingerprinter,
    WordTokenizer,
};

use crate::args::{DedupAlgo, DedupArgs, Empty};
use crate::error::{CliError, CliResult};
use crate::input::{Doc, DuplicateIds, Skip, Source, display_name};
use crate::jsonl::Columns;
use crate::output::{self, Outputs};
use crate::progress::{Progress, Tracked};

/// Bad records printed on stderr; the rest are only counted (the report
/// lists up to [`output::MAX_LISTED_SKIPS`]).
const MAX_PRINTED_SKIPS: usize = 20;

/// Runs `txtfp dedup`.
pub fn run(a: &DedupArgs) -> CliResult {
    let start = Instant::now();
    let method = Method::from_args(a)?;
    if let Some(corpus) = crate::outofcore::plan(a)? {
        #[cfg(feature = "store")]
        if a.store.is_some() {
            return Err(CliError::Usage(
                "--store works with one uncompressed input deduplicated in memory".into(),
            ));
        }
        let json = method.to_json();
        return match &method {
            Method::MinHash { dedup, .. } => {
                crate::outofcore::run(a, corpus, &|s, o| dedup.run_external(s, o), json)
            }
            Method::SimHashWords(d) => {
                crate::outofcore::run(a, corpus, &|s, o| d.run_external(s, o), json)
            }
            Method::SimHashShingles { dedup, .. } => {
                crate::outofcore::run(a, corpus, &|s, o| dedup.run_external(s, o), json)
            }
        };
    }
    let input = &a.inputs[0];
    let mut outputs = Outputs::open(a)?;
    let cols = Columns {
        text: &a.text_column,
        id: &a.id_column,
        extra: None,
    };
    let mut timings = Vec::with_capacity(4);
    let mut lap = Instant::now();
    let mut mark = |name: &'static str| {
        timings.push((name, lap.elapsed().as_secs_f64()));
        lap = Instant::now();
    };
    let source = Source::open(input, cols, a.strict)?;
    mark("read");
    let (docs, skipped) = source.docs(cols, a.strict)?;
    warn_skipped(&skipped);
    if docs.is_empty() && !skipped.is_empty() {
        return Err(CliError::no_valid_record(
            skipped.len() as u64,
            skipped.first().map(ToString::to_string),
        ));
    }
    let duplicate_ids = DuplicateIds::find(docs.iter().map(|d| d.id.as_ref()));
    duplicate_ids.warn(&display_name(input));
    mark("parse");

    let total: u64 = docs.iter().map(|d| d.bytes).sum();
    let progress = Progress::new(total, a.quiet);
    progress.phase("fingerprinting");
    let report = method.run(&docs, &progress);
    progress.finish();
    #[cfg_attr(not(feature = "store"), allow(unused_mut))]
    let mut report = report?;
    mark("dedup");
    #[cfg(feature = "store")]
    let global = match &a.store {
        Some(root) => {
            let section = crate::global::apply(root, &a.source, &docs, &mut report)?;
            mark("store");
            Some(section)
        }
        None => None,
    };
    #[cfg(not(feature = "store"))]
    let global = None;

    let written = outputs.write(source.buffer(), &docs, &report, a)?;
    mark("write");
    let elapsed = start.elapsed().as_secs_f64();
    let summary = output::Summary {
        input: display_name(input),
        format: source.format(),
        bytes: source.bytes(),
        method: method.describe(),
        method_json: method.to_json(),
        seconds: elapsed,
        threads: rayon::current_num_threads(),
        skipped: &skipped,
        duplicate_ids: &duplicate_ids,
        timings: &timings,
        global,
    };
    outputs.finish(&written, &report, &summary, a.quiet)
}

fn warn_skipped(skipped: &[Skip]) {
    for s in skipped.iter().take(MAX_PRINTED_SKIPS) {
        eprintln!("txtfp: skipped {s}");
    }
    if skipped.len() > MAX_PRINTED_SKIPS {
        eprintln!(
            "txtfp: ... and {} more bad records (listed in the report)",
            skipped.len() - MAX_PRINTED_SKIPS
        );
    }
}

/// The configured method, checked before any input is read.
enum Method {
    MinHash {
        dedup: MinHashDedup,
        k: usize,
    },
    SimHashWords(SimHashDedup<WordTokenizer>),
    SimHashShingles {
        dedup: SimHashDedup<ShingleTokenizer<WordTokenizer>>,
        k: usize,
    },
}

impl Method {
    fn from_args(a: &DedupArgs) -> CliResult<Method> {
        let empty = match a.empty {
            Empty::Keep => EmptyDocuments::Keep,
            Empty::Drop => EmptyDocuments::Drop,
        };
        let minhash = matches!(a.algo, DedupAlgo::Minhash | DedupAlgo::MinhashFast);
        let k = a.tokens.k_for(minhash);
        check_k(k)?;
        let canon = Canonicalizer::default();
        match a.algo {
            DedupAlgo::Minhash | DedupAlgo::MinhashFast => {
                let fp = MinHashFingerprinter::<_, 128>::new(
                    canon,
                    ShingleTokenizer {
                        k,
                        inner: WordTokenizer,
                    },
                );
                let verification = if a.estimated {
                    Verification::Estimated
                } else {
                    Verification::Exact
                };
                let scheme = if a.algo == DedupAlgo::MinhashFast {
                    MinHashScheme::Fast
                } else {
                    MinHashScheme::Default
                };
                let dedup = MinHashDedup::with_fingerprinter(fp)
                    .with_scheme(scheme)
                    .with_threshold(a.threshold)
                    .with_verification(verification)
                    .with_empty_documents(empty);
                // A bad threshold is a usage error, found before reading.
                dedup
                    .banding()
                    .map_err(|e| CliError::Usage(format!("--threshold {}: {e}", a.threshold)))?;
                Ok(Method::MinHash { dedup, k })
            }
            DedupAlgo::Simhash => {
                let max = txtfp::lsh::MAX_AUTO_DISTANCE;
                if a.max_hamming > max {
                    return Err(CliError::Usage(format!(
                        "--max-hamming {} is above the largest supported distance, {max}",
                        a.max_hamming
                    )));
                }
                if k == 1 {
                    let fp = SimHashFingerprinter::new(canon, WordTokenizer);
                    Ok(Method::SimHashWords(
                        SimHashDedup::with_fingerprinter(fp)
                            .with_max_distance(a.max_hamming)
                            .with_empty_documents(empty),
                    ))
                } else {
                    let tok = ShingleTokenizer {
                        k,
                        inner: WordTokenizer,
                    };
                    let fp = SimHashFingerprinter::new(canon, tok);
                    Ok(Method::SimHashShingles {
                        dedup: SimHashDedup::with_fingerprinter(fp)
                            .with_max_distance(a.max_hamming)
                            .with_empty_documents(empty),
                        k,
                    })
                }
            }
        }
    }

    /// Runs the library over the documents, in input order; a document's id
    /// in the report is its position in `docs`.
    fn run(&self, docs: &[Doc<'_>], progress: &Progress) -> CliResult<DedupReport> {
        let texts: Vec<Tracked<'_>> = docs
            .iter()
            .map(|d| Tracked::new(&d.text, d.bytes, progress))
            .collect();
        let report = match self {
            Method::MinHash { dedup, .. } => dedup.run_texts(&texts),
            Method::SimHashWords(d) => d.run_texts(&texts),
            Method::SimHashShingles { dedup, .. } => dedup.run_texts(&texts),
        };
        report.map_err(|e| name_document(e, docs))
    }

    /// For the summary on stderr.
    fn describe(&self) -> String {
        match self {
            Method::MinHash { dedup, k } => format!(
                "{}, word {k}-shingles, threshold {}, {} verification",
                scheme_name(dedup.scheme()),
                dedup.threshold(),
                verification_name(dedup.verification())
            ),
            Method::SimHashWords(d) => format!("simhash, words, max Hamming {}", d.max_distance()),
            Method::SimHashShingles { dedup, k } => format!(
                "simhash, word {k}-shingles, max Hamming {}",
                dedup.max_distance()
            ),
        }
    }

    /// For the JSON report.
    fn to_json(&self) -> serde_json::Value {
        match self {
            Method::MinHash { dedup, k } => serde_json::json!({
                "algo": scheme_name(dedup.scheme()),
                "shingle": k,
                "slots": 128,
                // Through its decimal text: 0.8, not 0.800000011920929.
                "threshold": dedup.threshold().to_string().parse::<f64>().ok(),
                "verification": verification_name(dedup.verification()),
            }),
            Method::SimHashWords(d) => serde_json::json!({
                "algo": "simhash", "shingle": 1, "max_hamming": d.max_distance(),
            }),
            Method::SimHashShingles { dedup, k } => serde_json::json!({
                "algo": "simhash", "shingle": k, "max_hamming": dedup.max_distance(),
            }),
        }
    }
}

/// The library names a failing document by its position (`(item N)`),
/// which is its id here; add the input's own id.
fn name_document(e: txtfp::Error, docs: &[Doc<'_>]) -> CliError {
    let msg = e.to_string();
    let item = msg
        .split_once("(item ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .and_then(|(n, _)| n.parse::<usize>().ok());
    match item.and_then(|i| docs.get(i)) {
        Some(doc) => CliError::Failed(format!("{msg} (input id {})", doc.id)),
        None => CliError::from(e),
    }
}

/// The `--algo` value of a MinHash scheme.
fn scheme_name(s: MinHashScheme) -> &'static str {
    match s {
        MinHashScheme::Fast => "minhash-fast",
        _ => "minhash",
    }
}

fn verification_name(v: Verification) -> &'static str {
    match v {
        Verification::None => "none",
        Verification::Estimated => "estimated",
        _ => "exact",
    }
}

/// Shingle sizes the tokenizer accepts.
pub fn check_k(k: usize) -> CliResult {
    if k == 0 || k > txtfp::tokenize::MAX_SHINGLE_K {
        return Err(CliError::Usage(format!(
            "--shingle {k}: must be between 1 and {}",
            txtfp::tokenize::MAX_SHINGLE_K
        )));
    }
    Ok(())
}
