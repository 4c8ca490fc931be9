//! `txtfp compare A B`: the similarity measures of two documents (MinHash,
//! the fast MinHash scheme, SimHash, TLSH).

use std::io::Write;

use txtfp::classical::minhash::FastMinHashFingerprinter;
use txtfp::{
    Canonicalizer, MinHashFingerprinter, ShingleTokenizer, SimHashFingerprinter,
    TLSH_MIN_INPUT_BYTES, TlshFingerprinter, WordTokenizer, cosine_estimate, hamming, jaccard,
    tlsh_distance,
};

use crate::args::CompareArgs;
use crate::dedup::check_k;
use crate::error::{CliError, CliResult};
use crate::fingerprint::Signer;
use crate::stream::{Limits, Signature, Stream, read_into};

/// Runs `txtfp compare`.
pub fn run(a: &CompareArgs) -> CliResult {
    if a.a.as_os_str() == "-" && a.b.as_os_str() == "-" {
        return Err(CliError::Usage(
            "stdin (`-`) can be only one of the two inputs".into(),
        ));
    }
    let k_min = a.tokens.k_for(true);
    let k_sim = a.tokens.k_for(false);
    check_k(k_min)?;
    let canon = Canonicalizer::default();
    let shingles = |k| ShingleTokenizer {
        k,
        inner: WordTokenizer,
    };
    let signers = [
        Signer::MinHash(MinHashFingerprinter::new(canon.clone(), shingles(k_min))),
        Signer::FastMinHash(FastMinHashFingerprinter::new(
            canon.clone(),
            shingles(k_min),
        )),
        if k_sim == 1 {
            Signer::SimHashWords(SimHashFingerprinter::new(canon.clone(), WordTokenizer))
        } else {
            Signer::SimHashShingles(SimHashFingerprinter::new(canon.clone(), shingles(k_sim)))
        },
        Signer::Tlsh(TlshFingerprinter::new(canon)),
    ];
    let limits = Limits::new(a.max_bytes);
    let (name_a, bytes_a, sigs_a) = load(&a.a, &signers, limits)?;
    let (name_b, bytes_b, sigs_b) = load(&a.b, &signers, limits)?;
    let [mh_a, fast_a, sim_a, tlsh_a] = sigs_a;
    let [mh_b, fast_b, sim_b, tlsh_b] = sigs_b;

    let minhash = both(mh_a, mh_b).and_then(|pair| match pair {
        (Signature::MinHash(x), Signature::MinHash(y)) => Ok(jaccard(&x, &y)),
        _ => Err(MISMATCH.into()),
    });
    let minhash_fast = both(fast_a, fast_b).and_then(|pair| match pair {
        (Signature::FastMinHash(x), Signature::FastMinHash(y)) => Ok(x.jaccard(&y)),
        _ => Err(MISMATCH.into()),
    });
    let simhash = both(sim_a, sim_b).and_then(|pair| match pair {
        (Signature::SimHash(x), Signature::SimHash(y)) => {
            Ok((hamming(x, y), cosine_estimate(x, y)))
        }
        _ => Err(MISMATCH.into()),
    });
    let tlsh = both(tlsh_a, tlsh_b).and_then(|pair| match pair {
        (Signature::Tlsh(x), Signature::Tlsh(y)) => {
            tlsh_distance(&x, &y).map_err(|e| e.to_string())
        }
        _ => Err(MISMATCH.into()),
    });

    let report = Report {
        a: (&name_a, bytes_a),
        b: (&name_b, bytes_b),
        k_min,
        k_sim,
        minhash,
        minhash_fast,
        simhash,
        tlsh,
    };
    let mut out = std::io::stdout().lock();
    let r = if a.json {
        writeln!(out, "{}", report.json())
    } else {
        out.write_all(report.table().as_bytes())
    };
    r.map_err(|e| CliError::write("<stdout>", e))
}

/// Never shown: each measure's two signatures are of its own kind.
const MISMATCH: &str = "signatures of different kinds";

/// One input read once, in chunks, into the streams of all four measures.
/// A read error, invalid UTF-8 or a limit ends the command; a measure that
/// cannot be computed (no token, too short for TLSH) is that measure's
/// error.
type Measures = [Result<Signature, txtfp::Error>; 4];

