//! Markdown to text: the text content of a pulldown-cmark event stream.

use alloc::format;
use alloc::string::String;
use std::panic::{AssertUnwindSafe, catch_unwind};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::{Error, Result};

/// What [`markdown_to_text_with`] keeps: txtfp 0.3.2's three switches,
/// exactly, so 0.3.2 struct literals compile unchanged.
///
/// Which Markdown syntax is parsed is a separate choice,
/// [`MarkdownSyntax`], passed to [`markdown_to_text_as`]; the other entry
/// points parse [`MarkdownSyntax::Gfm`] (see COMPAT.md W18).
///
/// ```
/// # #[cfg(feature = "markup")] {
/// use txtfp::{MarkdownOptions, markdown_to_text_with};
/// let opts = MarkdownOptions {
///     include_code_blocks: false,
///     include_inline_code: true,
///     break_to_space: true,
/// };
/// let text = markdown_to_text_with("```\nlet x = 1;\n```\ntext", opts)?;
/// assert_eq!(text, "text");
/// assert_eq!(opts, MarkdownOptions { include_code_blocks: false, ..Default::default() });
/// # }
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MarkdownOptions {
    /// Keep the text of fenced and indented code blocks (with its newlines and
    /// indentation). Default `true`.
    pub include_code_blocks: bool,
    /// Keep the text of inline code spans. Default `true`.
    pub include_inline_code: bool,
    /// Put one space between blocks (paragraphs, headings, list items, table
    /// cells, code blocks) and at line breaks; `false` glues them together
    /// (`# Head\n\nPara` → `HeadPara`), as 0.3.2 does. Default `true`.
    pub break_to_space: bool,
}

impl Default for MarkdownOptions {
    fn default() -> Self {
        MarkdownOptions {
            include_code_blocks: true,
            include_inline_code: true,
            break_to_space: true,
        }
    }
}

/// The Markdown dialect [`markdown_to_text_as`] parses.
///
/// ```
/// # #[cfg(feature = "markup")] {
/// use txtfp::MarkdownOptions;
/// use txtfp::markup::{MarkdownSyntax, markdown_to_text_as};
/// let md = "| a | b |\n|---|---|\n| 1 | ~~2~~ |";
/// let opts = MarkdownOptions::default();
/// assert_eq!(markdown_to_text_as(md, opts, MarkdownSyntax::Gfm)?, "a b 1 2");
/// assert_eq!(
///     markdown_to_text_as(md, opts, MarkdownSyntax::CommonMark)?,
///     "| a | b | |---|---| | 1 | ~~2~~ |"
/// );
/// assert_eq!(MarkdownSyntax::default(), MarkdownSyntax::Gfm);
/// # }
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MarkdownSyntax {
    /// CommonMark with the GitHub extensions: tables, `~~strikethrough~~`,
    /// `- [ ]` task lists and `[^1]` footnotes. Their syntax stays out of
    /// the text (cells become separate blocks; footnote definitions are kept
    /// as text, references dropped). What [`markdown_to_text`] and
    /// [`markdown_to_text_with`] parse.
    #[default]
    Gfm,
    /// CommonMark only: txtfp 0.3.2's parse, byte for byte, which leaks
    /// `| a | b |`, `|---|` and `~~` into the text.
    CommonMark,
}

/// The text of a Markdown document, with the default [`MarkdownOptions`]
/// and GitHub syntax ([`MarkdownSyntax::Gfm`]).
///
/// Markup syntax is dropped and the words kept: emphasis, link and image
/// text (not URLs), code; HTML blocks disappear, the text between inline HTML
/// tags stays. Blocks are joined with one space; the result is trimmed.
///
/// ```
/// # #[cfg(feature = "markup")] {
/// let md = "# Head\n\nPara *em* [link](http://x)\n\n| a | b |\n|---|---|\n| 1 | ~~2~~ |";
/// assert_eq!(txtfp::markdown_to_text(md)?, "Head Para em link a b 1 2");
/// # }
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// # Errors
///
/// Practically never: [`Error::InvalidInput`] if the parser panicked.
pub fn markdown_to_text(md: &str) -> Result<String> {
    markdown_to_text_as(md, MarkdownOptions::default(), MarkdownSyntax::Gfm)
}

