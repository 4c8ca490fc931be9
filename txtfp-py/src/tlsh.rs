//! `txtfp.TlshFingerprinter` and `txtfp.tlsh_distance`.

use pyo3::prelude::*;
use pyo3::types::PyList;
use txtfp::{TlshFingerprint, TlshFingerprinter};

use crate::canon::{PyCanonicalizer, or_default};
use crate::errors::to_py;
use crate::run::{Policy, Threads, batch};
use crate::texts::{one_text, utf8};

/// TLSH digests (128 buckets, 1-byte checksum, the `T1` hex form) of
/// canonicalized text. A text needs at least 50 bytes after
/// canonicalization, and enough variety, to have a digest.
#[pyclass(module = "txtfp", frozen, name = "TlshFingerprinter")]
pub struct PyTlsh {
    inner: TlshFingerprinter,
}

#[pymethods]
impl PyTlsh {
    #[new]
    #[pyo3(signature = (*, canonicalizer = None))]
    fn new(canonicalizer: Option<&Bound<'_, PyCanonicalizer>>) -> Self {
        PyTlsh {
            inner: TlshFingerprinter::new(or_default(canonicalizer)),
        }
    }

    /// The digest of one text, such as `"T12A51..."` (72 characters).
    ///
    /// Raises `TxtfpError` for a text too short or too uniform.
    fn fingerprint(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<String> {
        let bytes = one_text(text)?;
        let s = utf8(bytes.as_bytes()).map_err(to_py)?;
        let d = py
            .detach(|| self.inner.fingerprint_with_buffer(s, &mut String::new()))
            .map_err(to_py)?;
        Ok(d.into_string())
    }

    /// The digests of many texts, as a list of `str` in input order
    /// (`None` for a text without one under `errors="empty"`).
    #[pyo3(signature = (texts, *, errors = "raise", threads = None))]
    fn fingerprint_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        errors: &str,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let policy = Policy::parse(errors)?;
        let threads = Threads::parse(threads)?;
        let rows = batch(py, texts, 1, None, policy, &threads, |t, s, row| {
            row[0] = Some(self.inner.fingerprint_with_buffer(t, s)?.into_string());
            Ok(())
        })?;
        PyList::new(py, rows.values)
    }

    /// The configuration's hash, equal to the Rust fingerprinter's.
    #[getter]
    fn config_hash(&self) -> u64 {
        self.inner.config_hash()
    }

    fn __repr__(&self) -> String {
        format!(
            "TlshFingerprinter({:?})",
            self.inner.canonicalizer().config_string()
        )
    }
}

/// The TLSH distance between two digests (0 for equal texts, growing with
/// difference, unbounded above). Raises `TxtfpError` for a malformed digest.
#[pyfunction]
pub fn tlsh_distance(a: &str, b: &str) -> PyResult<i32> {
    let a = TlshFingerprint::new(a).map_err(to_py)?;
    let b = TlshFingerprint::new(b).map_err(to_py)?;
    txtfp::tlsh_distance(&a, &b).map_err(to_py)
}
