//! Tests of `scheme.rs`: what each scheme fixes, and that one generic
//! signature type serves both without mixing them.

use alloc::string::ToString;

use super::*;
use crate::{MinHashSig, classical::minhash::FastMinHashSig};

#[test]
fn each_scheme_names_its_tag_and_types() {
    assert_eq!(Classic::SCHEMA, super::super::SCHEMA_VERSION);
    assert_eq!(Fast::SCHEMA, super::super::fast::FAST_SCHEMA);
    assert_eq!(
        (Classic::SIG_NAME, Fast::SIG_NAME),
        ("MinHashSig", "FastMinHashSig")
    );
    assert_eq!(
        (
            <Classic as sealed::Sealed>::INDEX_NAME,
            <Fast as sealed::Sealed>::INDEX_NAME
        ),
        ("LshIndex", "FastLshIndex")
    );
    assert_eq!(<Classic as sealed::Sealed>::INDEX_MAGICS, None);
    assert_eq!(
        <Fast as sealed::Sealed>::INDEX_MAGICS,
        Some(FAST_INDEX_MAGICS)
    );
}

#[test]
fn the_scheme_costs_no_bytes() {
    fn check<S: Scheme, const H: usize>() {
        assert_eq!(core::mem::size_of::<MinHashSig<H, S>>(), 8 + 8 * H);
        assert_eq!(core::mem::align_of::<MinHashSig<H, S>>(), 8);
        assert_eq!(core::mem::offset_of!(MinHashSig<H, S>, hashes), 8);
    }
    check::<Classic, 0>();
    check::<Classic, 3>();
    check::<Fast, 0>();
    check::<Fast, 128>();
}

#[test]
fn same_slots_differ_only_in_the_tag() {
    let hashes = [1, 2, 3, u64::MAX];
    let a = MinHashSig::<4> {
        hashes,
        ..MinHashSig::empty()
    };
    let b = FastMinHashSig::<4> {
        hashes,
        ..FastMinHashSig::empty()
    };
    assert_eq!(a.to_le_bytes()[8..], b.to_le_bytes()[8..]);
    assert_eq!(a.to_le_bytes()[..2], [1, 0]);
    assert_eq!(b.to_le_bytes()[..2], [1, 0x46]);
    assert_eq!(a.jaccard(&a), b.jaccard(&b));
    assert!(MinHashSig::<4>::from_bytes(&b.to_le_bytes()).is_err());
    assert!(FastMinHashSig::<4>::from_bytes(&a.to_le_bytes()).is_err());
    assert_eq!(
        alloc::format!("{b:?}"),
        "FastMinHashSig { schema: 17921, _pad: [0, 0, 0, 0, 0, 0], hashes: [1, 2, 3, 18446744073709551615] }"
    );
    assert!(
        alloc::format!("{a:?}").starts_with("MinHashSig { schema: 1, _pad: [0, 0, 0, 0, 0, 0]")
    );
    assert!(b.to_string().starts_with("FastMinHashSig<4>["));
}
