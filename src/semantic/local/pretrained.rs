//! [`LocalProvider::from_pretrained`]: models by Hugging Face id, from the
//! local Hugging Face cache, downloaded into it with the `hf-hub` feature
//! (the crate's own Hub client, `hub.rs`).

use std::path::{Path, PathBuf};

use super::LocalProvider;
#[cfg(feature = "hf-hub")]
use super::hub;
use crate::{Error, Result};

/// ONNX files looked for in a repository, best first (fp32 before quantized).
const ONNX_CANDIDATES: [&str; 3] = ["onnx/model.onnx", "model.onnx", "onnx/model_quantized.onnx"];
const TOKENIZER: &str = "tokenizer.json";

/// The files of one model: the ONNX graph and the tokenizer.
struct ModelFiles {
    onnx: PathBuf,
    tokenizer: PathBuf,
}

impl LocalProvider {
    /// A provider for a Hugging Face model id such as
    /// `"BAAI/bge-small-en-v1.5"`: pooling and prefixes come from the built-in
    /// table, the model id is `model_id`.
    ///
    /// The files (`onnx/model.onnx`, `model.onnx` or
    /// `onnx/model_quantized.onnx`, with its `*.onnx_data` external weights,
    /// and `tokenizer.json`) are read from the Hugging Face cache
    /// (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
    /// `~/.cache/huggingface/hub`), the layout `huggingface-cli download`
    /// writes. When they are not cached, the `hf-hub` feature downloads them
    /// into that cache, unless `HF_HUB_OFFLINE` is set. Without the feature,
    /// or offline, a model that is not cached is a `Config` error naming the
    /// cache directory and what is missing. Network and authentication
    /// failures are reported as such, with the file that failed.
    ///
    /// Downloads come from `HF_ENDPOINT` (default `https://huggingface.co`)
    /// with `HF_TOKEN`, if set, as a bearer token (sent to that host only,
    /// not to the CDN large files are redirected to). All files are taken
    /// from the commit `main` points at, each written to a temporary file and
    /// renamed into `snapshots/<commit>/`, and `refs/main` is written last: an
    /// interrupted download never leaves a partial file that reads as cached.
    pub fn from_pretrained(model_id: &str) -> Result<Self> {
        check_repo_id(model_id)?;
        let cache = hf_cache_dir()?;
        let files = match cached_files(&cache, model_id) {
            Ok(files) => files,
            Err(missing) => fetch(&cache, model_id, &missing)?,
        };
        Self::from_files(model_id, files)
    }

    /// Like [`from_pretrained`](Self::from_pretrained) but reads only the
    /// Hugging Face cache at `cache_dir` (the folder holding
    /// `models--org--name`), never the network.
    pub fn from_hf_cache(model_id: &str, cache_dir: &Path) -> Result<Self> {
        check_repo_id(model_id)?;
        let files = cached_files(cache_dir, model_id).map_err(|missing| {
            Error::Config(format!(
                "`{model_id}` is not in the Hugging Face cache at `{}`: {missing}",
                cache_dir.display()
            ))
        })?;
        Self::from_files(model_id, files)
    }

    fn from_files(model_id: &str, files: ModelFiles) -> Result<Self> {
        Self::builder()
            .model_id(model_id)
            .onnx_path(files.onnx)
            .tokenizer_path(files.tokenizer)
            .build()
    }
}

fn check_repo_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.split('/').count() <= 2
        && id.split('/').all(|part| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        });
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "`{id}` is not a Hugging Face model id (expected `org/name`)"
        )))
    }
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The hub cache folder, resolved like the Python `huggingface_hub`.
fn hf_cache_dir() -> Result<PathBuf> {
    if let Some(p) = env_path("HF_HUB_CACHE") {
        return Ok(p);
    }
    if let Some(p) = env_path("HF_HOME") {
        return Ok(p.join("hub"));
    }
    if let Some(p) = env_path("XDG_CACHE_HOME") {
        return Ok(p.join("huggingface").join("hub"));
    }
    env_path("HOME")
        .map(|h| h.join(".cache").join("huggingface").join("hub"))
        .ok_or_else(|| {
            Error::Config(String::from(
                "cannot locate the Hugging Face cache: set HF_HUB_CACHE or HF_HOME",
            ))
        })
}

