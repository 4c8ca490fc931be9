//! Rust errors as Python exceptions.
//!
//! Every failure of the library reaches Python as [`TxtfpError`] (a
//! `ValueError`) carrying the Rust message, except I/O failures, which are
//! `OSError`s as Python code expects. Wrong argument types stay `TypeError`s.

use pyo3::PyErr;
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};

create_exception!(
    txtfp,
    TxtfpError,
    PyValueError,
    "An input or a configuration txtfp cannot fingerprint; the message is the library's."
);

/// The Python exception for a library error.
pub fn to_py(err: txtfp::Error) -> PyErr {
    match err {
        txtfp::Error::Io(e) => PyOSError::new_err(e.to_string()),
        other => TxtfpError::new_err(other.to_string()),
    }
}

/// The exception for a bad keyword value, such as `errors="skip"`.
pub fn bad_value(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}
