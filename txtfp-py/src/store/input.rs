//! What the store's calls take from Python: ids, texts, batch entries and
//! keyword settings written out as the library's TOML.

use std::path::PathBuf;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use txtfp::store::IncomingDocument;

use crate::errors::bad_value;
use crate::texts::{one_text, utf8};

/// A document id: a `str`, or an `int` as its decimal text (the CLI's id
/// of a JSON number).
pub(super) fn id_text(v: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = v.cast::<PyString>() {
        return s.extract::<String>();
    }
    if v.is_instance_of::<PyInt>() && !v.is_instance_of::<PyBool>() {
        return v.str()?.extract::<String>();
    }
    Err(PyTypeError::new_err(format!(
        "doc_id must be str or int, not {}",
        v.get_type().name()?
    )))
}

/// A text as an owned `String`: the outer error for a wrong type, the
/// inner (the library's kind) for a text with no UTF-8 form.
pub(super) fn text_of(v: &Bound<'_, PyAny>) -> PyResult<txtfp::Result<String>> {
    let bytes = match one_text(v) {
        Ok(b) => b,
        Err(e) if e.is_instance_of::<PyTypeError>(v.py()) => return Err(e),
        Err(e) => return Ok(Err(txtfp::Error::InvalidInput(e.value(v.py()).to_string()))),
    };
    Ok(utf8(bytes.as_bytes()).map(str::to_owned))
}

/// One entry of `ingest_batch`: the outer error for a malformed entry, the
/// inner for a text with no UTF-8 form.
pub(super) fn incoming(
    item: &Bound<'_, PyAny>,
    default_source: Option<&str>,
) -> PyResult<txtfp::Result<IncomingDocument>> {
    let (id, text, source, language) = if let Ok(m) = item.cast::<PyMapping>() {
        let get = |k: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
            if m.contains(k)? {
                Ok(Some(m.get_item(k)?))
            } else {
                Ok(None)
            }
        };
        let id = match get("doc_id")? {
            Some(v) => v,
            None => get("id")?.ok_or_else(|| bad_value("a mapping needs doc_id (or id)"))?,
        };
        let text = get("text")?.ok_or_else(|| bad_value("a mapping needs text"))?;
        (id, text, get("source")?, get("language")?)
    } else if let Ok(t) = item.cast::<PyTuple>() {
        if !(2..=4).contains(&t.len()) {
            return Err(bad_value(format!(
                "a tuple is (doc_id, text[, source[, language]]); got {} items",
                t.len()
            )));
        }
        let at = |i: usize| t.get_item(i).ok();
        (t.get_item(0)?, t.get_item(1)?, at(2), at(3))
    } else {
        return Err(PyTypeError::new_err(format!(
            "a document is a tuple (doc_id, text[, source[, language]]) or a mapping, not {}",
            item.get_type().name()?
        )));
    };
    let source = match source.filter(|s| !s.is_none()) {
        Some(s) => s.extract::<String>()?,
        None => default_source
            .ok_or_else(|| bad_value("no source: give one per document or source="))?
            .to_owned(),
    };
    let language = match language.filter(|l| !l.is_none()) {
        Some(l) => Some(l.extract::<String>()?),
        None => None,
    };
    let doc_id = id_text(&id)?;
    Ok(text_of(&text)?.map(|text| IncomingDocument {
        doc_id,
        text,
        source,
        language,
    }))
}

/// `err` with the index of the entry of `docs` it is about.
pub(super) fn at_index(py: Python<'_>, i: usize, err: PyErr) -> PyErr {
    let msg = format!("docs[{i}]: {}", err.value(py));
    if err.is_instance_of::<PyTypeError>(py) {
        PyTypeError::new_err(msg)
    } else {
        bad_value(msg)
    }
}

/// Keyword settings as a TOML document, for the library's parser (which
/// names an unknown key or a bad value).
pub(super) fn settings_toml(settings: &Bound<'_, PyDict>) -> PyResult<String> {
    let mut table = toml::Table::new();
    for (k, v) in settings.iter() {
        let key: String = k.extract()?;
        let value = toml_value(&v, 0).map_err(|e| {
            let py = v.py();
            let msg = format!("{key}: {}", e.value(py));
            if e.is_instance_of::<PyTypeError>(py) {
                PyTypeError::new_err(msg)
            } else {
                bad_value(msg)
            }
        })?;
        table.insert(key, value);
    }
    toml::to_string(&table).map_err(|e| bad_value(format!("the settings have no TOML form: {e}")))
}

/// Deepest nesting of lists and dicts in a setting (the config has
/// lists of names and one table of names).
const MAX_SETTING_DEPTH: usize = 4;

fn toml_value(v: &Bound<'_, PyAny>, depth: usize) -> PyResult<toml::Value> {
    if depth > MAX_SETTING_DEPTH {
        return Err(bad_value("nested too deeply for a store setting"));
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return match v.extract::<i64>() {
            Ok(n) => Ok(toml::Value::Integer(n)),
            Err(_) => Err(bad_value(format!(
                "{} does not fit a TOML integer",
                v.str()?
            ))),
        };
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(toml::Value::String(s.extract()?));
    }
    if v.hasattr("__fspath__")? {
        let path: PathBuf = v.extract()?;
        let s = path
            .to_str()
            .ok_or_else(|| bad_value(format!("the path {path:?} is not valid UTF-8")))?;
        return Ok(toml::Value::String(s.to_owned()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut table = toml::Table::new();
        for (k, x) in d.iter() {
            let key: String = k
                .extract()
                .map_err(|_| PyTypeError::new_err("table keys must be str"))?;
            table.insert(key, toml_value(&x, depth + 1)?);
        }
        return Ok(toml::Value::Table(table));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for x in v.try_iter()? {
            items.push(toml_value(&x?, depth + 1)?);
        }
        return Ok(toml::Value::Array(items));
    }
    if v.is_none() {
        return Err(bad_value(
            "None has no TOML form: leave the setting out for its default",
        ));
    }
    Err(PyTypeError::new_err(format!(
        "a store setting is a bool, int, float, str, path, list or dict, not {}",
        v.get_type().name()?
    )))
}
