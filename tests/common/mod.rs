//! Helpers shared by the integration tests: locating ../shared and the
//! digests the golden files use.
#![allow(dead_code)]

use std::path::PathBuf;

/// FNV-1a 64 of the bytes, as 16 hex digits (the compact goldens' digest).
pub fn fnv(data: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The reference harness's token-list digest: FNV-1a 64 over each token's
/// bytes followed by one 0xFF byte.
pub fn token_digest(tokens: &[String]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for t in tokens {
        for &b in t.as_bytes().iter().chain(std::iter::once(&0xFFu8)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `../shared` beside the project (or `$TXTFP_SHARED`), if present.
pub fn shared_dir() -> Option<PathBuf> {
    let p = std::env::var_os("TXTFP_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    p.is_dir().then_some(p)
}

/// The file under ../shared, or a loud skip notice and `None`.
pub fn shared_file(rel: &str) -> Option<PathBuf> {
    match shared_dir().map(|d| d.join(rel)) {
        Some(p) if p.is_file() => Some(p),
        _ => {
            eprintln!(
                "\n*** SKIPPED: ../shared/{rel} not found (set TXTFP_SHARED to the shared folder \
                 to run this test over the full reference set) ***\n"
            );
            None
        }
    }
}

pub fn data_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

pub fn read_jsonl(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {path:?}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path:?}: bad JSON: {e}")))
        .collect()
}
