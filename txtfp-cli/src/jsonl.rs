//! JSONL records: only the text and id columns are decoded; every other
//! value is skipped unparsed, and a text without escapes is borrowed from the
//! input buffer.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The two columns a record is read for.
#[derive(Clone, Copy, Debug)]
pub struct Columns<'c> {
    /// Key of the text.
    pub text: &'c str,
    /// Key of the id.
    pub id: &'c str,
    /// Key of an optional string column also read (the source of
    /// `store ingest`).
    pub extra: Option<&'c str>,
}

/// What one line holds.
#[derive(Debug)]
pub struct Fields<'a> {
    /// The text column.
    pub text: Cow<'a, str>,
    /// The id column as JSON text, when present.
    pub id: Option<&'a str>,
    /// The extra column, when asked for and present.
    #[cfg_attr(not(feature = "store"), allow(dead_code))]
    pub extra: Option<Cow<'a, str>>,
}

/// Parses one JSONL line (without its line break). The error says what is
/// wrong in words and gives the byte offset in the line.
pub fn parse_line<'a>(line: &'a [u8], cols: Columns<'_>) -> Result<Fields<'a>, String> {
    // serde_json checks the UTF-8 of the strings it reads; std's check runs
    // only to locate the bad byte once it has failed.
    let mut de = serde_json::Deserializer::from_slice(line);
    let found = de::Deserializer::deserialize_map(&mut de, RecordVisitor { cols })
        .and_then(|f| de.end().map(|()| f))
        .map_err(|e| match std::str::from_utf8(line) {
            Err(bad) => format!(
                "invalid UTF-8 at byte {} of the line",
                bad.valid_up_to() + 1
            ),
            Ok(_) => describe(&e),
        })?;
    match found.text {
        Some(text) => Ok(Fields {
            text,
            id: found.id,
            extra: found.extra,
        }),
        None => Err(format!("no \"{}\" column", cols.text)),
    }
}

/// serde_json's message with its `line 1` (always, one line at a time)
/// replaced by the byte offset.
fn describe(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let msg = match msg.rfind(" at line ") {
        Some(cut) => &msg[..cut],
        None => &msg,
    };
    let what = match e.classify() {
        serde_json::error::Category::Data => "",
        serde_json::error::Category::Eof => "malformed JSON (truncated): ",
        _ => "malformed JSON: ",
    };
    format!("{what}{msg} (byte {})", e.column())
}

/// Partial result of the map visitor.
struct Found<'a> {
    text: Option<Cow<'a, str>>,
    id: Option<&'a str>,
    extra: Option<Cow<'a, str>>,
}

struct RecordVisitor<'c> {
    cols: Columns<'c>,
}

impl<'de> Visitor<'de> for RecordVisitor<'_> {
    type Value = Found<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object per line")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Found<'de>, M::Error> {
        let mut found = Found {
            text: None,
            id: None,
            extra: None,
        };
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == self.cols.text {
                found.text = Some(map.next_value_seed(TextSeed {
                    column: self.cols.text,
                })?);
            } else if key == self.cols.id {
                let raw: &'de RawValue = map.next_value()?;
                found.id = Some(raw.get());
            } else if self.cols.extra == Some(&*key) {
                let column = self.cols.extra.unwrap_or_default();
                found.extra = Some(map.next_value_seed(TextSeed { column })?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// A string borrowed when it has no escapes, copied otherwise.
struct TextSeed<'c> {
    column: &'c str,
}

impl<'de> DeserializeSeed<'de> for TextSeed<'_> {
    type Value = Cow<'de, str>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for TextSeed<'_> {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a string in column \"{}\"", self.column)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// One line of a JSONL buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number.
    pub number: usize,
    /// The content, without `\n` and a `\r` before it.
    pub content: Range<usize>,
    /// Where the next line starts (after the `\n`, or the buffer's end).
    pub next: usize,
}

/// The non-blank lines of `buf`.
pub fn lines(buf: &[u8]) -> Vec<Line> {
    let mut out = Vec::with_capacity(buf.len() / 512 + 1);
    let mut start = 0;
    let mut number = 0;
    let mut push = |start: usize, end: usize, next: usize, number: usize| {
        let mut content = start..end;
        if content.end > start && buf[content.end - 1] == b'\r' {
            content.end -= 1;
        }
        if !buf[content.clone()].iter().all(u8::is_ascii_whitespace) {
            out.push(Line {
                number,
                content,
                next,
            });
        }
    };
    for nl in memchr::memchr_iter(b'\n', buf) {
        number += 1;
        push(start, nl, nl + 1, number);
        start = nl + 1;
    }
    if start < buf.len() {
        push(start, buf.len(), buf.len(), number + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const COLS: Columns<'static> = Columns {
        text: "text",
        id: "id",
        extra: None,
    };

    #[test]
    fn borrows_plain_text_and_copies_escaped() {
        let f = parse_line(br#"{"id": 7, "x": [1, {"a": 2}], "text": "plain"}"#, COLS).unwrap();
        assert!(matches!(f.text, Cow::Borrowed("plain")));
        assert_eq!(f.id, Some("7"));
        let f = parse_line(br#"{"text": "a\nb", "id": "q"}"#, COLS).unwrap();
        assert_eq!(f.text, "a\nb");
        assert_eq!(f.id, Some("\"q\""));
    }

    #[test]
    fn says_what_is_wrong() {
        let e = parse_line(br#"{"id": 1}"#, COLS).unwrap_err();
        assert_eq!(e, "no \"text\" column");
        let e = parse_line(br#"{"text": 5}"#, COLS).unwrap_err();
        assert!(e.contains("expected a string in column \"text\""), "{e}");
        let e = parse_line(br#"{"text": "a""#, COLS).unwrap_err();
        assert!(e.starts_with("malformed JSON"), "{e}");
        let e = parse_line(b"{\"text\": \"\xff\"}", COLS).unwrap_err();
        assert_eq!(e, "invalid UTF-8 at byte 11 of the line");
        let e = parse_line(br#"[1]"#, COLS).unwrap_err();
        assert!(e.contains("a JSON object per line"), "{e}");
    }

    #[test]
    fn splits_lines() {
        let l = lines(b"a\r\n\n  \nb\nc");
        let got: Vec<_> = l
            .iter()
            .map(|l| (l.number, l.content.clone(), l.next))
            .collect();
        assert_eq!(got, [(1, 0..1, 3), (4, 7..8, 9), (5, 9..10, 10)]);
    }
}
