//! Index tests: spec vectors, and property tests against a naive model (a
//! list of `(id, sig)` pairs searched by brute force).

mod band_key;
mod persist;

use alloc::string::ToString;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::{LshIndex, LshIndexBuilder, band_keys};
use crate::classical::minhash::FastMinHashSig;
use crate::{Error, MinHashSig, jaccard};

/// The default-scheme signature of `hashes`.
pub(crate) fn sig<const H: usize>(hashes: [u64; H]) -> MinHashSig<H> {
    let mut s = MinHashSig::<H>::empty();
    s.hashes = hashes;
    s
}

/// The fast-scheme signature the fast-scheme tests share: `x` in bands 0, 1
/// and the second half of band 3, constants in band 2 and the first half of
/// band 3 (bands of two rows).
pub(crate) fn fast_sig(x: u64) -> FastMinHashSig<8> {
    FastMinHashSig {
        hashes: [x, x, x, x, 1, 2, 3, x],
        ..FastMinHashSig::empty()
    }
}

/// Recomputes an index file's checksum after an edit, as a forger would.
pub(crate) fn reseal(bytes: &mut [u8]) {
    let body = bytes.len() - 16;
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..body]);
    bytes[body..body + 8].copy_from_slice(&sum.to_le_bytes());
}

/// Asserts that `read` refuses every truncation and every single-bit flip
/// (bit 4 of each byte) of the index file `bytes` as [`Error::Corrupt`].
pub(crate) fn assert_damage_is_corrupt<T>(bytes: &[u8], read: impl Fn(&[u8]) -> crate::Result<T>) {
    for len in 0..bytes.len() {
        let err = read(&bytes[..len]).err();
        assert!(matches!(err, Some(Error::Corrupt(_))), "len {len}: {err:?}");
    }
    for at in 0..bytes.len() {
        let mut bad = bytes.to_vec();
        bad[at] ^= 0x10;
        let err = read(&bad).err();
        assert!(matches!(err, Some(Error::Corrupt(_))), "byte {at}: {err:?}");
    }
}

/// Every one-byte forgery of the index file `bytes` from offset `from` up to
/// the trailer, resealed so that only structural checks can catch it:
/// `(offset, forged file)`.
pub(crate) fn forgeries(bytes: &[u8], from: usize) -> impl Iterator<Item = (usize, Vec<u8>)> + '_ {
    (from..bytes.len() - 16).map(move |at| {
        let mut bad = bytes.to_vec();
        bad[at] = bad[at].wrapping_add(0x41);
        reseal(&mut bad);
        (at, bad)
    })
}

/// Brute-force reference: what `LshIndex` must answer, ignoring XXH3
/// collisions between different band contents.
#[derive(Default)]
struct Naive<const H: usize> {
    rows: usize,
    items: Vec<(u64, MinHashSig<H>)>,
}

impl<const H: usize> Naive<H> {
    fn new(rows: usize) -> Self {
        Self {
            rows,
            items: Vec::new(),
        }
    }

    fn insert(&mut self, id: u64, s: MinHashSig<H>) {
        self.remove(id);
        self.items.push((id, s));
    }

    fn remove(&mut self, id: u64) -> Option<MinHashSig<H>> {
        let pos = self.items.iter().position(|(i, _)| *i == id)?;
        Some(self.items.remove(pos).1)
    }

    fn shares_band(&self, a: &MinHashSig<H>, b: &MinHashSig<H>) -> bool {
        a.hashes
            .chunks(self.rows)
            .zip(b.hashes.chunks(self.rows))
            .any(|(x, y)| x == y)
    }

    fn query(&self, q: &MinHashSig<H>) -> Vec<u64> {
        let mut out: Vec<u64> = self
            .items
            .iter()
            .filter(|(_, s)| self.shares_band(q, s))
            .map(|(id, _)| *id)
            .collect();
        out.sort_unstable();
        out
    }

    fn query_with_threshold(&self, q: &MinHashSig<H>, t: f32) -> Vec<u64> {
        let t = t.clamp(0.0, 1.0);
        let mut out: Vec<u64> = self
            .items
            .iter()
            .filter(|(_, s)| self.shares_band(q, s) && jaccard(q, s) >= t)
            .map(|(id, _)| *id)
            .collect();
        out.sort_unstable();
        out
    }
}

