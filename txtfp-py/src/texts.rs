//! The texts a batch call takes.
//!
//! Two sources:
//! - any Python iterable of `str` (or UTF-8 `bytes`, or `None`), read by a
//!   [`RoundReader`] under the GIL into [`Round`]s: each text is encoded to
//!   UTF-8 once (`abi3` on 3.9 has no borrowed UTF-8 view) and copied into a
//!   buffer the native code owns, a few MiB at a time, so that reading the
//!   next round overlaps fingerprinting this one and a huge list never needs
//!   a second copy of all its text;
//! - anything that speaks the Arrow PyCapsule interface (a pyarrow `Array` or
//!   `ChunkedArray`, a polars `Series`, ...) of `string`, `large_string`,
//!   `string_view` or a binary type: the values are read in place, a chunk at
//!   a time ([`arrow_chunks`], [`arrow_docs`]).
//!
//! A `None` or null value and a value that is not UTF-8 are not errors here:
//! they become [`Doc::Missing`] and [`Doc::Invalid`], which the batch's error
//! policy reports or fills. A value of another type is a `TypeError`.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, GenericBinaryArray, GenericStringArray, OffsetSizeTrait};
use arrow_schema::DataType;
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use pyo3_arrow::input::AnyArray;

/// Text gathered per round of a Python iterable: small enough that encoding
/// the next round overlaps fingerprinting this one, large enough that the
/// hand-over costs nothing.
pub const ROUND_BYTES: usize = 4 << 20;
/// Documents per round at most, for inputs of many tiny texts.
const ROUND_DOCS: usize = 1 << 16;

/// One input value, as the native code sees it.
#[derive(Clone, Copy, Debug)]
pub enum Doc<'a> {
    /// A text.
    Text(&'a str),
    /// `None`, or an Arrow null.
    Missing,
    /// A value that is not valid UTF-8 (bytes, a binary column, or a `str`
    /// holding lone surrogates).
    Invalid,
}

/// Why a [`Doc`] other than a text cannot be fingerprinted.
pub fn doc_problem(doc: Doc<'_>) -> Option<&'static str> {
    match doc {
        Doc::Text(_) => None,
        Doc::Missing => Some("the value is None (null); pass errors=\"empty\" to fill its row"),
        Doc::Invalid => Some("the value is not valid UTF-8"),
    }
}

#[derive(Clone, Copy)]
enum Span {
    Text(usize, usize),
    Missing,
    Invalid,
}

/// Consecutive texts of a Python iterable, copied out as UTF-8 so that the
/// native code owns them and can work on them without the GIL, on another
/// thread, while the next round is read.
pub struct Round {
    /// Index of the round's first document in the whole input.
    pub first: usize,
    bytes: Vec<u8>,
    spans: Vec<Span>,
}

impl Round {
    /// The round's documents, in order.
    pub fn docs(&self) -> Vec<Doc<'_>> {
        // Every span holds text that was checked (or produced) as UTF-8, so the
        // buffer is UTF-8 and the spans are on character boundaries: one fast
        // check gives a `&str` to slice.
        let text = simdutf8::basic::from_utf8(&self.bytes).ok();
        self.spans
            .iter()
            .map(|span| match (*span, text) {
                (Span::Text(a, b), Some(t)) => t.get(a..b).map_or(Doc::Invalid, Doc::Text),
                (Span::Missing, _) => Doc::Missing,
                _ => Doc::Invalid,
            })
            .collect()
    }
}

/// Reads a Python iterable of texts a [`Round`] at a time (with the GIL).
pub struct RoundReader<'py> {
    iter: Bound<'py, pyo3::types::PyIterator>,
    seen: usize,
}

impl<'py> RoundReader<'py> {
    /// A reader over `texts`, or `None` when `texts` is an Arrow array.
    ///
    /// # Errors
    /// A `TypeError` for a single `str` or `bytes`, or for a value that is
    /// neither iterable nor an Arrow array.
    pub fn new(texts: &Bound<'py, PyAny>) -> PyResult<Option<Self>> {
        if texts.is_instance_of::<PyString>() || texts.is_instance_of::<PyBytes>() {
            return Err(PyTypeError::new_err(
                "texts must be a sequence of str or an Arrow string array, not a single str; \
                 use fingerprint() for one text",
            ));
        }
        if is_arrow(texts)? {
            return Ok(None);
        }
        let iter = texts.try_iter().map_err(|_| {
            PyTypeError::new_err(format!(
                "texts must be an iterable of str or an Arrow string array, not {}",
                type_name(texts)
            ))
        })?;
        Ok(Some(RoundReader { iter, seen: 0 }))
    }

    /// The next round, or `None` at the end of the input.
    ///
    /// # Errors
    /// A `TypeError` for an element that is not `str`, `bytes` or `None`;
    /// whatever the iterator raises.
    pub fn next_round(&mut self) -> PyResult<Option<Round>> {
        self.next_round_by(|_, item| Ok(item))
    }

