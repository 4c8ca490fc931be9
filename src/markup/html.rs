//! HTML to text.
//!
//! Pipeline: [`html_lex::prepare`](super::html_lex) (script/style removal,
//! split points) → pieces of at most [`HtmlOptions::piece_bytes`] →
//! [`html_parse::parse`](super::html_parse) (html5ever with a depth cap) →
//! html2text's renderer, under `catch_unwind`.

use alloc::format;
use alloc::string::String;
use core::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};

use html2text::RcDom;
use html2text::config::{self, Config};
use html2text::render::{TextDecorator, TrivialDecorator};

use super::html_lex::{Prepared, prepare};
use super::html_parse::{Limits, parse};
use crate::{Error, Result};

/// How [`html_to_text_with`] converts a page.
///
/// Build it from a preset and change fields with struct update syntax:
///
/// ```
/// # #[cfg(feature = "markup")] {
/// use txtfp::markup::HtmlOptions;
/// let opts = HtmlOptions { max_depth: 64, ..HtmlOptions::default() };
/// assert!(opts.strip_decorations);
/// # }
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HtmlOptions {
    /// Leave out what the converter adds to the page's own text: emphasis and
    /// code markers (`**`, `*`, `` ` ``), link brackets and the `[1]: url`
    /// footnote list, heading `#`s, list bullets and numbers, quote `> `
    /// prefixes, and table box drawing (cells come out one per line). `true`
    /// in [`HtmlOptions::default`] (the fingerprinting preset); `false` in
    /// [`HtmlOptions::reference`], which is what [`html_to_text`] uses.
    pub strip_decorations: bool,
    /// Start tags that would open an element deeper than this are dropped
    /// (their text is kept, one level up). Bounds the parser's work, which
    /// grows with the square of the nesting depth. Default 128; at least
    /// [`HtmlOptions::MIN_DEPTH`]. Counted as html5ever's open elements plus its active
    /// formatting elements, plus one for the document.
    pub max_depth: usize,
    /// A page larger than this (after script/style removal) is converted in
    /// pieces split before block-level tags, which bounds memory (the parser
    /// and renderer hold about 100 bytes per input byte). Each piece is
    /// rendered on its own: link footnote numbers restart and a table or list
    /// cut in two is rendered as two. Default 4 MiB; at least
    /// [`HtmlOptions::MIN_PIECE_BYTES`].
    pub piece_bytes: usize,
}

impl Default for HtmlOptions {
    /// The fingerprinting preset: no decorations, default bounds.
    fn default() -> Self {
        HtmlOptions {
            strip_decorations: true,
            max_depth: 128,
            piece_bytes: 4 << 20,
        }
    }
}

impl HtmlOptions {
    /// The smallest accepted [`HtmlOptions::max_depth`].
    pub const MIN_DEPTH: usize = 8;
    /// The smallest accepted [`HtmlOptions::piece_bytes`].
    pub const MIN_PIECE_BYTES: usize = 64 << 10;

    /// txtfp 0.3.2's rendering (decorations and link footnotes kept), with the
    /// default bounds: what [`html_to_text`] uses.
    pub fn reference() -> Self {
        HtmlOptions {
            strip_decorations: false,
            ..HtmlOptions::default()
        }
    }

    fn validate(&self) -> Result<()> {
        if self.max_depth < Self::MIN_DEPTH {
            return Err(Error::Config(format!(
                "HtmlOptions::max_depth must be at least {}, got {}",
                Self::MIN_DEPTH,
                self.max_depth
            )));
        }
        if self.piece_bytes < Self::MIN_PIECE_BYTES {
            return Err(Error::Config(format!(
                "HtmlOptions::piece_bytes must be at least {}, got {}",
                Self::MIN_PIECE_BYTES,
                self.piece_bytes
            )));
        }
        Ok(())
    }
}

