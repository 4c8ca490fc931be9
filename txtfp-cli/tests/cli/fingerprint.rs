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
    // Compressed JSONL, read block by block, gives the same lines.
    let dir = fresh_dir("fingerprint_jsonl_zst");
    let zst = dir.join("sample.jsonl.zst");
    std::fs::write(
        &zst,
        zstd::encode_all(read(&data("../examples/data/sample.jsonl")).as_bytes(), 3).unwrap(),
    )
    .unwrap();
    let compressed = txtfp(&[
        "fingerprint",
        "--jsonl",
        "--format",
        "hex",
        zst.to_str().unwrap(),
    ]);
    assert_eq!(code(&compressed), 0, "{}", stderr(&compressed));
    assert_eq!(stdout(&compressed), stdout(&out));
    std::fs::remove_dir_all(&dir).unwrap();
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

/// The CLI's read size: files are fed to the streams in pieces of this many
/// bytes, so the tests put multi-byte characters across its multiples.
const READ_CHUNK: usize = 256 << 10;

/// About `len` bytes of text that canonicalization changes (case, NFKC,
/// combining marks, zero-width characters, CJK without spaces), with a
/// 3-byte character straddling every multiple of [`READ_CHUNK`] and a
/// 4-byte one near the end; lines of varying length so that the engine's
/// 8 KiB batches end at varying places.
fn generated(len: usize) -> Vec<u8> {
    let pieces = [
        "The Quick brown ﬁle ①② ",
        "café\u{0301} naïve ",
        "中文没有空格的句子继续",
        "A\u{30A}ngström\u{200B}x ",
        "Ελληνικά ΚΕΊΜΕΝΟ ",
        "plain ascii words here ",
    ];
    let mut out = Vec::with_capacity(len + 64);
    let mut i = 0usize;
    while out.len() < len {
        let boundary = (out.len() / READ_CHUNK + 1) * READ_CHUNK;
        if out.len() + 2 == boundary || out.len() + 1 == boundary {
            // U+4E2D (3 bytes) starting one or two bytes before the boundary.
            out.extend_from_slice("中".as_bytes());
            continue;
        }
        out.extend_from_slice(pieces[i % pieces.len()].as_bytes());
        if i % 7 == 6 {
            out.push(b'\n');
        }
        i += 1;
    }
    out.extend_from_slice("😀 end\n".as_bytes());
    out
}

#[test]
fn streamed_files_equal_whole_file_signatures() {
    let dir = fresh_dir("streamed");
    let fast = txtfp::classical::minhash::FastMinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 5,
            inner: WordTokenizer,
        },
    );
    let sim3 = SimHashFingerprinter::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 3,
            inner: WordTokenizer,
        },
    );
    let tl = TlshFingerprinter::default();
    for len in [
        300,
        8 << 10,
        READ_CHUNK - 1,
        READ_CHUNK + 5,
        2 * READ_CHUNK + 900,
    ] {
        let bytes = generated(len);
        let text = String::from_utf8(bytes.clone()).unwrap();
        let path = dir.join(format!("doc-{len}.txt"));
        std::fs::write(&path, &bytes).unwrap();
        let p = path.to_str().unwrap();
        let sig = |args: &[&str]| {
            let mut all = vec!["fingerprint", "--format", "hex"];
            all.extend_from_slice(args);
            all.push(p);
            let out = txtfp(&all);
            assert_eq!(code(&out), 0, "{len} {args:?}: {}", stderr(&out));
            stdout(&out).split('\t').next().unwrap().to_string()
        };
        assert_eq!(
            sig(&[]),
            minhash(5).fingerprint(&text).unwrap().to_hex(),
            "{len}"
        );
        assert_eq!(
            sig(&["--algo", "minhash-fast"]),
            fast.fingerprint(&text).unwrap().to_hex(),
            "{len}"
        );
        assert_eq!(
            sig(&["--algo", "simhash"]),
            simhash().fingerprint(&text).unwrap().to_hex(),
            "{len}"
        );
        assert_eq!(
            sig(&["--algo", "simhash", "-k", "3"]),
            sim3.fingerprint(&text).unwrap().to_hex(),
            "{len}"
        );
        assert_eq!(
            sig(&["--algo", "tlsh"]),
            tl.fingerprint(&text).unwrap().hex(),
            "{len}"
        );
        // The byte count is the file's.
        let out = txtfp(&["fingerprint", p]);
        assert_eq!(json_lines(&stdout(&out))[0]["bytes"], bytes.len());
    }
}

