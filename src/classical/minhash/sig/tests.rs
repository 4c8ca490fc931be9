use super::*;
use alloc::format;
use alloc::string::ToString;
use alloc::vec;
use proptest::prelude::*;

#[test]
fn layout_has_no_padding() {
    fn check<const H: usize>() {
        assert_eq!(core::mem::size_of::<MinHashSig<H>>(), 8 + 8 * H, "H={H}");
        assert_eq!(core::mem::align_of::<MinHashSig<H>>(), 8, "H={H}");
        assert_eq!(core::mem::offset_of!(MinHashSig<H>, hashes), 8, "H={H}");
    }
    check::<0>();
    check::<1>();
    check::<3>();
    check::<128>();
    assert_eq!(core::mem::size_of::<MinHashSig<128>>(), 1032);
}

#[test]
fn empty_and_slot_count() {
    let e = MinHashSig::<8>::empty();
    assert_eq!(e.schema, 1);
    assert_eq!(e._pad, [0; 6]);
    assert_eq!(e.hashes, [u64::MAX; 8]);
    assert_eq!(e.slot_count(), 8);
    assert_eq!(MinHashSig::<0>::empty().slot_count(), 0);
}

#[test]
fn bytes_layout_matches_spec() {
    // Spec Appendix A: MinHash<8> of `hello`, k=3 shingles, xxh3.
    let sig = MinHashSig::<8> {
        schema: 1,
        _pad: [0; 6],
        hashes: [
            0x9c165db7b53c9009,
            0xbdaaf475f6548783,
            0xdf3f8b34376c7efd,
            0x00d421f278847677,
            0x2268b8b0b99c6df1,
            0x43fd4f6efab4656b,
            0x6591e62d3bcc5ce5,
            0x87267ceb7ce4545f,
        ],
    };
    let le = sig.to_le_bytes();
    assert_eq!(le.len(), 72);
    assert_eq!(
        le[..16],
        [
            1, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x90, 0x3c, 0xb5, 0xb7, 0x5d, 0x16, 0x9c
        ]
    );
    assert_eq!(le[64..], [0x5f, 0x54, 0xe4, 0x7c, 0xeb, 0x7c, 0x26, 0x87]);
    #[cfg(target_endian = "little")]
    assert_eq!(sig.as_bytes(), &le[..]);
    assert_eq!(MinHashSig::<8>::from_bytes(&le).unwrap(), sig);
    assert_eq!(
        sig.to_string(),
        "MinHashSig<8>[9c165db7b53c9009, bdaaf475f6548783, df3f8b34376c7efd, \
             00d421f278847677, ..+4 more]"
    );
}

#[test]
fn display_small_widths() {
    assert_eq!(MinHashSig::<0>::empty().to_string(), "MinHashSig<0>[]");
    let s = MinHashSig::<1> {
        schema: 1,
        _pad: [0; 6],
        hashes: [0xab],
    };
    assert_eq!(s.to_string(), "MinHashSig<1>[00000000000000ab]");
    let s = MinHashSig::<4>::empty();
    assert_eq!(
        s.to_string(),
        "MinHashSig<4>[ffffffffffffffff, ffffffffffffffff, ffffffffffffffff, ffffffffffffffff]"
    );
    let s = MinHashSig::<5>::empty();
    assert!(s.to_string().ends_with("ffffffffffffffff, ..+1 more]"));
}

#[test]
fn from_bytes_rejects_wrong_length() {
    for len in [0usize, 8, 23, 25, 1032] {
        let err = MinHashSig::<2>::from_bytes(&vec![0u8; len]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("invalid input: MinHashSig<2> is 24 bytes, got {len}")
        );
    }
    let err = MinHashSig::<128>::try_from(&[1u8, 0][..]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: MinHashSig<128> is 1032 bytes, got 2"
    );
}

