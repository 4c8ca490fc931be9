use super::*;

fn sorted(t: &BandTable, key: u64) -> Vec<u32> {
    let mut v = t.get(key).to_vec();
    v.sort_unstable();
    v
}

#[test]
fn inline_spill_and_back() {
    let mut t = BandTable::default();
    assert!(t.get(7).is_empty());
    t.insert(7, 1);
    assert_eq!(t.get(7), &[1]);
    t.insert(7, 2);
    t.insert(7, 3);
    assert_eq!(sorted(&t, 7), [1, 2, 3]);
    assert!(!t.remove(7, 9));
    assert!(!t.remove(8, 1));
    assert!(t.remove(7, 1));
    assert_eq!(sorted(&t, 7), [2, 3]);
    assert!(t.remove(7, 3));
    assert_eq!(t.get(7), &[2]);
    assert_eq!(t.spill_free.len(), 1);
    // The freed spill vector is reused by the next shared bucket.
    t.insert(9, 4);
    t.insert(9, 5);
    assert_eq!(t.spill.len(), 1);
    assert!(t.spill_free.is_empty());
    assert!(!t.remove(7, 3));
    assert!(t.remove(7, 2));
    assert!(t.get(7).is_empty());
    assert_eq!(t.heads.len(), 1);
}
