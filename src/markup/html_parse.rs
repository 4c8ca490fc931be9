//! html5ever parse with bounds, into html2text's DOM.
//!
//! html5ever's tree builder scans its stack of open elements for most start
//! tags ("is there a `<p>` in button scope?"), so `<div>` nested 100 000
//! deep costs O(depth²): about a minute for a 1 MB input. A token filter sits
//! between the tokenizer and the tree builder and
//!
//! * drops any start tag that would open an element while the builder
//!   already holds `max_depth` elements (open elements plus active formatting
//!   elements, counted through the builder's public `trace_handles`); the
//!   text inside is kept, one level up;
//! * stops the parse once the tree has `max_nodes` nodes (the caller then
//!   splits the input or parses it flat);
//! * in flat mode drops the formatting elements (`<b>`, `<a>`, `<font>`...),
//!   the only ones the builder re-creates on its own, so the tree has at most
//!   one node per input tag;
//! * clamps `colspan` to 1000 and `rowspan` to 65534, as browsers do, or
//!   drops them (html2text 0.17.4 panics on some spanned tables, as does
//!   txtfp 0.3.2: `<td colspan=3>a<td rowspan=3>b<tr><td colspan=2>c`).
//!
//! A document within the bounds parses exactly as `html2text::from_read`
//! parses it (same options).

use core::cell::Cell;

use html2text::RcDom;
use html5ever::buffer_queue::BufferQueue;
use html5ever::interface::Tracer;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use html5ever::tree_builder::{TreeBuilder, TreeBuilderOpts};
use html5ever::{LocalName, TokenizerResult, local_name};

use super::html_sink::CountingDom;

type Handle = html2text::Handle;
type Builder = TreeBuilder<Handle, CountingDom>;

/// Counts what the tree builder holds.
struct Count(Cell<usize>);

impl Tracer for Count {
    type Handle = Handle;
    fn trace_handle(&self, _node: &Handle) {
        self.0.set(self.0.get() + 1);
    }
}

/// Bounds for one parse.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    pub max_depth: usize,
    pub max_nodes: usize,
    pub flat: bool,
    /// Keep `colspan`/`rowspan` (clamped); `false` drops them, which avoids
    /// html2text's span remapping (it panics on some spanned tables).
    pub spans: bool,
}

/// The token filter.
struct Guard {
    inner: Builder,
    limits: Limits,
    over: Cell<bool>,
}

fn is_void(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("area")
            | local_name!("base")
            | local_name!("br")
            | local_name!("col")
            | local_name!("embed")
            | local_name!("hr")
            | local_name!("img")
            | local_name!("input")
            | local_name!("keygen")
            | local_name!("link")
            | local_name!("meta")
            | local_name!("param")
            | local_name!("source")
            | local_name!("track")
            | local_name!("wbr")
    )
}

/// The WHATWG "formatting elements": the ones the builder re-creates.
fn is_formatting(name: &LocalName) -> bool {
    matches!(
        *name,
        local_name!("a")
            | local_name!("b")
            | local_name!("big")
            | local_name!("code")
            | local_name!("em")
            | local_name!("font")
            | local_name!("i")
            | local_name!("nobr")
            | local_name!("s")
            | local_name!("small")
            | local_name!("strike")
            | local_name!("strong")
            | local_name!("tt")
            | local_name!("u")
    )
}

/// Rewrites a span attribute that html2text would read as a number above
/// `max` (it parses with `str::parse::<usize>`), or drops it.
fn clamp_span(tag: &mut Tag, keep: bool) {
    if !matches!(tag.name, local_name!("td") | local_name!("th")) {
        return;
    }
    if !keep {
        tag.attrs.retain(|a| {
            !matches!(
                a.name.local,
                local_name!("colspan") | local_name!("rowspan")
            )
        });
        return;
    }
    for attr in &mut tag.attrs {
        let max: usize = match attr.name.local {
            local_name!("colspan") => 1000,
            local_name!("rowspan") => 65534,
            _ => continue,
        };
        if attr.value.parse::<usize>().is_ok_and(|v| v > max) {
            attr.value = StrTendril::from(alloc::format!("{max}").as_str());
        }
    }
}

impl Guard {
    fn depth(&self) -> usize {
        let count = Count(Cell::new(0));
        self.inner.trace_handles(&count);
        count.0.get()
    }
}

impl TokenSink for Guard {
    type Handle = Handle;

    fn process_token(&self, mut token: Token, line_number: u64) -> TokenSinkResult<Handle> {
        if self.over.get() {
            return TokenSinkResult::Continue;
        }
        if let Token::TagToken(tag) = &mut token {
            if self.limits.flat && is_formatting(&tag.name) {
                return TokenSinkResult::Continue;
            }
            if tag.kind == TagKind::StartTag {
                clamp_span(tag, self.limits.spans);
                if !tag.self_closing && !is_void(&tag.name) && self.depth() >= self.limits.max_depth
                {
                    return TokenSinkResult::Continue;
                }
            }
        }
        let result = self.inner.process_token(token, line_number);
        if self.inner.sink.nodes.get() > self.limits.max_nodes {
            self.over.set(true);
        }
        result
    }

    fn end(&self) {
        self.inner.end();
    }

    fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
        self.inner
            .adjusted_current_node_present_but_not_in_html_namespace()
    }
}

/// Parses one document with html2text's options (scripting off) within
/// `limits`; `None` when it would need more than `limits.max_nodes` nodes.
pub(crate) fn parse(html: &str, limits: Limits) -> Option<RcDom> {
    let opts = TreeBuilderOpts {
        scripting_enabled: false,
        ..Default::default()
    };
    let guard = Guard {
        inner: TreeBuilder::new(CountingDom::new(), opts),
        limits,
        over: Cell::new(false),
    };
    let tok = Tokenizer::new(guard, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from(html));
    // `Script` results (a `</script>` was seen) only pause the tokenizer.
    while !matches!(tok.feed(&input), TokenizerResult::Done) {}
    tok.end();
    if tok.sink.over.get() {
        return None;
    }
    Some(tok.sink.inner.sink.dom)
}

#[cfg(test)]
mod tests;
