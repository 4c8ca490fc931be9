use super::*;

fn strip(s: &str) -> String {
    prepare(s).text
}

#[test]
fn closed_script_and_style_are_removed() {
    assert_eq!(strip("a<script>x</script>b"), "ab");
    assert_eq!(strip("a<SCRIPT type=x>x</ScRiPt >b"), "ab");
    assert_eq!(strip("<style>p{}</style><p>c</p>"), "<p>c</p>");
    assert_eq!(strip("a<script/>x</script>b"), "ab");
    // Not an opener: a longer tag name.
    assert_eq!(strip("<scripts>x</scripts>"), "<scripts>x</scripts>");
}

#[test]
fn unclosed_opener_loses_only_its_tag() {
    assert_eq!(
        strip("<p>x</p><script src=a.js><p>y</p>"),
        "<p>x</p><p>y</p>"
    );
    assert_eq!(strip("a<style>b"), "ab");
    assert_eq!(strip("a<title>b"), "ab");
}

#[test]
fn comments_and_attributes_hide_openers() {
    let c = "<p>x</p><!-- <script> --><p>y</p>";
    assert_eq!(strip(c), c);
    let a = "<a title=\"<script>\">t</a> rest";
    assert_eq!(strip(a), a);
    let bogus = "<!doctype html><? <script> ?>z";
    assert_eq!(strip(bogus), bogus);
    // A commented-out opener does not pair with a later closer.
    assert_eq!(
        strip("<!-- <script> -->keep</script>"),
        "<!-- <script> -->keep</script>"
    );
}

#[test]
fn raw_text_is_opaque() {
    let t = "<title>a <script> b</title>c";
    assert_eq!(strip(t), t);
    let ta = "<textarea></script></textarea>z<script>q</script>";
    assert_eq!(strip(ta), "<textarea></script></textarea>z");
}

#[test]
fn comment_forms() {
    assert_eq!(comment_end(b"<!-->x", 4), 5);
    assert_eq!(comment_end(b"<!--->x", 4), 6);
    assert_eq!(comment_end(b"<!-- a --!>x", 4), 11);
    assert_eq!(comment_end(b"<!-- a", 4), 6);
    assert_eq!(comment_end(b"<!-- a --->x", 4), 11);
    assert_eq!(comment_end(b"<!-- a -- b --!>x", 4), 16);
}

#[test]
fn cuts_are_recorded_and_spaced() {
    let html = "<p>a</p>".repeat(10_000);
    let p = prepare(&html);
    assert!(p.cuts.len() > 10);
    assert!(p.cuts.windows(2).all(|w| w[1].0 - w[0].0 >= BLOCK_CUT_GAP));
    assert!(p.cuts.iter().all(|&(c, _)| html[c..].starts_with("<p>")));
}

#[test]
fn long_text_runs_get_cuts_at_whitespace() {
    let html = format!("<p>{}</p>{}", "word ".repeat(100_000), "x".repeat(300_000));
    let p = prepare(&html);
    let in_words: Vec<usize> = p
        .cuts
        .iter()
        .map(|&(c, _)| c)
        .filter(|&c| c > 3 && c < 500_000)
        .collect();
    assert!(in_words.len() >= 5, "{:?}", p.cuts);
    assert!(in_words.iter().all(|&c| html.as_bytes()[c - 1] == b' '));
    // No whitespace, no cut inside the long word.
    assert!(p.cuts.iter().all(|&(c, _)| c <= 500_007));
}

#[test]
fn truncated_tags_do_not_panic() {
    for s in [
        "<", "<a", "<a b=", "<a b=\"", "</", "</a", "<!--", "<!", "<script", "<x y='",
    ] {
        let _ = prepare(s);
    }
}
