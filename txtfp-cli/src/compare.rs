//! `txtfp compare A B`: the similarity measures of two documents (MinHash,
//! the fast MinHash scheme, SimHash, TLSH).

use std::io::Write;

use txtfp::classical::minhash::FastMinHashFingerprinter;
use txtfp::{
    Canonicalizer, Fingerprinter, MinHashFingerprinter, ShingleTokenizer, SimHashFingerprinter,
    TLSH_MIN_INPUT_BYTES, TlshFingerprinter, WordTokenizer, cosine_estimate, hamming, jaccard,
    tlsh_distance,
};

use crate::args::CompareArgs;
use crate::dedup::check_k;
use crate::error::{CliError, CliResult};
use crate::input::read_text;

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
    let (name_a, text_a) = load(&a.a)?;
    let (name_b, text_b) = load(&a.b)?;
    let canon = Canonicalizer::default();
    let shingles = |k| ShingleTokenizer {
        k,
        inner: WordTokenizer,
    };

    let mh = MinHashFingerprinter::<_, 128>::new(canon.clone(), shingles(k_min));
    let minhash = both(&text_a, &text_b, |t| mh.fingerprint(t)).map(|(x, y)| jaccard(&x, &y));
    let fast = FastMinHashFingerprinter::<_, 128>::new(canon.clone(), shingles(k_min));
    let minhash_fast = both(&text_a, &text_b, |t| fast.fingerprint(t)).map(|(x, y)| x.jaccard(&y));

    let simhash = if k_sim == 1 {
        let f = SimHashFingerprinter::new(canon.clone(), WordTokenizer);
        both(&text_a, &text_b, |t| f.fingerprint(t))
    } else {
        let f = SimHashFingerprinter::new(canon.clone(), shingles(k_sim));
        both(&text_a, &text_b, |t| f.fingerprint(t))
    }
    .map(|(x, y)| (hamming(x, y), cosine_estimate(x, y)));

    let tl = TlshFingerprinter::new(canon);
    let tlsh = both(&text_a, &text_b, |t| tl.fingerprint(t))
        .and_then(|(x, y)| tlsh_distance(&x, &y).map_err(|e| e.to_string()));

    let report = Report {
        a: (&name_a, text_a.len()),
        b: (&name_b, text_b.len()),
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

fn load(path: &std::path::Path) -> CliResult<(String, String)> {
    read_text(path)
}

/// Fingerprints both texts; the error says which side failed and why.
fn both<S>(a: &str, b: &str, f: impl Fn(&str) -> txtfp::Result<S>) -> Result<(S, S), String> {
    let x = f(a).map_err(|e| format!("A: {}", reason(&e)))?;
    let y = f(b).map_err(|e| format!("B: {}", reason(&e)))?;
    Ok((x, y))
}

fn reason(e: &txtfp::Error) -> String {
    match e {
        txtfp::Error::InvalidInput(m) => m.clone(),
        other => other.to_string(),
    }
}

struct Report<'a> {
    a: (&'a str, usize),
    b: (&'a str, usize),
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
