//! `txtfp.LshIndex`: the banded MinHash index over NumPy signatures.

use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyList;
use txtfp::classical::minhash::{Classic, Fast, Scheme};
use txtfp::{LshIndex, LshIndexBuilder, MinHashSig};

use crate::errors::{bad_value, to_py};

/// An index of one slot count and scheme.
trait Index: Send + Sync {
    fn insert(&mut self, id: u64, slots: &[u64]) -> txtfp::Result<()>;
    fn remove(&mut self, id: u64) -> bool;
    fn contains(&self, id: u64) -> bool;
    fn len(&self) -> usize;
    /// Candidate ids, ascending; with a threshold, those whose stored
    /// signature's estimated Jaccard with `slots` reaches it.
    fn query(&self, slots: &[u64], threshold: Option<f32>) -> txtfp::Result<Vec<u64>>;
    fn banding(&self) -> (usize, usize);
    fn save(&self, path: &str) -> txtfp::Result<()>;
    fn memory_usage(&self) -> usize;
}

fn sig<const H: usize, S: Scheme>(slots: &[u64]) -> MinHashSig<H, S> {
    let mut s = MinHashSig::<H, S>::empty();
    s.hashes.copy_from_slice(slots);
    s
}

impl<const H: usize, S: Scheme + Send + Sync> Index for LshIndex<H, S> {
    fn insert(&mut self, id: u64, slots: &[u64]) -> txtfp::Result<()> {
        self.try_insert(id, sig::<H, S>(slots))
    }
    fn remove(&mut self, id: u64) -> bool {
        LshIndex::remove(self, id).is_some()
    }
    fn contains(&self, id: u64) -> bool {
        LshIndex::contains(self, id)
    }
    fn len(&self) -> usize {
        LshIndex::len(self)
    }
    fn query(&self, slots: &[u64], threshold: Option<f32>) -> txtfp::Result<Vec<u64>> {
        let s = sig::<H, S>(slots);
        match threshold {
            None => Ok(LshIndex::query(self, &s)),
            Some(t) => self.try_query_with_threshold(&s, t),
        }
    }
    fn banding(&self) -> (usize, usize) {
        (self.bands(), self.rows())
    }
    fn save(&self, path: &str) -> txtfp::Result<()> {
        LshIndex::save(self, path)
    }
    fn memory_usage(&self) -> usize {
        LshIndex::memory_usage(self)
    }
}

/// A new index, or one loaded from `path`.
fn open(
    num_perm: usize,
    fast: bool,
    banding: Option<(usize, usize)>,
    path: Option<&str>,
) -> Option<txtfp::Result<Box<dyn Index>>> {
    fn make<const H: usize, S: Scheme + Send + Sync + 'static>(
        banding: Option<(usize, usize)>,
        path: Option<&str>,
    ) -> txtfp::Result<Box<dyn Index>> {
        let index = match (path, banding) {
            (Some(p), _) => LshIndex::<H, S>::load(p)?,
            (None, Some((b, r))) => LshIndex::<H, S>::with_bands_rows(b, r)?,
            (None, None) => {
                return Err(txtfp::Error::Config(
                    "an index needs a banding or a file".into(),
                ));
            }
        };
        Ok(Box::new(index))
    }
    macro_rules! pick {
        ($($h:literal)*) => {
            match (num_perm, fast) {
                $(
                    ($h, false) => Some(make::<$h, Classic>(banding, path)),
                    ($h, true) => Some(make::<$h, Fast>(banding, path)),
                )*
                _ => None,
            }
        };
    }
    pick!(16 32 64 128 256 512)
}

/// A banded LSH index of MinHash signatures (`uint64` arrays of
/// `num_perm` slots, from `MinHashFingerprinter`) under integer ids.
///
/// The banding is `bands` × `rows` (their product is `num_perm`), or the one
/// `threshold` calls for (the Rust `LshIndexBuilder::for_threshold`).
/// `fast=True` indexes signatures of the fast scheme. `save(path)` writes
/// the index atomically; `LshIndex.load(path, num_perm, fast)` reads it
/// back, refusing a damaged file or another slot count or scheme.
#[pyclass(module = "txtfp", name = "LshIndex")]
pub struct PyLshIndex {
    inner: Box<dyn Index>,
    num_perm: usize,
    fast: bool,
}

fn check_width(num_perm: usize, slots: usize) -> PyResult<()> {
    if slots != num_perm {
        return Err(bad_value(format!(
            "a signature of {slots} slots in an index of {num_perm}"
        )));
    }
    Ok(())
}

fn unsupported(num_perm: usize) -> PyErr {
    bad_value(format!(
        "num_perm must be one of {:?}, not {num_perm}",
        crate::minhash::NUM_PERMS
    ))
}

