//! `html_to_text` / `html_to_text_with` on arbitrary bytes (lossy UTF-8).
//! Byte 0 picks the options: bit 0 decorations, bit 1 a small depth cap,
//! bit 2 the smallest piece size (so the splitting path runs on small input).
//! Checks: no panic, always `Ok` (html2text's own panics are caught and the
//! piece retried), and the fingerprinting preset never emits `[1]:` footnote
//! lines for a page without links (unless the page's own text reads `[1]`
//! once the control characters the converter drops are gone).
#![no_main]

use libfuzzer_sys::fuzz_target;
use txtfp::html_to_text;
use txtfp::markup::{HtmlOptions, html_to_text_with};

/// libfuzzer-sys's panic hook aborts on every panic, even one that txtfp
/// catches (html2text's, turned into an `Error`). Only a panic that escapes
/// txtfp is a failure here: libfuzzer-sys still aborts on one that unwinds
/// out of this closure.
fn quiet_caught_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|info| eprintln!("{info}"))));
}

/// The page without the control characters the converter drops (all but
/// white space): `[1\x01\x11\x00]` is the page's own `[1]` in the output.
fn visible(html: &str) -> String {
    html.chars()
        .filter(|c| !c.is_control() || c.is_whitespace())
        .collect()
}

fuzz_target!(|data: &[u8]| {
    quiet_caught_panics();
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let html = String::from_utf8_lossy(rest);
    let opts = HtmlOptions {
        strip_decorations: mode & 1 == 0,
        max_depth: if mode & 2 == 0 {
            128
        } else {
            HtmlOptions::MIN_DEPTH
        },
        piece_bytes: if mode & 4 == 0 {
            4 << 20
        } else {
            HtmlOptions::MIN_PIECE_BYTES
        },
    };
    let text = html_to_text_with(&html, opts).expect("html_to_text_with failed");
    if opts.strip_decorations
        && !html.to_ascii_lowercase().contains("href")
        && !visible(&html).contains("[1]")
    {
        assert!(
            !text.contains("\n[1]: "),
            "footnote in plain text: {text:?}"
        );
    }
    if mode & 8 != 0 {
        html_to_text(&html).expect("html_to_text failed");
    }
});
