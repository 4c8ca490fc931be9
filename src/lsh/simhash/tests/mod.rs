//! Index tests: queries against brute force on data with planted near
//! neighbours, insert/remove traffic against a naive model, batches,
//! merging and errors.

mod layout;
mod persist;
mod wide;

use alloc::format;
use alloc::string::ToString;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::{SimHashIndex, SimHashLayout};
use crate::lsh::table::MAX_SLOTS;
use crate::{Error, SimHash64};

/// Brute-force reference: a list of `(id, fingerprint)` pairs.
#[derive(Default, Clone)]
struct Naive(Vec<(u64, u64)>);

impl Naive {
    fn insert(&mut self, id: u64, f: u64) {
        self.remove(id);
        self.0.push((id, f));
    }

    fn remove(&mut self, id: u64) -> Option<u64> {
        let pos = self.0.iter().position(|e| e.0 == id)?;
        Some(self.0.remove(pos).1)
    }

    fn within(&self, q: u64, k: u32) -> Vec<(u64, u32)> {
        let mut out: Vec<(u64, u32)> = self
            .0
            .iter()
            .map(|&(id, f)| (id, (f ^ q).count_ones()))
            .filter(|e| e.1 <= k)
            .collect();
        out.sort_unstable_by_key(|&(id, d)| (d, id));
        out
    }

    fn query(&self, q: u64, k: u32) -> Vec<u64> {
        let mut ids: Vec<u64> = self.within(q, k).into_iter().map(|e| e.0).collect();
        ids.sort_unstable();
        ids
    }
}

/// `f` with `d` distinct bits flipped, chosen by `seed`.
fn flip(f: u64, d: u32, mut seed: u64) -> u64 {
    let mut mask = 0u64;
    while mask.count_ones() < d {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        mask |= 1 << (seed >> 58);
    }
    f ^ mask
}

/// Random bases plus, for each, neighbours at every distance `0..=k + 1`.
fn planted(bases: &[u64], k: u32, seed: u64) -> Vec<(u64, u64)> {
    let mut items = Vec::new();
    for (i, &b) in bases.iter().enumerate() {
        items.push((items.len() as u64, b));
        for d in 0..=k + 1 {
            let f = flip(b, d, seed ^ (i as u64) << 8 ^ d as u64);
            items.push((items.len() as u64, f));
        }
    }
    items
}

fn layouts() -> Vec<SimHashLayout> {
    let mut v: Vec<SimHashLayout> = (0..=7)
        .map(|k| SimHashLayout::for_distance(k).unwrap())
        .collect();
    v.push(SimHashLayout::blocks(5, 3).unwrap());
    v.push(SimHashLayout::two_level(5, 5, 4).unwrap());
    v.push(SimHashLayout::custom(alloc::vec![0xffff_ffff, !0xffff_ffff], 1).unwrap());
    v
}

