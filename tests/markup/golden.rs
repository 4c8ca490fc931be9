//! `html_to_text` and `markdown_to_text` against txtfp 0.3.2's outputs.
//!
//! * the golden sets (`markdown_text`, `html_text` of every document):
//!   committed compact digests always, the full sets in ../shared when there;
//! * `tests/data/markup-ref-pages.jsonl`: real HTML pages and Markdown files
//!   from Debian's /usr/share/doc, with the digests of 0.3.2's output
//!   (made by ../shared/tools/txtfp-ref, see `tests/data/markup-ref.md`).
//!
//! Every difference must be one of the deliberate fixes; the tests name the
//! documents where that happens so a new difference fails.
#![cfg(feature = "markup")]

use crate::common::*;
use txtfp::markup::{MarkdownSyntax, markdown_to_text_as};
use txtfp::{MarkdownOptions, html_to_text, markdown_to_text};

/// 0.3.2's parse: CommonMark only, default switches.
fn commonmark(md: &str) -> txtfp::Result<String> {
    markdown_to_text_as(md, MarkdownOptions::default(), MarkdownSyntax::CommonMark)
}

/// What a golden record should say, and what we say.
struct Outcome {
    id: String,
    html_ok: bool,
    md_commonmark_ok: bool,
    md_default_ok: bool,
}

fn check(id: &str, text: &str, want_html: &str, want_md: &str, digest: bool) -> Outcome {
    let f = |s: &str| {
        if digest {
            fnv(s.as_bytes())
        } else {
            s.to_string()
        }
    };
    let html = html_to_text(text).unwrap();
    let md_cm = commonmark(text).unwrap();
    let md_default = markdown_to_text(text).unwrap();
    Outcome {
        id: id.to_string(),
        html_ok: f(&html) == want_html,
        md_commonmark_ok: f(&md_cm) == want_md,
        md_default_ok: f(&md_default) == want_md,
    }
}

/// Uses GFM syntax that 0.3.2 left as text (a table row, `~~` or `~`
/// strikethrough, a task box, a footnote): the only documents where the default may differ.
fn has_gfm_syntax(text: &str) -> bool {
    text.contains('|')
        || text.contains('~')
        || text.contains("[^")
        || text.contains("[ ]")
        || text.contains("[x]")
        || text.contains("[X]")
}

/// Holds a `<script`/`<style`/raw-text opener 0.3.2 mishandles: inside a
/// comment or an attribute, or never closed (W17).
fn has_w17_opener(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    [
        "<script",
        "<style",
        "<title",
        "<textarea",
        "<xmp",
        "<iframe",
        "<noembed",
        "<noframes",
    ]
    .iter()
    .any(|t| lower.contains(t))
}

fn summarize(name: &str, texts: &[(String, String)], outcomes: &[Outcome]) {
    let n = outcomes.len();
    let html_bad: Vec<&Outcome> = outcomes.iter().filter(|o| !o.html_ok).collect();
    let cm_bad: Vec<&str> = outcomes
        .iter()
        .filter(|o| !o.md_commonmark_ok)
        .map(|o| o.id.as_str())
        .collect();
    let default_bad: Vec<&Outcome> = outcomes.iter().filter(|o| !o.md_default_ok).collect();
    eprintln!(
        "{name}: {n} documents; html_to_text differs on {}, markdown CommonMark on {}, markdown default (GFM) on {}",
        html_bad.len(),
        cm_bad.len(),
        default_bad.len()
    );
    let text_of = |id: &str| &texts.iter().find(|(i, _)| i == id).unwrap().1;
    assert!(
        cm_bad.is_empty(),
        "{name}: CommonMark markdown differs: {cm_bad:?}"
    );
    for o in &default_bad {
        assert!(
            has_gfm_syntax(text_of(&o.id)),
            "{name}: default markdown differs on {} which has no GFM syntax",
            o.id
        );
    }
    for o in &html_bad {
        assert!(
            has_w17_opener(text_of(&o.id)),
            "{name}: html_to_text differs on {} which has no script/style/raw-text opener",
            o.id
        );
    }
}

fn run_compact(file: &str) {
    let recs = read_jsonl(&data_file(file));
    let mut texts = Vec::new();
    let mut outcomes = Vec::new();
    for r in &recs {
        let id = r["id"].to_string();
        let text = r["text"].as_str().unwrap();
        outcomes.push(check(
            &id,
            text,
            r["html_text_digest"].as_str().unwrap(),
            r["markdown_text_digest"].as_str().unwrap(),
            true,
        ));
        texts.push((id, text.to_string()));
    }
    assert!(outcomes.len() > 50);
    summarize(file, &texts, &outcomes);
}

