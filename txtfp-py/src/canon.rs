//! `txtfp.Canonicalizer` and `txtfp.canonicalize`.

use pyo3::prelude::*;
use pyo3::types::PyString;
use txtfp::{CanonicalizerBuilder, CaseFold, Normalization};

use crate::errors::{bad_value, to_py};
use crate::texts::{one_text, utf8};

/// Unicode canonicalization applied before tokenizing: a normalization form,
/// full case folding, removal of bidirectional and format controls, and
/// optionally the UTS #39 confusable skeleton.
///
/// The defaults are those of every fingerprinter: NFKC, case folding,
/// controls removed, no confusable skeleton.
#[pyclass(module = "txtfp", frozen, name = "Canonicalizer")]
#[derive(Clone)]
pub struct PyCanonicalizer {
    pub inner: txtfp::Canonicalizer,
}

#[pymethods]
impl PyCanonicalizer {
    #[new]
    #[pyo3(signature = (*, normalization = "nfkc", case_fold = true, strip_bidi = true, strip_format = true, apply_confusable = false))]
    fn new(
        normalization: &str,
        case_fold: bool,
        strip_bidi: bool,
        strip_format: bool,
        apply_confusable: bool,
    ) -> PyResult<Self> {
        let normalization = match normalization.to_ascii_lowercase().as_str() {
            "nfkc" => Normalization::Nfkc,
            "nfc" => Normalization::Nfc,
            "none" => Normalization::None,
            other => {
                return Err(bad_value(format!(
                    "normalization must be \"nfkc\", \"nfc\" or \"none\", not {other:?}"
                )));
            }
        };
        let builder = CanonicalizerBuilder {
            normalization,
            case_fold: if case_fold {
                CaseFold::Simple
            } else {
                CaseFold::None
            },
            strip_bidi,
            strip_format,
            apply_confusable,
        };
        Ok(PyCanonicalizer {
            inner: builder.try_build().map_err(to_py)?,
        })
    }

    /// The canonical form of `text`.
    fn canonicalize<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyString>> {
        let bytes = one_text(text)?;
        let s = utf8(bytes.as_bytes()).map_err(to_py)?;
        let out = py
            .detach(|| self.inner.try_canonicalize(s))
            .map_err(to_py)?;
        Ok(PyString::new(py, &out))
    }

    /// The label fingerprint configurations record, such as
    /// `"nfkc-cf-simple-bidi-fmt"`.
    #[getter]
    fn config_string(&self) -> String {
        self.inner.config_string()
    }

    fn __repr__(&self) -> String {
        format!("Canonicalizer({:?})", self.inner.config_string())
    }
}

/// The canonical form of `text` under the default canonicalizer.
#[pyfunction]
pub fn canonicalize<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyString>> {
    PyCanonicalizer {
        inner: txtfp::Canonicalizer::default(),
    }
    .canonicalize(py, text)
}

/// The canonicalizer a fingerprinter was given, or the default one.
pub fn or_default(c: Option<&Bound<'_, PyCanonicalizer>>) -> txtfp::Canonicalizer {
    c.map_or_else(txtfp::Canonicalizer::default, |c| c.get().inner.clone())
}
