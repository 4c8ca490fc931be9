use super::*;

#[test]
fn limits_are_checked_first() {
    let e = pdf_to_text_with(
        b"%PDF-1.4 xxxxxxxx",
        PdfOptions {
            max_bytes: 4,
            ..PdfOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("17 bytes") && e.contains("max_bytes = 4"), "{e}");
    let e = pdf_to_text(b"hello").unwrap_err().to_string();
    assert!(e.contains("no %PDF- header"), "{e}");
    let e = pdf_to_text(b"%PDF-1.4\n1 0 obj").unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");
    let zero = PdfOptions {
        timeout_secs: 0,
        ..PdfOptions::default()
    };
    assert!(matches!(
        pdf_to_text_with(b"%PDF-", zero),
        Err(Error::Config(_))
    ));
}

#[test]
fn garbage_after_header_is_an_error() {
    for bad in [
            &b"%PDF-1.7\n%%EOF"[..],
            b"%PDF-1.4\ntrailer\n<< /Root 1 0 R >>\n%%EOF",
            b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 1 0 R >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF",
        ] {
            assert!(pdf_to_text(bad).is_err());
        }
}