/// The text of a Markdown document with the given options, parsing GitHub
/// syntax ([`MarkdownSyntax::Gfm`]; 0.3.2 parsed CommonMark only, see
/// COMPAT.md W18). For 0.3.2's output byte for byte use
/// [`markdown_to_text_as`] with [`MarkdownSyntax::CommonMark`].
///
/// ```
/// # #[cfg(feature = "markup")] {
/// use txtfp::{MarkdownOptions, markdown_to_text_with};
/// let opts = MarkdownOptions { break_to_space: false, ..Default::default() };
/// assert_eq!(markdown_to_text_with("# Head\n\nPara", opts)?, "HeadPara");
/// # }
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// # Errors
///
/// Practically never: [`Error::InvalidInput`] if the parser panicked.
pub fn markdown_to_text_with(md: &str, opts: MarkdownOptions) -> Result<String> {
    markdown_to_text_as(md, opts, MarkdownSyntax::Gfm)
}

/// The text of a Markdown document with the given options, parsing the
/// given [`MarkdownSyntax`]. With [`MarkdownSyntax::CommonMark`] the output
/// is txtfp 0.3.2's `markdown_to_text_with` byte for byte.
///
/// ```
/// # #[cfg(feature = "markup")] {
/// use txtfp::MarkdownOptions;
/// use txtfp::markup::{MarkdownSyntax, markdown_to_text_as};
/// let md = "~~old~~ new";
/// let opts = MarkdownOptions::default();
/// assert_eq!(markdown_to_text_as(md, opts, MarkdownSyntax::Gfm)?, "old new");
/// assert_eq!(markdown_to_text_as(md, opts, MarkdownSyntax::CommonMark)?, "~~old~~ new");
/// # }
/// # Ok::<(), txtfp::Error>(())
/// ```
///
/// # Errors
///
/// Practically never: [`Error::InvalidInput`] if the parser panicked.
pub fn markdown_to_text_as(
    md: &str,
    opts: MarkdownOptions,
    syntax: MarkdownSyntax,
) -> Result<String> {
    // pulldown-cmark is not known to panic, but the caller may pass any
    // document: a parser bug becomes an error, not an unwinding caller.
    catch_unwind(AssertUnwindSafe(|| walk(md, opts, syntax))).map_err(|_| {
        Error::InvalidInput(format!(
            "markdown parse error: the parser panicked on a {}-byte document",
            md.len()
        ))
    })
}

fn walk(md: &str, opts: MarkdownOptions, syntax: MarkdownSyntax) -> String {
    let mut parser_opts = Options::empty();
    if syntax == MarkdownSyntax::Gfm {
        parser_opts |= Options::ENABLE_TABLES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_TASKLISTS
            | Options::ENABLE_FOOTNOTES;
    }
    let mut out = String::with_capacity(md.len());
    let mut in_code = false;
    let mut last_sep = true;
    let sep = |out: &mut String, last_sep: &mut bool| {
        if opts.break_to_space && !*last_sep {
            out.push(' ');
            *last_sep = true;
        }
    };
    for event in Parser::new_ext(md, parser_opts) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => {
                in_code = false;
                sep(&mut out, &mut last_sep);
            }
            Event::Start(
                Tag::Paragraph
                | Tag::Item
                | Tag::Heading { .. }
                | Tag::TableCell
                | Tag::FootnoteDefinition(_),
            )
            | Event::End(
                TagEnd::Paragraph
                | TagEnd::Item
                | TagEnd::Heading(_)
                | TagEnd::TableCell
                | TagEnd::FootnoteDefinition,
            )
            | Event::SoftBreak
            | Event::HardBreak => sep(&mut out, &mut last_sep),
            Event::Text(t) if !in_code || opts.include_code_blocks => {
                out.push_str(&t);
                last_sep = false;
            }
            Event::Code(c) if opts.include_inline_code => {
                out.push_str(&c);
                last_sep = false;
            }
            _ => {}
        }
    }
    String::from(out.trim())
}

#[cfg(test)]
mod tests;
