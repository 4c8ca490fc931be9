//! [`HashParams`]: what a store persists about how its fingerprints were
//! made, and the check that refuses to mix incompatible ones.

use serde::{Deserialize, Serialize};

use super::config::GlobalStoreConfig;
use crate::{Error, Result};

/// Layout version of the store's keys and records. Bumped when stored
/// bytes change meaning; an older or newer store is refused.
pub const STORE_SCHEMA: u16 = 1;

/// The hash parameters a store is written with. Persisted on first open
/// (the embedded `meta` table, or the Redis key `{prefix}:params`), then
/// compared field by field on every open.
///
/// ```
/// use txtfp::store::{GlobalStoreConfig, HashParams};
/// let a = HashParams::from_config(&GlobalStoreConfig::default());
/// let mut cfg = GlobalStoreConfig::default();
/// cfg.minhash_ngram = 3;
/// let err = a.check_compatible(&HashParams::from_config(&cfg)).unwrap_err();
/// assert_eq!(err.to_string(), "store parameter mismatch: minhash_ngram is 5 in the store, 3 in the config");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HashParams {
    /// [`STORE_SCHEMA`] of the writer.
    pub schema: u16,
    /// The config's `fingerprint_version`.
    pub fingerprint_version: String,
    /// SimHash on.
    pub simhash: bool,
    /// SimHash radius (decides the permuted-table layout).
    pub simhash_max_hamming: u32,
    /// MinHash on.
    pub minhash: bool,
    /// MinHash match threshold.
    pub minhash_threshold: f64,
    /// Partial-overlap lower bound (decides the LSH banding).
    pub minhash_partial_threshold: f64,
    /// Shingle size in words.
    pub minhash_ngram: usize,
    /// Signature length.
    pub minhash_num_perm: usize,
    /// LSH bands (derived from the thresholds and `num_perm`).
    pub minhash_bands: usize,
    /// Chunk hashes on.
    pub chunk_hash: bool,
    /// Chunk length in words.
    pub chunk_size: usize,
    /// Chunk overlap in words.
    pub chunk_overlap: usize,
    /// Name of the text pipeline every fingerprint uses (canonicalizer and
    /// word tokenizer); a change of either would change every fingerprint.
    pub text_pipeline: String,
}

impl HashParams {
    /// The parameters `config` fingerprints with.
    pub fn from_config(config: &GlobalStoreConfig) -> Self {
        Self {
            schema: STORE_SCHEMA,
            fingerprint_version: config.fingerprint_version.clone(),
            simhash: config.simhash,
            simhash_max_hamming: config.simhash_max_hamming,
            minhash: config.minhash,
            minhash_threshold: config.minhash_threshold,
            minhash_partial_threshold: config.minhash_partial_threshold,
            minhash_ngram: config.minhash_ngram,
            minhash_num_perm: config.minhash_num_perm,
            minhash_bands: super::fingerprints::bands_for(
                config.minhash_partial_threshold,
                config.minhash_num_perm,
            ),
            chunk_hash: config.chunk_hash,
            chunk_size: config.chunk_size,
            chunk_overlap: config.chunk_overlap,
            text_pipeline: super::fingerprints::TEXT_PIPELINE.into(),
        }
    }

    /// `Ok` when a store written with `self` can be used with `configured`.
    ///
    /// # Errors
    ///
    /// [`Error::StoreParamsMismatch`] naming the first field that differs
    /// (in declaration order).
    pub fn check_compatible(&self, configured: &HashParams) -> Result<()> {
        macro_rules! same {
            ($($f:ident),*) => {$(
                if self.$f != configured.$f {
                    return Err(Error::StoreParamsMismatch {
                        field: stringify!($f).into(),
                        stored: format!("{:?}", self.$f).trim_matches('"').into(),
                        configured: format!("{:?}", configured.$f).trim_matches('"').into(),
                    });
                }
            )*};
        }
        same!(
            schema,
            fingerprint_version,
            text_pipeline,
            simhash,
            simhash_max_hamming,
            minhash,
            minhash_threshold,
            minhash_partial_threshold,
            minhash_ngram,
            minhash_num_perm,
            minhash_bands,
            chunk_hash,
            chunk_size,
            chunk_overlap
        );
        Ok(())
    }

    /// JSON form (what the backends persist).
    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Parses the persisted JSON.
    pub(crate) fn from_json(text: &str) -> Result<Self> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| Error::Corrupt(format!("store params are not JSON: {e}")))?;
        // Check the schema first so a future layout gets a schema error, not
        // a confusing missing-field one.
        let schema = v.get("schema").and_then(|s| s.as_u64()).unwrap_or(0);
        if schema != u64::from(STORE_SCHEMA) {
            return Err(Error::SchemaMismatch {
                expected: STORE_SCHEMA,
                actual: u16::try_from(schema).unwrap_or(u16::MAX),
            });
        }
        serde_json::from_value(v).map_err(|e| Error::Corrupt(format!("store params: {e}")))
    }
}
