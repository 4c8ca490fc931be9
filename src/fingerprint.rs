//! The unified [`Fingerprint`] enum, its [`FingerprintMetadata`], and config hashes.
//!
//! A config hash is `XXH3_64` of the pipeline's configuration string
//! (`canonicalizer | tokenizer | algorithm [| family | seed]`). Store it beside
//! a signature; compare signatures only when their config hashes agree.

use alloc::format;
use alloc::string::String;

use crate::canonical::Canonicalizer;
use crate::classical::{HashFamily, hex16, xxh3_64};

/// Algorithm labels used in metadata and config strings.
pub mod algo {
    /// MinHash with 128 slots.
    pub const MINHASH_128: &str = "minhash-h128";
    /// MinHash, width unspecified.
    pub const MINHASH: &str = "minhash";
    /// The opt-in fast MinHash scheme with 128 slots
    /// ([`FastMinHashSig`](crate::classical::minhash::FastMinHashSig)).
    pub const FAST_MINHASH_128: &str = "fast-minhash-h128";
    /// 64-bit SimHash.
    pub const SIMHASH_64: &str = "simhash-b64";
    /// TLSH.
    pub const TLSH: &str = "tlsh";
    /// Dense embedding.
    pub const EMBEDDING: &str = "embedding";

    /// Every label above, in declaration order: the values
    /// [`FingerprintMetadata::algorithm`](crate::FingerprintMetadata::algorithm)
    /// can take when read back with serde.
    pub const ALL: &[&str] = &[
        MINHASH_128,
        MINHASH,
        FAST_MINHASH_128,
        SIMHASH_64,
        TLSH,
        EMBEDDING,
    ];

    /// The `'static` label equal to `label`, or `None` for a string that is
    /// not one of [`ALL`].
    ///
    /// ```
    /// use txtfp::algo;
    /// let owned = String::from("tlsh");
    /// let label: &'static str = algo::lookup(&owned).unwrap();
    /// assert_eq!(label, algo::TLSH);
    /// assert_eq!(algo::lookup("md5"), None);
    /// ```
    pub fn lookup(label: &str) -> Option<&'static str> {
        ALL.iter().copied().find(|known| *known == label)
    }
}

/// The config hash of a signature whose configuration is unknown.
pub const UNCOMPUTED_CONFIG_HASH: u64 = 0;

/// `XXH3_64(canon.config_string() + "|" + tokenizer + "|" + algorithm_config)`.
///
/// ```
/// use txtfp::{Canonicalizer, config_hash};
/// let h = config_hash(&Canonicalizer::default(), "word-uax29", "h128-mmh3");
/// assert_eq!(h, 0xfdcb1c70a47c7649);
/// ```
pub fn config_hash(canon: &Canonicalizer, tokenizer: &str, algorithm_config: &str) -> u64 {
    let s = format!("{}|{tokenizer}|{algorithm_config}", canon.config_string());
    xxh3_64(s.as_bytes())
}

/// [`config_hash`] extended with the hash family and the seed (16 hex digits):
/// the hash every classical fingerprinter's `config_hash()` returns.
///
/// ```
/// use txtfp::{Canonicalizer, HashFamily, config_hash_classical};
/// use txtfp::classical::DEFAULT_SEED;
/// let h = config_hash_classical(
///     &Canonicalizer::default(), "shingle-k=5/word-uax29", "minhash-h128",
///     HashFamily::Xxh3_64, DEFAULT_SEED);
/// assert_eq!(h, 0x1ffc8214c1e9e9db);
/// ```
pub fn config_hash_classical(
    canon: &Canonicalizer,
    tokenizer: &str,
    algorithm_config: &str,
    family: HashFamily,
    seed: u64,
) -> u64 {
    let s = format!(
        "{}|{tokenizer}|{algorithm_config}|{}|{}",
        canon.config_string(),
        family.as_str(),
        hex16(seed)
    );
    xxh3_64(s.as_bytes())
}

