//! `txtfp.SimHashFingerprinter`: SimHash of every width, and the
//! interoperable `simhash-doc-v1` scheme.

use std::collections::HashMap;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use txtfp::classical::DEFAULT_SEED;
use txtfp::classical::simhash::SimHashDocV1;
use txtfp::{IdfTable, SimHashFingerprinter, Weighting, WordTokenizer};

use crate::canon::{PyCanonicalizer, or_default};
use crate::errors::{bad_value, to_py};
use crate::run::{Policy, Threads, batch};
use crate::settings::hash_family;
use crate::texts::{one_text, utf8};

enum Kind {
    Words(SimHashFingerprinter<WordTokenizer>),
    DocV1(SimHashDocV1),
}

impl Kind {
    /// The signature of `text` at `bits` (16, 32, 64 or 128), as its low and
    /// high 64 bits.
    fn sign(&self, text: &str, bits: u32, scratch: &mut String) -> txtfp::Result<(u64, u64)> {
        match self {
            Kind::Words(fp) if bits == 128 => {
                let s = fp.fingerprint128(text)?;
                Ok((s.low64().bits(), s.high64().bits()))
            }
            Kind::Words(fp) => {
                let s = fp.fingerprint_with_buffer(text, scratch)?.bits();
                Ok((
                    if bits == 64 {
                        s
                    } else {
                        s & ((1u64 << bits) - 1)
                    },
                    0,
                ))
            }
            Kind::DocV1(fp) => Ok((fp.fingerprint_with_buffer(text, scratch)?.bits(), 0)),
        }
    }
}

/// SimHash signatures (Charikar) of a text's words.
///
/// `bits` is 16, 32, 64 or 128; narrower signatures are the low bits of the
/// 64-bit one, and the low half of the 128-bit one is the 64-bit one.
/// `fingerprint(text)` returns an `int`; `fingerprint_batch(texts)` a
/// `uint16`, `uint32` or `uint64` array of one value per text, or for 128
/// bits a `uint64` array of shape `(n, 2)` holding the low and the high
/// halves. `scheme="doc-v1"` is the interoperable `simhash-doc-v1` preset
/// (64 bits, its own canonicalization and tokens).
#[pyclass(module = "txtfp", frozen, name = "SimHashFingerprinter")]
pub struct PySimHash {
    kind: Kind,
    bits: u32,
    label: String,
}

#[pymethods]
impl PySimHash {
    #[new]
    #[pyo3(signature = (bits = 64, *, weighting = "tf", idf = None, seed = DEFAULT_SEED, hasher = "xxh3", scheme = "default", canonicalizer = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        bits: u32,
        weighting: &str,
        idf: Option<HashMap<String, f32>>,
        seed: u64,
        hasher: &str,
        scheme: &str,
        canonicalizer: Option<&Bound<'_, PyCanonicalizer>>,
    ) -> PyResult<Self> {
        if ![16, 32, 64, 128].contains(&bits) {
            return Err(bad_value(format!(
                "bits must be 16, 32, 64 or 128, not {bits}"
            )));
        }
        match scheme {
            "doc-v1" => {
                if bits != 64 || canonicalizer.is_some() || idf.is_some() {
                    return Err(bad_value(
                        "scheme \"doc-v1\" is fixed: 64 bits, its own canonicalizer, no idf",
                    ));
                }
                return Ok(PySimHash {
                    kind: Kind::DocV1(SimHashDocV1::new()),
                    bits,
                    label: "scheme=\"doc-v1\"".into(),
                });
            }
            "default" => {}
            other => {
                return Err(bad_value(format!(
                    "scheme must be \"default\" or \"doc-v1\", not {other:?}"
                )));
            }
        }
        let family = hash_family(hasher)?;
        let weighting = match (weighting, idf) {
            (_, Some(table)) => {
                Weighting::IdfWeighted(IdfTable::try_from_pairs(table).map_err(to_py)?)
            }
            ("tf", None) => Weighting::Tf,
            ("uniform", None) => Weighting::Uniform,
            (other, None) => {
                return Err(bad_value(format!(
                    "weighting must be \"tf\" or \"uniform\" (or pass idf=...), not {other:?}"
                )));
            }
        };
        let label = format!(
            "bits={bits}, weighting={:?}, seed={seed:#x}, hasher={hasher:?}",
            weighting.as_str()
        );
        let fp = SimHashFingerprinter::new(or_default(canonicalizer), WordTokenizer)
            .with_seed(seed)
            .with_hasher(family)
            .with_weighting(weighting);
        Ok(PySimHash {
            kind: Kind::Words(fp),
            bits,
            label,
        })
    }

    /// The signature of one text, as an `int` of `bits` bits.
    ///
    /// Raises `TxtfpError` for a text with no words.
    fn fingerprint(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<u128> {
        let bytes = one_text(text)?;
        let s = utf8(bytes.as_bytes()).map_err(to_py)?;
        let (lo, hi) = py
            .detach(|| self.kind.sign(s, self.bits, &mut String::new()))
            .map_err(to_py)?;
        Ok(u128::from(hi) << 64 | u128::from(lo))
    }

    /// The signatures of many texts, in input order (see the class).
    ///
    /// Inputs and `errors` / `threads` as for
    /// `MinHashFingerprinter.fingerprint_batch`; `errors="empty"` fills 0.
    #[pyo3(signature = (texts, *, errors = "raise", threads = None))]
    fn fingerprint_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        errors: &str,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let policy = Policy::parse(errors)?;
        let threads = Threads::parse(threads)?;
        let width = if self.bits == 128 { 2 } else { 1 };
        let bits = self.bits;
        let rows = batch(py, texts, width, 0u64, policy, &threads, |t, s, row| {
            let (lo, hi) = self.kind.sign(t, bits, s)?;
            row[0] = lo;
            if let Some(h) = row.get_mut(1) {
                *h = hi;
            }
            Ok(())
        })?;
        Ok(match bits {
            16 => PyArray1::from_iter(py, rows.values.iter().map(|&v| v as u16)).into_any(),
            32 => PyArray1::from_iter(py, rows.values.iter().map(|&v| v as u32)).into_any(),
            64 => rows.values.into_pyarray(py).into_any(),
            _ => Array2::from_shape_vec((rows.n, 2), rows.values)
                .map_err(|e| bad_value(format!("internal shape error: {e}")))?
                .into_pyarray(py)
                .into_any(),
        })
    }

    /// Signature width in bits.
    #[getter]
    fn bits(&self) -> u32 {
        self.bits
    }

    /// The configuration's hash, equal to the Rust fingerprinter's (at
    /// this width): signatures are comparable only when it matches.
    #[getter]
    fn config_hash(&self) -> PyResult<u64> {
        match &self.kind {
            Kind::Words(fp) if self.bits == 64 => Ok(fp.config_hash()),
            Kind::Words(fp) => fp.config_hash_bits(self.bits).map_err(to_py),
            Kind::DocV1(fp) => Ok(fp.config_hash()),
        }
    }

    fn __repr__(&self) -> String {
        format!("SimHashFingerprinter({})", self.label)
    }
}
