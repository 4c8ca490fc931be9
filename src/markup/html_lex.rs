//! One linear pass over the raw HTML before it is parsed.
//!
//! 1. `<script>` and `<style>` elements are cut out of the text, as txtfp
//!    0.3.2 does, but only where the HTML tokenizer would see them as tags:
//!    not inside comments, attribute values or raw-text elements (`<title>`,
//!    `<textarea>`, ...). An opener with no closer anywhere after it loses only
//!    its own tag, so the rest of the page survives (0.3.2 erased it: W17).
//!    Unclosed raw-text openers (`<title>` etc.) are treated the same way,
//!    because the parser would otherwise swallow the page into them too.
//! 2. Positions where a new block starts are recorded, so a huge document can
//!    be converted in pieces (see `html.rs`).
//!
//! The pass follows the WHATWG tokenizer only as far as it decides what is a
//! tag: comments (`<!-- -->`, `<!-->`, `--!>`), bogus comments (`<!x>`, `<?x>`,
//! `</ x>`), quoted attribute values and end-tag lookup for raw text.

/// The prepared HTML and where it may be split.
pub(crate) struct Prepared {
    /// The input minus script and style elements (and unclosed raw-text openers).
    pub text: String,
    /// Byte offsets in `text` where a tag, comment or end tag starts, or
    /// where a long run of plain text has whitespace, ascending; `true`
    /// marks a block-level start tag (the preferred places to split).
    pub cuts: Vec<(usize, bool)>,
}

/// Elements dropped with their content.
const DROPPED: [&str; 2] = ["script", "style"];
/// Elements whose content the tokenizer reads as text up to their end tag.
const RAW_TEXT: [&str; 6] = ["title", "textarea", "xmp", "iframe", "noembed", "noframes"];
/// Start tags that begin a block: a piece boundary there splits no paragraph.
const BLOCKS: [&str; 30] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "ul",
];
/// Block cuts closer than this to the previous one are not recorded.
const BLOCK_CUT_GAP: usize = 4 << 10;
/// Other cuts (the fallback) closer than this are not recorded.
const TAG_CUT_GAP: usize = 64 << 10;

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0C)
}

fn find_byte(b: &[u8], from: usize, c: u8) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|&x| x == c)
        .map(|p| from + p)
}

fn find_seq(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    let hay = b.get(from..)?;
    if hay.len() < pat.len() {
        return None;
    }
    let mut i = 0;
    while let Some(p) = hay[i..].iter().position(|&x| x == pat[0]) {
        let at = i + p;
        if hay.len() - at < pat.len() {
            return None;
        }
        if &hay[at..at + pat.len()] == pat {
            return Some(from + at);
        }
        i = at + 1;
    }
    None
}

/// From just after a tag name, the index after the tag's `>`; `None` when
/// the input ends inside the tag. Quoted attribute values may hold `>`.
fn tag_end(b: &[u8], mut j: usize) -> Option<usize> {
    let n = b.len();
    loop {
        while j < n && (is_ws(b[j]) || b[j] == b'/') {
            j += 1;
        }
        if j >= n {
            return None;
        }
        if b[j] == b'>' {
            return Some(j + 1);
        }
        // Attribute name; its first character may be `=`.
        j += 1;
        while j < n && !is_ws(b[j]) && !matches!(b[j], b'/' | b'>' | b'=') {
            j += 1;
        }
        while j < n && is_ws(b[j]) {
            j += 1;
        }
        if j >= n {
            return None;
        }
        if b[j] != b'=' {
            continue;
        }
        j += 1;
        while j < n && is_ws(b[j]) {
            j += 1;
        }
        match b.get(j)? {
            &q @ (b'"' | b'\'') => j = find_byte(b, j + 1, q)? + 1,
            b'>' => return Some(j + 1),
            _ => {
                while j < n && !is_ws(b[j]) && b[j] != b'>' {
                    j += 1;
                }
            }
        }
    }
}

/// End of the tag name that starts at `j` (ASCII letter already checked).
fn name_end(b: &[u8], mut j: usize) -> usize {
    while j < b.len() && !is_ws(b[j]) && b[j] != b'/' && b[j] != b'>' {
        j += 1;
    }
    j
}

/// End of a comment whose `<!--` ends at `j`: after the first `-->` or
/// `--!>` (one forward scan: searching for each ending separately would
/// rescan the rest of the page for every comment that lacks one of them).
fn comment_end(b: &[u8], j: usize) -> usize {
    if b.get(j) == Some(&b'>') {
        return j + 1;
    }
    if b.get(j..j + 2) == Some(b"->") {
        return j + 2;
    }
    let mut k = j;
    while let Some(d) = find_seq(b, k, b"--") {
        match b.get(d + 2) {
            Some(b'>') => return d + 3,
            Some(b'!') if b.get(d + 3) == Some(&b'>') => return d + 4,
            _ => k = d + 1,
        }
    }
    b.len()
}