/// Everything observable about `idx` agrees with `naive`, probed with every
/// stored signature plus `probes`.
fn assert_same<const H: usize>(idx: &LshIndex<H>, naive: &Naive<H>, probes: &[MinHashSig<H>]) {
    assert_eq!(idx.len(), naive.items.len());
    assert_eq!(idx.is_empty(), naive.items.is_empty());
    let mut ids: Vec<u64> = idx.ids().collect();
    ids.sort_unstable();
    let mut want: Vec<u64> = naive.items.iter().map(|(id, _)| *id).collect();
    want.sort_unstable();
    assert_eq!(ids, want);
    for (id, s) in &naive.items {
        assert_eq!(idx.get(*id), Some(s));
    }
    let mut pairs: Vec<(u64, MinHashSig<H>)> = idx.iter().map(|(id, s)| (id, *s)).collect();
    pairs.sort_unstable_by_key(|p| p.0);
    let mut want_pairs = naive.items.clone();
    want_pairs.sort_unstable_by_key(|p| p.0);
    assert_eq!(pairs, want_pairs);
    let stored = naive.items.iter().map(|(_, s)| s);
    let queries: Vec<MinHashSig<H>> = stored.chain(probes).copied().collect();
    for q in &queries {
        assert_eq!(idx.query(q), naive.query(q));
        for t in [0.0, 0.3, 0.5, 0.75, 1.0, -1.0, 2.0] {
            assert_eq!(
                idx.query_with_threshold(q, t),
                naive.query_with_threshold(q, t)
            );
        }
    }
    // The batch forms answer what one call per query does, in order.
    let want: Vec<Vec<u64>> = queries.iter().map(|q| naive.query(q)).collect();
    assert_eq!(idx.query_batch(&queries), want);
    #[cfg(feature = "parallel")]
    assert_eq!(idx.query_batch_par(&queries), want);
    for t in [0.0, 0.5, 1.0, f32::NAN] {
        let want: Vec<Vec<u64>> = queries
            .iter()
            .map(|q| idx.query_with_threshold(q, t))
            .collect();
        assert_eq!(idx.query_batch_with_threshold(&queries, t), want);
        #[cfg(feature = "parallel")]
        assert_eq!(idx.query_batch_with_threshold_par(&queries, t), want);
    }
    assert_buckets_exact(idx);
}

/// The buckets hold exactly the live signatures: each live slot is in the
/// bucket of each of its bands, and there is nothing else (no stale entry of a
/// removed or replaced signature, no duplicate).
fn assert_buckets_exact<const H: usize>(idx: &LshIndex<H>) {
    let core = &idx.core;
    for (id, slot) in core.id_slots() {
        assert_eq!(core.id(slot), id);
        let s = &idx.sigs[slot as usize];
        let mut found = Vec::new();
        core.candidates(band_keys(&s.hashes, idx.rows()), &mut found);
        let hits = found.iter().filter(|&&f| f == slot).count();
        assert_eq!(hits, idx.bands(), "id {id} missing from a bucket");
    }
    for t in 0..idx.bands() {
        let entries = core.live_entries(t);
        assert_eq!(entries.len(), idx.len(), "table {t}: live entries");
        let mut slots: Vec<u32> = entries.iter().map(|e| e.1).collect();
        slots.sort_unstable();
        slots.dedup();
        assert_eq!(slots.len(), idx.len(), "table {t}: a slot filed twice");
    }
}

#[test]
fn band_key_spec_vector() {
    // Appendix A: MinHash<4> of `alpha beta`, 2 bands x 2 rows.
    let s = sig([
        0x419e19f03d54e391,
        0x590ff59ab4fcc646,
        0x7e1d181c37bda33f,
        0x1c5c973234f20316,
    ]);
    let keys: Vec<u64> = band_keys(&s.hashes, 2).collect();
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0], 0xf241f8b562d14f00);
    // Band 1 uses the same function on the next two slots (no band index mixed in).
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&s.hashes[2].to_le_bytes());
    bytes.extend_from_slice(&s.hashes[3].to_le_bytes());
    assert_eq!(keys[1], xxhash_rust::xxh3::xxh3_64(&bytes));
}

