//! Tests of the LSH Forest: the candidate stage and the ranking against a
//! plain model, recall on generated near-duplicates, the byte format.

use alloc::string::String;
use alloc::vec::Vec;
use alloc::{format, vec};

use proptest::prelude::*;

use super::{LshForest, LshForestBuilder};
use crate::classical::minhash::{Classic, Fast, FastMinHashSig};
use crate::{Canonicalizer, Error, Fingerprinter, MinHashFingerprinter, MinHashSig, WordTokenizer};

fn sig<const H: usize>(hashes: [u64; H]) -> MinHashSig<H> {
    MinHashSig {
        hashes,
        ..MinHashSig::empty()
    }
}

/// The plain model: every live document's deepest prefix match over the
/// bands, the deepest depth with enough documents, then a full sort.
struct Model<const H: usize> {
    docs: Vec<(u64, [u64; H])>,
}

impl<const H: usize> Model<H> {
    fn insert(&mut self, id: u64, h: [u64; H]) {
        self.docs.retain(|d| d.0 != id);
        self.docs.push((id, h));
    }

    fn remove(&mut self, id: u64) -> bool {
        let before = self.docs.len();
        self.docs.retain(|d| d.0 != id);
        before != self.docs.len()
    }

    fn depth(q: &[u64; H], h: &[u64; H], rows: usize) -> usize {
        (0..H / rows)
            .map(|t| {
                let (a, b) = (&q[t * rows..(t + 1) * rows], &h[t * rows..(t + 1) * rows]);
                a.iter().zip(b).take_while(|(x, y)| x == y).count()
            })
            .max()
            .unwrap()
    }

    fn candidates(&self, q: &[u64; H], k: usize, rows: usize, per: usize) -> Vec<u64> {
        let depths: Vec<(u64, usize)> = self
            .docs
            .iter()
            .map(|(id, h)| (*id, Self::depth(q, h, rows)))
            .collect();
        let at = |d: usize| depths.iter().filter(|x| x.1 >= d).count();
        let d = (1..=rows).rev().find(|&d| at(d) >= k * per).unwrap_or(1);
        let mut ids: Vec<u64> = depths.iter().filter(|x| x.1 >= d).map(|x| x.0).collect();
        ids.sort_unstable();
        ids
    }

    fn rank(&self, q: &[u64; H], ids: &[u64], k: usize) -> Vec<(u64, f64)> {
        let mut scored: Vec<(u64, usize)> = self
            .docs
            .iter()
            .filter(|d| ids.contains(&d.0))
            .map(|(id, h)| (*id, q.iter().zip(h).filter(|(a, b)| a == b).count()))
            .collect();
        scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(k);
        scored
            .into_iter()
            .map(|(id, eq)| (id, eq as f64 / H as f64))
            .collect()
    }
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u64, [u64; 12]),
    Remove(u64),
    Index,
    Query([u64; 12], usize),
}

