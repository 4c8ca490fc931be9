//! A 100 MB HTML page, in a test binary of its own (tests serialized) so the
//! process's peak memory (`VmHWM`) is this conversion's, not that of the
//! markup tests running beside it; the second test only
//! raises it if it needs more. The page is a real one (zlib's
//! "zlib usage example", committed) repeated, plus a hostile tail.
#![cfg(feature = "markup")]

#[path = "../common/mod.rs"]
mod common;

use txtfp::html_to_text;
use txtfp::markup::{HtmlOptions, html_to_text_with};

fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

fn page() -> String {
    std::fs::read_to_string(crate::common::data_file(
        "markup/zlib1g-dev__examples__zlib_how.html",
    ))
    .unwrap()
}

/// The two tests run one at a time, so each peak is its own.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn hundred_megabytes() -> (String, usize) {
    let page = page();
    let reps = 100_000_000 / page.len() + 1;
    let mut html = String::with_capacity(page.len() * reps + (1 << 20));
    for _ in 0..reps {
        html.push_str(&page);
    }
    // A hostile tail: deep nesting and re-opened formatting elements.
    html.push_str(&"<div>".repeat(50_000));
    for i in 0..5_000 {
        html.push_str(&format!("<p><b id={i}>x</p>"));
    }
    html.push_str(&"<div>y</div>".repeat(50_000));
    html.push_str("THE END");
    assert!(html.len() > 100_000_000);
    (html, reps)
}

fn report(what: &str, secs: f64, out: &str) {
    let peak = peak_rss_mib();
    eprintln!(
        "100 MB html, {what}: {secs:.1} s, {} MB out, peak RSS {peak:?} MiB",
        out.len() / 1_000_000
    );
    // Input, prepared copy and output are ~300 MB; the rest is one piece.
    if let Some(peak) = peak {
        assert!(peak < 2048, "peak RSS {peak} MiB");
    }
}

/// The fingerprinting preset.
#[test]
fn hundred_megabytes_plain() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (html, reps) = hundred_megabytes();
    let one = html_to_text_with(&page(), HtmlOptions::default()).unwrap();
    let t = std::time::Instant::now();
    let text = html_to_text_with(&html, HtmlOptions::default()).unwrap();
    let secs = t.elapsed().as_secs_f64();
    drop(html);
    // Every copy of the page is there (the pieces end at block boundaries).
    let marker = one.lines().find(|l| l.len() > 40).unwrap();
    assert_eq!(text.matches(marker).count(), reps);
    assert!(text.contains("THE END"));
    report("plain", secs, &text);
}

/// The decorated (0.3.2) rendering: about twice the work of the preset.
#[test]
fn hundred_megabytes_reference() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (html, reps) = hundred_megabytes();
    let t = std::time::Instant::now();
    let text = html_to_text(&html).unwrap();
    let secs = t.elapsed().as_secs_f64();
    drop(html);
    assert!(text.matches("zlib").count() >= reps);
    assert!(text.contains("THE END"));
    report("reference", secs, &text);
}