#[test]
fn band_key_from_real_fingerprint() {
    use crate::{Canonicalizer, Fingerprinter, MinHashFingerprinter, WordTokenizer};
    let fp = MinHashFingerprinter::<_, 4>::new(Canonicalizer::default(), WordTokenizer);
    let s = fp.fingerprint("alpha beta").unwrap();
    assert_eq!(
        s.hashes,
        [
            0x419e19f03d54e391,
            0x590ff59ab4fcc646,
            0x7e1d181c37bda33f,
            0x1c5c973234f20316
        ]
    );
    assert_eq!(band_keys(&s.hashes, 2).next(), Some(0xf241f8b562d14f00));
}

#[test]
fn with_bands_rows_errors() {
    let msg = |b, r| {
        LshIndex::<128>::with_bands_rows(b, r)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(msg(0, 128), "config error: bands and rows must be > 0");
    assert_eq!(
        msg(2, usize::MAX),
        alloc::format!("config error: bands * rows overflow: 2 * {}", usize::MAX)
    );
    assert_eq!(
        msg(3, 40),
        "config error: bands * rows (3 * 40 = 120) must equal H = 128"
    );
    assert!(matches!(
        LshIndex::<128>::with_bands_rows(0, 0),
        Err(Error::Config(_))
    ));
}

#[test]
fn insert_query_remove_reinsert() {
    let mut idx = LshIndex::<4>::with_bands_rows(2, 2).unwrap();
    let a = sig([1, 2, 3, 4]);
    let b = sig([1, 2, 9, 9]); // shares band 0 with a
    let c = sig([7, 7, 3, 4]); // shares band 1 with a
    idx.insert(1, a);
    idx.insert(2, b);
    idx.insert(3, c);
    assert_eq!(idx.query(&a), [1, 2, 3]);
    assert_eq!(idx.query(&b), [1, 2]);
    assert_eq!(idx.query_with_threshold(&a, 0.5), [1, 2, 3]);
    assert_eq!(idx.query_with_threshold(&a, 0.75), [1]);
    // Re-insert id 2 with c's content: its old band-0 entry must be scrubbed.
    idx.insert(2, c);
    assert_eq!(idx.len(), 3);
    assert_eq!(idx.query(&b), [1]);
    assert_eq!(idx.query(&c), [1, 2, 3]);
    // Identical re-insert is idempotent.
    idx.insert(2, c);
    assert_eq!(idx.query(&c), [1, 2, 3]);
    assert_eq!(idx.remove(2), Some(c));
    assert_eq!(idx.remove(2), None);
    assert_eq!(idx.query(&c), [1, 3]);
    assert_eq!(idx.get(2), None);
    // The freed slot is reused once the index is compacted.
    idx.compact();
    // (Four slots were handed out: replacing id 2 gave it a fresh one.)
    assert_eq!(idx.sigs.len(), 4);
    idx.insert(4, b);
    assert_eq!(idx.sigs.len(), 4);
    assert_eq!(idx.query(&b), [1, 4]);
    assert_eq!(
        alloc::format!("{idx:?}"),
        "LshIndex { h: 4, bands: 2, rows: 2, len: 3 }"
    );
}

#[test]
fn nan_and_out_of_range_thresholds() {
    // 0.3.2 vectors: query self [9], NaN -> [], 2.0 -> [9].
    let mut idx = LshIndex::<4>::with_bands_rows(2, 2).unwrap();
    let a = sig([1, 2, 3, 4]);
    idx.insert(9, a);
    assert_eq!(idx.query(&a), [9]);
    assert!(idx.query_with_threshold(&a, f32::NAN).is_empty());
    assert_eq!(idx.query_with_threshold(&a, 2.0), [9]);
    assert_eq!(idx.query_with_threshold(&a, f32::INFINITY), [9]);
    assert_eq!(idx.query_with_threshold(&a, f32::NEG_INFINITY), [9]);
    assert_eq!(idx.try_query_with_threshold(&a, 2.0).unwrap(), [9]);
    let err = idx.try_query_with_threshold(&a, f32::NAN).unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)));
    assert!(err.to_string().ends_with("got NaN"), "{err}");
}

#[test]
fn builder_for_threshold_feeds_index() {
    let b = LshIndexBuilder::for_threshold(0.8, 128).unwrap();
    let idx: LshIndex<128> = b.build();
    assert_eq!((idx.bands(), idx.rows()), (8, 16));
    let clone = idx.clone();
    assert_eq!(clone.bands(), 8);
}

