use super::*;
use alloc::vec::Vec;

/// The plain byte-at-a-time formulation of the reference's third branch
/// (unaligned keys), with its explicit fall-through switch.
fn bytewise(key: &[u8], pc: u32, pb: u32) -> (u32, u32) {
    let (mut a, mut b, mut c) = init(key.len(), pc, pb);
    let mut k = key;
    while k.len() > 12 {
        for (i, &x) in k[..12].iter().enumerate() {
            let v = u32::from(x) << (8 * (i % 4));
            match i / 4 {
                0 => a = a.wrapping_add(v),
                1 => b = b.wrapping_add(v),
                _ => c = c.wrapping_add(v),
            }
        }
        mix(&mut a, &mut b, &mut c);
        k = &k[12..];
    }
    if k.is_empty() {
        return (c, b);
    }
    for (i, &x) in k.iter().enumerate() {
        let v = u32::from(x) << (8 * (i % 4));
        match i / 4 {
            0 => a = a.wrapping_add(v),
            1 => b = b.wrapping_add(v),
            _ => c = c.wrapping_add(v),
        }
    }
    finish(&mut a, &mut b, &mut c);
    (c, b)
}

#[test]
fn driver5_vectors() {
    // The values lookup3.c's driver5() documents in its comments.
    assert_eq!(hashlittle2(b"", 0, 0), (0xdeadbeef, 0xdeadbeef));
    assert_eq!(hashlittle2(b"", 0, 0xdeadbeef), (0xbd5b7dde, 0xdeadbeef));
    assert_eq!(
        hashlittle2(b"", 0xdeadbeef, 0xdeadbeef),
        (0x9c093ccd, 0xbd5b7dde)
    );
    let k = b"Four score and seven years ago";
    assert_eq!(hashlittle2(k, 0, 0), (0x17770551, 0xce7226e6));
    assert_eq!(hashlittle2(k, 0, 1), (0xe3607cae, 0xbd371de4));
    assert_eq!(hashlittle2(k, 1, 0), (0xcd628161, 0x6cbea4b3));
}

#[test]
fn every_tail_length_matches_the_bytewise_form() {
    let data: Vec<u8> = (0..100u32).map(|i| (i * 37 + 11) as u8).collect();
    for n in 0..=data.len() {
        for (pc, pb) in [(0, 0), (1, 0), (0, 1), (0xdead_beef, 0x0123_4567)] {
            assert_eq!(
                hashlittle2(&data[..n], pc, pb),
                bytewise(&data[..n], pc, pb),
                "length {n}"
            );
        }
    }
}

proptest::proptest! {
    #[test]
    fn matches_bytewise(key in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80),
                        pc in proptest::prelude::any::<u32>(),
                        pb in proptest::prelude::any::<u32>()) {
        proptest::prop_assert_eq!(hashlittle2(&key, pc, pb), bytewise(&key, pc, pb));
    }
}