#[pymethods]
impl PyLshIndex {
    #[new]
    #[pyo3(signature = (threshold = None, num_perm = 128, *, bands = None, rows = None, fast = false))]
    fn new(
        threshold: Option<f32>,
        num_perm: usize,
        bands: Option<usize>,
        rows: Option<usize>,
        fast: bool,
    ) -> PyResult<Self> {
        let banding = match (threshold, bands, rows) {
            (Some(t), None, None) => {
                let b = LshIndexBuilder::for_threshold(t, num_perm).map_err(to_py)?;
                (b.bands, b.rows)
            }
            (None, Some(b), Some(r)) => (b, r),
            _ => {
                return Err(bad_value("give either threshold, or both bands and rows"));
            }
        };
        let inner = open(num_perm, fast, Some(banding), None)
            .ok_or_else(|| unsupported(num_perm))?
            .map_err(to_py)?;
        Ok(PyLshIndex {
            inner,
            num_perm,
            fast,
        })
    }

    /// The index saved at `path` by `save`.
    #[staticmethod]
    #[pyo3(signature = (path, num_perm = 128, *, fast = false))]
    fn load(
        py: Python<'_>,
        path: std::path::PathBuf,
        num_perm: usize,
        fast: bool,
    ) -> PyResult<Self> {
        let p = path.to_string_lossy().into_owned();
        let inner = py
            .detach(|| open(num_perm, fast, None, Some(&p)))
            .ok_or_else(|| unsupported(num_perm))?
            .map_err(to_py)?;
        Ok(PyLshIndex {
            inner,
            num_perm,
            fast,
        })
    }

    /// Stores `signature` under `id`, replacing an earlier one.
    fn insert(&mut self, id: u64, signature: PyReadonlyArray1<'_, u64>) -> PyResult<()> {
        let slots = signature.as_slice()?;
        check_width(self.num_perm, slots.len())?;
        self.inner.insert(id, slots).map_err(to_py)
    }

    /// Stores row `i` of `signatures` (shape `(n, num_perm)`) under `ids[i]`.
    fn insert_batch(
        &mut self,
        py: Python<'_>,
        ids: Vec<u64>,
        signatures: PyReadonlyArray2<'_, u64>,
    ) -> PyResult<()> {
        let rows = signatures.as_array();
        if rows.nrows() != ids.len() {
            return Err(bad_value(format!(
                "{} ids for {} signatures",
                ids.len(),
                rows.nrows()
            )));
        }
        check_width(self.num_perm, rows.ncols())?;
        let flat: Vec<u64> = rows.iter().copied().collect();
        let inner = &mut self.inner;
        let h = self.num_perm;
        py.detach(|| {
            for (id, slots) in ids.iter().zip(flat.chunks_exact(h)) {
                inner.insert(*id, slots)?;
            }
            Ok(())
        })
        .map_err(to_py)
    }

    /// Removes `id`; whether it was there.
    fn remove(&mut self, id: u64) -> bool {
        self.inner.remove(id)
    }

    /// Ids sharing a band bucket with `signature` (`uint64`, ascending);
    /// with `threshold`, only those whose estimated Jaccard reaches it.
    #[pyo3(signature = (signature, threshold = None))]
    fn query<'py>(
        &self,
        py: Python<'py>,
        signature: PyReadonlyArray1<'_, u64>,
        threshold: Option<f32>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let slots = signature.as_slice()?;
        check_width(self.num_perm, slots.len())?;
        let ids = self.inner.query(slots, threshold).map_err(to_py)?;
        Ok(PyArray1::from_vec(py, ids))
    }

    /// `query` of every row of `signatures`, as a list of arrays.
    #[pyo3(signature = (signatures, threshold = None))]
    fn query_batch<'py>(
        &self,
        py: Python<'py>,
        signatures: PyReadonlyArray2<'_, u64>,
        threshold: Option<f32>,
    ) -> PyResult<Bound<'py, PyList>> {
        let rows = signatures.as_array();
        check_width(self.num_perm, rows.ncols())?;
        let flat: Vec<u64> = rows.iter().copied().collect();
        let h = self.num_perm;
        let inner = &self.inner;
        let found: Vec<Vec<u64>> = py
            .detach(|| {
                flat.chunks_exact(h.max(1))
                    .map(|slots| inner.query(slots, threshold))
                    .collect::<txtfp::Result<_>>()
            })
            .map_err(to_py)?;
        PyList::new(py, found.into_iter().map(|ids| PyArray1::from_vec(py, ids)))
    }

    /// Writes the index to `path` atomically.
    fn save(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        let p = path.to_string_lossy().into_owned();
        let inner = &self.inner;
        py.detach(|| inner.save(&p)).map_err(to_py)
    }

    /// `(bands, rows)`.
    #[getter]
    fn banding(&self) -> (usize, usize) {
        self.inner.banding()
    }

    #[getter]
    fn num_perm(&self) -> usize {
        self.num_perm
    }

    #[getter]
    fn fast(&self) -> bool {
        self.fast
    }

    /// Bytes the index holds in memory.
    #[getter]
    fn memory_usage(&self) -> usize {
        self.inner.memory_usage()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, id: u64) -> bool {
        self.inner.contains(id)
    }

    fn __repr__(&self) -> String {
        let (b, r) = self.inner.banding();
        format!(
            "LshIndex(num_perm={}, bands={b}, rows={r}, fast={}, len={})",
            self.num_perm,
            if self.fast { "True" } else { "False" },
            self.inner.len()
        )
    }
}
