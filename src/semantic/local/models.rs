//! What known models expect: pooling and query/document prefixes.
//!
//! Ids are matched exactly, ignoring ASCII case. Unknown ids get mean pooling
//! and no prefixes; the builder's explicit settings always win.

use crate::Pooling;

/// Pooling and prefixes of a known model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Profile {
    pub(crate) pooling: Pooling,
    pub(crate) query_prefix: &'static str,
    pub(crate) doc_prefix: &'static str,
}

const RETRIEVAL: &str = "Represent this sentence for searching relevant passages: ";

const fn p(pooling: Pooling, query_prefix: &'static str, doc_prefix: &'static str) -> Profile {
    Profile {
        pooling,
        query_prefix,
        doc_prefix,
    }
}

/// Model ids → profile, one row per profile. 0.3.2's table plus the
/// prefixes it lacked (W15): nomic's `search_query: ` / `search_document: `,
/// and the retrieval query instruction of Snowflake Arctic and mxbai.
const TABLE: &[(Profile, &[&str])] = &[
    (
        p(Pooling::Cls, RETRIEVAL, ""),
        &[
            "BAAI/bge-small-en-v1.5",
            "BAAI/bge-base-en-v1.5",
            "BAAI/bge-large-en-v1.5",
            "Snowflake/snowflake-arctic-embed-xs",
            "Snowflake/snowflake-arctic-embed-s",
            "Snowflake/snowflake-arctic-embed-m",
            "Snowflake/snowflake-arctic-embed-m-v1.5",
            "Snowflake/snowflake-arctic-embed-l",
            "mixedbread-ai/mxbai-embed-large-v1",
        ],
    ),
    (p(Pooling::Cls, "", ""), &["BAAI/bge-m3"]),
    (
        p(Pooling::Mean, "query: ", "passage: "),
        &[
            "intfloat/multilingual-e5-small",
            "intfloat/multilingual-e5-base",
            "intfloat/multilingual-e5-large",
            "intfloat/e5-small-v2",
            "intfloat/e5-base-v2",
            "intfloat/e5-large-v2",
        ],
    ),
    (
        p(Pooling::Mean, "", ""),
        &[
            "sentence-transformers/all-MiniLM-L6-v2",
            "sentence-transformers/all-MiniLM-L12-v2",
            "sentence-transformers/all-mpnet-base-v2",
            "thenlper/gte-small",
            "thenlper/gte-base",
            "thenlper/gte-large",
        ],
    ),
    (
        p(Pooling::Mean, "search_query: ", "search_document: "),
        &[
            "nomic-ai/nomic-embed-text-v1",
            "nomic-ai/nomic-embed-text-v1.5",
        ],
    ),
];

/// Every known model id (each once; the tests check it).
fn known_ids() -> impl Iterator<Item = (&'static str, Profile)> {
    TABLE
        .iter()
        .flat_map(|&(profile, ids)| ids.iter().map(move |&id| (id, profile)))
}

/// The profile of `model_id`, if it is a known model.
pub(crate) fn lookup(model_id: &str) -> Option<Profile> {
    known_ids()
        .find(|(id, _)| id.eq_ignore_ascii_case(model_id))
        .map(|(_, profile)| profile)
}

#[cfg(test)]
mod tests;
