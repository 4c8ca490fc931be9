//! [`GlobalStoreConfig`]: the `global_fingerprints` section, from TOML, with
//! the seed's defaults and validation.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Which database holds the store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// An embedded store under `root_path` (a document log and sorted
    /// segments, see [`EmbeddedBackend`](super::backend::EmbeddedBackend)):
    /// one process at a time (any number of threads in it).
    #[default]
    Embedded,
    /// A Redis server at `redis_url`, shared by any number of processes on
    /// any number of machines (feature `store-redis`).
    Redis,
    /// A Redis Cluster reached through `redis_nodes`, the store spread
    /// over every master, written by any number of workers in one global
    /// order (feature `store-redis`; see
    /// [`ClusterBackend`](super::backend::ClusterBackend)).
    #[serde(rename = "redis-cluster")]
    RedisCluster,
}

/// What happens to an incoming document that is a full-document duplicate
/// (SimHash or MinHash match) of a stored one that outranks it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnDuplicate {
    /// The document is dropped ([`Action::Drop`](super::Action::Drop)).
    #[default]
    Drop,
    /// The document is kept in the caller's output but marked
    /// ([`Action::MarkDuplicate`](super::Action::MarkDuplicate)); it is
    /// not indexed, so later documents match the original instead.
    Mark,
}

/// Largest `minhash_ngram` accepted (the tokenizer's own shingle limit).
pub const MAX_NGRAM: usize = crate::tokenize::MAX_SHINGLE_K;

/// Largest `chunk_size` (in words) accepted.
pub const MAX_CHUNK_SIZE: usize = 1 << 20;

/// Largest `simhash_max_hamming` accepted: the radius the permuted-table
/// layouts are built for (`SimHashLayout::for_distance`).
pub const MAX_HAMMING: u32 = crate::lsh::MAX_AUTO_DISTANCE;

/// The `global_fingerprints` configuration.
///
/// Every key has the seed's default; unknown keys are rejected. Hash
/// parameters (which kinds are on, `simhash_max_hamming`,
/// `minhash_threshold`, `minhash_partial_threshold`, `minhash_ngram`,
/// `minhash_num_perm`, `chunk_size`, `chunk_overlap`,
/// `fingerprint_version`) are persisted by the store on first open and
/// must match on every later open; the priorities, `on_duplicate` and the
/// limits may change between runs.
///
/// ```
/// use txtfp::store::{BackendKind, GlobalStoreConfig};
/// let cfg = GlobalStoreConfig::from_toml_str(r#"
///     [global_fingerprints]
///     root_path = "/tmp/fp"
///     minhash = false
///     document_type_priority = ["books", "wiki", "commoncrawl"]
///     source_to_document_type = { class4_hindi_veena = "books", dolma_hf = "commoncrawl" }
/// "#)?;
/// assert_eq!((cfg.simhash, cfg.minhash, cfg.chunk_hash), (true, false, true));
/// assert_eq!((cfg.simhash_max_hamming, cfg.chunk_size, cfg.backend), (3, 512, BackendKind::Embedded));
/// let err = GlobalStoreConfig::from_toml_str("chunk_size = 8\nchunk_overlap = 8").unwrap_err();
/// assert!(err.to_string().contains("chunk_overlap (8) must be smaller than chunk_size (8)"));
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct GlobalStoreConfig {
    /// Whether global deduplication runs at all. A disabled config cannot
    /// open a store.
    pub enabled: bool,
    /// Directory of the embedded store.
    pub root_path: PathBuf,
    /// Store and match 64-bit SimHash fingerprints (word tokens).
    pub simhash: bool,
    /// Store and match MinHash signatures (word shingles) through LSH bands.
    pub minhash: bool,
    /// Store and match SHA-256 hashes of normalized word chunks.
    pub chunk_hash: bool,
    /// SimHash match: Hamming distance at most this (0..=7).
    pub simhash_max_hamming: u32,
    /// MinHash match: estimated Jaccard at least this, in `(0, 1]`.
    pub minhash_threshold: f64,
    /// Partial overlap: estimated Jaccard in `[minhash_partial_threshold,
    /// minhash_threshold)` keeps the document and marks it. In `(0,
    /// minhash_threshold]`; equal to the threshold disables the band.
    pub minhash_partial_threshold: f64,
    /// MinHash shingle size, in words.
    pub minhash_ngram: usize,
    /// MinHash signature length: 64, 128 or 256.
    pub minhash_num_perm: usize,
    /// Chunk length, in words of the canonicalized text (Unicode word
    /// boundaries, UAX #29), not model tokens.
    pub chunk_size: usize,
    /// Words shared by consecutive chunks; smaller than `chunk_size`.
    pub chunk_overlap: usize,
    /// Free-form version tag of the fingerprint scheme, persisted with
    /// every record (for rollbacks and experiments).
    pub fingerprint_version: String,
    /// Document types, highest priority first (e.g. books > wiki > web).
    pub document_type_priority: Vec<String>,
    /// Source name → document type. Unmapped sources rank below every
    /// listed type.
    pub source_to_document_type: BTreeMap<String, String>,
    /// Within one document type, sources from highest priority first.
    /// Empty: the stored document wins every tie.
    pub source_priority: Vec<String>,
    /// Drop or mark full-document duplicates.
    pub on_duplicate: OnDuplicate,
    /// Which backend holds the store.
    pub backend: BackendKind,
    /// `redis://host:port/db` of the Redis backend.
    pub redis_url: Option<String>,
    /// `redis://host:port/` of one or more nodes of the Redis Cluster
    /// (`backend = "redis-cluster"`); the other masters are found from the
    /// cluster's slot map.
    pub redis_nodes: Vec<String>,
    /// How long a batch on the Redis Cluster may go without its worker
    /// renewing its lease before another worker voids it, in milliseconds
    /// (at least 100). A worker renews it at every look at the queue, so
    /// only a worker that stopped or lost the cluster loses its batch.
    pub redis_lease_ms: u64,
    /// Prefix of every Redis key; one store per prefix. It is wrapped in a
    /// hash tag (`{prefix}`) so a Redis Cluster keeps a store in one slot.
    pub redis_prefix: String,
    /// Largest document accepted, in bytes (bounds the memory of one
    /// ingest).
    pub max_doc_bytes: usize,
    /// Most candidate documents verified per lookup table entry (bounds
    /// the work of one ingest when a bucket is crowded).
    pub max_candidates: usize,
}

