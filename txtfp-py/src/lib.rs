//! `txtfp._native`: the Python extension module over the txtfp crate.
//!
//! A thin layer, like the command-line tool: every result is the library's,
//! this crate only moves texts in (Python strings or Arrow arrays, see
//! [`texts`]) and rows out (NumPy arrays), without the GIL while the
//! library works ([`run`]). The Python package `txtfp` (python/txtfp)
//! re-exports it with docstrings and type stubs.

use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyAny;

mod canon;
mod dedup;
mod errors;
mod external;
mod lsh;
mod minhash;
mod run;
mod settings;
mod simhash;
mod store;
mod texts;
mod tlsh;

use errors::bad_value;

/// Estimated Jaccard similarity of two MinHash signatures: the fraction of
/// slots on which they agree.
///
/// `a` and `b` are `uint64` arrays of equal shape: two signatures (1-D),
/// giving a `float`, or two stacks of signatures (2-D, row by row), giving
/// a `float64` array.
#[pyfunction]
fn jaccard<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    if let (Ok(a), Ok(b)) = (
        a.extract::<PyReadonlyArray1<'py, u64>>(),
        b.extract::<PyReadonlyArray1<'py, u64>>(),
    ) {
        let (a, b) = (a.as_array(), b.as_array());
        if a.len() != b.len() {
            return Err(bad_value(format!(
                "signatures of {} and {} slots cannot be compared",
                a.len(),
                b.len()
            )));
        }
        let same = a.iter().zip(b.iter()).filter(|(x, y)| x == y).count();
        let j = if a.is_empty() {
            0.0
        } else {
            same as f64 / a.len() as f64
        };
        return Ok(j.into_pyobject(py)?.into_any());
    }
    let a: PyReadonlyArray2<'py, u64> = a.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(
            "jaccard takes two uint64 arrays of 1 or 2 dimensions",
        )
    })?;
    let b: PyReadonlyArray2<'py, u64> = b.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err("jaccard takes two uint64 arrays of equal shape")
    })?;
    let (a, b) = (a.as_array(), b.as_array());
    if a.shape() != b.shape() {
        return Err(bad_value(format!(
            "arrays of shapes {:?} and {:?} cannot be compared row by row",
            a.shape(),
            b.shape()
        )));
    }
    let width = a.ncols();
    let out: Vec<f64> = a
        .rows()
        .into_iter()
        .zip(b.rows())
        .map(|(x, y)| {
            let same = x.iter().zip(y.iter()).filter(|(p, q)| p == q).count();
            if width == 0 {
                0.0
            } else {
                same as f64 / width as f64
            }
        })
        .collect();
    Ok(numpy::PyArray1::from_vec(py, out).into_any())
}

/// Number of differing bits between two SimHash signatures (`int`s of up to
/// 128 bits).
#[pyfunction]
fn hamming(a: u128, b: u128) -> u32 {
    (a ^ b).count_ones()
}

/// The default seed of every fingerprinter (`0xC0FFEE5EED`).
const DEFAULT_SEED: u64 = txtfp::classical::DEFAULT_SEED;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TxtfpError", py.get_type::<errors::TxtfpError>())?;
    m.add("DEFAULT_SEED", DEFAULT_SEED)?;
    m.add("NUM_PERMS", minhash::NUM_PERMS.to_vec())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<canon::PyCanonicalizer>()?;
    m.add_class::<minhash::PyMinHash>()?;
    m.add_class::<simhash::PySimHash>()?;
    m.add_class::<tlsh::PyTlsh>()?;
    m.add_class::<dedup::PyMinHashDedup>()?;
    m.add_class::<dedup::PyDedupReport>()?;
    m.add_class::<external::PyExternalReport>()?;
    m.add_class::<external::PyExternalDecisions>()?;
    m.add_class::<lsh::PyLshIndex>()?;
    m.add_class::<store::PyGlobalFingerprintStore>()?;
    m.add_class::<store::PyDecisionRecord>()?;
    m.add_function(wrap_pyfunction!(canon::canonicalize, m)?)?;
    m.add_function(wrap_pyfunction!(tlsh::tlsh_distance, m)?)?;
    m.add_function(wrap_pyfunction!(jaccard, m)?)?;
    m.add_function(wrap_pyfunction!(hamming, m)?)?;
    Ok(())
}
