//! `txtfp fingerprint`: one signature per input file (or per JSONL record).

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use txtfp::classical::minhash::{FastMinHashFingerprinter, FastMinHashStreaming};
use txtfp::classical::{TextEncoding, TextForm};
use txtfp::corpus::{Corpus, Format as CorpusFormat, ReadOptions, ResolveOptions};
use txtfp::{
    Canonicalizer, Fingerprinter, MinHashFingerprinter, MinHashStreaming, ShingleTokenizer,
    SimHashFingerprinter, SimHashStreaming, TlshFingerprinter, WordTokenizer,
};

use crate::args::{Algo, FingerprintArgs, Format};
use crate::dedup::check_k;
use crate::error::{CliError, CliResult};
use crate::input::display_name;
use crate::stream::{Limits, Stream, read_into};

/// A configured fingerprinter that returns signatures as text.
pub enum Signer {
    MinHash(MinHashFingerprinter<ShingleTokenizer<WordTokenizer>, 128>),
    FastMinHash(FastMinHashFingerprinter<ShingleTokenizer<WordTokenizer>, 128>),
    SimHashWords(SimHashFingerprinter<WordTokenizer>),
    SimHashShingles(SimHashFingerprinter<ShingleTokenizer<WordTokenizer>>),
    Tlsh(TlshFingerprinter),
}

impl Signer {
    /// The library's defaults for `algo`, with word `k`-shingles.
    pub fn new(algo: Algo, k: usize) -> CliResult<Signer> {
        check_k(k)?;
        let canon = Canonicalizer::default();
        let shingles = ShingleTokenizer {
            k,
            inner: WordTokenizer,
        };
        Ok(match algo {
            Algo::Minhash => Signer::MinHash(MinHashFingerprinter::new(canon, shingles)),
            Algo::MinhashFast => {
                Signer::FastMinHash(FastMinHashFingerprinter::new(canon, shingles))
            }
            Algo::Simhash if k == 1 => {
                Signer::SimHashWords(SimHashFingerprinter::new(canon, WordTokenizer))
            }
            Algo::Simhash => Signer::SimHashShingles(SimHashFingerprinter::new(canon, shingles)),
            Algo::Tlsh => Signer::Tlsh(TlshFingerprinter::new(canon)),
        })
    }

    /// A stream computing the same signature, holding at most `held` bytes
    /// of text without a split point.
    pub fn stream(&self, held: usize) -> Stream {
        match self {
            Signer::MinHash(f) => {
                Stream::MinHash(MinHashStreaming::new(f.clone()).with_max_bytes(held))
            }
            Signer::FastMinHash(f) => {
                Stream::FastMinHash(FastMinHashStreaming::new(f.clone()).with_max_bytes(held))
            }
            Signer::SimHashWords(f) => {
                Stream::SimHashWords(SimHashStreaming::new(f.clone()).with_max_bytes(held))
            }
            Signer::SimHashShingles(f) => {
                Stream::SimHashShingles(SimHashStreaming::new(f.clone()).with_max_bytes(held))
            }
            Signer::Tlsh(f) => Stream::Tlsh(f.streaming().with_max_bytes(held)),
        }
    }

    /// The signature of `text` in `enc` (TLSH: always its `T1` hex digest).
    pub fn sign(&self, text: &str, enc: TextEncoding) -> txtfp::Result<String> {
        Ok(match self {
            Signer::MinHash(f) => f.fingerprint(text)?.to_text(enc),
            Signer::FastMinHash(f) => f.fingerprint(text)?.to_text(enc),
            Signer::SimHashWords(f) => f.fingerprint(text)?.to_text(enc),
            Signer::SimHashShingles(f) => f.fingerprint(text)?.to_text(enc),
            Signer::Tlsh(f) => f.fingerprint(text)?.into_string(),
        })
    }
}

fn algo_name(a: Algo) -> &'static str {
    match a {
        Algo::Minhash => "minhash",
        Algo::MinhashFast => "minhash-fast",
        Algo::Simhash => "simhash",
        Algo::Tlsh => "tlsh",
    }
}

/// Runs `txtfp fingerprint`.
pub fn run(a: &FingerprintArgs) -> CliResult {
    let enc = match a.format {
        Format::Base32 if a.algo == Algo::Tlsh => {
            return Err(CliError::Usage(
                "--format base32: TLSH digests have one text form, hex (`T1...`)".into(),
            ));
        }
        Format::Base32 => TextEncoding::Base32,
        Format::Json | Format::Hex => TextEncoding::Hex,
    };
    let k = a
        .tokens
        .k_for(matches!(a.algo, Algo::Minhash | Algo::MinhashFast));
    let signer = Signer::new(a.algo, k)?;
    let stdin = [PathBuf::from("-")];
    let files: &[PathBuf] = if a.files.is_empty() { &stdin } else { &a.files };
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        return Err(CliError::Usage("stdin (`-`) can be read only once".into()));
    }
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // Inputs (files) that could not be read or fingerprinted, and over the
    // JSONL records: those printed and those skipped as bad.
    let mut failures = 0usize;
    let mut tally = Tally::default();
    for path in files {
        let result = if a.jsonl {
            jsonl_file(path, a, &signer, enc, k, &mut out)
        } else {
            text_file(path, a, &signer, enc, k, &mut out)
        };
        match result {
            Ok(t) => {
                tally.printed += t.printed;
                tally.bad += t.bad;
                if tally.first_bad.is_none() {
                    tally.first_bad = t.first_bad;
                }
            }
            Err(e @ CliError::Failed(_)) if !a.strict => {
                eprintln!("txtfp: {e}");
                failures += 1;
            }
            Err(e) => return Err(e),
        }
    }
    out.flush().map_err(|e| CliError::write("<stdout>", e))?;
    if failures > 0 {
        return Err(CliError::Failed(format!(
            "{failures} input(s) could not be fingerprinted (see above)"
        )));
    }
    if tally.printed == 0 && tally.bad > 0 {
        return Err(CliError::no_valid_record(tally.bad, tally.first_bad));
    }
    Ok(())
}

