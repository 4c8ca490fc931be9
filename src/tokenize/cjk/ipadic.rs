//! IPADIC from a MeCab source directory, compiled by lindera once and cached.
//!
//! lindera's embedded dictionaries are downloaded by its build script, which
//! cannot work offline. Instead the CSV + `.def` sources (Debian's
//! `mecab-ipadic` package installs them in `/usr/share/mecab/dic/ipadic`) are
//! compiled at run time (about 4 s in an optimized build) into a cache
//! directory that later processes memory-map in about a millisecond.
//!
//! Cache layout: `<root>/lindera-ipadic-<stamp>/`, where the stamp hashes
//! the source path, each source file's name, size and modification time, and
//! the lindera version, so an updated source or lindera builds a new entry.
//! An entry is built in a temporary sibling directory and renamed into place
//! only when complete (with a `txtfp-ok` marker holding the label), so a
//! crash or a concurrent build never leaves a half-written entry in use.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use lindera::dictionary::{DictionaryBuilder, Metadata, Schema, load_fs_dictionary};
use xxhash_rust::xxh3::Xxh3;

use super::lindera::LinderaDictionary;
use crate::{Error, Result};

/// Where Debian's `mecab-ipadic` puts the sources.
pub const DEFAULT_IPADIC_SOURCE: &str = "/usr/share/mecab/dic/ipadic";
/// Environment variable naming an IPADIC source directory (overrides
/// [`DEFAULT_IPADIC_SOURCE`]).
pub const IPADIC_SOURCE_ENV: &str = "TXTFP_IPADIC_DIR";
/// Environment variable naming the cache root (else `$XDG_CACHE_HOME/txtfp`,
/// else `$HOME/.cache/txtfp`).
pub const CACHE_DIR_ENV: &str = "TXTFP_CACHE_DIR";

/// Bumped when the cache layout or the build recipe changes.
const LAYOUT: &str = "txtfp-lindera-ipadic-1";
const LINDERA_VERSION: &str = "6.2.0";
const MARKER: &str = "txtfp-ok";
const REQUIRED: [&str; 3] = ["matrix.def", "char.def", "unk.def"];

/// The cache root: `$TXTFP_CACHE_DIR`, else `$XDG_CACHE_HOME/txtfp`, else
/// `$HOME/.cache/txtfp`.
///
/// # Errors
///
/// [`Error::Config`] when none of the three variables is set.
pub fn default_cache_root() -> Result<PathBuf> {
    let non_empty = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(p) = non_empty(CACHE_DIR_ENV) {
        return Ok(p);
    }
    if let Some(p) = non_empty("XDG_CACHE_HOME") {
        return Ok(p.join("txtfp"));
    }
    if let Some(p) = non_empty("HOME") {
        return Ok(p.join(".cache").join("txtfp"));
    }
    Err(Error::Config(format!(
        "no cache directory for the compiled Japanese dictionary: set {CACHE_DIR_ENV}, XDG_CACHE_HOME or HOME"
    )))
}

impl LinderaDictionary {
    /// The default Japanese dictionary. With feature `japanese-embed`,
    /// lindera's embedded IPADIC when it is real; otherwise the IPADIC
    /// source in `$TXTFP_IPADIC_DIR` (default [`DEFAULT_IPADIC_SOURCE`]),
    /// compiled once into [`default_cache_root`] (see
    /// [`LinderaDictionary::ipadic_from_source`]).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when no source dictionary is installed (the message
    /// says how to get one) or the cache cannot be written.
    pub fn ipadic() -> Result<Self> {
        #[cfg(feature = "japanese-embed")]
        if let Ok(d) = Self::embedded_ipadic() {
            return Ok(d);
        }
        let source = std::env::var_os(IPADIC_SOURCE_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_IPADIC_SOURCE));
        Self::ipadic_from_source(&source, &default_cache_root()?)
    }

    /// IPADIC compiled from a MeCab source directory (`*.csv`, `matrix.def`,
    /// `char.def`, `unk.def`; EUC-JP as Debian ships it, or UTF-8), cached
    /// under `cache_root`. The first call builds (about 4 s for IPADIC, optimized);
    /// later calls, in any process, load the cached build.
    ///
    /// The label is `ipadic-<8 hex digits>`, a hash of the source files'
    /// contents, so two machines with the same dictionary get the same
    /// tokenizer name and a different dictionary gets a different one.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the directory when the source is missing or
    /// incomplete, when lindera rejects it, or when the cache cannot be
    /// written.
    pub fn ipadic_from_source(source: &Path, cache_root: &Path) -> Result<Self> {
        let files = source_files(source)?;
        let entry = cache_root.join(format!("lindera-ipadic-{:016x}", stamp(source, &files)));
        if let Some(d) = load_entry(&entry) {
            return Ok(d);
        }
        // A damaged entry (marker present but unloadable) is replaced.
        if entry.exists() {
            let _ = fs::remove_dir_all(&entry);
        }
        build_entry(source, &files, cache_root, &entry)?;
        load_entry(&entry).ok_or_else(|| {
            Error::Config(format!(
                "the compiled dictionary at {} cannot be loaded",
                entry.display()
            ))
        })
    }
}

fn config_err(what: &str, path: &Path, e: impl core::fmt::Display) -> Error {
    Error::Config(format!("{what} {}: {e}", path.display()))
}

