//! UAX #29 extended grapheme clusters.

use alloc::borrow::Cow;
use alloc::boxed::Box;

use unicode_segmentation::UnicodeSegmentation;

use super::{StreamPlan, TokenStream, Tokenizer};

/// Every extended grapheme cluster (UAX #29) is a token: user-perceived
/// characters, so a base letter with its combining marks, a flag (two
/// regional indicators) or a ZWJ emoji sequence is one token. Nothing is
/// filtered: whitespace and punctuation clusters are tokens too, and `"\r\n"`
/// is a single token. Name: `grapheme-uax29`.
///
/// ```
/// use txtfp::{GraphemeTokenizer, Tokenizer};
/// let mut tokens = Vec::new();
/// GraphemeTokenizer.for_each_token("e\u{301}h \u{1F1FA}\u{1F1F8}", &mut |t| {
///     tokens.push(t.to_string())
/// });
/// assert_eq!(tokens, ["e\u{301}", "h", " ", "\u{1F1FA}\u{1F1F8}"]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GraphemeTokenizer;

impl Tokenizer for GraphemeTokenizer {
    fn tokens<'a>(&'a self, input: &'a str) -> TokenStream<'a> {
        TokenStream::Borrowed(Box::new(input.graphemes(true)))
    }

    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed("grapheme-uax29")
    }

    fn for_each_token(&self, input: &str, f: &mut dyn FnMut(&str)) {
        for cluster in input.graphemes(true) {
            f(cluster);
        }
    }

    /// [`StreamPlan::Splittable`]: a cluster never continues past an ASCII
    /// whitespace character into a following non-whitespace ASCII one (none of
    /// those extends or joins a cluster, and `"\r\n"` needs a whitespace
    /// character on both sides), so splitting there changes no cluster.
    fn stream_plan(&self) -> StreamPlan<'_> {
        StreamPlan::Splittable
    }
}

#[cfg(test)]
mod tests;