/// JSONL records of one input: printed, and skipped as bad (the first one
/// named).
#[derive(Default)]
struct Tally {
    printed: u64,
    bad: u64,
    first_bad: Option<String>,
}

fn emit(
    out: &mut impl Write,
    a: &FingerprintArgs,
    k: usize,
    name_json: &str,
    extra: &str,
    sig: &str,
) -> CliResult {
    let r = match a.format {
        Format::Json => writeln!(
            out,
            "{{\"{}\":{name_json}{extra},\"algo\":\"{}\",\"shingle\":{},\"signature\":\"{sig}\"}}",
            if a.jsonl { "id" } else { "name" },
            algo_name(a.algo),
            if a.algo == Algo::Tlsh { 0 } else { k },
        ),
        Format::Hex | Format::Base32 => {
            // Plain names print as they are; JSON ids keep their quotes.
            let shown: String = if a.jsonl {
                name_json.to_string()
            } else {
                serde_json::from_str::<String>(name_json).unwrap_or_default()
            };
            writeln!(out, "{sig}\t{shown}")
        }
    };
    r.map_err(|e| CliError::write("<stdout>", e))
}

/// One file (or stdin) as one document, read in chunks into the streaming
/// form of `signer`.
fn text_file(
    path: &Path,
    a: &FingerprintArgs,
    signer: &Signer,
    enc: TextEncoding,
    k: usize,
    out: &mut impl Write,
) -> CliResult<Tally> {
    let limits = Limits::new(a.max_bytes);
    let mut streams = [signer.stream(limits.held)];
    let read = read_into(path, limits, &mut streams)?;
    let [stream] = streams;
    let sig = stream
        .finish()
        .map_err(|e| read.finish_error(e))?
        .to_text(enc);
    let name_json = serde_json::to_string(&read.name).unwrap_or_default();
    let extra = format!(",\"bytes\":{}", read.bytes);
    emit(out, a, k, &name_json, &extra, &sig)?;
    Ok(Tally::default())
}

/// One signature per record of a JSONL file (plain, `.gz` or `.zst`),
/// read block by block so that memory does not grow with the file; bad
/// records (unreadable, or that cannot be fingerprinted) are reported and
/// skipped (with `--strict`, the first one stops the run before its block
/// is printed).
fn jsonl_file(
    path: &Path,
    a: &FingerprintArgs,
    signer: &Signer,
    enc: TextEncoding,
    k: usize,
    out: &mut impl Write,
) -> CliResult<Tally> {
    let name = display_name(path);
    let stdin = path.as_os_str() == "-";
    // One input is one JSONL file, taken literally: not a folder of
    // shards, a glob or an `@list`, whose records' ids would mix.
    if !stdin {
        let meta = std::fs::metadata(path).map_err(|e| CliError::read(&name, e))?;
        if meta.is_dir() {
            return Err(CliError::read(
                &name,
                std::io::Error::from(std::io::ErrorKind::IsADirectory),
            ));
        }
    }
    let failed = |e: txtfp::corpus::CorpusError| CliError::Failed(e.to_string());
    let corpus = Corpus::resolve(
        [path],
        &ResolveOptions::default().format(Some(CorpusFormat::Jsonl)),
    )
    .map_err(failed)?;
    let literal = match corpus.shards() {
        [one] => stdin || one.path() == Some(path),
        _ => false,
    };
    if !literal {
        return Err(CliError::Failed(format!(
            "{name}: not one JSONL file (`fingerprint --jsonl` reads each input as one file)"
        )));
    }
    let opts = ReadOptions::default()
        .text_column(&a.text_column)
        .id_column(Some(&a.id_column));
    let mut tally = Tally::default();
    for shard in corpus.shards() {
        for block in shard.blocks(&opts).map_err(failed)? {
            let block = block.map_err(failed)?;
            // (id, signature) per record, or why it was skipped.
            let signed: Vec<Result<(String, txtfp::Result<String>), String>> = block
                .par_records()
                .map(|r| match r {
                    Ok(d) => Ok((
                        d.id.map_or_else(|| d.key.row.to_string(), |id| id.into_owned()),
                        signer.sign(&d.text, enc),
                    )),
                    Err(skip) => Err(skip.to_string()),
                })
                .collect();
            if a.strict {
                for r in &signed {
                    match r {
                        Err(skip) => return Err(CliError::Failed(skip.clone())),
                        Ok((id, Err(e))) => {
                            return Err(CliError::Failed(format!("{name}: id {id}: {e}")));
                        }
                        Ok(_) => {}
                    }
                }
            }
            for r in signed {
                let bad = match r {
                    Ok((id, Ok(sig))) => {
                        emit(out, a, k, &id, "", &sig)?;
                        tally.printed += 1;
                        continue;
                    }
                    Ok((id, Err(e))) => format!("{name}: id {id}: {e}"),
                    Err(skip) => {
                        eprintln!("txtfp: skipped {skip}");
                        tally.bad += 1;
                        tally.first_bad.get_or_insert(skip);
                        continue;
                    }
                };
                eprintln!("txtfp: {bad}");
                tally.bad += 1;
                tally.first_bad.get_or_insert(bad);
            }
        }
    }
    Ok(tally)
}