/// The source files lindera reads, sorted by name, with their metadata.
fn source_files(source: &Path) -> Result<Vec<(String, fs::Metadata)>> {
    let missing = |what: &str| {
        Error::Config(format!(
            "no MeCab IPADIC source at {} ({what}): install Debian's `mecab-ipadic` \
             (apt-get install mecab-ipadic) or set {IPADIC_SOURCE_ENV} to a source directory",
            source.display()
        ))
    };
    let rd = fs::read_dir(source).map_err(|_| missing("not a readable directory"))?;
    let mut files = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if (name.ends_with(".csv") || REQUIRED.contains(&name.as_str()))
            && let Ok(md) = e.metadata()
            && md.is_file()
        {
            files.push((name, md));
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    for req in REQUIRED {
        if !files.iter().any(|(n, _)| n == req) {
            return Err(missing(&format!("{req} not found")));
        }
    }
    if !files.iter().any(|(n, _)| n.ends_with(".csv")) {
        return Err(missing("no *.csv lexicon file"));
    }
    Ok(files)
}

/// Cache key: cheap to compute on every load (metadata only, no contents).
fn stamp(source: &Path, files: &[(String, fs::Metadata)]) -> u64 {
    let mut h = Xxh3::new();
    let canon = fs::canonicalize(source).unwrap_or_else(|_| source.to_path_buf());
    for part in [LAYOUT, LINDERA_VERSION, &canon.to_string_lossy()] {
        h.update(part.as_bytes());
        h.update(&[0xFF]);
    }
    for (name, md) in files {
        let mtime = md
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        h.update(name.as_bytes());
        h.update(&[0xFF]);
        h.update(&md.len().to_le_bytes());
        h.update(&mtime.to_le_bytes());
    }
    h.digest()
}

fn load_entry(entry: &Path) -> Option<LinderaDictionary> {
    let label = fs::read_to_string(entry.join(MARKER)).ok()?;
    let label = label.trim();
    if !label.starts_with("ipadic-") {
        return None;
    }
    let dict = load_fs_dictionary(entry).ok()?;
    Some(LinderaDictionary::from_dictionary(dict, label.to_string()))
}

/// lindera-ipadic's build settings: the 13 IPADIC columns, flexible CSV.
fn ipadic_metadata(encoding: &str) -> Metadata {
    let cols = |c: &[&str]| Schema::new(c.iter().map(|s| s.to_string()).collect());
    Metadata::new(
        "ipadic".to_string(),
        encoding.to_string(),
        -10000,
        0,
        0,
        "*".to_string(),
        true,
        false,
        true,
        cols(&[
            "surface",
            "left_context_id",
            "right_context_id",
            "cost",
            "part_of_speech",
            "part_of_speech_subcategory_1",
            "part_of_speech_subcategory_2",
            "part_of_speech_subcategory_3",
            "conjugation_form",
            "conjugation_type",
            "base_form",
            "reading",
            "pronunciation",
        ]),
        cols(&["surface", "part_of_speech", "reading"]),
    )
}

fn build_entry(
    source: &Path,
    files: &[(String, fs::Metadata)],
    cache_root: &Path,
    entry: &Path,
) -> Result<()> {
    fs::create_dir_all(cache_root)
        .map_err(|e| config_err("cannot create the dictionary cache", cache_root, e))?;
    let nanos = std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = cache_root.join(format!(
        ".tmp-{}-{}-{nanos}",
        std::process::id(),
        entry_name(entry)
    ));
    let result = build_into(source, files, &tmp).and_then(|()| {
        match fs::rename(&tmp, entry) {
            Ok(()) => Ok(()),
            // Another process finished the same entry first: use theirs.
            Err(_) if entry.join(MARKER).is_file() => Ok(()),
            Err(e) => Err(config_err(
                "cannot move the compiled dictionary to",
                entry,
                e,
            )),
        }
    });
    if tmp.exists() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result
}

fn entry_name(entry: &Path) -> String {
    entry
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

fn build_into(source: &Path, files: &[(String, fs::Metadata)], tmp: &Path) -> Result<()> {
    // Debian ships EUC-JP; a UTF-8 copy is accepted too. unk.def always
    // holds Japanese text, so it tells the two apart.
    let unk = fs::read(source.join("unk.def")).map_err(|e| config_err("cannot read", source, e))?;
    let encoding = if core::str::from_utf8(&unk).is_ok() {
        "UTF-8"
    } else {
        "EUC-JP"
    };
    let builder = DictionaryBuilder::new(ipadic_metadata(encoding));
    // lindera reports bad input as errors, but a panic deep in a CSV or
    // matrix parser must not escape to the caller either.
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        builder.build_dictionary(source, tmp)
    }));
    match built {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            return Err(config_err(
                "lindera cannot compile the IPADIC source at",
                source,
                e,
            ));
        }
        Err(_) => {
            return Err(config_err(
                "lindera panicked compiling the IPADIC source at",
                source,
                "malformed dictionary",
            ));
        }
    }
    let label = format!("ipadic-{:08x}", content_hash(source, files)? >> 32);
    fs::write(tmp.join(MARKER), label).map_err(|e| config_err("cannot write", tmp, e))
}

/// Hash of the source contents (names, lengths, bytes), for the label.
fn content_hash(source: &Path, files: &[(String, fs::Metadata)]) -> Result<u64> {
    let mut h = Xxh3::new();
    for (name, _) in files {
        let bytes =
            fs::read(source.join(name)).map_err(|e| config_err("cannot read", source, e))?;
        h.update(name.as_bytes());
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(h.digest())
}