fn load(
    path: &std::path::Path,
    signers: &[Signer; 4],
    limits: Limits,
) -> CliResult<(String, u64, Measures)> {
    let mut streams = signers.each_ref().map(|s| s.stream(limits.held));
    let read = read_into(path, limits, &mut streams)?;
    let sigs = streams.map(Stream::finish);
    if sigs.iter().any(|r| r.as_ref().is_err_and(is_trailing_utf8)) {
        return Err(read.trailing_utf8_error());
    }
    Ok((read.name, read.bytes, sigs))
}

fn is_trailing_utf8(e: &txtfp::Error) -> bool {
    matches!(e, txtfp::Error::InvalidInput(m) if m == crate::stream::TRAILING_UTF8)
}

/// Both sides' signatures; the error says which side failed and why.
fn both(
    a: Result<Signature, txtfp::Error>,
    b: Result<Signature, txtfp::Error>,
) -> Result<(Signature, Signature), String> {
    let x = a.map_err(|e| format!("A: {}", reason(&e)))?;
    let y = b.map_err(|e| format!("B: {}", reason(&e)))?;
    Ok((x, y))
}

fn reason(e: &txtfp::Error) -> String {
    match e {
        txtfp::Error::InvalidInput(m) => m.clone(),
        other => other.to_string(),
    }
}

struct Report<'a> {
    a: (&'a str, u64),
    b: (&'a str, u64),
    k_min: usize,
    k_sim: usize,
    minhash: Result<f32, String>,
    minhash_fast: Result<f32, String>,
    simhash: Result<(u32, f32), String>,
    tlsh: Result<i32, String>,
}

impl Report<'_> {
    fn json(&self) -> serde_json::Value {
        let jaccard = |r: &Result<f32, String>| match r {
            Ok(j) => serde_json::json!({ "jaccard": j, "shingle": self.k_min, "slots": 128 }),
            Err(e) => serde_json::json!({ "jaccard": null, "shingle": self.k_min, "reason": e }),
        };
        let simhash = match &self.simhash {
            Ok((d, c)) => serde_json::json!({
                "hamming": d, "similarity": 1.0 - f64::from(*d) / 64.0, "cosine": c,
                "shingle": self.k_sim,
            }),
            Err(e) => serde_json::json!({ "hamming": null, "shingle": self.k_sim, "reason": e }),
        };
        let tlsh = match &self.tlsh {
            Ok(d) => serde_json::json!({ "distance": d }),
            Err(e) => serde_json::json!({ "distance": null, "reason": e }),
        };
        serde_json::json!({
            "a": { "name": self.a.0, "bytes": self.a.1 },
            "b": { "name": self.b.0, "bytes": self.b.1 },
            "minhash": jaccard(&self.minhash),
            "minhash_fast": jaccard(&self.minhash_fast),
            "simhash": simhash,
            "tlsh": tlsh,
        })
    }

    fn table(&self) -> String {
        let mut s = format!(
            "A        {} ({} bytes)\nB        {} ({} bytes)\n",
            self.a.0, self.a.1, self.b.0, self.b.1
        );
        s += &match &self.minhash {
            Ok(j) => format!(
                "minhash  Jaccard ≈ {j:.4}   (word {}-shingles, 128 slots)\n",
                self.k_min
            ),
            Err(e) => format!("minhash  n/a: {e}\n"),
        };
        s += &match &self.minhash_fast {
            Ok(j) => format!(
                "fast     Jaccard ≈ {j:.4}   (fast MinHash scheme, word {}-shingles, 128 slots)\n",
                self.k_min
            ),
            Err(e) => format!("fast     n/a: {e}\n"),
        };
        s += &match &self.simhash {
            Ok((d, c)) => format!(
                "simhash  Hamming {d}/64, similarity {:.4}, cosine ≈ {c:.4}   ({})\n",
                1.0 - f64::from(*d) / 64.0,
                if self.k_sim == 1 {
                    "words".to_string()
                } else {
                    format!("word {}-shingles", self.k_sim)
                }
            ),
            Err(e) => format!("simhash  n/a: {e}\n"),
        };
        s += &match &self.tlsh {
            Ok(d) => format!("tlsh     distance {d}   (0 = same; < 50 very similar)\n"),
            Err(e) => format!(
                "tlsh     n/a: {e} (TLSH needs at least {TLSH_MIN_INPUT_BYTES} bytes of varied canonical text)\n"
            ),
        };
        s
    }
}
