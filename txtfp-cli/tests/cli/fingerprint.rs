//! `txtfp fingerprint` and `txtfp compare`: every output format, files and
//! stdin, checked against the library's own signatures.

use crate::support::*;
use serde_json::Value;
use txtfp::classical::TextForm;
use txtfp::{
    Canonicalizer, Fingerprinter, MinHashFingerprinter, ShingleTokenizer, SimHashFingerprinter,
    TlshFingerprinter, WordTokenizer, cosine_estimate, hamming, jaccard, tlsh_distance,
};

const A: &str = "tests/data/cli/a.txt";
const B: &str = "tests/data/cli/b.txt";

fn text(rel: &str) -> String {
    read(&data(rel))
}

fn minhash(k: usize) -> MinHashFingerprinter<ShingleTokenizer<WordTokenizer>, 128> {
    MinHashFingerprinter::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k,
            inner: WordTokenizer,
        },
    )
}

fn simhash() -> SimHashFingerprinter<WordTokenizer> {
    SimHashFingerprinter::new(Canonicalizer::default(), WordTokenizer)
}

#[test]
fn json_lines_by_default_with_minhash() {
    let out = txtfp(&["fingerprint", A, B]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    assert_eq!(lines.len(), 2);
    for (line, rel) in lines.iter().zip([A, B]) {
        let want = minhash(5).fingerprint(&text(rel)).unwrap();
        assert_eq!(line["name"], rel);
        assert_eq!(line["algo"], "minhash");
        assert_eq!(line["shingle"], 5);
        assert_eq!(line["bytes"], text(rel).len());
        assert_eq!(line["signature"], want.to_hex());
        let back = txtfp::MinHashSig::<128>::from_hex(line["signature"].as_str().unwrap()).unwrap();
        assert_eq!(back, want);
    }
}

#[test]
fn fast_minhash_signatures() {
    let fp = txtfp::classical::minhash::FastMinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 3,
            inner: WordTokenizer,
        },
    );
    let out = txtfp(&["fingerprint", "--algo", "minhash-fast", "-k", "3", A]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let line = &json_lines(&stdout(&out))[0];
    let want = fp.fingerprint(&text(A)).unwrap();
    assert_eq!(line["algo"], "minhash-fast");
    assert_eq!(line["shingle"], 3);
    assert_eq!(line["signature"], want.to_hex());
    let hex = line["signature"].as_str().unwrap();
    assert_eq!(
        txtfp::classical::minhash::FastMinHashSig::<128>::from_hex(hex).unwrap(),
        want
    );
    // Tagged: the default scheme's reader refuses it.
    assert!(txtfp::MinHashSig::<128>::from_hex(hex).is_err());
}

#[test]
fn hex_and_base32_lines() {
    let want = simhash().fingerprint(&text(A)).unwrap();
    let out = txtfp(&["fingerprint", "--algo", "simhash", "--format", "hex", A]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), format!("{}\t{A}\n", want.to_hex()));
    let out = txtfp(&["fingerprint", "--algo", "simhash", "--format", "base32", A]);
    assert_eq!(stdout(&out), format!("{}\t{A}\n", want.to_base32()));
    // MinHash with another shingle size, base32.
    let want = minhash(3).fingerprint(&text(B)).unwrap();
    let out = txtfp(&["fingerprint", "-k", "3", "--format", "base32", B]);
    assert_eq!(stdout(&out), format!("{}\t{B}\n", want.to_base32()));
}

#[test]
fn tlsh_digests() {
    let want = TlshFingerprinter::default().fingerprint(&text(A)).unwrap();
    let out = txtfp(&["fingerprint", "--algo", "tlsh", "--format", "hex", A]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), format!("{}\t{A}\n", want.hex()));
    let out = txtfp(&["fingerprint", "--algo", "tlsh", "tests/data/cli/short.txt"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out)
            .contains("tests/data/cli/short.txt: invalid input: tlsh requires at least 50 bytes")
    );
}

#[test]
fn stdin_with_no_file_or_dash() {
    let input = std::fs::read(data(A)).unwrap();
    let want = format!(
        "{}\t<stdin>\n",
        minhash(5).fingerprint(&text(A)).unwrap().to_hex()
    );
    for args in [
        &["fingerprint", "--format", "hex"][..],
        &["fingerprint", "--format", "hex", "-"],
    ] {
        let out = txtfp_stdin(args, &input);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(stdout(&out), want);
    }
}