/// Fills a one-slot-per-signature index up to the (test-sized) cap.
fn full_index() -> LshIndex<1> {
    let mut idx = LshIndex::<1>::with_bands_rows(1, 1).unwrap();
    for id in 0..super::table::MAX_SLOTS as u64 {
        idx.insert(id, sig([id / 4]));
    }
    idx
}

#[test]
#[cfg(feature = "std")] // catch_unwind
fn full_index_errors_and_panics() {
    let mut idx = full_index();
    let n = idx.len();
    let err = idx.try_insert(u64::MAX, sig([1])).unwrap_err();
    assert_eq!(
        err.to_string(),
        alloc::format!(
            "invalid input: LshIndex is full: cannot add 1 new id(s) beyond {n} signatures"
        )
    );
    assert_eq!(idx.len(), n);
    // Replacing an existing id still works on a full index.
    idx.try_insert(3, sig([1])).unwrap();
    assert_eq!(idx.get(3), Some(&sig([1])));
    // A removal frees a slot for one new id.
    idx.remove(0);
    idx.try_insert(u64::MAX, sig([1])).unwrap();
    assert_eq!(idx.len(), n);
    let caught = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| {
        idx.insert(u64::MAX - 1, sig([1]));
    }));
    let payload = caught.unwrap_err();
    let text = payload.downcast_ref::<alloc::string::String>().unwrap();
    assert!(
        text.starts_with("LshIndex::insert: invalid input: LshIndex is full"),
        "{text}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Random insert/remove/re-insert traffic on small alphabets (so bands
    /// collide often) keeps the index equal to the naive model.
    #[test]
    fn matches_naive_model(
        banding in prop::sample::select(alloc::vec![(8usize, 1usize), (4, 2), (2, 4), (1, 8)]),
        ops in prop::collection::vec(
            (0u8..4, 0u64..12, prop::array::uniform8(0u64..3)),
            1..60,
        ),
        probes in prop::collection::vec(prop::array::uniform8(0u64..3), 0..4),
    ) {
        let (bands, rows) = banding;
        let mut idx = LshIndex::<8>::with_bands_rows(bands, rows).unwrap();
        let mut naive = Naive::<8>::new(rows);
        for (op, id, hashes) in ops {
            if op == 0 {
                prop_assert_eq!(idx.remove(id), naive.remove(id));
            } else {
                idx.insert(id, sig(hashes));
                naive.insert(id, sig(hashes));
            }
        }
        let probes: Vec<MinHashSig<8>> = probes.into_iter().map(sig).collect();
        assert_same(&idx, &naive, &probes);
    }
}

