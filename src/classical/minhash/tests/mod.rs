#[cfg(feature = "std")]
mod golden;

use super::*;
use proptest::prelude::*;

fn sig<const H: usize>(hashes: [u64; H]) -> MinHashSig<H> {
    MinHashSig {
        schema: SCHEMA_VERSION,
        _pad: [0; 6],
        hashes,
    }
}

#[test]
fn constants() {
    assert_eq!(SCHEMA_VERSION, 1);
    assert_eq!(DEFAULT_MAX_BUFFER_BYTES, 16_777_216);
}

#[test]
fn jaccard_edge_cases() {
    assert_eq!(jaccard(&sig([]), &sig([])), 0.0);
    assert_eq!(jaccard(&sig([7]), &sig([7])), 1.0);
    assert_eq!(jaccard(&sig([7]), &sig([8])), 0.0);
    let e = MinHashSig::<128>::empty();
    assert_eq!(jaccard(&e, &e), 1.0);
    // Schema and pad are not looked at.
    let mut odd = sig([1, 2, 3]);
    odd.schema = 9;
    odd._pad = [1; 6];
    assert_eq!(jaccard(&odd, &sig([1, 2, 4])), 2.0 / 3.0);
}

proptest! {
    #[test]
    fn jaccard_is_equal_count_over_h(
        a in proptest::array::uniform32(0u64..4),
        b in proptest::array::uniform32(0u64..4),
    ) {
        let want = a.iter().zip(&b).filter(|(x, y)| x == y).count() as f32 / 32.0;
        prop_assert_eq!(jaccard(&sig(a), &sig(b)), want);
        prop_assert_eq!(jaccard(&sig(a), &sig(b)), jaccard(&sig(b), &sig(a)));
    }

    #[test]
    fn jaccard_odd_width(
        a in proptest::array::uniform13(0u64..3),
        b in proptest::array::uniform13(0u64..3),
    ) {
        let want = a.iter().zip(&b).filter(|(x, y)| x == y).count() as f32 / 13.0;
        prop_assert_eq!(jaccard(&sig(a), &sig(b)), want);
    }
}