#[test]
fn jsonl_records() {
    let out = txtfp(&[
        "fingerprint",
        "--jsonl",
        "--algo",
        "simhash",
        "../examples/data/sample.jsonl",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let lines = json_lines(&stdout(&out));
    let docs = corpus(&data("../examples/data/sample.jsonl"));
    assert_eq!(lines.len(), docs.len());
    for (line, (id, t)) in lines.iter().zip(&docs) {
        assert_eq!(&line["id"], id);
        assert_eq!(
            line["signature"],
            simhash().fingerprint(t).unwrap().to_hex()
        );
    }
    // hex lines carry the id as JSON.
    let out = txtfp(&[
        "fingerprint",
        "--jsonl",
        "--format",
        "hex",
        "../examples/data/sample.jsonl",
    ]);
    let first = stdout(&out).lines().next().unwrap().to_string();
    assert_eq!(
        first,
        format!(
            "{}\t\"s001387\"",
            minhash(5).fingerprint(&docs[0].1).unwrap().to_hex()
        )
    );
}

#[test]
fn compare_table_and_json_match_the_library() {
    let (ta, tb) = (text(A), text(B));
    let j = jaccard(
        &minhash(5).fingerprint(&ta).unwrap(),
        &minhash(5).fingerprint(&tb).unwrap(),
    );
    let (sa, sb) = (
        simhash().fingerprint(&ta).unwrap(),
        simhash().fingerprint(&tb).unwrap(),
    );
    let tl = TlshFingerprinter::default();
    let d = tlsh_distance(&tl.fingerprint(&ta).unwrap(), &tl.fingerprint(&tb).unwrap()).unwrap();

    let out = txtfp(&["compare", A, B, "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["a"]["name"], A);
    assert_eq!(v["b"]["bytes"], tb.len());
    assert_eq!(v["minhash"]["jaccard"].as_f64().unwrap() as f32, j);
    assert_eq!(v["simhash"]["hamming"], hamming(sa, sb));
    assert_eq!(
        v["simhash"]["cosine"].as_f64().unwrap() as f32,
        cosine_estimate(sa, sb)
    );
    assert_eq!(v["tlsh"]["distance"], d);
    let fast = txtfp::classical::minhash::FastMinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        },
    );
    let jf = fast
        .fingerprint(&ta)
        .unwrap()
        .jaccard(&fast.fingerprint(&tb).unwrap());
    assert_eq!(v["minhash_fast"]["jaccard"].as_f64().unwrap() as f32, jf);
    assert_eq!(v["minhash_fast"]["shingle"], 5);

    let out = txtfp(&["compare", A, B]);
    let table = stdout(&out);
    assert!(table.contains(&format!("Jaccard ≈ {j:.4}")), "{table}");
    assert!(
        table.contains(&format!("fast     Jaccard ≈ {jf:.4}")),
        "{table}"
    );
    assert!(
        table.contains(&format!("Hamming {}/64", hamming(sa, sb))),
        "{table}"
    );
    assert!(table.contains(&format!("distance {d}")), "{table}");
}

#[test]
fn compare_says_why_tlsh_is_missing() {
    let short = "tests/data/cli/short.txt";
    let out = txtfp(&["compare", A, short, "--json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["tlsh"]["distance"], Value::Null);
    assert_eq!(
        v["tlsh"]["reason"],
        "B: tlsh requires at least 50 bytes, got 20"
    );
    assert!(v["minhash"]["jaccard"].as_f64().unwrap() < 0.1);
    let out = txtfp(&["compare", short, A]);
    assert!(stdout(&out).contains("tlsh     n/a: A: tlsh requires at least 50 bytes"));
}

#[test]
fn compare_reads_one_side_from_stdin() {
    let out = txtfp_stdin(&["compare", "-", B, "--json"], text(A).as_bytes());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["a"]["name"], "<stdin>");
    let file = txtfp(&["compare", A, B, "--json"]);
    let w: Value = serde_json::from_str(&stdout(&file)).unwrap();
    assert_eq!(v["minhash"], w["minhash"]);
    assert_eq!(v["tlsh"], w["tlsh"]);
}