#[test]
fn compact_goldens_edge() {
    run_compact("golden-edge.compact.jsonl");
}

#[test]
fn compact_goldens_small() {
    run_compact("golden-small.compact.jsonl");
}

fn run_full(corpus: &str, golden: &str) {
    let (Some(c), Some(g)) = (shared_file(corpus), shared_file(golden)) else {
        return;
    };
    let by_id: std::collections::HashMap<String, String> = read_jsonl(&c)
        .into_iter()
        .map(|v| (v["id"].to_string(), v["text"].as_str().unwrap().to_string()))
        .collect();
    let mut texts = Vec::new();
    let mut outcomes = Vec::new();
    for r in read_jsonl(&g) {
        let id = r["id"].to_string();
        let text = &by_id[&id];
        outcomes.push(check(
            &id,
            text,
            r["html_text"].as_str().unwrap(),
            r["markdown_text"].as_str().unwrap(),
            false,
        ));
        texts.push((id, text.clone()));
    }
    summarize(golden, &texts, &outcomes);
}

#[test]
fn full_golden_edge() {
    run_full("corpus/edge-cases.jsonl", "golden/golden-edge.jsonl");
}

#[test]
fn full_golden_small() {
    run_full(
        "corpus/corpus-small.jsonl",
        "golden/golden-small.digest.jsonl",
    );
}

/// 0.3.2's own outputs (spec vectors file, `== html ==`), with the one
/// deliberate difference: the commented-out `<script>` no longer erases `y`.
#[test]
fn reference_html_vectors() {
    let cases = [
        (
            "<p>hello <b>bold</b> <i>it</i> <a href=\"http://x.com\">link</a></p><h1>Title</h1><ul><li>one</li><li>two</li></ul>",
            "hello **bold** it [link][1]\n\n# Title\n* one\n* two\n\n[1]: http://x.com\n",
        ),
        (
            "<table><tr><td>a</td><td>b</td></tr></table>",
            "─┬─\na│b\n─┴─\n",
        ),
        ("<pre>  code\n  block</pre>", "  code\n  block\n"),
        ("a<br>b", "a\nb\n"),
        ("<style>p{}</style><p>caf&eacute;</p>", "café\n"),
    ];
    for (html, want) in cases {
        assert_eq!(html_to_text(html).unwrap(), want, "{html}");
    }
    // 0.3.2: Ok("x\n") — everything after the comment was erased (W17).
    assert_eq!(
        html_to_text("<p>x</p><!-- <script> --><p>y</p>").unwrap(),
        "x\n\ny\n"
    );
}

/// Real pages: Debian documentation HTML and Markdown (committed copies of
/// some, digests of 0.3.2's output for all; the ones not committed are read
/// from /usr/share/doc when present).
#[test]
fn real_pages_match_reference() {
    let recs = read_jsonl(&data_file("markup-ref-pages.jsonl"));
    assert!(recs.len() >= 20);
    let (mut checked, mut w17, mut missing) = (0, 0, Vec::new());
    for r in &recs {
        let path = r["path"].as_str().unwrap();
        let committed = r["committed"].as_str();
        let text = match committed {
            Some(name) => std::fs::read_to_string(data_file(name)).unwrap(),
            None => match std::fs::read_to_string(path) {
                Ok(t) => t,
                Err(_) => {
                    missing.push(path);
                    continue;
                }
            },
        };
        assert_eq!(
            fnv(text.as_bytes()),
            r["input_digest"].as_str().unwrap(),
            "{path} changed"
        );
        let html = html_to_text(&text).unwrap();
        let want_html = r["html_text_digest"].as_str().unwrap();
        if fnv(html.as_bytes()) != want_html {
            // Only allowed where 0.3.2 erased the rest of the page (W17): then
            // our text is the longer one.
            let ref_len = r["html_text_len"].as_u64().unwrap() as usize;
            assert!(
                has_w17_opener(&text) && html.len() > ref_len,
                "{path}: html_to_text differs from 0.3.2 ({} bytes, 0.3.2: {ref_len})",
                html.len()
            );
            w17 += 1;
        }
        let md = commonmark(&text).unwrap();
        assert_eq!(
            fnv(md.as_bytes()),
            r["markdown_text_digest"].as_str().unwrap(),
            "{path}: markdown_to_text (CommonMark) differs from 0.3.2"
        );
        checked += 1;
    }
    if !missing.is_empty() {
        eprintln!(
            "\n*** SKIPPED {} of {} real pages: not on this machine (first: {}) ***\n",
            missing.len(),
            recs.len(),
            missing[0]
        );
    }
    eprintln!("real pages: {checked} checked, {w17} differ by the W17 fix");
    assert!(checked >= 7, "only {checked} real pages checked");
}
