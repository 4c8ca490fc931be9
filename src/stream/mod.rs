//! Online streaming: the engine behind
//! [`MinHashStreaming`](crate::MinHashStreaming) and
//! [`SimHashStreaming`](crate::SimHashStreaming).
//!
//! txtfp 0.3.2 buffered the whole document and sketched it at `finalize`
//! (0.3.2 buffered the whole document: COMPAT.md D1). Here text is canonicalized,
//! tokenized and sketched while it arrives, and the tokens reaching the
//! sketch are exactly those of the offline path for the concatenated input,
//! for every way of cutting it into chunks:
//!
//! 1. **UTF-8** ([`utf8`]) is validated incrementally; a chunk may end inside
//!    a sequence (≤ 3 bytes are carried to the next chunk).
//! 2. **Split points** ([`split`]): ASCII whitespace followed by printable
//!    ASCII (and ASCII after that). Before such a point, canonicalization
//!    and tokenization of the text so far cannot depend on what follows, so
//!    the engine cuts the raw text there into batches (of ~[`FLUSH_BYTES`](engine::FLUSH_BYTES))
//!    and processes each on its own.
//! 3. **Tokens** follow the tokenizer's
//!    [`StreamPlan`](crate::tokenize::StreamPlan): `Splittable`
//!    tokenizers run per batch; `Shingle { k, inner }` runs `inner`'s plan
//!    and slides a `k`-token window over its tokens ([`shingle`], stacked for
//!    nested shingles); `Buffered` (user tokenizers without a plan, or a
//!    canonicalizer that cannot be split) holds the whole document and
//!    tokenizes it once at the end, exactly like the offline path.
//!
//! **Memory**: O(max_bytes + k · longest token), independent of the document
//! length: between chunks the engine holds at most [`FLUSH_BYTES`](engine::FLUSH_BYTES) of text
//! plus the stretch since the last split point, the shingle windows, and the
//! canonical form of one batch. The cap (`with_max_bytes`, default 16 MiB)
//! limits the longest stretch without a split point; it is exceeded only by
//! text with no split points for that long (e.g. 16 MiB without ASCII
//! whitespace followed by ASCII, such as a long document in a script without
//! ASCII letters or digits), and then the chunk that would pass it is
//! rejected. Whether it is exceeded does not depend on the chunking. In
//! `Buffered` mode the cap bounds the whole document, as in 0.3.2. SimHash's
//! Uniform and IDF weightings additionally keep one entry per distinct token
//! (a 128-bit hash and a count), so their memory follows the vocabulary.
//!
//! **Errors** (each leaves the stream as it was before the call: a chunk is
//! accepted whole or not at all):
//! - invalid UTF-8 → [`Error::InvalidUtf8`](crate::Error::InvalidUtf8)
//!   `{ offset }`, the stream offset of the first byte of the first invalid
//!   sequence. 0.3.2 said `InvalidInput("invalid UTF-8 in stream")` with no
//!   position. As in 0.3.2 the valid prefix of the bad chunk is not kept
//!   (COMPAT.md W23): a caller that wants it can feed `chunk[..offset - start]`
//!   again;
//! - cap → `InvalidInput("streaming buffer exceeded cap: …")` naming the
//!   size reached and the cap;
//! - at `finalize`: `InvalidInput("trailing incomplete UTF-8")`, then
//!   `InvalidInput("empty document")` when nothing was fed or nothing
//!   tokenizes, as offline.

// Without a sketch feature nothing drives the engine.
#![cfg_attr(
    not(any(feature = "minhash", feature = "simhash", feature = "tlsh")),
    allow(dead_code)
)]

mod engine;
mod online;
mod shingle;
mod split;
mod utf8;

#[cfg(test)]
mod tests;

#[cfg(any(feature = "minhash", feature = "simhash", feature = "tlsh"))]
pub(crate) use online::Online;
#[cfg(all(
    feature = "std",
    any(feature = "minhash", feature = "simhash", feature = "tlsh")
))]
pub(crate) use online::io_error;

/// Default cap of both streaming fingerprinters: 16 MiB (the value of
/// `minhash::DEFAULT_MAX_BUFFER_BYTES`; SimHash's is private, as in 0.3.2).
#[cfg_attr(not(any(feature = "simhash", feature = "tlsh")), allow(dead_code))]
pub(crate) const DEFAULT_MAX_BYTES: usize = 16 * 1024 * 1024;
