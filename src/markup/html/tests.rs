use super::*;

#[test]
fn small_pages_are_one_piece() {
    let p = prepare("<p>a</p>");
    assert_eq!(pieces(&p, HtmlOptions::MIN_PIECE_BYTES), [0..8]);
}

#[test]
fn pieces_cover_the_text_and_stay_bounded() {
    let html = "<div><p>hello world</p> text <b>bold</b></div>\n".repeat(20_000);
    let p = prepare(&html);
    let max = HtmlOptions::MIN_PIECE_BYTES;
    let ps = pieces(&p, max);
    assert!(ps.len() > 5);
    assert_eq!(ps[0].start, 0);
    assert_eq!(ps.last().unwrap().end, p.text.len());
    for w in ps.windows(2) {
        assert_eq!(w[0].end, w[1].start);
    }
    for r in &ps {
        assert!(r.len() <= max, "{r:?}");
        assert!(p.text[r.clone()].starts_with("<div>"));
    }
}

#[test]
fn tagless_text_is_cut_at_whitespace_only() {
    let text = "word ".repeat(100_000);
    let p = prepare(&text);
    let ps = pieces(&p, HtmlOptions::MIN_PIECE_BYTES);
    assert!(ps.len() > 1);
    for r in &ps[..ps.len() - 1] {
        assert!(text[r.clone()].ends_with(' '));
    }
    let one_word = "é".repeat(200_000);
    let ps = pieces(&prepare(&one_word), HtmlOptions::MIN_PIECE_BYTES);
    assert_eq!(ps, [0..one_word.len()]);
}

#[test]
fn options_are_validated() {
    let bad = HtmlOptions {
        max_depth: 2,
        ..HtmlOptions::default()
    };
    let e = html_to_text_with("x", bad).unwrap_err().to_string();
    assert!(e.contains("max_depth") && e.contains('2'), "{e}");
    let bad = HtmlOptions {
        piece_bytes: 10,
        ..HtmlOptions::default()
    };
    let e = html_to_text_with("x", bad).unwrap_err().to_string();
    assert!(e.contains("piece_bytes") && e.contains("10"), "{e}");
}