/// Every query of `probes` at every radius `0..=k` equals the reference.
fn check_queries(idx: &SimHashIndex, naive: &Naive, probes: &[u64]) -> Result<(), TestCaseError> {
    let k = idx.max_distance();
    let hashes: Vec<SimHash64> = probes.iter().map(|&q| SimHash64(q)).collect();
    let want: Vec<Vec<u64>> = probes.iter().map(|&q| naive.query(q, k)).collect();
    prop_assert_eq!(&idx.query_batch(&hashes), &want);
    #[cfg(feature = "parallel")]
    prop_assert_eq!(&idx.query_batch_par(&hashes), &want);
    for &q in probes {
        prop_assert_eq!(
            idx.query(&SimHash64(q)),
            naive.query(q, k),
            "k = {}, q = {:#x}",
            k,
            q
        );
        for k2 in 0..=k {
            prop_assert_eq!(
                idx.query_within(&SimHash64(q), k2).unwrap(),
                naive.within(q, k2)
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn queries_equal_brute_force(
        bases in proptest::collection::vec(any::<u64>(), 1..40),
        seed in any::<u64>(),
        which in 0usize..11,
        batch in any::<bool>(),
    ) {
        let layout = layouts().swap_remove(which);
        let k = layout.max_distance();
        let items = planted(&bases, k, seed);
        let mut idx = SimHashIndex::with_layout(layout).unwrap();
        let mut naive = Naive::default();
        if batch {
            idx.try_extend(items.iter().map(|&(id, f)| (id, SimHash64(f)))).unwrap();
        } else {
            for &(id, f) in &items {
                idx.insert(id, SimHash64(f));
            }
        }
        for &(id, f) in &items {
            naive.insert(id, f);
        }
        prop_assert_eq!(idx.len(), naive.0.len());
        let mut probes: Vec<u64> = items.iter().map(|e| e.1).collect();
        probes.extend(bases.iter().enumerate().map(|(i, &b)| flip(b, (i as u32) % (k + 2), seed)));
        check_queries(&idx, &naive, &probes)?;
        idx.compact();
        check_queries(&idx, &naive, &probes)?;
    }
}

/// The index finds a stored fingerprint from every probe within the radius:
/// all patterns of up to 3 bits for the default layout, up to 2 for others.
#[test]
fn every_small_flip_pattern_is_found() {
    let base = 0x9c16_5db7_b53c_9009u64;
    for layout in layouts() {
        let k = layout.max_distance();
        let mut idx = SimHashIndex::with_layout(layout).unwrap();
        idx.insert(42, SimHash64(base));
        idx.insert(43, SimHash64(!base));
        let depth = if k == 3 { 3 } else { k.min(2) };
        // Bit 64 stands for "no bit", so the loops also yield 0 to 2 bits.
        let bit = |x: u32| if x == 64 { 0 } else { 1u64 << x };
        let mut count = 0;
        for i in 0..=64 {
            for j in i..=64 {
                for l in j..=64 {
                    let p = bit(i) | bit(j) | bit(l);
                    if p.count_ones() > depth {
                        continue;
                    }
                    count += 1;
                    assert_eq!(idx.query(&SimHash64(base ^ p)), [42], "k = {k}, {p:#x}");
                }
            }
        }
        assert!(count >= 1);
        // One bit beyond the radius is never reported.
        assert!(idx.query(&SimHash64(flip(base, k + 1, 3))).is_empty());
    }
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u64, u64),
    Remove(u64),
    Extend(Vec<(u64, u64)>),
    Compact,
}

fn op(pool: Vec<u64>) -> impl Strategy<Value = Op> {
    let f = (proptest::sample::select(pool), 0u32..6, any::<u64>())
        .prop_map(|(b, d, s)| flip(b, d, s))
        .boxed();
    prop_oneof![
        4 => (0u64..40, f.clone()).prop_map(|(id, f)| Op::Insert(id, f)),
        2 => (0u64..40).prop_map(Op::Remove),
        1 => proptest::collection::vec((0u64..40, f), 0..12).prop_map(Op::Extend),
        1 => Just(Op::Compact),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn traffic_matches_the_model(
        (pool, ops) in proptest::collection::vec(any::<u64>(), 1..6)
            .prop_flat_map(|pool| (Just(pool.clone()), proptest::collection::vec(op(pool), 1..60))),
        k in 0u32..=4,
    ) {
        let mut idx = SimHashIndex::with_max_distance(k).unwrap();
        let mut naive = Naive::default();
        for op in ops {
            match op {
                Op::Insert(id, f) => {
                    idx.insert(id, SimHash64(f));
                    naive.insert(id, f);
                }
                Op::Remove(id) => {
                    prop_assert_eq!(idx.remove(id).map(|h| h.0), naive.remove(id));
                }
                Op::Extend(items) => {
                    idx.extend(items.iter().map(|&(id, f)| (id, SimHash64(f))));
                    for (id, f) in items {
                        naive.insert(id, f);
                    }
                }
                Op::Compact => idx.compact(),
            }
            prop_assert_eq!(idx.len(), naive.0.len());
            for id in 0..40 {
                let want = naive.0.iter().find(|e| e.0 == id).map(|e| SimHash64(e.1));
                prop_assert_eq!(idx.get(id), want);
                prop_assert_eq!(idx.contains(id), want.is_some());
            }
            let probes: Vec<u64> = pool.iter().copied().chain(naive.0.iter().map(|e| e.1)).collect();
            check_queries(&idx, &naive, &probes)?;
        }
        let mut all: Vec<(u64, u64)> = idx.iter().map(|(id, h)| (id, h.0)).collect();
        all.sort_unstable();
        let mut want = naive.0.clone();
        want.sort_unstable();
        prop_assert_eq!(all, want);
    }
}

#[test]
fn large_batches_span_rounds_and_match_single_inserts() {
    // More than a few batch rounds (MIN_ROUND is 1024 in tests), with ids
    // repeated within and across rounds.
    let bases: Vec<u64> = (0..800u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let mut items = planted(&bases, 3, 11);
    let replaced: Vec<(u64, u64)> = items.iter().step_by(7).map(|&(id, f)| (id, !f)).collect();
    items.extend(replaced);
    let mut one = SimHashIndex::new();
    let mut naive = Naive::default();
    for &(id, f) in &items {
        one.insert(id, SimHash64(f));
        naive.insert(id, f);
    }
    let mut batch = SimHashIndex::new();
    batch.insert(items[5].0, SimHash64(12345));
    batch.extend(items.iter().map(|&(id, f)| (id, SimHash64(f))));
    assert_eq!(batch.len(), naive.0.len());
    let probes: Vec<u64> = items.iter().map(|e| e.1).collect();
    check_queries(&batch, &naive, &probes).unwrap();
    check_queries(&one, &naive, &probes).unwrap();
    #[cfg(feature = "parallel")]
    {
        let mut par = SimHashIndex::new();
        par.extend_par(items.iter().map(|&(id, f)| (id, SimHash64(f))));
        check_queries(&par, &naive, &probes).unwrap();
    }
}

#[test]
fn merge_joins_shards_and_refuses_conflicts() {
    let items = planted(&[1, 2, 0xffff_0000_ffff_0000], 3, 5);
    let (left, right) = items.split_at(items.len() / 2);
    let mut a = SimHashIndex::new();
    let mut b = SimHashIndex::new();
    a.try_extend(left.iter().map(|&(id, f)| (id, SimHash64(f))))
        .unwrap();
    b.try_extend(right.iter().map(|&(id, f)| (id, SimHash64(f))))
        .unwrap();
    b.remove(right[0].0);
    a.merge(&b).unwrap();
    let mut naive = Naive::default();
    for &(id, f) in left.iter().chain(&right[1..]) {
        naive.insert(id, f);
    }
    let probes: Vec<u64> = items.iter().map(|e| e.1).collect();
    check_queries(&a, &naive, &probes).unwrap();

    // A duplicate id or another layout leaves the index as it was.
    let before = a.len();
    let err = a.merge(&b).unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)), "{err}");
    assert!(err.to_string().contains("SimHashIndex::merge: id "));
    let other = SimHashIndex::with_layout(SimHashLayout::blocks(5, 3).unwrap()).unwrap();
    let err = a.merge(&other).unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "config error: SimHashIndex::merge: cannot merge an index of 10 tables for max distance 3 \
         into one of 16 tables for max distance 3 (layouts differ)"
    );
    assert_eq!(a.len(), before);
    check_queries(&a, &naive, &probes).unwrap();
}