impl Default for GlobalStoreConfig {
    /// The seed's defaults: all three kinds on, Hamming ≤ 3, Jaccard ≥ 0.9
    /// over 5-word shingles with 128 permutations, 512-word chunks without
    /// overlap, version `"v1"`, embedded backend under
    /// `fingerprints_global`.
    fn default() -> Self {
        Self {
            enabled: true,
            root_path: PathBuf::from("fingerprints_global"),
            simhash: true,
            minhash: true,
            chunk_hash: true,
            simhash_max_hamming: 3,
            minhash_threshold: 0.9,
            minhash_partial_threshold: 0.5,
            minhash_ngram: 5,
            minhash_num_perm: 128,
            chunk_size: 512,
            chunk_overlap: 0,
            fingerprint_version: "v1".into(),
            document_type_priority: Vec::new(),
            source_to_document_type: BTreeMap::new(),
            source_priority: Vec::new(),
            on_duplicate: OnDuplicate::Drop,
            backend: BackendKind::Embedded,
            redis_url: None,
            redis_nodes: Vec::new(),
            redis_lease_ms: 30_000,
            redis_prefix: "txtfp".into(),
            max_doc_bytes: 64 << 20,
            max_candidates: 10_000,
        }
    }
}

impl GlobalStoreConfig {
    /// Parses and validates a TOML document.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] on bad TOML, an unknown key, a wrongly typed value
    /// or a value [`validate`](Self::validate) rejects.
    pub fn from_toml_str(text: &str) -> Result<Self> {
        let root: toml::Table = text
            .parse()
            .map_err(|e| Error::Config(format!("global_fingerprints TOML: {e}")))?;
        // Inside a larger pipeline file only the section is read; a file of
        // its own is the section.
        let table = find_section(&root).unwrap_or(&root).clone();
        let cfg: Self = toml::Value::Table(table)
            .try_into()
            .map_err(|e| Error::Config(format!("global_fingerprints: {e}")))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Reads, parses and validates a TOML file.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the file cannot be read, else as
    /// [`from_toml_str`](Self::from_toml_str).
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self> {
        let text = std::fs::read_to_string(path.as_ref())?;
        Self::from_toml_str(&text)
    }

    /// The configuration as a `[global_fingerprints]` TOML document.
    ///
    /// ```
    /// use txtfp::store::GlobalStoreConfig;
    /// let cfg = GlobalStoreConfig::default();
    /// assert_eq!(GlobalStoreConfig::from_toml_str(&cfg.to_toml_string()?)?, cfg);
    /// # Ok::<(), txtfp::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Config`] if a value has no TOML form (it cannot happen for
    /// a config that validates).
    pub fn to_toml_string(&self) -> Result<String> {
        #[derive(Serialize)]
        struct Section<'a> {
            global_fingerprints: &'a GlobalStoreConfig,
        }
        toml::to_string(&Section {
            global_fingerprints: self,
        })
        .map_err(|e| Error::Config(format!("global_fingerprints to TOML: {e}")))
    }