/// What a stored fingerprint is: algorithm, configuration and size.
///
/// The fields are txtfp 0.3.2's, so 0.3.2 code that builds or reads metadata
/// compiles unchanged. With the `serde` feature the struct also
/// deserializes (0.3.2 had no serde here; see COMPAT.md W20): the
/// `algorithm` string is mapped onto the matching [`algo`] constant, and a
/// label that is none of [`algo::ALL`] is an error naming it.
///
/// ```
/// use txtfp::{FingerprintMetadata, algo};
/// let m = FingerprintMetadata {
///     algorithm: algo::TLSH,
///     config_hash: 0,
///     model_id: None,
///     schema_version: 1,
///     byte_size: 72,
/// };
/// let label: &'static str = m.algorithm;
/// assert_eq!(label, "tlsh");
/// # #[cfg(feature = "serde")] {
/// let json = serde_json::to_string(&m).unwrap();
/// assert_eq!(
///     json,
///     r#"{"algorithm":"tlsh","config_hash":0,"model_id":null,"schema_version":1,"byte_size":72}"#
/// );
/// assert_eq!(serde_json::from_str::<FingerprintMetadata>(&json).unwrap(), m);
/// let err = serde_json::from_str::<FingerprintMetadata>(&json.replace("tlsh", "md5")).unwrap_err();
/// assert!(err.to_string().starts_with("unknown fingerprint algorithm `md5`"));
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FingerprintMetadata {
    /// Algorithm label: one of the [`algo`] constants for metadata this crate
    /// makes or reads back.
    pub algorithm: &'static str,
    /// Config hash, or [`UNCOMPUTED_CONFIG_HASH`].
    pub config_hash: u64,
    /// Embedding model id, if any.
    pub model_id: Option<String>,
    /// Schema version of the signature bytes.
    pub schema_version: u16,
    /// Size of the signature in bytes.
    pub byte_size: usize,
}

/// Hand-written `Deserialize`: a derive would make a `&'static str` field
/// borrow from the input for `'static`. The struct is read into a private
/// mirror whose label maps onto the `'static` constant of [`algo`], so the
/// field keeps 0.3.2's type without leaking memory.
#[cfg(feature = "serde")]
mod metadata_serde {
    use super::{FingerprintMetadata, algo};
    use alloc::string::String;
    use core::fmt;
    use serde::Deserialize;
    use serde::de::{self, Deserializer, Visitor};

    /// An algorithm label, borrowed or owned in the input.
    struct Label(&'static str);

    impl<'de> Deserialize<'de> for Label {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl Visitor<'_> for V {
                type Value = Label;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a fingerprint algorithm label")
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<Label, E> {
                    algo::lookup(v).map(Label).ok_or_else(|| {
                        E::custom(format_args!(
                            "unknown fingerprint algorithm `{v}`, expected one of {}",
                            algo::ALL.join(", ")
                        ))
                    })
                }
                fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Label, E> {
                    match core::str::from_utf8(v) {
                        Ok(s) => self.visit_str(s),
                        Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
                    }
                }
            }
            d.deserialize_str(V)
        }
    }

    #[derive(Deserialize)]
    #[serde(rename = "FingerprintMetadata", deny_unknown_fields)]
    struct Raw {
        algorithm: Label,
        config_hash: u64,
        model_id: Option<String>,
        schema_version: u16,
        byte_size: usize,
    }

    impl<'de> Deserialize<'de> for FingerprintMetadata {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let r = Raw::deserialize(d)?;
            Ok(FingerprintMetadata {
                algorithm: r.algorithm.0,
                config_hash: r.config_hash,
                model_id: r.model_id,
                schema_version: r.schema_version,
                byte_size: r.byte_size,
            })
        }
    }
}

impl FingerprintMetadata {
    /// The same metadata with `config_hash` replaced.
    #[must_use]
    pub fn with_config_hash(mut self, config_hash: u64) -> Self {
        self.config_hash = config_hash;
        self
    }
}

