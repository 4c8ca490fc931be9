//! Keyword values every class shares: the hash family and the word
//! tokenizer of `k`.

use pyo3::prelude::*;
use txtfp::classical::HashFamily;
use txtfp::{ShingleTokenizer, Tokenizer, WordTokenizer};

use crate::errors::{bad_value, to_py};

/// The hash family named by the `hasher` keyword.
pub fn hash_family(name: &str) -> PyResult<HashFamily> {
    match name {
        "xxh3" => Ok(HashFamily::Xxh3_64),
        "murmur3" => Ok(HashFamily::MurmurHash3_x64_128),
        other => Err(bad_value(format!(
            "hasher must be \"xxh3\" or \"murmur3\", not {other:?}"
        ))),
    }
}

/// The `hasher` keyword's name of a family.
pub fn hasher_name(family: HashFamily) -> &'static str {
    match family {
        HashFamily::Xxh3_64 => "xxh3",
        _ => "murmur3",
    }
}

/// Something built around a tokenizer whose type is chosen at run time.
pub trait WithTokenizer {
    type Out;
    fn with<T: Tokenizer + Clone + Send + Sync + 'static>(self, tok: T) -> Self::Out;
}

/// `build` around the tokenizer of `k`: single words for 1, word
/// `k`-shingles above.
pub fn word_tokens<B: WithTokenizer>(k: usize, build: B) -> PyResult<B::Out> {
    match k {
        0 => Err(bad_value("k must be at least 1 (1 = single words)")),
        1 => Ok(build.with(WordTokenizer)),
        _ => {
            let tok = ShingleTokenizer {
                k,
                inner: WordTokenizer,
            };
            tok.validate().map_err(to_py)?;
            Ok(build.with(tok))
        }
    }
}
