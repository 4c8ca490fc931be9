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
mod tests {
    use super::*;

    #[test]
    fn repo_ids() {
        for ok in ["BAAI/bge-small-en-v1.5", "gpt2", "a_b/c.d-e"] {
            assert!(check_repo_id(ok).is_ok(), "{ok}");
        }
        for bad in ["", "/x", "a/", "a/b/c", "../x", "a/..", "a b/c", "a\\b"] {
            assert!(check_repo_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn missing_cache_entries_are_described() {
        let dir = std::env::temp_dir().join(format!("txtfp-hf-{}", std::process::id()));
        let snap = dir.join("models--org--m").join("snapshots").join("abc");
        std::fs::create_dir_all(snap.join("onnx")).unwrap();
        let err = |id: &str| cached_files(&dir, id).err().unwrap_or_default();
        assert!(err("org/none").contains("refs"), "{}", err("org/none"));
        std::fs::create_dir_all(dir.join("models--org--m").join("refs")).unwrap();
        std::fs::write(dir.join("models--org--m/refs/main"), "abc\n").unwrap();
        assert!(err("org/m").contains("no ONNX file"), "{}", err("org/m"));
        std::fs::write(snap.join("onnx/model_quantized.onnx"), b"x").unwrap();
        assert!(
            err("org/m").contains("no tokenizer.json"),
            "{}",
            err("org/m")
        );
        std::fs::write(snap.join("tokenizer.json"), b"{}").unwrap();
        std::fs::write(snap.join("model.onnx"), b"x").unwrap();
        let files = cached_files(&dir, "org/m").unwrap();
        assert!(files.onnx.ends_with("abc/model.onnx"), "{:?}", files.onnx);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// `download` against a scripted Hub on 127.0.0.1 (no ONNX Runtime needed:
/// only files move).
#[cfg(all(test, feature = "hf-hub"))]
mod hub_tests {
    use std::io::{BufRead, BufReader, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::{Arc, Mutex};

    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef01234567";
    const TOKEN: &str = "hf_unit_secret";

    /// One request: path, `Host` and `Authorization` headers.
    type Seen = Arc<Mutex<Vec<(String, String, Option<String>)>>>;

    /// Reads one request head and answers it; every answer closes.
    fn serve(mut stream: TcpStream, port: u16, seen: &Seen) -> std::io::Result<()> {
        let mut reader = BufReader::new(stream.try_clone()?);
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let path = line.split(' ').nth(1).unwrap_or("").to_string();
        let (mut host, mut auth) = (String::new(), None);
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
                break;
            }
            let (name, value) = h.split_once(':').unwrap_or((&h, ""));
            match name.to_ascii_lowercase().as_str() {
                "host" => host = value.trim().to_string(),
                "authorization" => auth = Some(value.trim().to_string()),
                _ => {}
            }
        }
        seen.lock()
            .unwrap()
            .push((path.clone(), host, auth.clone()));
        let resolve = |repo: &str, file: &str| path == format!("/{repo}/resolve/{SHA}/{file}");
        let listing = |files: &[&str]| {
            let siblings: Vec<_> = files
                .iter()
                .map(|f| serde_json::json!({"rfilename": f}))
                .collect();
            serde_json::json!({"sha": SHA, "siblings": siblings}).to_string()
        };
        let files = [
            "onnx/model.onnx",
            "onnx/model.onnx_data",
            "tokenizer.json",
            "tokenizer_config.json",
            "../../escape.onnx",
            "/abs",
        ];
        // (status, extra header, body, bytes actually sent of the body)
        let (status, header, body, cut): (u16, String, String, Option<usize>) = match () {
            _ if path == "/api/models/org/m/revision/main"
                || path == "/api/models/org/broken/revision/main"
                || path == "/api/models/org/cut/revision/main" =>
            {
                (200, String::new(), listing(&files), None)
            }
            // A CDN on another host name: the token must not go there.
            _ if resolve("org/m", "onnx/model.onnx")
                || resolve("org/broken", "onnx/model.onnx") =>
            {
                (
                    302,
                    format!("Location: http://localhost:{port}/cdn/graph\r\n"),
                    String::new(),
                    None,
                )
            }
            // Same host, relative: the token goes along.
            _ if resolve("org/m", "onnx/model.onnx_data")
                || resolve("org/broken", "onnx/model.onnx_data") =>
            {
                (302, "Location: /cdn/data\r\n".into(), String::new(), None)
            }
            _ if path == "/cdn/graph" => (200, String::new(), "GRAPH".into(), None),
            _ if path == "/cdn/data" => (200, String::new(), "DATA".repeat(50_000), None),
            _ if resolve("org/m", "tokenizer.json") => (200, String::new(), "{}".into(), None),
            _ if resolve("org/m", "tokenizer_config.json") => {
                (200, String::new(), "{\"a\":1}".into(), None)
            }
            _ if resolve("org/broken", "tokenizer.json") => (
                500,
                String::new(),
                format!("boom, {}", auth.unwrap_or_default()),
                None,
            ),
            _ if path.starts_with("/org/cut/resolve/") => {
                (200, String::new(), "x".repeat(100_000), Some(1000))
            }
            _ => (
                404,
                String::new(),
                "{\"error\":\"Entry not found\"}".into(),
                None,
            ),
        };
        let sent = &body.as_bytes()[..cut.unwrap_or(body.len())];
        write!(
            stream,
            "HTTP/1.1 {status} X\r\nContent-Length: {}\r\n{header}Connection: close\r\n\r\n",
            body.len()
        )?;
        stream.write_all(sent)?;
        stream.flush()
    }

    fn hub_server() -> (hub::Hub, Seen) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen: Seen = Arc::default();
        let log = Arc::clone(&seen);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = Arc::clone(&log);
                std::thread::spawn(move || serve(stream, port, &log));
            }
        });
        let hub = hub::Hub::new(&format!("http://127.0.0.1:{port}/"), Some(TOKEN.into())).unwrap();
        (hub, seen)
    }

