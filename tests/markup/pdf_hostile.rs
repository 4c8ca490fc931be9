//! Hostile and broken PDFs: every call returns (text or an `Error`), never
//! panics, never outlives its timeout.
#![cfg(feature = "pdf")]

use std::time::{Duration, Instant};

use crate::pdf_support::*;
use txtfp::Error;
use txtfp::markup::{PdfOptions, pdf_to_text, pdf_to_text_with};

fn sample() -> Vec<u8> {
    std::fs::read(crate::common::data_file("pdf-sample.pdf")).unwrap()
}

#[test]
fn hand_made_pdf_and_nul() {
    let pdf = one_page(text_content(&["Hello PDF world", "second line"]));
    assert_eq!(pdf_to_text(&pdf).unwrap(), "Hello PDF world\nsecond line\n");
    // A ToUnicode map that sends code 0 to U+0000.
    let cmap = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T def \
        1 begincodespacerange <00> <FF> endcodespacerange \
        3 beginbfchar <00> <0000> <61> <0061> <62> <0062> endbfchar \
        endcmap CMapName currentdict /CMap defineresource pop end end";
    let nul = assemble(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>"
            .to_vec(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>".to_vec(),
        stream("", b"BT /F1 12 Tf 72 720 Td (a\\000b) Tj ET"),
        stream("", cmap),
    ]);
    assert_eq!(pdf_to_text(&nul).unwrap(), "a\u{FFFD}b\n");
}

#[test]
fn truncated_files_are_errors_or_partial_text() {
    let pdf = sample();
    let (mut errs, mut oks) = (0, 0);
    for pct in (1..100).step_by(4) {
        let cut = &pdf[..pdf.len() * pct / 100];
        match pdf_to_text(cut) {
            Ok(_) => oks += 1,
            Err(e) => {
                assert!(matches!(e, Error::InvalidInput(_)), "{e:?}");
                errs += 1;
            }
        }
    }
    eprintln!("truncated: {errs} errors, {oks} recovered");
    assert_eq!(oks, 0);
}

#[test]
fn flipped_bytes_never_panic() {
    let pdf = sample();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut errs, mut oks) = (0, 0);
    for _ in 0..40 {
        let mut bad = pdf.clone();
        for _ in 0..50 {
            let i = (next() % bad.len() as u64) as usize;
            bad[i] = next() as u8;
        }
        match pdf_to_text(&bad) {
            Ok(_) => oks += 1,
            Err(_) => errs += 1,
        }
    }
    eprintln!("flipped: {errs} errors, {oks} with text");
}

#[test]
fn structural_attacks() {
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let dict_deep = format!("{}{}", "<< /A ".repeat(50_000), ">>".repeat(50_000));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("deep array", assemble(&[
            format!("<< /Type /Catalog /Pages 2 0 R /X {deep} >>").into_bytes(),
            b"<< /Type /Pages /Kids [] /Count 0 >>".to_vec(),
        ])),
        ("deep dict", assemble(&[
            format!("<< /Type /Catalog /Pages 2 0 R /X {dict_deep} >>").into_bytes(),
            b"<< /Type /Pages /Kids [] /Count 0 >>".to_vec(),
        ])),
        ("page tree cycle", assemble(&[
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>".to_vec(),
            b"<< /Type /Pages /Kids [2 0 R] /Parent 2 0 R /Count 1 >>".to_vec(),
        ])),
        ("contents cycle", assemble(&[
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /Contents 3 0 R /Resources 3 0 R >>".to_vec(),
        ])),
        ("missing objects", assemble(&[
            b"<< /Type /Catalog /Pages 9 0 R >>".to_vec(),
        ])),
        ("bad stream length", one_page(b"<< /Length 999999 >>\nstream\nBT ET\nendstream".to_vec())),
        ("huge widths", assemble(&[
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>".to_vec(),
            b"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [<< /W [0 4294967295 1e30 5 [1 2 3]] /DW -1e38 >>] >>".to_vec(),
            stream("", b"BT /F1 1e30 Tf 1e30 0 0 -1e30 0 0 Tm 99999 Tz (\x00\x01\x00\x02) Tj ET"),
        ])),
        ("q bomb", one_page(stream("", "q ".repeat(200_000).as_bytes()))),
        ("no header", b"just text".to_vec()),
        ("header only", b"%PDF-1.7".to_vec()),
    ];
    for (name, pdf) in cases {
        let t = Instant::now();
        let r = pdf_to_text_with(
            &pdf,
            PdfOptions {
                timeout_secs: 20,
                ..PdfOptions::default()
            },
        );
        eprintln!(
            "{name}: {:?} in {:?}",
            r.as_ref().map(|s| s.len()).map_err(|e| e.to_string()),
            t.elapsed()
        );
        assert!(t.elapsed() < Duration::from_secs(25), "{name}");
    }
}

/// A flate stream of ~190 MB of text operators (under the decompression
/// bound) keeps the parser busy for seconds: the call gives up at the timeout.
#[test]
fn timeout_and_bomb() {
    let body = "1 0 Td (x) Tj\n".repeat(190_000_000 / 14);
    let mut s = lopdf::Stream::new(
        lopdf::Dictionary::new(),
        format!("BT /F1 9 Tf {body} ET").into_bytes(),
    );
    s.compress().unwrap();
    let pdf = one_page(stream("/Filter /FlateDecode", &s.content));
    assert!(pdf.len() < 5_000_000, "{}", pdf.len());
    let t = Instant::now();
    let err = pdf_to_text_with(
        &pdf,
        PdfOptions {
            timeout_secs: 1,
            ..PdfOptions::default()
        },
    )
    .unwrap_err();
    let took = t.elapsed();
    eprintln!("slow pdf: {err} after {took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(
        err.to_string().contains("timeout_secs = 1") || err.to_string().contains("decompress"),
        "{err}"
    );

    // Over the decompression bound (4 x max_bytes, at least 64 MiB): refused.
    let small = PdfOptions {
        max_bytes: 1 << 20,
        timeout_secs: 60,
    };
    let err = pdf_to_text_with(&pdf, small).unwrap_err();
    eprintln!("bomb: {err}");
}

#[test]
fn size_cap_and_options() {
    let pdf = sample();
    let err = pdf_to_text_with(
        &pdf,
        PdfOptions {
            max_bytes: 1000,
            ..PdfOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains(&format!("{} bytes", pdf.len())) && err.contains("max_bytes = 1000"),
        "{err}"
    );
    assert!(matches!(
        pdf_to_text_with(
            &pdf,
            PdfOptions {
                max_bytes: 0,
                ..PdfOptions::default()
            }
        ),
        Err(Error::Config(_))
    ));
}

#[test]
fn concurrent_calls() {
    let pdf = sample();
    let want = pdf_to_text(&pdf).unwrap();
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..8)
            .map(|_| s.spawn(|| pdf_to_text(&pdf).unwrap()))
            .collect();
        for h in hs {
            assert_eq!(h.join().unwrap(), want);
        }
    });
}
