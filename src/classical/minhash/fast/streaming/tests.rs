//! The streaming sketch against the offline one over the same tokens: the
//! hashes it frees, the repeats it drops and the cap it keeps. (Streaming
//! over real chunked text is tested with the other streams, in
//! `stream/tests_fast.rs`.)

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::StreamSketch;
use crate::classical::TokenSketch;
use crate::classical::minhash::fast::hash::token_hash;
use crate::classical::minhash::fast::sketch::FastSketch;

fn offline<const H: usize>(tokens: &[String], seed: u64) -> Option<[u64; H]> {
    let mut sk = FastSketch::<H>::new(seed, 0);
    let keys = sk.keys;
    sk.elems = tokens
        .iter()
        .map(|t| token_hash(t.as_bytes(), &keys))
        .collect();
    sk.bin_all();
    sk.finish()
}

fn streamed<const H: usize>(tokens: &[String], seed: u64, max_bytes: usize) -> StreamSketch<H> {
    let mut s = StreamSketch::<H>::new(seed, max_bytes);
    for t in tokens {
        s.push(t);
    }
    s
}

fn words(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("w{i} x{}", i % 7)).collect()
}

/// Enough distinct tokens reach every slot in round 0: the kept hashes are
/// freed and the signature is the offline one.
#[test]
fn hashes_are_freed_once_every_slot_is_reached() {
    for seed in 0..20 {
        let tokens = words(400);
        let s = streamed::<16>(&tokens, seed, 1 << 20);
        assert_eq!(s.empty, 0);
        assert!(s.inner.elems.is_empty() && s.inner.elems.capacity() == 0);
        assert_eq!(
            s.finish().unwrap().hashes,
            offline::<16>(&tokens, seed).unwrap()
        );
    }
}

/// Too few tokens for round 0: the filling rounds run on the kept hashes,
/// exactly as offline.
#[test]
fn short_streams_run_the_filling_rounds() {
    for n in 1..40 {
        let tokens = words(n);
        let s = streamed::<128>(&tokens, n as u64, 1 << 20);
        assert!(s.empty > 0, "n = {n}");
        assert_eq!(s.inner.elems.len(), n);
        assert_eq!(
            s.finish().unwrap().hashes,
            offline::<128>(&tokens, n as u64).unwrap()
        );
    }
}

/// One token a hundred thousand times: the repeats are dropped as the
/// list doubles, so it stays small, and the slots are the offline ones.
#[test]
fn repeats_are_dropped() {
    let mut tokens: Vec<String> = (0..100_000).map(|_| "again".to_string()).collect();
    tokens.extend(words(3));
    let s = streamed::<64>(&tokens, 9, 1 << 20);
    assert!(
        s.inner.elems.len() <= super::FIRST_DEDUP,
        "{}",
        s.inner.elems.len()
    );
    assert!(!s.overflow);
    assert_eq!(
        s.finish().unwrap().hashes,
        offline::<64>(&tokens, 9).unwrap()
    );
}

/// Past the cap the hashes are dropped. If round 0 then still reaches every
/// slot the result is exact; if not, `finish` says so instead of guessing.
#[test]
fn the_cap_drops_the_hashes_and_finish_tells() {
    // max_bytes 16: at most 2 hashes, and more than 1 distinct one is too
    // many. With 4 slots, 2 tokens never fill them.
    let many = words(60);
    let s = streamed::<4>(&many, 5, 16);
    assert!(s.overflow && s.empty == 0);
    assert_eq!(s.finish().unwrap().hashes, offline::<4>(&many, 5).unwrap());

    let few = words(3);
    let s = streamed::<4>(&few, 5, 16);
    assert!(s.overflow && s.empty > 0);
    let e = s.finish().unwrap_err().to_string();
    assert!(
        e.contains("slots are still empty") && e.contains("cap of 2 hashes"),
        "{e}"
    );

    // A zero cap keeps nothing: the same two outcomes.
    assert!(streamed::<4>(&many, 5, 0).finish().is_ok());
    assert!(streamed::<4>(&few, 5, 0).finish().is_err());
}

/// No token: the default scheme's error; zero slots: an empty signature.
#[test]
fn no_tokens_and_no_slots() {
    let e = StreamSketch::<8>::new(1, 64).finish().unwrap_err();
    assert_eq!(e.to_string(), "invalid input: empty document");
    let s = streamed::<0>(&words(5), 1, 64);
    assert_eq!(s.finish().unwrap().hashes, [0u64; 0]);
}
