//! TLSH digests against the published crate's goldens and, live, against py-tlsh.

// Helpers shared by several test binaries (one copy, mounted in each).
#[path = "../common/mod.rs"]
mod common;

mod golden;
mod pytlsh_live;
