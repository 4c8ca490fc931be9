//! Text out of markup and documents: HTML, Markdown (feature `markup`) and
//! PDF (feature `pdf`).
//!
//! | function | input | converter |
//! |---|---|---|
//! | [`html_to_text`], [`html_to_text_with`] | HTML page | html5ever + html2text 0.17.4 |
//! | [`markdown_to_text`], [`markdown_to_text_with`], [`markdown_to_text_as`] | Markdown | pulldown-cmark 0.13.6 |
//! | [`pdf_to_text`], [`pdf_to_text_with`] | PDF bytes | lopdf 0.47 on a worker thread |
//!
//! The output is meant to be fingerprinted: feed it to a
//! [`Fingerprinter`](crate::Fingerprinter) (which canonicalizes it).
//!
//! Compatibility with txtfp 0.3.2: [`html_to_text`] and [`markdown_to_text`]
//! give the same bytes as 0.3.2 on ordinary documents. They differ only where
//! 0.3.2 was wrong: a `<script>` or `<style>` that is never closed, or sits
//! inside a comment or an attribute value, no longer erases the rest of the
//! page; GFM tables, strikethrough, task lists and footnotes are parsed instead
//! of leaking their syntax into the text (switch off with
//! [`MarkdownSyntax::CommonMark`] and [`markdown_to_text_as`]). [`HtmlOptions::default`] also leaves out the
//! decorations html2text adds (`**`, `*`, `` ` ``, `[1]` link footnotes, `# `,
//! `* `, table box drawing), which 0.3.2 fingerprinted as if they were text.

#[cfg(feature = "markup")]
mod html;
#[cfg(feature = "markup")]
mod html_lex;
#[cfg(feature = "markup")]
mod html_parse;
#[cfg(feature = "markup")]
mod html_sink;
#[cfg(feature = "markup")]
mod markdown;
#[cfg(feature = "pdf")]
mod pdf;
#[cfg(feature = "pdf")]
mod pdf_text;

#[cfg(feature = "markup")]
pub use html::{HtmlOptions, html_to_text, html_to_text_with};
#[cfg(feature = "markup")]
pub use markdown::{
    MarkdownOptions, MarkdownSyntax, markdown_to_text, markdown_to_text_as, markdown_to_text_with,
};
#[cfg(feature = "pdf")]
pub use pdf::{PdfOptions, pdf_to_text, pdf_to_text_with};
