//! MinHash and SimHash signatures against the published crate's golden files, the
//! SimHash widths and interoperable schemes, and the text forms of every signature.

// Helpers shared by several test binaries (one copy, mounted in each).
#[path = "../common/mod.rs"]
mod common;

mod golden;
mod simhash_doc_v1;
mod simhash_widths;
mod text_forms;