#[cfg(feature = "hf-hub")]
fn offline() -> bool {
    std::env::var("HF_HUB_OFFLINE")
        .map(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
        .unwrap_or(false)
}

/// `models--{org}--{name}` in the cache: `refs/main` holds the commit of
/// `main`, `snapshots/{commit}/` the files.
fn repo_dir(cache: &Path, id: &str) -> PathBuf {
    cache.join(format!("models--{}", id.replace('/', "--")))
}

/// The cached snapshot of `main`, or a description of what is missing.
fn cached_files(cache: &Path, id: &str) -> core::result::Result<ModelFiles, String> {
    let repo = repo_dir(cache, id);
    let main = repo.join("refs").join("main");
    let commit = std::fs::read_to_string(&main)
        .map_err(|e| format!("cannot read `{}` ({e})", main.display()))?;
    let snapshot = repo.join("snapshots").join(commit.trim());
    let tokenizer = snapshot.join(TOKENIZER);
    let onnx = ONNX_CANDIDATES
        .iter()
        .map(|c| snapshot.join(c))
        .find(|p| p.is_file());
    match (onnx, tokenizer.is_file()) {
        (Some(onnx), true) => Ok(ModelFiles { onnx, tokenizer }),
        (None, _) => Err(format!(
            "no ONNX file ({}) in `{}`",
            ONNX_CANDIDATES.join(", "),
            snapshot.display()
        )),
        (Some(_), false) => Err(format!("no {TOKENIZER} in `{}`", snapshot.display())),
    }
}

#[cfg(not(feature = "hf-hub"))]
fn fetch(cache: &Path, id: &str, missing: &str) -> Result<ModelFiles> {
    Err(Error::Config(format!(
        "`{id}` is not in the Hugging Face cache at `{}` ({missing}); this build has no \
         `hf-hub` feature to download it: enable it, fetch the files with \
         `huggingface-cli download {id}`, or use LocalProvider::builder() with local paths",
        cache.display()
    )))
}

#[cfg(feature = "hf-hub")]
fn fetch(cache: &Path, id: &str, missing: &str) -> Result<ModelFiles> {
    if offline() {
        return Err(Error::Config(format!(
            "`{id}` is not in the Hugging Face cache at `{}` ({missing}) and HF_HUB_OFFLINE is set",
            cache.display()
        )));
    }
    download(&hub::Hub::from_env()?, cache, id)
}

/// Downloads the model files `main` of `id` lists into `cache` (skipping
/// those already in the snapshot), then points `refs/main` at that commit.
#[cfg(feature = "hf-hub")]
fn download(hub: &hub::Hub, cache: &Path, id: &str) -> Result<ModelFiles> {
    let info = hub.info(id).map_err(|e| {
        Error::Config(format!(
            "cannot list the files of `{id}` on the Hugging Face Hub (network, access or a wrong id): {e}"
        ))
    })?;
    let names: Vec<&str> = info.files.iter().map(String::as_str).collect();
    let onnx = ONNX_CANDIDATES
        .iter()
        .find(|c| names.contains(c))
        .ok_or_else(|| {
            let shown: Vec<&str> = names.iter().take(20).copied().collect();
            Error::Config(format!(
                "`{id}` has no ONNX export (looked for {}); its files: {}",
                ONNX_CANDIDATES.join(", "),
                shown.join(", ")
            ))
        })?;
    if !names.contains(&TOKENIZER) {
        return Err(Error::Config(format!("`{id}` has no {TOKENIZER}")));
    }
    let repo = repo_dir(cache, id);
    let snapshot = repo.join("snapshots").join(&info.sha);
    let get = |file: &str| {
        hub.download(id, &info.sha, file, &snapshot)
            .map_err(|e| Error::Config(format!("downloading `{file}` of `{id}` failed: {e}")))
    };
    let onnx_path = get(onnx)?;
    // Large exports keep their weights in `model.onnx_data` (or `.data`),
    // which ONNX Runtime reads from beside the graph.
    for extra in names
        .iter()
        .filter(|n| n.starts_with(onnx) && matches!(&n[onnx.len()..], "_data" | ".data"))
    {
        get(extra)?;
    }
    let tokenizer = get(TOKENIZER)?;
    // Optional: it may declare the model's context length (see the builder).
    if names.contains(&"tokenizer_config.json") {
        get("tokenizer_config.json")?;
    }
    // Last: the snapshot is complete before `refs/main` names it.
    let main = repo.join("refs").join("main");
    hub::write_atomic(&main, &mut info.sha.as_bytes(), None)
        .map_err(|e| Error::Config(format!("cannot record the commit of `{id}`: {e}")))?;
    Ok(ModelFiles {
        onnx: onnx_path,
        tokenizer,
    })
}

#[cfg(test)]
mod tests;