/// Converts an HTML page to text the way txtfp 0.3.2 does: html2text's plain
/// rendering with its decorations (`**bold**`, `[link][1]` plus a `[1]: url`
/// list, `# ` headings, `* ` items, box-drawn tables), `<script>` and
/// `<style>` removed, entities decoded, one block per line.
///
/// Same bytes as 0.3.2 on ordinary pages. Unlike 0.3.2, a `<script>` or
/// `<style>` that is never closed, or that sits in a comment or an attribute,
/// does not erase the rest of the page, and hostile input is bounded (see
/// [`HtmlOptions`]). For fingerprinting prefer [`html_to_text_with`] with
/// [`HtmlOptions::default`], which leaves the decorations out.
///
/// ```
/// # #[cfg(feature = "markup")] {
/// let html = "<p>hello <b>bold</b> <a href=\"http://x.com\">link</a></p><ul><li>one</li></ul>";
/// assert_eq!(
///     txtfp::html_to_text(html)?,
///     "hello **bold** [link][1]\n* one\n\n[1]: http://x.com\n"
/// );
/// // An unclosed <script> no longer erases the page.
/// assert_eq!(txtfp::html_to_text("<p>a</p><script><p>b</p>")?, "a\n\nb\n");
/// # }
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::InvalidInput`] if html2text fails or panics on the page
/// (`"html parse error: …"`); not seen on any input so far.
pub fn html_to_text(html: &str) -> Result<String> {
    html_to_text_with(html, HtmlOptions::reference())
}

/// Converts an HTML page to text with the given options.
///
/// ```
/// # #[cfg(feature = "markup")] {
/// use txtfp::markup::{HtmlOptions, html_to_text_with};
/// let html = "<h1>Title</h1><p><em>very</em> <a href=\"/x\">good</a></p>\
///             <table><tr><td>a</td><td>b</td></tr></table>";
/// let text = html_to_text_with(html, HtmlOptions::default())?;
/// assert_eq!(text, "Title\n\nvery good\n\na\nb\n");
/// # }
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Config`] when `max_depth` or `piece_bytes` is below its minimum;
/// [`Error::InvalidInput`] (`"html parse error: …"`) if html2text fails or
/// panics.
pub fn html_to_text_with(html: &str, opts: HtmlOptions) -> Result<String> {
    opts.validate()?;
    let prepared = prepare(html);
    let max_nodes = opts.piece_bytes / BYTES_PER_NODE;
    let mut out = String::new();
    for range in pieces(&prepared, opts.piece_bytes) {
        // Depth-first over halves, so the text comes out in document order.
        let mut todo = alloc::vec![range];
        while let Some(r) = todo.pop() {
            let piece = &prepared.text[r.clone()];
            let limits = Limits {
                max_depth: opts.max_depth,
                max_nodes,
                // Formatting elements and cell spans add nothing to
                // undecorated text (cells come out one per line), and without
                // formatting elements the tree never outgrows the input.
                flat: opts.strip_decorations,
                spans: !opts.strip_decorations,
            };
            match convert_with_fallback(piece, limits, opts.strip_decorations)? {
                Some(text) => out.push_str(&text),
                None => match middle_cut(&prepared, &r) {
                    Some(c) => {
                        todo.push(c..r.end);
                        todo.push(r.start..c);
                    }
                    None => {
                        let flat = Limits {
                            flat: true,
                            max_nodes: usize::MAX,
                            ..limits
                        };
                        let text = convert_with_fallback(piece, flat, opts.strip_decorations)?;
                        out.push_str(&text.unwrap_or_default());
                    }
                },
            }
        }
    }
    Ok(out)
}

/// Node budget per parse: one node per this many bytes of `piece_bytes`
/// (html2text holds about 1.5 KiB per node while rendering).
const BYTES_PER_NODE: usize = 16;
/// Render width: no line is that long, and unlike `usize::MAX` (0.3.2's
/// choice) nested tables do not overflow html2text's width sums.
const WIDTH: usize = 1 << 40;

/// [`convert`], retried without cell spans and then flat when html2text
/// fails or panics (its table code panics on some spanned tables).
fn convert_with_fallback(html: &str, limits: Limits, plain: bool) -> Result<Option<String>> {
    let tries = [
        limits,
        Limits {
            spans: false,
            ..limits
        },
        Limits {
            spans: false,
            flat: true,
            ..limits
        },
    ];
    let mut last = None;
    for (i, l) in tries.iter().enumerate() {
        if i > 0 && *l == tries[i - 1] {
            continue;
        }
        match convert(html, *l, plain) {
            Ok(v) => return Ok(v),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| Error::InvalidInput(String::from("html parse error"))))
}

/// Parses and renders one piece; `Ok(None)` when it is over the node budget.
fn convert(html: &str, limits: Limits, plain: bool) -> Result<Option<String>> {
    let run = || -> core::result::Result<Option<String>, html2text::Error> {
        let Some(dom) = parse(html, limits) else {
            return Ok(None);
        };
        if plain {
            let cfg = config::with_decorator(TrivialDecorator::new())
                .raw_mode(true)
                .unicode_strikeout(false);
            render(&cfg, &dom).map(Some)
        } else {
            render(&config::plain(), &dom).map(Some)
        }
    };
    match catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(s)) => Ok(s),
        Ok(Err(e)) => Err(Error::InvalidInput(format!("html parse error: {e}"))),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| String::from(*s))
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| String::from("unknown panic"));
            Err(Error::InvalidInput(format!(
                "html parse error: html2text panicked: {msg}"
            )))
        }
    }
}

fn render<D: TextDecorator>(
    cfg: &Config<D>,
    dom: &RcDom,
) -> core::result::Result<String, html2text::Error> {
    let tree = cfg.dom_to_render_tree(dom)?;
    cfg.render_to_string(tree, WIDTH)
}

/// The recorded cut nearest the middle of `r`, strictly inside it.
fn middle_cut(p: &Prepared, r: &Range<usize>) -> Option<usize> {
    let lo = p.cuts.partition_point(|&(c, _)| c <= r.start);
    let hi = p.cuts.partition_point(|&(c, _)| c < r.end);
    let inside = &p.cuts[lo..hi];
    let mid = r.start + r.len() / 2;
    let i = inside.partition_point(|&(c, _)| c < mid);
    [i.checked_sub(1), Some(i)]
        .into_iter()
        .flatten()
        .filter_map(|k| inside.get(k))
        .min_by_key(|&&(c, _)| c.abs_diff(mid))
        .map(|&(c, _)| c)
}

/// Splits `p.text` into ranges of about `max` bytes: before the last
/// block-level tag in the window, else at the last recorded cut, else at the
/// first cut after it, else at the end. Cuts lie between tags or after
/// whitespace in text, so no word or tag is split; a piece outgrows `max` only
/// across a span with no cut (one huge word, attribute or comment).
fn pieces(p: &Prepared, max: usize) -> alloc::vec::Vec<Range<usize>> {
    let n = p.text.len();
    let mut out = alloc::vec::Vec::new();
    let mut start = 0;
    while n - start > max {
        let limit = start + max;
        let lo = p.cuts.partition_point(|&(c, _)| c <= start);
        let hi = p.cuts.partition_point(|&(c, _)| c <= limit);
        let window = &p.cuts[lo..hi];
        let cut = window
            .iter()
            .rev()
            .find(|&&(_, block)| block)
            .or(window.last())
            .or(p.cuts.get(hi))
            .map_or(n, |&(c, _)| c);
        out.push(start..cut);
        start = cut;
    }
    if start < n || out.is_empty() {
        out.push(start..n);
    }
    out
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)] // expected piece lists
mod tests;
