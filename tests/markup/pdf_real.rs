//! `pdf_to_text` on real PDFs: typeset from text by groff and converted by
//! ghostscript's ps2pdf (Debian packages, installed by scripts/setup-pdf.sh),
//! encrypted by qpdf; and the committed `tests/data/pdf-sample.pdf` (made the
//! same way from `pdf-sample.txt`).
#![cfg(feature = "pdf")]

use crate::pdf_support::*;
use txtfp::markup::pdf_to_text;
use txtfp::{
    Canonicalizer, Fingerprinter, MinHashFingerprinter, ShingleTokenizer, Tokenizer, WordTokenizer,
    jaccard,
};

fn words(text: &str) -> Vec<String> {
    let canon = Canonicalizer::default().canonicalize(text);
    let mut v = Vec::new();
    WordTokenizer.for_each_token(&canon, &mut |t| v.push(t.to_string()));
    v
}

/// Share of `want`'s words found in `got`, in order (longest common
/// subsequence over words / len(want)).
fn in_order_recall(want: &[String], got: &[String]) -> f64 {
    let mut prev = vec![0u32; got.len() + 1];
    for w in want {
        let mut cur = vec![0u32; got.len() + 1];
        for (j, g) in got.iter().enumerate() {
            cur[j + 1] = if w == g {
                prev[j] + 1
            } else {
                cur[j].max(prev[j + 1])
            };
        }
        prev = cur;
    }
    f64::from(prev[got.len()]) / want.len() as f64
}

fn similarity(a: &str, b: &str) -> f32 {
    let fp = MinHashFingerprinter::<_, 128>::new(
        Canonicalizer::default(),
        ShingleTokenizer {
            k: 3,
            inner: WordTokenizer,
        },
    );
    jaccard(&fp.fingerprint(a).unwrap(), &fp.fingerprint(b).unwrap())
}

fn check_extraction(source: &str, pdf: &[u8]) -> String {
    let text = pdf_to_text(pdf).unwrap();
    let (want, got) = (words(source), words(&text));
    let recall = in_order_recall(&want, &got);
    let sim = similarity(source, &text);
    eprintln!(
        "{} words in, {} out; in-order recall {recall:.3}; minhash k=3 jaccard {sim:.3}",
        want.len(),
        got.len()
    );
    assert!(recall > 0.97, "recall {recall}");
    assert!(sim > 0.8, "jaccard {sim}");
    for w in ["café", "naïve", "résumé", "zürich", "façade"] {
        assert!(got.iter().any(|g| g == w), "{w} missing");
    }
    text
}

#[test]
fn committed_sample() {
    let source = std::fs::read_to_string(crate::common::data_file("pdf-sample.txt")).unwrap();
    let pdf = std::fs::read(crate::common::data_file("pdf-sample.pdf")).unwrap();
    check_extraction(&source, &pdf);
}

/// A longer document typeset here by the installed tools: four pages of
/// prose (the committed Debian README and HTML pages, as text).
#[test]
fn groff_ghostscript_pdfs() {
    let Some(tools) = tools() else { return };
    let dir = scratch_dir("real");
    let mut source = std::fs::read_to_string(crate::common::data_file("pdf-sample.txt")).unwrap();
    for page in [
        "markup/zlib1g-dev__examples__zlib_how.html",
        "markup/libffi8__html__The-Closure-API.html",
    ] {
        let html = std::fs::read_to_string(crate::common::data_file(page)).unwrap();
        let text =
            txtfp::markup::html_to_text_with(&html, txtfp::markup::HtmlOptions::default()).unwrap();
        source.push_str("\n\n");
        source.push_str(&text);
    }
    let path = tools.text_pdf(&dir, "doc", &source);
    let pdf = std::fs::read(&path).unwrap();
    assert!(pdf.len() > 10_000);
    check_extraction(&source, &pdf);

    // Owner password only: readers open it without asking, and so do we.
    let open = dir.join("owner-only.pdf");
    tools.encrypt(&path, &open, "", "owner-secret");
    let text = pdf_to_text(&std::fs::read(&open).unwrap()).unwrap();
    assert!(similarity(&source, &text) > 0.8);

    // A user password: a clear error, no text, no panic.
    let locked = dir.join("locked.pdf");
    tools.encrypt(&path, &locked, "user-secret", "owner-secret");
    let err = pdf_to_text(&std::fs::read(&locked).unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.contains("encrypted"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