    /// [`next_round`](Self::next_round), taking the text of each element
    /// from `text_of(index, element)`: a source of `(id, text)` pairs keeps
    /// the ids on the side and hands back the text.
    ///
    /// # Errors
    /// As [`next_round`](Self::next_round), and whatever `text_of` returns.
    pub fn next_round_by(
        &mut self,
        mut text_of: impl FnMut(usize, Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Option<Round>> {
        let mut round = Round {
            first: self.seen,
            bytes: Vec::new(),
            spans: Vec::new(),
        };
        while round.bytes.len() < ROUND_BYTES && round.spans.len() < ROUND_DOCS {
            let Some(item) = self.iter.next() else { break };
            let item = text_of(self.seen, item?)?;
            let span = push(&item, self.seen, &mut round.bytes)?;
            round.spans.push(span);
            self.seen += 1;
        }
        Ok((!round.spans.is_empty()).then_some(round))
    }
}

/// Whether `obj` is read through the Arrow interface.
fn is_arrow(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    Ok(obj.hasattr(intern!(py, "__arrow_c_array__"))?
        || obj.hasattr(intern!(py, "__arrow_c_stream__"))?)
}

/// Appends one element of a Python iterable to `bytes` as UTF-8.
fn push(item: &Bound<'_, PyAny>, index: usize, bytes: &mut Vec<u8>) -> PyResult<Span> {
    if item.is_none() {
        return Ok(Span::Missing);
    }
    let start = bytes.len();
    if let Ok(s) = item.cast::<PyString>() {
        // A str with lone surrogates has no UTF-8 form.
        let Ok(b) = s.encode_utf8() else {
            return Ok(Span::Invalid);
        };
        bytes.extend_from_slice(b.as_bytes());
        return Ok(Span::Text(start, bytes.len()));
    }
    if let Ok(b) = item.cast::<PyBytes>() {
        let b = b.as_bytes();
        if simdutf8::basic::from_utf8(b).is_err() {
            return Ok(Span::Invalid);
        }
        bytes.extend_from_slice(b);
        return Ok(Span::Text(start, bytes.len()));
    }
    Err(PyTypeError::new_err(format!(
        "texts[{index}] is {}, not str, bytes or None",
        type_name(item)
    )))
}

/// One text given alone (`fingerprint(text)`), as UTF-8.
///
/// # Errors
/// `TypeError` for a value that is not `str` or `bytes`; the library's error
/// (as `TxtfpError`) for one with no UTF-8 form.
pub fn one_text<'py>(text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    if let Ok(s) = text.cast::<PyString>() {
        return s.encode_utf8().map_err(|_| {
            crate::errors::TxtfpError::new_err(
                "the text holds lone surrogates: it has no UTF-8 form",
            )
        });
    }
    if let Ok(b) = text.cast::<PyBytes>() {
        return Ok(b.clone());
    }
    Err(PyTypeError::new_err(format!(
        "text must be str or bytes, not {}",
        type_name(text)
    )))
}

/// `bytes` as `&str`, or the library's kind of error.
pub fn utf8(bytes: &[u8]) -> txtfp::Result<&str> {
    std::str::from_utf8(bytes)
        .map_err(|e| txtfp::Error::InvalidInput(format!("the text is not valid UTF-8: {e}")))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an unknown type".into())
}

/// The chunks of an Arrow array of texts (see [`RoundReader::new`] for
/// when `texts` is one).
///
/// # Errors
/// A `TypeError` for an Arrow array of another type.
pub fn arrow_chunks(texts: &Bound<'_, PyAny>) -> PyResult<Vec<ArrayRef>> {
    let any: AnyArray = texts.extract()?;
    let (chunks, field) = any.into_chunked_array()?.into_inner();
    let kind = field.data_type();
    if !is_text_type(kind) {
        return Err(PyTypeError::new_err(format!(
            "an Arrow array of texts must be string, large_string, string_view or binary, not {kind}"
        )));
    }
    Ok(chunks)
}

fn is_text_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
    )
}

/// The documents of one Arrow chunk, appended to `out`.
pub fn arrow_docs<'a>(array: &'a ArrayRef, out: &mut Vec<Doc<'a>>) {
    match array.data_type() {
        DataType::Utf8 => strings(array.as_string::<i32>(), out),
        DataType::LargeUtf8 => strings(array.as_string::<i64>(), out),
        DataType::Utf8View => {
            let a = array.as_string_view();
            out.extend((0..a.len()).map(|i| {
                if a.is_null(i) {
                    Doc::Missing
                } else {
                    Doc::Text(a.value(i))
                }
            }));
        }
        DataType::Binary => binaries(array.as_binary::<i32>(), out),
        DataType::LargeBinary => binaries(array.as_binary::<i64>(), out),
        DataType::BinaryView => {
            let a = array.as_binary_view();
            out.extend((0..a.len()).map(|i| {
                if a.is_null(i) {
                    Doc::Missing
                } else {
                    bytes_doc(a.value(i))
                }
            }));
        }
        // Checked by `is_text_type` on the field before any chunk is read.
        _ => out.extend((0..array.len()).map(|_| Doc::Invalid)),
    }
}

fn strings<'a, O: OffsetSizeTrait>(a: &'a GenericStringArray<O>, out: &mut Vec<Doc<'a>>) {
    out.extend(a.iter().map(|v| v.map_or(Doc::Missing, Doc::Text)));
}

fn binaries<'a, O: OffsetSizeTrait>(a: &'a GenericBinaryArray<O>, out: &mut Vec<Doc<'a>>) {
    out.extend(a.iter().map(|v| v.map_or(Doc::Missing, bytes_doc)));
}

fn bytes_doc(b: &[u8]) -> Doc<'_> {
    simdutf8::basic::from_utf8(b).map_or(Doc::Invalid, Doc::Text)
}