    /// Checks every rule; the message names the key and the value.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when: none of `simhash`, `minhash`, `chunk_hash` is
    /// on (while `enabled`); `simhash_max_hamming` > 7; a threshold is
    /// outside `(0, 1]` or the partial threshold exceeds the threshold;
    /// `minhash_ngram` is 0 or above [`MAX_NGRAM`]; `minhash_num_perm` is
    /// not 64, 128 or 256; `chunk_size` is 0 or above [`MAX_CHUNK_SIZE`];
    /// `chunk_overlap` ≥ `chunk_size`; `fingerprint_version` is empty or
    /// longer than 64 bytes; a priority list repeats a name; the backend is
    /// `redis` without a `redis_url` (or an empty prefix); a limit is 0.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Config(format!("global_fingerprints: {m}")));
        if self.enabled && !(self.simhash || self.minhash || self.chunk_hash) {
            return bad(
                "at least one of simhash, minhash, chunk_hash must be true when enabled".into(),
            );
        }
        if self.simhash_max_hamming > MAX_HAMMING {
            return bad(format!(
                "simhash_max_hamming must be at most {MAX_HAMMING}; got {}",
                self.simhash_max_hamming
            ));
        }
        let t = self.minhash_threshold;
        if !(t > 0.0 && t <= 1.0) {
            return bad(format!("minhash_threshold must be in (0, 1]; got {t}"));
        }
        let p = self.minhash_partial_threshold;
        if !(p > 0.0 && p <= t) {
            return bad(format!(
                "minhash_partial_threshold must be in (0, minhash_threshold = {t}]; got {p}"
            ));
        }
        if self.minhash_ngram == 0 || self.minhash_ngram > MAX_NGRAM {
            return bad(format!(
                "minhash_ngram must be in 1..={MAX_NGRAM}; got {}",
                self.minhash_ngram
            ));
        }
        if ![64, 128, 256].contains(&self.minhash_num_perm) {
            return bad(format!(
                "minhash_num_perm must be 64, 128 or 256; got {}",
                self.minhash_num_perm
            ));
        }
        if self.chunk_size == 0 || self.chunk_size > MAX_CHUNK_SIZE {
            return bad(format!(
                "chunk_size must be in 1..={MAX_CHUNK_SIZE} words; got {}",
                self.chunk_size
            ));
        }
        if self.chunk_overlap >= self.chunk_size {
            return bad(format!(
                "chunk_overlap ({}) must be smaller than chunk_size ({})",
                self.chunk_overlap, self.chunk_size
            ));
        }
        let v = &self.fingerprint_version;
        if v.is_empty() || v.len() > 64 || v.chars().any(char::is_control) {
            return bad(format!(
                "fingerprint_version must be 1 to 64 bytes without control characters; got {v:?}"
            ));
        }
        no_repeats("document_type_priority", &self.document_type_priority)?;
        no_repeats("source_priority", &self.source_priority)?;
        if self.backend == BackendKind::Redis {
            match &self.redis_url {
                None => return bad("backend = \"redis\" needs redis_url".into()),
                Some(u) if !(u.starts_with("redis://") || u.starts_with("unix://")) => {
                    return bad(format!(
                        "redis_url must start with redis:// or unix://; got {u:?}"
                    ));
                }
                _ => {}
            }
        }
        if self.backend == BackendKind::RedisCluster {
            if self.redis_nodes.is_empty() {
                return bad("backend = \"redis-cluster\" needs redis_nodes".into());
            }
            if let Some(u) = self.redis_nodes.iter().find(|u| !u.starts_with("redis://")) {
                return bad(format!("redis_nodes must start with redis://; got {u:?}"));
            }
            if self.redis_lease_ms < 100 {
                return bad(format!(
                    "redis_lease_ms must be at least 100; got {}",
                    self.redis_lease_ms
                ));
            }
        }
        let pre = &self.redis_prefix;
        if pre.is_empty()
            || pre.len() > 128
            || pre.contains(['{', '}'])
            || pre.contains(char::is_whitespace)
        {
            return bad(format!(
                "redis_prefix must be 1 to 128 bytes without braces or whitespace; got {pre:?}"
            ));
        }
        if self.max_doc_bytes == 0 || self.max_candidates == 0 {
            return bad(format!(
                "max_doc_bytes and max_candidates must be positive; got {} and {}",
                self.max_doc_bytes, self.max_candidates
            ));
        }
        Ok(())
    }
}

/// `[global.processing.global_fingerprints]`, `[processing.global_fingerprints]`
/// or `[global_fingerprints]`, the first present.
fn find_section(root: &toml::Table) -> Option<&toml::Table> {
    let nested = |path: &[&str]| {
        let mut t = root;
        for key in path {
            t = t.get(*key)?.as_table()?;
        }
        Some(t)
    };
    nested(&["global", "processing", "global_fingerprints"])
        .or_else(|| nested(&["processing", "global_fingerprints"]))
        .or_else(|| nested(&["global_fingerprints"]))
}

fn no_repeats(key: &str, list: &[String]) -> Result<()> {
    for (i, name) in list.iter().enumerate() {
        if list[..i].contains(name) {
            return Err(Error::Config(format!(
                "global_fingerprints: {key} lists {name:?} twice"
            )));
        }
    }
    Ok(())
}