#[test]
fn from_bytes_rejects_other_schema() {
    let mut b = MinHashSig::<2>::empty().to_le_bytes();
    b[0] = 2;
    match MinHashSig::<2>::from_bytes(&b) {
        Err(Error::SchemaMismatch {
            expected: 1,
            actual: 2,
        }) => {}
        other => panic!("expected SchemaMismatch, got {other:?}"),
    }
    // The schema word is little-endian: 0x0100 is 256, not 1.
    b[0] = 0;
    b[1] = 1;
    let err = MinHashSig::<2>::from_bytes(&b).unwrap_err();
    assert_eq!(
        err.to_string(),
        "schema version mismatch: expected 1, got 256"
    );
}

#[test]
fn from_bytes_rejects_nonzero_pad() {
    for i in 2..8 {
        let mut b = MinHashSig::<3>::empty().to_le_bytes();
        b[i] = 0x5a;
        let err = MinHashSig::<3>::from_bytes(&b).unwrap_err();
        let mut want = [0u8; 6];
        want[i - 2] = 0x5a;
        assert!(matches!(err, Error::InvalidInput(_)), "{err:?}");
        assert_eq!(
            err.to_string(),
            format!("invalid input: MinHashSig<3> pad bytes 2..8 must be zero, got {want:02x?}")
        );
    }
}

#[test]
fn from_bytes_accepts_every_alignment() {
    let sig = MinHashSig::<5> {
        schema: 1,
        _pad: [0; 6],
        hashes: [1, u64::MAX, 0x0123_4567_89ab_cdef, 0, 42],
    };
    let le = sig.to_le_bytes();
    for shift in 0..8 {
        let mut buf = vec![0xeeu8; shift];
        buf.extend_from_slice(&le);
        buf.push(0xee);
        let slice = &buf[shift..shift + le.len()];
        assert_eq!(
            MinHashSig::<5>::from_bytes(slice).unwrap(),
            sig,
            "shift {shift}"
        );
        assert_eq!(
            MinHashSig::<5>::try_from(slice).unwrap(),
            sig,
            "shift {shift}"
        );
    }
}

#[test]
fn pod_cast_slice_round_trips() {
    let sigs = [
        MinHashSig::<3>::empty(),
        MinHashSig::<3> {
            schema: 1,
            _pad: [0; 6],
            hashes: [1, 2, 3],
        },
    ];
    let bytes: &[u8] = bytemuck::cast_slice(&sigs);
    assert_eq!(bytes.len(), 64);
    let back: &[MinHashSig<3>] = bytemuck::cast_slice(bytes);
    assert_eq!(back, &sigs[..]);
    let z: MinHashSig<3> = bytemuck::Zeroable::zeroed();
    assert_eq!(z.hashes, [0; 3]);
}

proptest! {
    #[test]
    fn bytes_round_trip(hashes in proptest::array::uniform16(any::<u64>())) {
        let sig = MinHashSig::<16> { schema: 1, _pad: [0; 6], hashes };
        let le = sig.to_le_bytes();
        prop_assert_eq!(MinHashSig::<16>::from_bytes(&le).unwrap(), sig);
        #[cfg(target_endian = "little")]
        prop_assert_eq!(MinHashSig::<16>::from_bytes(sig.as_bytes()).unwrap(), sig);
    }

    #[test]
    fn from_bytes_never_panics(
        bytes in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..80),
            // Right length, header mostly valid: reaches every check.
            (proptest::collection::vec(any::<u8>(), 40), 0u8..4, 0u8..3).prop_map(
                |(mut b, schema, pad)| {
                    b[0] = schema;
                    b[1] = 0;
                    b[2..8].fill(0);
                    b[2 + usize::from(pad)] = pad / 2;
                    b
                }
            ),
        ]
    ) {
        // Any outcome is fine as long as it is a value, not a panic; a
        // success must re-encode to the same bytes.
        if let Ok(sig) = MinHashSig::<4>::from_bytes(&bytes) {
            prop_assert_eq!(&sig.to_le_bytes(), &bytes);
        }
        if bytes.len() > 1 {
            let _ = MinHashSig::<4>::from_bytes(&bytes[1..]);
        }
    }
}
