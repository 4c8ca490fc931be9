//! The banding a deduplication run uses unless told otherwise.

use alloc::format;

use crate::lsh::MAX_AUTO_TUNE_H;
use crate::{Error, LshIndexBuilder, Result};

/// The probability with which the default banding of
/// [`MinHashDedup`](super::MinHashDedup) makes a pair exactly at the
/// threshold a candidate (pairs above it are found more often).
///
/// [`LshIndexBuilder::for_threshold`] balances false candidates against
/// missed pairs, which suits an index whose candidates are the answer. A
/// deduplication run verifies every candidate, so a false candidate only
/// costs a comparison while a missed pair is lost for good: at `t = 0.8`,
/// `H = 128`, `for_threshold` picks 8 bands × 16 rows, which finds a pair of
/// similarity 0.8 with probability 0.20; the default here is
/// [`LshIndexBuilder::for_recall`]`(t, H, DEFAULT_RECALL)`, 32 × 4
/// (probability 0.99999995).
pub const DEFAULT_RECALL: f64 = 0.999;

/// [`LshIndexBuilder::for_recall`] at [`DEFAULT_RECALL`], extended to the
/// thresholds it does not take: at `t = 1` one band of all `h` slots (only
/// equal signatures can have Jaccard 1, estimated or exact), and where no
/// banding reaches the recall (`t` below about 0.05 at `H = 128`) `h` bands
/// of one row, the most sensitive there is.
pub(crate) fn default_banding(threshold: f32, h: usize) -> Result<LshIndexBuilder> {
    check_threshold(threshold)?;
    if threshold == 1.0 {
        return Ok(LshIndexBuilder::new(1, h));
    }
    match LshIndexBuilder::for_recall(f64::from(threshold), h, DEFAULT_RECALL) {
        // With a valid threshold and `h`, the only error left is that no
        // banding reaches the recall.
        Err(_) if (1..=MAX_AUTO_TUNE_H).contains(&h) => Ok(LshIndexBuilder::new(h, 1)),
        other => other,
    }
}

/// The threshold rule: a number in `(0, 1]`.
pub(crate) fn check_threshold(threshold: f32) -> Result<()> {
    if !(threshold > 0.0 && threshold <= 1.0) {
        return Err(Error::Config(format!(
            "dedup threshold must be in (0.0, 1.0]; got {threshold}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