    /// Every file under `dir`, relative, sorted.
    fn tree(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(dir).unwrap().to_string_lossy();
                    out.push(rel.replace('\\', "/"));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn downloads_follow_redirects_and_failures_leave_nothing_partial() {
        let (hub, seen) = hub_server();
        let cache = std::env::temp_dir().join(format!("txtfp-hub-dl-{}", std::process::id()));
        let files = download(&hub, &cache, "org/m").unwrap();
        let snap = format!("models--org--m/snapshots/{SHA}");
        assert_eq!(
            tree(&cache),
            [
                "models--org--m/refs/main".to_string(),
                format!("{snap}/onnx/model.onnx"),
                format!("{snap}/onnx/model.onnx_data"),
                format!("{snap}/tokenizer.json"),
                format!("{snap}/tokenizer_config.json"),
            ]
        );
        assert_eq!(std::fs::read(&files.onnx).unwrap(), b"GRAPH");
        assert_eq!(
            std::fs::read(files.onnx.with_extension("onnx_data"))
                .unwrap()
                .len(),
            200_000
        );
        assert_eq!(
            std::fs::read_to_string(cache.join("models--org--m/refs/main")).unwrap(),
            SHA
        );
        let cached = cached_files(&cache, "org/m").unwrap();
        assert_eq!(
            (cached.onnx, cached.tokenizer),
            (files.onnx, files.tokenizer)
        );
        let auth_of = |p: &str| {
            let seen = seen.lock().unwrap();
            let hit = seen.iter().find(|(path, _, _)| path == p).cloned();
            hit.unwrap_or_else(|| panic!("no request for {p}: {seen:?}"))
        };
        let bearer = Some(format!("Bearer {TOKEN}"));
        assert_eq!(auth_of("/api/models/org/m/revision/main").2, bearer);
        assert_eq!(
            auth_of(&format!("/org/m/resolve/{SHA}/tokenizer.json")).2,
            bearer
        );
        assert_eq!(auth_of("/cdn/data").2, bearer);
        let (_, host, auth) = auth_of("/cdn/graph");
        assert!(
            host.starts_with("localhost:") && auth.is_none(),
            "{host} {auth:?}"
        );

        // A 500 on the tokenizer: a Config error naming it, without the
        // token the server echoed; no refs/main, no partial file.
        let e = download(&hub, &cache, "org/broken").err().unwrap();
        let msg = e.to_string();
        assert!(matches!(e, Error::Config(_)), "{e:?}");
        assert!(
            msg.contains("downloading `tokenizer.json` of `org/broken` failed")
                && msg.contains("500")
                && !msg.contains(TOKEN),
            "{msg}"
        );
        let broken = tree(&cache.join("models--org--broken"));
        assert!(
            broken
                .iter()
                .all(|f| !f.contains("tokenizer") && !f.contains("refs")),
            "{broken:?}"
        );
        assert!(broken.iter().all(|f| !f.contains(".part")), "{broken:?}");

        // A body cut short of its Content-Length: nothing is left.
        let e = download(&hub, &cache, "org/cut").err().unwrap().to_string();
        assert!(
            e.contains("downloading `onnx/model.onnx` of `org/cut` failed"),
            "{e}"
        );
        assert!(!cache.join("models--org--cut/refs").exists());
        let cut = cache.join(format!("models--org--cut/snapshots/{SHA}/onnx"));
        assert!(!cut.exists() || tree(&cut).is_empty(), "{:?}", tree(&cut));

        // Unknown repository: the listing's 404 and the Hub's message.
        let e = download(&hub, &cache, "org/absent")
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("cannot list the files of `org/absent`")
                && e.contains("404")
                && e.contains("Entry not found"),
            "{e}"
        );
        std::fs::remove_dir_all(&cache).unwrap();
    }
}