#[test]
fn try_extend_is_all_or_nothing() {
    let mut idx = SimHashIndex::with_max_distance(1).unwrap();
    idx.insert(1, SimHash64(1));
    let err = idx.try_extend([(2, SimHash64(2)), (3, SimHash64(3)), (2, SimHash64(4))]);
    assert_eq!(
        err.unwrap_err().to_string(),
        "invalid input: SimHashIndex::try_extend: id 2 occurs more than once in the batch"
    );
    assert_eq!(idx.len(), 1);
    assert!(idx.query(&SimHash64(2)).is_empty());
    assert_eq!(idx.query(&SimHash64(3)), [1]);
}

#[test]
fn a_full_index_reports_instead_of_growing() {
    // MAX_SLOTS is 2^16 in unit tests.
    let mut idx = SimHashIndex::with_max_distance(0).unwrap();
    idx.try_extend((0..MAX_SLOTS as u64).map(|i| (i, SimHash64(i))))
        .unwrap();
    let err = idx.try_insert(u64::MAX, SimHash64(7)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "invalid input: SimHashIndex is full: cannot add 1 new id(s) beyond {MAX_SLOTS} fingerprints"
        )
    );
    assert!(idx.try_extend([(u64::MAX, SimHash64(7))]).is_err());
    // Replacing an existing id still works, and so does a new id once one
    // is removed.
    idx.try_insert(5, SimHash64(1 << 40)).unwrap();
    assert_eq!(idx.query(&SimHash64(1 << 40)), [5]);
    idx.remove(6);
    idx.try_insert(u64::MAX, SimHash64(7)).unwrap();
    assert_eq!(idx.query(&SimHash64(7)), [7, u64::MAX]);
    assert_eq!(idx.len(), MAX_SLOTS);
}

#[test]
#[should_panic(expected = "SimHashIndex::insert: invalid input: SimHashIndex is full")]
fn insert_panics_when_full() {
    let mut idx = SimHashIndex::with_max_distance(0).unwrap();
    idx.extend((0..MAX_SLOTS as u64).map(|i| (i, SimHash64(i))));
    idx.insert(u64::MAX, SimHash64(0));
}

#[test]
fn accessors_errors_and_debug() {
    let mut idx = SimHashIndex::new();
    assert!(idx.is_empty());
    assert_eq!(idx.max_distance(), 3);
    idx.insert(9, SimHash64(0b1111));
    idx.insert(9, SimHash64(0b1111)); // the same pair again changes nothing
    assert_eq!(idx.len(), 1);
    assert_eq!(idx.ids().collect::<Vec<_>>(), [9]);
    assert_eq!(idx.query_within(&SimHash64(0), 3).unwrap(), []);
    assert_eq!(idx.query_within(&SimHash64(0b0111), 3).unwrap(), [(9, 1)]);
    let err = idx.query_within(&SimHash64(0), 4).unwrap_err();
    assert!(matches!(err, Error::InvalidInput(_)));
    assert_eq!(
        format!("{idx:?}"),
        "SimHashIndex { max_distance: 3, tables: 16, min_key_bits: 28, len: 1 }"
    );
    assert!(matches!(
        SimHashIndex::<SimHash64>::with_max_distance(8),
        Err(Error::Config(_))
    ));
    assert_eq!(idx.remove(9), Some(SimHash64(0b1111)));
    assert_eq!(idx.remove(9), None);
    assert!(idx.query(&SimHash64(0b1111)).is_empty());
    let used = idx.memory_usage();
    idx.compact();
    assert!(idx.memory_usage() <= used);
}