#[cfg(feature = "parallel")]
mod parallel {
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// `extend_par` = inserting the batch item by item, including ids
        /// already in the index, ids repeated in the batch, and reuse of
        /// freed slots.
        #[test]
        fn extend_par_equals_sequential_insert(
            banding in prop::sample::select(alloc::vec![(8usize, 1usize), (4, 2), (2, 4), (1, 8)]),
            before in prop::collection::vec((0u64..16, prop::array::uniform8(0u64..3)), 0..20),
            removed in prop::collection::vec(0u64..16, 0..6),
            batch in prop::collection::vec((0u64..16, prop::array::uniform8(0u64..3)), 0..40),
        ) {
            let (bands, rows) = banding;
            let mut idx = LshIndex::<8>::with_bands_rows(bands, rows).unwrap();
            let mut naive = Naive::<8>::new(rows);
            for &(id, h) in &before {
                idx.insert(id, sig(h));
                naive.insert(id, sig(h));
            }
            for id in removed {
                prop_assert_eq!(idx.remove(id), naive.remove(id));
            }
            let mut seq = idx.clone();
            for &(id, h) in &batch {
                seq.insert(id, sig(h));
                naive.insert(id, sig(h));
            }
            idx.extend_par(batch.iter().map(|&(id, h)| (id, sig(h))));
            assert_same(&idx, &naive, &[]);
            assert_same(&seq, &naive, &[]);
        }
    }

    #[test]
    fn extend_par_large_batch_spans_rounds() {
        // More items than one round of band keys holds.
        let n = 3 * crate::lsh::batch::MIN_ROUND + 17;
        let make = |i: u64| {
            let mut h = [0u64; 64];
            for (j, slot) in h.iter_mut().enumerate() {
                // Mostly unique slots, some bands shared by runs of ids.
                *slot = if j % 4 == 0 {
                    i / (j as u64 + 2)
                } else {
                    i * 64 + j as u64
                };
            }
            sig(h)
        };
        let items: Vec<(u64, MinHashSig<64>)> = (0..n as u64).map(|i| (i, make(i))).collect();
        let mut par = LshIndex::<64>::with_bands_rows(64, 1).unwrap();
        // Some ids exist beforehand, with other signatures.
        par.insert(5, make(999_999));
        par.insert(n as u64 + 1, make(5));
        let mut seq = par.clone();
        par.extend_par(items.iter().copied());
        for &(id, s) in &items {
            seq.insert(id, s);
        }
        assert_eq!(par.len(), n + 1);
        for &(_, s) in items.iter().step_by(611).chain([(0, make(999_999))].iter()) {
            assert_eq!(par.query(&s), seq.query(&s));
            assert_eq!(
                par.query_with_threshold(&s, 0.5),
                seq.query_with_threshold(&s, 0.5)
            );
        }
        assert_buckets_exact(&par);
    }

    #[test]
    fn try_extend_par_is_atomic() {
        let mut idx = LshIndex::<4>::with_bands_rows(2, 2).unwrap();
        idx.insert(5, sig([1, 2, 3, 4]));
        let before = (idx.len(), idx.query(&sig([1, 2, 3, 4])));

        // An existing id anywhere in the batch rejects all of it.
        let err = idx
            .try_extend_par([(1, sig([1, 2, 0, 0])), (5, sig([9; 4])), (6, sig([9; 4]))])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid input: LshIndex::try_extend_par: id 5 already exists; remove() first"
        );
        assert_eq!((idx.len(), idx.query(&sig([1, 2, 3, 4]))), before);

        // A repeated id too; the first offending item in batch order is named.
        let err = idx
            .try_extend_par([
                (1, sig([1; 4])),
                (2, sig([2; 4])),
                (1, sig([3; 4])),
                (5, sig([0; 4])),
            ])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid input: LshIndex::try_extend_par: id 1 occurs more than once in the batch"
        );
        assert_eq!((idx.len(), idx.query(&sig([1, 2, 3, 4]))), before);
        assert!(idx.get(2).is_none());

        // A clean batch goes in whole.
        idx.try_extend_par([(1, sig([1, 2, 0, 0])), (2, sig([0, 0, 3, 4]))])
            .unwrap();
        assert_eq!(idx.query(&sig([1, 2, 3, 4])), [1, 2, 5]);
        idx.try_extend_par(core::iter::empty()).unwrap();
        assert_eq!(idx.len(), 3);
    }

    #[test]
    fn extend_par_on_full_index() {
        let mut idx = full_index();
        let n = idx.len();
        idx.remove(10);
        idx.remove(11);
        let batch = [
            (10, sig([5])),
            (u64::MAX, sig([5])),
            (u64::MAX - 1, sig([5])),
            (3, sig([5])),
        ];
        let err = idx.try_extend_par(batch[..3].iter().copied()).unwrap_err();
        assert!(err.to_string().contains("LshIndex is full"), "{err}");
        assert_eq!(idx.len(), n - 2);
        assert!(idx.get(10).is_none());
        // extend_par inserts what fits, keeps the index consistent, then panics.
        let caught = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| {
            idx.extend_par(batch);
        }));
        let payload = caught.unwrap_err();
        let text = payload.downcast_ref::<alloc::string::String>().unwrap();
        assert!(
            text.starts_with("LshIndex::extend_par: invalid input: LshIndex is full"),
            "{text}"
        );
        assert_eq!(idx.len(), n);
        assert_eq!(idx.get(10), Some(&sig([5])));
        assert_eq!(idx.get(u64::MAX), Some(&sig([5])));
        assert!(idx.get(u64::MAX - 1).is_none());
        // Items after the failing one were not applied.
        assert_eq!(idx.get(3), Some(&sig([0])));
        let hits = idx.query(&sig([5]));
        assert!(hits.contains(&10) && hits.contains(&u64::MAX) && hits.contains(&20));
        assert_buckets_exact(&idx);
    }
}
