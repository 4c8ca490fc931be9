//! A global, persistent fingerprint store with a duplicate decision engine
//! (feature `store`; the Redis backend needs `store-redis`).
//!
//! One store outlives every ingestion job: each document is fingerprinted
//! (SimHash, MinHash + LSH, SHA-256 chunk hashes — whichever are enabled),
//! compared with everything stored before by any job, and a decision is
//! made and recorded atomically with the fingerprints: accept, drop (or
//! mark) a duplicate, replace a lower-priority duplicate, link shared
//! chunks, or mark a partial overlap. No text is stored.
//!
//! ```
//! # fn main() -> txtfp::Result<()> {
//! use txtfp::store::{Action, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};
//! let dir = std::env::temp_dir().join(format!("txtfp-store-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! let cfg = GlobalStoreConfig::from_toml_str(&format!(r#"
//!     root_path = {dir:?}
//!     document_type_priority = ["books", "commoncrawl"]
//!     source_to_document_type = {{ library = "books", crawl = "commoncrawl" }}
//! "#))?;
//! let store = GlobalFingerprintStore::open(cfg)?;
//! let page = "It was the best of times, it was the worst of times, it was the age of wisdom, \
//!             it was the age of foolishness, it was the epoch of belief.";
//! let first = store.ingest(&IncomingDocument::new("cc-1", page, "crawl"))?;
//! assert_eq!(first.action, Action::Accept);
//! // The same text from a higher-priority source replaces the crawled copy.
//! let book = store.ingest(&IncomingDocument::new("book-1", page, "library"))?;
//! assert_eq!(book.action, Action::Replace);
//! assert_eq!(book.superseded, ["cc-1"]);
//! // A later crawl of it is dropped, matched against the book.
//! let again = store.ingest(&IncomingDocument::new("cc-2", page, "crawl"))?;
//! assert_eq!((again.action, again.matched_doc_id.as_deref()), (Action::Drop, Some("book-1")));
//! assert_eq!(store.query(page)?[0].doc_id, "book-1");
//! # drop(store); std::fs::remove_dir_all(&dir)?;
//! # Ok(()) }
//! ```

pub mod backend;
mod config;
mod decision;
mod fingerprints;
mod ingest;
mod metrics;
mod params;
mod query;
mod records;

#[cfg(test)]
mod tests;

pub use backend::{StoreBackend, WriteOp};
pub use config::{
    BackendKind, GlobalStoreConfig, MAX_CHUNK_SIZE, MAX_HAMMING, MAX_NGRAM, OnDuplicate,
};
pub use fingerprints::{Lookup, TEXT_PIPELINE};
pub use ingest::PreparedBatch;
pub use metrics::{SourceMetrics, StoreMetrics};
pub use params::{HashParams, STORE_SCHEMA};
pub use records::{
    Action, DecisionRecord, DocStatus, FingerprintRecord, FingerprintType, IncomingDocument, Match,
    MatchReason, StoredDocument,
};

use decision::Engine;
use fingerprints::Hasher;

use crate::{Error, Result};

/// The global fingerprint store: open once, [`ingest`](Self::ingest) from
/// any number of threads (`&self`), [`query`](Self::query) and read
/// [`metrics`](Self::metrics) at any time.
pub struct GlobalFingerprintStore {
    config: GlobalStoreConfig,
    params: HashParams,
    hasher: Hasher,
    masks: Vec<u64>,
    rows: usize,
    backend: Box<dyn StoreBackend>,
}

impl GlobalFingerprintStore {
    /// Opens the store `config` names (embedded under `root_path`, or the
    /// Redis server at `redis_url`), creating it on first use. The first
    /// open persists the hash parameters; later opens must match them.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for an invalid or disabled config;
    /// [`Error::StoreParamsMismatch`] when the store was written with other
    /// hash parameters; [`Error::FeatureDisabled`] for `backend = "redis"`
    /// without the `store-redis` feature; [`Error::Store`] /
    /// [`Error::Io`] when the database cannot be opened.
    pub fn open(config: GlobalStoreConfig) -> Result<Self> {
        config.validate()?;
        check_enabled(&config)?;
        let backend: Box<dyn StoreBackend> = match config.backend {
            BackendKind::Embedded => Box::new(backend::EmbeddedBackend::open(&config.root_path)?),
            #[cfg(feature = "store-redis")]
            BackendKind::Redis => Box::new(backend::RedisBackend::open(
                config.redis_url.as_deref().unwrap_or_default(),
                &config.redis_prefix,
            )?),
            #[cfg(feature = "store-redis")]
            BackendKind::RedisCluster => Box::new(
                backend::ClusterBackend::open(&config.redis_nodes, &config.redis_prefix)?
                    .with_lease(std::time::Duration::from_millis(config.redis_lease_ms)),
            ),
            #[cfg(not(feature = "store-redis"))]
            BackendKind::Redis | BackendKind::RedisCluster => {
                return Err(Error::FeatureDisabled("store-redis"));
            }
        };
        Self::with_backend(config, backend)
    }

    /// Opens a store on a caller-supplied backend.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn with_backend(config: GlobalStoreConfig, backend: Box<dyn StoreBackend>) -> Result<Self> {
        config.validate()?;
        check_enabled(&config)?;
        let params = HashParams::from_config(&config);
        let stored = HashParams::from_json(&backend.init_params(&params.to_json())?)?;
        stored.check_compatible(&params)?;
        let hasher = Hasher::new(&config)?;
        let masks = if config.simhash {
            crate::lsh::SimHashLayout::for_distance(config.simhash_max_hamming)?
                .masks()
                .to_vec()
        } else {
            Vec::new()
        };
        let rows = config.minhash_num_perm / params.minhash_bands.max(1);
        Ok(Self {
            config,
            params,
            hasher,
            masks,
            rows,
            backend,
        })
    }

    /// The configuration in use.
    pub fn config(&self) -> &GlobalStoreConfig {
        &self.config
    }

    /// The hash parameters of the store.
    pub fn params(&self) -> &HashParams {
        &self.params
    }

    fn engine(&self) -> Engine<'_> {
        Engine {
            cfg: &self.config,
            masks: &self.masks,
            rows: self.rows,
        }
    }

    /// The stored entry of `doc_id` (status and decision), if any.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] / [`Error::Corrupt`] when the backend fails.
    pub fn document(&self, doc_id: &str) -> Result<Option<StoredDocument>> {
        Ok(self.backend.document(doc_id)?.map(|c| c.entry))
    }

    /// The stored fingerprint records of `doc_id` (empty when unknown).
    ///
    /// # Errors
    ///
    /// As [`document`](Self::document).
    pub fn fingerprints(&self, doc_id: &str) -> Result<Vec<FingerprintRecord>> {
        Ok(self
            .backend
            .document(doc_id)?
            .map(|c| c.fingerprints)
            .unwrap_or_default())
    }

    /// The global metrics.
    ///
    /// # Errors
    ///
    /// As [`document`](Self::document).
    pub fn metrics(&self) -> Result<StoreMetrics> {
        Ok(StoreMetrics::from_counters(&self.backend.counters()?))
    }
}

/// A disabled config opens nothing (and creates no file).
fn check_enabled(config: &GlobalStoreConfig) -> Result<()> {
    if config.enabled {
        Ok(())
    } else {
        Err(Error::Config(
            "global_fingerprints: enabled = false; nothing to open".into(),
        ))
    }
}