/// Any signature this build can produce, for code that stores several kinds.
///
/// ```
/// use txtfp::{Fingerprint, SimHash64};
/// let f = Fingerprint::SimHash(SimHash64::new(7));
/// assert_eq!(f.name(), "simhash-b64-v1");
/// assert_eq!(f.metadata().byte_size, 8);
/// ```
#[cfg(any(
    feature = "minhash",
    feature = "simhash",
    feature = "tlsh",
    feature = "semantic-core"
))]
// The MinHash variant is 1 KiB; boxing it would change the 0.3.2 API.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Fingerprint {
    /// A 128-slot MinHash signature.
    #[cfg(feature = "minhash")]
    MinHash(crate::MinHashSig<128>),
    /// A 128-slot signature of the opt-in fast MinHash scheme (not in
    /// 0.3.2; the enum is `#[non_exhaustive]`, so adding it breaks no
    /// match). Its name carries the scheme's schema word,
    /// [`FAST_SCHEMA`](crate::classical::minhash::FAST_SCHEMA) = `0x4601` = 17921.
    #[cfg(feature = "minhash")]
    FastMinHash(crate::classical::minhash::FastMinHashSig<128>),
    /// A 64-bit SimHash.
    #[cfg(feature = "simhash")]
    SimHash(crate::SimHash64),
    /// A TLSH 128/1 digest.
    #[cfg(feature = "tlsh")]
    Tlsh(crate::TlshFingerprint),
    /// A dense embedding (`semantic-core`).
    #[cfg(feature = "semantic-core")]
    Embedding(crate::Embedding),
}

#[cfg(any(
    feature = "minhash",
    feature = "simhash",
    feature = "tlsh",
    feature = "semantic-core"
))]
impl Fingerprint {
    /// Versioned name: `minhash-h128-v{schema}`, `fast-minhash-h128-v17921`,
    /// `simhash-b64-v1`, `tlsh-v1`, and for embeddings `embedding/{model_id}-v1` (`embedding-v1` without a
    /// model id).
    pub fn name(&self) -> String {
        let m = self.metadata();
        match &m.model_id {
            Some(model) => format!("{}/{model}-v{}", m.algorithm, m.schema_version),
            None => format!("{}-v{}", m.algorithm, m.schema_version),
        }
    }

    /// Metadata with [`UNCOMPUTED_CONFIG_HASH`].
    pub fn metadata(&self) -> FingerprintMetadata {
        match self {
            #[cfg(feature = "minhash")]
            Fingerprint::MinHash(sig) => FingerprintMetadata {
                algorithm: algo::MINHASH_128,
                config_hash: UNCOMPUTED_CONFIG_HASH,
                model_id: None,
                schema_version: sig.schema,
                byte_size: core::mem::size_of::<crate::MinHashSig<128>>(),
            },
            #[cfg(feature = "minhash")]
            Fingerprint::FastMinHash(sig) => FingerprintMetadata {
                algorithm: algo::FAST_MINHASH_128,
                config_hash: UNCOMPUTED_CONFIG_HASH,
                model_id: None,
                schema_version: sig.schema,
                byte_size: core::mem::size_of::<crate::classical::minhash::FastMinHashSig<128>>(),
            },
            #[cfg(feature = "simhash")]
            Fingerprint::SimHash(_) => FingerprintMetadata {
                algorithm: algo::SIMHASH_64,
                config_hash: UNCOMPUTED_CONFIG_HASH,
                model_id: None,
                schema_version: crate::classical::simhash::SCHEMA_VERSION,
                byte_size: 8,
            },
            #[cfg(feature = "tlsh")]
            Fingerprint::Tlsh(t) => FingerprintMetadata {
                algorithm: algo::TLSH,
                config_hash: UNCOMPUTED_CONFIG_HASH,
                model_id: None,
                schema_version: 1,
                byte_size: t.hex().len(),
            },
            #[cfg(feature = "semantic-core")]
            Fingerprint::Embedding(e) => FingerprintMetadata {
                algorithm: algo::EMBEDDING,
                config_hash: UNCOMPUTED_CONFIG_HASH,
                model_id: e.model_id().map(String::from),
                schema_version: 1,
                byte_size: 4 * e.dim(),
            },
        }
    }

    /// Metadata with the 3-part [`config_hash`]`(canon, tokenizer, algorithm_config)`
    /// (as 0.3.2; it does not cover family and seed — prefer the fingerprinter's
    /// own `config_hash()` with [`FingerprintMetadata::with_config_hash`]).
    pub fn metadata_with(
        &self,
        canon: &Canonicalizer,
        tokenizer: &str,
        algorithm_config: &str,
    ) -> FingerprintMetadata {
        self.metadata()
            .with_config_hash(config_hash(canon, tokenizer, algorithm_config))
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests;
