//! `pdf_to_text_with` on arbitrary bytes, with a 5 s timeout. The input gets
//! a `%PDF-1.4` header and an `%%EOF` trailer when it lacks them, so the
//! fuzzer reaches the parser instead of the cheap checks. Checks: no panic
//! (lopdf runs under `catch_unwind` on a worker thread), and text never
//! contains NUL.
#![no_main]

use libfuzzer_sys::fuzz_target;
use txtfp::markup::{PdfOptions, pdf_to_text_with};

/// libfuzzer-sys's panic hook aborts on every panic, even one that txtfp
/// catches (lopdf's, turned into an `Error`). Only a panic that escapes
/// txtfp is a failure here: libfuzzer-sys still aborts on one that unwinds
/// out of this closure.
fn quiet_caught_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|info| eprintln!("{info}"))));
}

fuzz_target!(|data: &[u8]| {
    quiet_caught_panics();
    let mut pdf = Vec::with_capacity(data.len() + 16);
    if !data.starts_with(b"%PDF-") {
        pdf.extend_from_slice(b"%PDF-1.4\n");
    }
    pdf.extend_from_slice(data);
    if !data.ends_with(b"%%EOF") {
        pdf.extend_from_slice(b"\n%%EOF\n");
    }
    let opts = PdfOptions {
        max_bytes: 1 << 20,
        timeout_secs: 5,
    };
    if let Ok(text) = pdf_to_text_with(&pdf, opts) {
        assert!(!text.contains('\0'));
    }
});
