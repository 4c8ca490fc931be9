use super::*;
use proptest::prelude::*;

fn naive(entries: &[(u64, u32)], key: u64) -> Vec<u32> {
    let mut v: Vec<u32> = entries.iter().filter(|e| e.0 == key).map(|e| e.1).collect();
    v.sort_unstable();
    v
}

fn run_of(entries: &[(u64, u32)]) -> Run {
    Run::from_sorted(entries.iter().map(|&(k, s)| Entry::new(k, s)).collect())
}

proptest! {
    #[test]
    fn lookup_equals_scan(
        mut entries in proptest::collection::vec((any::<u64>(), 0u32..1000), 0..600),
        probes in proptest::collection::vec(any::<u64>(), 0..20),
        dup_prefix in any::<bool>(),
    ) {
        if dup_prefix {
            // Crowd one directory bucket and repeat keys.
            for (i, e) in entries.iter_mut().enumerate() {
                e.0 = (e.0 & 0xff) | ((i as u64 % 3) << 8);
            }
        }
        entries.sort_unstable();
        let run = run_of(&entries);
        prop_assert!(run.as_ref().is_valid(1000));
        let keys: Vec<u64> = entries.iter().map(|e| e.0).chain(probes).collect();
        for key in keys {
            let mut got: Vec<u32> = run.as_ref().get(key).iter().map(Entry::slot).collect();
            got.sort_unstable();
            prop_assert_eq!(got, naive(&entries, key));
        }
    }

    #[test]
    fn merge_equals_sorted_union(
        mut a in proptest::collection::vec((any::<u64>(), 0u32..100), 0..300),
        mut b in proptest::collection::vec((any::<u64>(), 0u32..100), 0..300),
    ) {
        a.sort_unstable();
        b.sort_unstable();
        let added: Vec<Entry> = b.iter().map(|&(k, s)| Entry::new(k, s)).collect();
        let run = Run::merged(run_of(&a).as_ref(), &added, |s| s % 3 != 0);
        let mut want: Vec<(u64, u32)> = a.iter().chain(&b).filter(|e| e.1 % 3 != 0).copied().collect();
        want.sort_unstable();
        let mut got: Vec<(u64, u32)> = run.as_ref().iter().collect();
        got.sort_unstable();
        prop_assert_eq!(got, want);
        prop_assert!(run.as_ref().is_valid(101));
    }
}

#[test]
fn corrupt_directory_reads_as_empty() {
    let entries = [Entry::new(1, 0), Entry::new(2, 1), Entry::new(3, 2)];
    let dir = [0u32, 99];
    let r = RunRef {
        entries: &entries,
        dir: &dir,
        bits: 0,
    };
    assert!(r.get(2).is_empty());
    assert!(!r.is_valid(3));
    let bad_bits = RunRef { bits: 5, ..r };
    assert!(bad_bits.get(2).is_empty());
    assert!(!bad_bits.is_valid(3));
}