#[test]
fn compare_streams_both_inputs() {
    let dir = fresh_dir("compare_streamed");
    let a = generated(READ_CHUNK + 300);
    let mut b = a.clone();
    b.extend_from_slice(b"one more line of plain words at the end of the second file\n");
    let (pa, pb) = (dir.join("a.txt"), dir.join("b.txt"));
    std::fs::write(&pa, &a).unwrap();
    std::fs::write(&pb, &b).unwrap();
    let (ta, tb) = (
        String::from_utf8(a.clone()).unwrap(),
        String::from_utf8(b.clone()).unwrap(),
    );
    let out = txtfp(&[
        "compare",
        pa.to_str().unwrap(),
        pb.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["a"]["bytes"], a.len());
    assert_eq!(v["b"]["bytes"], b.len());
    let j = jaccard(
        &minhash(5).fingerprint(&ta).unwrap(),
        &minhash(5).fingerprint(&tb).unwrap(),
    );
    assert_eq!(v["minhash"]["jaccard"].as_f64().unwrap() as f32, j);
    let (sa, sb) = (
        simhash().fingerprint(&ta).unwrap(),
        simhash().fingerprint(&tb).unwrap(),
    );
    assert_eq!(v["simhash"]["hamming"], hamming(sa, sb));
    let tl = TlshFingerprinter::default();
    let d = tlsh_distance(&tl.fingerprint(&ta).unwrap(), &tl.fingerprint(&tb).unwrap()).unwrap();
    assert_eq!(v["tlsh"]["distance"], d);
}

#[test]
fn invalid_utf8_is_named_at_its_byte_across_reads() {
    let dir = fresh_dir("stream_utf8");
    // A bad byte just past the first read, and a file cut inside a
    // character: both named at the byte the whole-file check names.
    let mut bad = generated(READ_CHUNK + 100);
    bad[READ_CHUNK + 3] = 0xFF;
    let want = std::str::from_utf8(&bad).unwrap_err().valid_up_to() + 1;
    let mut cut = b"plain words then caf".to_vec();
    cut.extend_from_slice(&"é".as_bytes()[..1]);
    for (name, bytes, at) in [("bad.txt", bad, want), ("cut.txt", cut, 21)] {
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap();
        let p = path.to_str().unwrap();
        for args in [
            vec!["fingerprint", p],
            vec!["fingerprint", "--algo", "tlsh", p],
            vec!["compare", "tests/data/cli/a.txt", p],
        ] {
            let out = txtfp(&args);
            assert_eq!(code(&out), 1, "{args:?}");
            assert_eq!(
                stderr(&out).lines().next().unwrap(),
                format!("txtfp: {p}: invalid UTF-8 at byte {at}"),
                "{args:?}"
            );
        }
    }
}

#[test]
fn max_bytes_ends_endless_and_unsplittable_input() {
    // /dev/zero: NUL bytes never offer a place to cut the text, so the
    // stream refuses to hold more than --max-bytes of them.
    let out = txtfp(&["fingerprint", "--max-bytes", "1MiB", "/dev/zero"]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(err.starts_with("txtfp: /dev/zero: "), "{err}");
    assert!(err.contains("--max-bytes"), "{err}");
    // Endless splittable text (`yes`) ends at the limit too.
    let yes = b"y\n".repeat(600 << 10);
    let out = txtfp_stdin(&["fingerprint", "--max-bytes", "1MiB"], &yes);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out).lines().next().unwrap(),
        "txtfp: <stdin>: longer than --max-bytes (1048576 bytes); not fingerprinted"
    );
    // A file over the limit is refused before it is read; one under it is not.
    let out = txtfp(&["compare", A, B, "--max-bytes", "300"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains(&format!("{B}: longer than --max-bytes (300 bytes)")));
    let out = txtfp(&["fingerprint", "--max-bytes", "300", A]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Text without a split point is held whole, within the limit, and gets
    // the whole text's signature.
    let dir = fresh_dir("unsplittable");
    let path = dir.join("cjk.txt");
    let cjk = "中文".repeat(200);
    std::fs::write(&path, &cjk).unwrap();
    let out = txtfp(&[
        "fingerprint",
        "--format",
        "hex",
        "--max-bytes",
        "2000",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).starts_with(&minhash(5).fingerprint(&cjk).unwrap().to_hex()));
    let out = txtfp(&["fingerprint", "--max-bytes", "12x", A]);
    assert_eq!(code(&out), 2);
}