/// The first end tag `</name` (ASCII case-insensitive, then whitespace, `/`
/// or `>`) at or after `from`: `(start, index after its '>')`.
fn find_closer(b: &[u8], from: usize, name: &str) -> Option<(usize, usize)> {
    let name = name.as_bytes();
    let mut i = from;
    while let Some(lt) = find_byte(b, i, b'<') {
        let after = lt + 2 + name.len();
        if b.get(lt + 1) == Some(&b'/')
            && b.get(lt + 2..after)
                .is_some_and(|s| s.eq_ignore_ascii_case(name))
            && b.get(after)
                .is_some_and(|&c| is_ws(c) || c == b'/' || c == b'>')
        {
            return tag_end(b, after).map(|e| (lt, e));
        }
        i = lt + 1;
    }
    None
}

fn position(list: &[&str], name: &[u8]) -> Option<usize> {
    list.iter()
        .position(|t| t.as_bytes().eq_ignore_ascii_case(name))
}

/// Records split points, spaced so the list stays small.
struct Cuts {
    list: Vec<(usize, bool)>,
    last_block: Option<usize>,
    last_any: Option<usize>,
}

impl Cuts {
    fn mark(&mut self, at: usize, block: bool) {
        if block && self.last_block.is_none_or(|p| at - p >= BLOCK_CUT_GAP) {
            self.list.push((at, true));
            self.last_block = Some(at);
            self.last_any = Some(at);
        } else if self.last_any.is_none_or(|p| at - p >= TAG_CUT_GAP) {
            self.list.push((at, false));
            self.last_any = Some(at);
        }
    }

    /// Split points after whitespace inside a run of plain text, which is
    /// copied verbatim starting at output offset `out`.
    fn in_text(&mut self, b: &[u8], run: core::ops::Range<usize>, out: usize) {
        let mut from = run.start;
        while run.end - from > TAG_CUT_GAP {
            let due = self.last_any.map_or(0, |p| p + TAG_CUT_GAP);
            let at = from.max(due.saturating_sub(out) + run.start);
            if at >= run.end {
                return;
            }
            match b[at..run.end].iter().position(|c| c.is_ascii_whitespace()) {
                Some(k) => {
                    let cut = at + k + 1;
                    self.mark(out + (cut - run.start), false);
                    from = cut;
                }
                None => return,
            }
        }
    }
}

/// Runs the pass; linear in the input length.
pub(crate) fn prepare(html: &str) -> Prepared {
    let b = html.as_bytes();
    let n = b.len();
    let mut text = String::with_capacity(n);
    let mut cuts = Cuts {
        list: Vec::new(),
        last_block: None,
        last_any: None,
    };
    // The input is copied lazily: `copied` is where the uncopied part starts,
    // so input offset `x >= copied` lands at output `text.len() + x - copied`.
    let mut copied = 0;
    // Once a closer search from some point fails it fails from every later
    // point too: remember that so the pass stays linear.
    let mut no_closer = [false; DROPPED.len() + RAW_TEXT.len()];
    let mut i = 0;
    while let Some(lt) = find_byte(b, i, b'<') {
        if lt - i > TAG_CUT_GAP {
            cuts.in_text(b, i..lt, text.len() + i - copied);
        }
        let here = text.len() + (lt - copied);
        let next = b.get(lt + 1).copied();
        match next {
            Some(b'!') if b.get(lt + 2..lt + 4) == Some(b"--") => {
                cuts.mark(here, false);
                i = comment_end(b, lt + 4);
            }
            Some(b'!' | b'?') => i = find_byte(b, lt + 2, b'>').map_or(n, |p| p + 1),
            Some(b'/') => {
                cuts.mark(here, false);
                i = match b.get(lt + 2) {
                    Some(c) if c.is_ascii_alphabetic() => {
                        tag_end(b, name_end(b, lt + 2)).unwrap_or(n)
                    }
                    Some(b'>') => lt + 3,
                    _ => find_byte(b, lt + 2, b'>').map_or(n, |p| p + 1),
                };
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let ne = name_end(b, lt + 1);
                let name = &b[lt + 1..ne];
                let Some(end) = tag_end(b, ne) else {
                    i = n; // the tokenizer drops a tag cut off by the end of input
                    break;
                };
                cuts.mark(here, position(&BLOCKS, name).is_some());
                i = end;
                let special = position(&DROPPED, name)
                    .map(|k| (k, true))
                    .or_else(|| position(&RAW_TEXT, name).map(|k| (DROPPED.len() + k, false)));
                if let Some((k, dropped)) = special {
                    let tag = if dropped {
                        DROPPED[k]
                    } else {
                        RAW_TEXT[k - DROPPED.len()]
                    };
                    let closer = if no_closer[k] {
                        None
                    } else {
                        find_closer(b, end, tag)
                    };
                    match closer {
                        Some((_, after)) if dropped => {
                            text.push_str(&html[copied..lt]);
                            copied = after;
                            i = after;
                        }
                        // Raw text is kept verbatim: resume at its end tag.
                        Some((start, _)) => i = start,
                        None => {
                            no_closer[k] = true;
                            text.push_str(&html[copied..lt]);
                            copied = end;
                        }
                    }
                }
            }
            _ => i = lt + 1,
        }
    }
    if n - i.min(n) > TAG_CUT_GAP {
        cuts.in_text(b, i..n, text.len() + i - copied);
    }
    text.push_str(&html[copied..]);
    Prepared {
        text,
        cuts: cuts.list,
    }
}

#[cfg(test)]
mod tests;
