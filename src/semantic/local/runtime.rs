//! Loading the ONNX Runtime shared library (once per process).
//!
//! `ort` is built with `load-dynamic`: nothing is downloaded or linked at build
//! time, and the library is opened here, explicitly, so that a missing or too
//! old library is an [`Error::Onnx`] instead of `ort`'s panic on first use.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use ort::environment::Environment;

use crate::{Error, Result};

/// The oldest ONNX Runtime this build accepts (`ort`'s `api-24` feature).
pub const MIN_ONNX_RUNTIME: &str = "1.24";

const HINT: &str = "point the ORT_DYLIB_PATH environment variable (or \
LocalProviderBuilder::onnx_runtime) at libonnxruntime.so from ONNX Runtime >= 1.24, \
e.g. onnxruntime/capi/libonnxruntime.so.* of the `onnxruntime` Python wheel";

struct Loaded {
    env: Environment,
    path: PathBuf,
}

static RUNTIME: Mutex<Option<Loaded>> = Mutex::new(None);

/// Load ONNX Runtime from `path` now (optional: providers load it on first
/// use from [`LocalProviderBuilder::onnx_runtime`](super::LocalProviderBuilder::onnx_runtime),
/// else `ORT_DYLIB_PATH`, else the system library search path).
///
/// Errors: `Onnx` when the file cannot be opened, is not ONNX Runtime or is
/// older than 1.24; `Config` when a different library is already loaded (one
/// per process).
///
/// ```no_run
/// txtfp::semantic::local::init_onnx_runtime("/opt/onnxruntime/lib/libonnxruntime.so.1.24.4")?;
/// # Ok::<(), txtfp::Error>(())
/// ```
pub fn init_onnx_runtime(path: impl AsRef<Path>) -> Result<()> {
    environment(Some(path.as_ref())).map(drop)
}

/// Where the loaded runtime came from, if one is loaded.
pub fn onnx_runtime_path() -> Option<PathBuf> {
    let g = RUNTIME.lock().unwrap_or_else(PoisonError::into_inner);
    g.as_ref().map(|l| l.path.clone())
}

/// The process-wide environment, loading the library on first call.
pub(crate) fn environment(explicit: Option<&Path>) -> Result<Environment> {
    // The lock only guards the one-time load; inference never takes it.
    let mut g = RUNTIME.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(loaded) = g.as_ref() {
        if let Some(p) = explicit
            && p != loaded.path
        {
            return Err(Error::Config(format!(
                "ONNX Runtime is already loaded from `{}`; cannot also load `{}` in the same process",
                loaded.path.display(),
                p.display()
            )));
        }
        return Ok(loaded.env.clone());
    }
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => match std::env::var_os("ORT_DYLIB_PATH") {
            Some(p) if !p.is_empty() => PathBuf::from(p),
            _ => PathBuf::from(format!(
                "{}onnxruntime{}",
                std::env::consts::DLL_PREFIX,
                std::env::consts::DLL_SUFFIX
            )),
        },
    };
    let env = ort::init_from(&path)
        .map_err(|e| Error::Onnx(format!("cannot load ONNX Runtime: {e}; {HINT}")))?
        .with_name("txtfp")
        .build()
        .map_err(|e| Error::Onnx(format!("cannot create the ONNX Runtime environment: {e}")))?;
    *g = Some(Loaded {
        env: env.clone(),
        path,
    });
    Ok(env)
}