fn op() -> impl Strategy<Value = Op> {
    // Few slot values and ids, so prefixes collide and ids repeat.
    let hashes = prop::array::uniform12(0u64..3);
    prop_oneof![
        6 => (0u64..24, hashes.clone()).prop_map(|(i, h)| Op::Insert(i, h)),
        1 => (0u64..24).prop_map(Op::Remove),
        1 => Just(Op::Index),
        3 => (hashes, 1usize..7).prop_map(|(h, k)| Op::Query(h, k)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Candidates equal the model's prefix matching; the ranking equals a
    /// full sort of the candidates; the exact scan equals a full sort of
    /// everything; through inserts, replacements, removals and indexing.
    #[test]
    fn forest_matches_the_model(
        trees in prop::sample::select(vec![1usize, 2, 3, 4, 6, 12]),
        per in 1usize..4,
        ops in prop::collection::vec(op(), 1..80),
    ) {
        let mut forest: LshForest<12> = LshForestBuilder::new(12, trees)
            .candidates_per_result(per)
            .try_build()
            .unwrap();
        let rows = 12 / trees;
        let mut model = Model::<12> { docs: Vec::new() };
        for op in ops {
            match op {
                Op::Insert(id, h) => {
                    forest.insert(id, &sig(h)).unwrap();
                    model.insert(id, h);
                }
                Op::Remove(id) => prop_assert_eq!(forest.remove(id), model.remove(id)),
                Op::Index => forest.index(),
                Op::Query(q, k) => {
                    let want = model.candidates(&q, k, rows, per);
                    prop_assert_eq!(forest.candidates(&sig(q), k).unwrap(), want.clone());
                    prop_assert_eq!(forest.query(&sig(q), k).unwrap(), model.rank(&q, &want, k));
                    let all: Vec<u64> = model.docs.iter().map(|d| d.0).collect();
                    prop_assert_eq!(forest.query_exact(&sig(q), k).unwrap(), model.rank(&q, &all, k));
                }
            }
            prop_assert_eq!(forest.len(), model.docs.len());
        }
        // A save/load round trip keeps every answer.
        let back = LshForest::<12>::from_bytes(&forest.to_bytes()).unwrap();
        prop_assert_eq!(back.len(), forest.len());
        for (_, h) in &model.docs {
            prop_assert_eq!(back.query(&sig(*h), 3).unwrap(), forest.query(&sig(*h), 3).unwrap());
        }
        // A batch build of the same contents answers as the model does.
        let mut batch: LshForest<12> = LshForestBuilder::new(12, trees)
            .candidates_per_result(per)
            .try_build()
            .unwrap();
        batch.insert_all(model.docs.iter().map(|&(id, h)| (id, sig(h)))).unwrap();
        prop_assert_eq!(batch.pending(), 0);
        for (_, h) in &model.docs {
            let want = model.candidates(h, 3, rows, per);
            prop_assert_eq!(batch.candidates(&sig(*h), 3).unwrap(), want.clone());
            prop_assert_eq!(batch.query(&sig(*h), 3).unwrap(), model.rank(h, &want, 3));
        }
    }
}

#[test]
fn pending_inserts_are_sorted_in_by_themselves() {
    let mut forest = LshForest::<4>::new(2).unwrap();
    for i in 0..3000u64 {
        forest.insert(i, &sig([i % 7, i % 11, i % 13, i])).unwrap();
    }
    // 1024 pending over the floor triggers a sort; then half the sorted.
    assert!(forest.pending() < 3000 && forest.pending() > 0);
    let before = forest.query(&sig([3, 3, 3, 3]), 5).unwrap();
    forest.index();
    assert_eq!(forest.pending(), 0);
    assert_eq!(forest.query(&sig([3, 3, 3, 3]), 5).unwrap(), before);
    assert_eq!(before[0], (3, 1.0));
}

#[test]
fn bad_parameters_and_inputs_are_typed_errors() {
    let cfg = |r: crate::Result<LshForest<128>>| match r {
        Err(Error::Config(m)) => m,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        cfg(LshForest::new(0)),
        "trees (0) and num_perm (128) must be > 0"
    );
    assert_eq!(
        cfg(LshForest::new(3)),
        "trees (3) must divide num_perm (128)"
    );
    assert_eq!(
        cfg(LshForest::new(256)),
        "trees (256) must divide num_perm (128)"
    );
    assert_eq!(
        cfg(LshForestBuilder::new(256, 8).try_build()),
        "num_perm (256) must equal the signature's slot count H = 128"
    );
    assert!(
        cfg(LshForestBuilder::new(128, 8)
            .candidates_per_result(0)
            .try_build())
        .contains("got 0")
    );
    assert!(LshForest::<128>::new(128).is_ok()); // one slot per tree

    let mut forest = LshForest::<4>::new(2).unwrap();
    forest.insert(1, &sig([1, 2, 3, 4])).unwrap();
    for r in [
        forest.query(&sig([1, 2, 3, 4]), 0),
        forest.query_exact(&sig([1, 2, 3, 4]), 0),
    ] {
        assert!(matches!(r, Err(Error::InvalidInput(m)) if m == "k must be > 0"));
    }
    assert!(forest.candidates(&sig([1, 2, 3, 4]), 0).is_err());
    let mut foreign = sig([1, 2, 3, 4]);
    foreign.schema = crate::classical::minhash::FAST_SCHEMA;
    assert!(matches!(
        forest.query(&foreign, 1),
        Err(Error::InvalidInput(_))
    ));
    assert!(matches!(
        forest.insert(2, &foreign),
        Err(Error::InvalidInput(_))
    ));
    assert_eq!(forest.len(), 1);
    // An empty forest answers nothing, not an error.
    assert!(
        LshForest::<4>::new(2)
            .unwrap()
            .query(&sig([1, 2, 3, 4]), 3)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn both_schemes_and_their_bytes_stay_apart() {
    let mut fast = LshForest::<4, Fast>::new(2).unwrap();
    let s = FastMinHashSig::<4> {
        hashes: [1, 2, 3, 4],
        ..FastMinHashSig::empty()
    };
    fast.insert(9, &s).unwrap();
    assert_eq!(fast.query(&s, 1).unwrap(), [(9, 1.0)]);
    let bytes = fast.to_bytes();
    assert_eq!(LshForest::<4, Fast>::from_bytes(&bytes).unwrap().len(), 1);
    assert!(matches!(
        LshForest::<4, Classic>::from_bytes(&bytes),
        Err(Error::SchemaMismatch {
            expected: 1,
            actual: 0x4601
        })
    ));
    assert!(matches!(
        LshForest::<8, Fast>::from_bytes(&bytes),
        Err(Error::Config(_))
    ));
}

/// One document, `H = 4`, two trees, the default factor: the bytes as
/// ARCHITECTURE.md lays them out.
const GOLDEN: &str = concat!(
    "54585446504c4600", // magic "TXTFPLF\0"
    "01000000",         // version 1
    "0100",
    "0000", // schema 1, zero
    "04000000",
    "02000000",
    "02000000",
    "00000000",         // H, l, factor, zero
    "0100000000000000", // n = 1
    "0700000000000000", // id 7
    "0100000000000000",
    "0200000000000000",
    "0300000000000000",
    "0400000000000000",
);

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn bytes_golden_round_trip_and_damage() {
    let mut forest = LshForest::<4>::new(2).unwrap();
    forest.insert(7, &sig([1, 2, 3, 4])).unwrap();
    forest.insert(8, &sig([5, 6, 7, 8])).unwrap();
    assert!(forest.remove(8)); // removed documents are not written
    let bytes = forest.to_bytes();
    let body = bytes.len() - 8;
    assert_eq!(hex(&bytes[..body]), GOLDEN);
    assert_eq!(
        bytes[body..],
        crate::classical::xxh3_64(&bytes[..body]).to_le_bytes()
    );
    let back = LshForest::<4>::from_bytes(&bytes).unwrap();
    assert_eq!(back.to_bytes(), bytes);
    assert_eq!(back.get(7), forest.get(7));

    for cut in 0..bytes.len() {
        assert!(
            matches!(
                LshForest::<4>::from_bytes(&bytes[..cut]),
                Err(Error::Corrupt(_))
            ),
            "truncated to {cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        LshForest::<4>::from_bytes(&longer),
        Err(Error::Corrupt(_))
    ));
    for at in 0..bytes.len() {
        for bit in 0..8 {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1 << bit;
            match LshForest::<4>::from_bytes(&damaged) {
                Err(Error::Corrupt(_)) => {}
                Err(Error::SchemaMismatch { .. }) if (8..12).contains(&at) => {}
                other => panic!("byte {at} bit {bit}: {other:?}"),
            }
        }
    }
}

#[test]
fn hostile_counts_allocate_nothing() {
    // A valid checksum over a header that claims 2^60 documents.
    let mut bytes = hex_to_bytes(&GOLDEN[..80]);
    bytes[32..40].copy_from_slice(&(1u64 << 60).to_le_bytes());
    let sum = crate::classical::xxh3_64(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    assert!(matches!(
        LshForest::<4>::from_bytes(&bytes),
        Err(Error::Corrupt(_))
    ));
    // A repeated id, checksummed.
    let mut forest = LshForest::<4>::new(2).unwrap();
    forest.insert(7, &sig([1, 2, 3, 4])).unwrap();
    forest.insert(8, &sig([1, 2, 3, 4])).unwrap();
    let mut bytes = forest.to_bytes();
    let n = bytes.len() - 8;
    bytes.truncate(n);
    bytes[40 + 40..40 + 48].copy_from_slice(&7u64.to_le_bytes());
    let sum = crate::classical::xxh3_64(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    assert!(
        matches!(LshForest::<4>::from_bytes(&bytes), Err(Error::Corrupt(m)) if m.contains("twice"))
    );
}

fn hex_to_bytes(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[cfg(feature = "serde")]
#[test]
fn serde_round_trip_checks_the_bytes() {
    let mut forest = LshForest::<4>::new(2).unwrap();
    forest.insert(7, &sig([1, 2, 3, 4])).unwrap();
    let json = serde_json::to_string(&forest).unwrap();
    let back: LshForest<4> = serde_json::from_str(&json).unwrap();
    assert_eq!(back.to_bytes(), forest.to_bytes());
    let damaged = json.replacen("[84,", "[85,", 1);
    assert!(serde_json::from_str::<LshForest<4>>(&damaged).is_err());
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Recall@10 against exact Jaccard on generated documents: 60 families of
/// 8 variants each (a base of 60-100 words, each variant replacing 0-40 %
/// of them), plus 200 unrelated documents, over a shared vocabulary.
#[test]
fn recall_at_10_on_generated_near_duplicates() {
    let mut rng = Rng(0x5EED_F0E5);
    let mut docs: Vec<Vec<u64>> = Vec::new();
    for _ in 0..60 {
        let len = 60 + rng.below(41) as usize;
        let base: Vec<u64> = (0..len).map(|_| rng.below(20_000)).collect();
        for _ in 0..8 {
            let share = rng.below(41);
            let doc = base
                .iter()
                .map(|&w| {
                    if rng.below(100) < share {
                        rng.below(20_000)
                    } else {
                        w
                    }
                })
                .collect();
            docs.push(doc);
        }
    }
    for _ in 0..200 {
        docs.push((0..80).map(|_| rng.below(20_000)).collect());
    }
    let fp = MinHashFingerprinter::<_, 128>::new(Canonicalizer::default(), WordTokenizer);
    let sets: Vec<Vec<u64>> = docs
        .iter()
        .map(|d| {
            let mut s = d.clone();
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect();
    let mut forest = LshForest::<128>::new(8).unwrap();
    let mut sigs = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let text: Vec<String> = d.iter().map(|w| format!("w{w}")).collect();
        let s = fp.fingerprint(&text.join(" ")).unwrap();
        forest.insert(i as u64, &s).unwrap();
        sigs.push(s);
    }
    forest.index();
    let exact = |a: &[u64], b: &[u64]| {
        let inter = a.iter().filter(|x| b.binary_search(x).is_ok()).count();
        inter as f64 / (a.len() + b.len() - inter) as f64
    };
    let (mut hits, mut wanted) = (0usize, 0usize);
    let (mut near_hits, mut near_wanted) = (0usize, 0usize);
    for q in (0..docs.len()).step_by(3) {
        let mut truth: Vec<f64> = (0..docs.len())
            .filter(|&j| j != q)
            .map(|j| exact(&sets[q], &sets[j]))
            .collect();
        truth.sort_by(|a, b| b.total_cmp(a));
        let positive = truth.iter().filter(|&&j| j > 0.0).count().min(10);
        if positive == 0 {
            continue;
        }
        let cutoff = truth[positive - 1];
        let got: Vec<u64> = forest
            .query(&sigs[q], 11)
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .filter(|&id| id != q as u64)
            .take(10)
            .collect();
        let found = got
            .iter()
            .filter(|&&id| {
                let j = exact(&sets[q], &sets[id as usize]);
                j > 0.0 && j >= cutoff
            })
            .count();
        hits += found.min(positive);
        wanted += positive;
        // The near duplicates among the true top 10 (Jaccard >= 0.3).
        near_wanted += truth.iter().take(10).filter(|&&j| j >= 0.3).count();
        near_hits += got
            .iter()
            .filter(|&&id| exact(&sets[q], &sets[id as usize]) >= 0.3)
            .count()
            .min(truth.iter().take(10).filter(|&&j| j >= 0.3).count());
    }
    let recall = hits as f64 / wanted as f64;
    let near = near_hits as f64 / near_wanted as f64;
    // Measured: 0.536 overall. The top 10 of a family member holds its 7
    // siblings and 3 documents sharing a word or two with it, which no
    // 128-slot estimate ranks reliably.
    assert!(recall >= 0.5, "recall@10 = {recall:.3} over {wanted}");
    assert!(
        near >= 0.98,
        "near-duplicate recall@10 = {near:.3} over {near_wanted}"
    );
}
