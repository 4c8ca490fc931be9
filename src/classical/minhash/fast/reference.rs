//! A plain reference implementation of the fast scheme, for the tests: the
//! definition written out with no fusion, no in-place tricks and rounds
//! run one at a time.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::hash::{BASE, VALUE_BITS};
use crate::Tokenizer;
use crate::canonical::Canonicalizer;

const P0: u64 = 0x9e37_79b9_7f4a_7c15;
const P1: u64 = 0xa076_1d64_78bd_642f;
const P2: u64 = 0xe703_7ed1_a0b4_28db;
const P3: u64 = 0x8ebc_6af0_9c88_c6e3;

fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p & u128::from(u64::MAX)) as u64 ^ (p >> 64) as u64
}

/// (word key, finish key, round key) of a seed.
fn keys(seed: u64) -> (u64, u64, u64) {
    (
        fold(seed ^ P0, P1),
        fold(seed ^ P2, P3),
        fold(seed ^ P1, P2),
    )
}

fn piece_hash(piece: &str, key: u64) -> u64 {
    let mut bytes: Vec<u8> = piece.bytes().collect();
    while !bytes.len().is_multiple_of(8) {
        bytes.push(0);
    }
    let mut h = key ^ (piece.len() as u64).wrapping_mul(P0);
    for chunk in bytes.chunks(8) {
        let mut word = 0u64;
        for (i, &b) in chunk.iter().enumerate() {
            word |= u64::from(b) << (8 * i);
        }
        h = fold(h ^ word, P1);
    }
    h
}

/// The hash of one token: its space-separated pieces as a polynomial.
pub(super) fn token_hash(token: &str, seed: u64) -> u64 {
    let (kw, kf, _) = keys(seed);
    let pieces: Vec<&str> = token.split(' ').collect();
    let n = pieces.len();
    let mut acc = 0u64;
    for (i, p) in pieces.iter().enumerate() {
        let mut power = 1u64;
        for _ in 0..(n - 1 - i) {
            power = power.wrapping_mul(BASE);
        }
        acc = acc.wrapping_add(piece_hash(p, kw).wrapping_mul(power));
    }
    fold(acc ^ kf, P2)
}

fn bin(x: u64, h: usize) -> usize {
    ((u128::from(x >> 32) * h as u128) >> 32) as usize
}

/// The generic tokenizer's tokens of the canonical text.
pub(super) fn tokens<T: Tokenizer>(canon: &Canonicalizer, tok: &T, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    tok.for_each_token(&canon.canonicalize(text), &mut |t| {
        out.push(String::from(t))
    });
    out
}

/// The slots of a token list, or `None` for no token. Round `r >= 1` sends
/// element `x` to the bin of one half of `fold(x ^ round key ^ q·P0, P3)`
/// with `q = (r − 1) / 2` (high half for odd `r`, low half for even), with
/// the candidate value `r << 40 | low 40 bits of x`.
pub(super) fn slots(tokens: &[String], seed: u64, h: usize) -> Option<Vec<u64>> {
    if tokens.is_empty() {
        return None;
    }
    let (_, _, kr) = keys(seed);
    let xs: Vec<u64> = tokens.iter().map(|t| token_hash(t, seed)).collect();
    let low = |x: u64| x & ((1u64 << VALUE_BITS) - 1);
    let mut bins = vec![u64::MAX; h];
    for &x in &xs {
        bins[bin(x, h)] = bins[bin(x, h)].min(low(x));
    }
    let mut r = 1u64;
    while bins.contains(&u64::MAX) {
        let q = (r - 1) / 2;
        for &x in &xs {
            let g = fold(x ^ kr ^ q.wrapping_mul(P0), P3);
            let b = if r % 2 == 1 {
                bin(g, h)
            } else {
                bin(g << 32, h)
            };
            bins[b] = bins[b].min((r << VALUE_BITS) | low(x));
        }
        r += 1;
    }
    Some(bins)
}
