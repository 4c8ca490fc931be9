//! The byte format: goldens, and damaged input giving errors, never
//! panics.

use super::super::{HyperLogLog, HyperLogLogPlusPlus};
use super::splitmix;
use crate::Error;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Three items by hash at p = 4: register 0 gets rank 1 twice, register 15
/// rank 3, and a hash with no one bit after its index the maximum 61.
fn golden_hashes() -> [u64; 4] {
    [
        0x0800_0000_0000_0000,
        0x0fff_0000_0000_0000,
        0xf200_0000_0000_0000,
        0x7000_0000_0000_0000,
    ]
}

const GOLDEN_CLASSIC: &str = concat!(
    "5458484c",
    "0100",
    "01",
    "04",
    "00",
    // registers 0..16
    "010000000000003d00000000000000",
    "03",
    // XXH3_64 of the bytes before
    "a5de64fc050854e4",
);
const GOLDEN_PLUS_SPARSE: &str = concat!(
    "5458484c",
    "0100",
    "02",
    "04",
    "01",
    "04000000",
    // index << 6 | rank, little-endian, ascending
    "28000004",
    "2880ff07",
    "28000038",
    "28000079",
    "6cf1b49d9e7afcfc",
);

#[test]
fn goldens() {
    let mut c = HyperLogLog::new(4).unwrap();
    let mut p = HyperLogLogPlusPlus::new(4).unwrap();
    for h in golden_hashes() {
        c.insert_hash(h);
        p.insert_hash(h);
    }
    assert!(p.is_sparse());
    assert_eq!(hex(&c.to_bytes()), GOLDEN_CLASSIC);
    assert_eq!(hex(&p.to_bytes()), GOLDEN_PLUS_SPARSE);
    assert_eq!(&c.registers()[..], &p.registers()[..]);
}

/// Every single-byte change and every truncation or extension is an error
/// of the byte-format kinds.
fn assert_damage_detected(bytes: &[u8], parse: impl Fn(&[u8]) -> crate::Result<()>) {
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut d = bytes.to_vec();
            d[i] ^= flip;
            match parse(&d) {
                Err(Error::Corrupt(_)) | Err(Error::SchemaMismatch { .. }) => {}
                other => panic!("byte {i} ^ {flip:#x}: {other:?}"),
            }
        }
    }
    for len in 0..bytes.len() {
        assert!(
            matches!(parse(&bytes[..len]), Err(Error::Corrupt(_))),
            "truncated to {len}"
        );
    }
    let mut longer = bytes.to_vec();
    longer.push(0);
    assert!(matches!(parse(&longer), Err(Error::Corrupt(_))));
}

#[test]
fn damaged_bytes_are_errors() {
    let hs: Vec<u64> = (0..3_000).map(splitmix).collect();
    for n in [0usize, 3, 100, 3_000] {
        let mut c = HyperLogLog::new(6).unwrap();
        let mut p = HyperLogLogPlusPlus::new(8).unwrap();
        for &h in &hs[..n] {
            c.insert_hash(h);
            p.insert_hash(h);
        }
        assert_damage_detected(&c.to_bytes(), |b| HyperLogLog::from_bytes(b).map(drop));
        assert_damage_detected(&p.to_bytes(), |b| {
            HyperLogLogPlusPlus::from_bytes(b).map(drop)
        });
    }
}

/// Replace the body of `bytes` and recompute the checksum, to reach the
/// checks behind it.
fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
    let end = bytes.len() - 8;
    bytes.truncate(end);
    let sum = xxhash_rust::xxh3::xxh3_64(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    bytes
}

fn corrupt_message(r: crate::Result<impl core::fmt::Debug>) -> String {
    match r {
        Err(Error::Corrupt(m)) => m,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn structural_checks_behind_the_checksum() {
    let good = HyperLogLog::new(4).unwrap().to_bytes();
    // A register above 65 - p.
    let mut b = good.clone();
    b[9 + 3] = 62;
    let m = corrupt_message(HyperLogLog::from_bytes(&reseal(b)));
    assert!(m.contains("register 3 holds 62"), "{m}");
    // A precision out of range.
    let mut b = good.clone();
    b[7] = 19;
    assert!(corrupt_message(HyperLogLog::from_bytes(&reseal(b))).contains("precision 19"));
    // The other variant's tag, and sparse for the classic sketch.
    assert!(corrupt_message(HyperLogLogPlusPlus::from_bytes(&good)).contains("variant tag 1"));
    let mut b = good.clone();
    b[8] = 1;
    assert!(corrupt_message(HyperLogLog::from_bytes(&reseal(b))).contains("representation"));
    // Another format version.
    let mut b = good.clone();
    b[4] = 2;
    assert!(matches!(
        HyperLogLog::from_bytes(&b),
        Err(Error::SchemaMismatch {
            expected: 1,
            actual: 2
        })
    ));

    let mut p = HyperLogLogPlusPlus::new(8).unwrap();
    p.insert_hash(0x0100_0000_0000_0000);
    p.insert_hash(0x8000_0000_0000_0000);
    let good = p.to_bytes();
    assert_eq!(good.len(), 9 + 4 + 8 + 8);
    // Entries out of order.
    let mut b = good.clone();
    let (x, y) = (b[13..17].to_vec(), b[17..21].to_vec());
    b[13..17].copy_from_slice(&y);
    b[17..21].copy_from_slice(&x);
    assert!(corrupt_message(HyperLogLogPlusPlus::from_bytes(&reseal(b))).contains("out of order"));
    // A rank of zero.
    let mut b = good.clone();
    b[13] &= !63;
    assert!(corrupt_message(HyperLogLogPlusPlus::from_bytes(&reseal(b))).contains("out of range"));
    // A count above the sparse limit, or not matching the entries; a huge
    // count allocates nothing.
    for n in [65u32, 3, u32::MAX] {
        let mut b = good.clone();
        b[9..13].copy_from_slice(&n.to_le_bytes());
        let m = corrupt_message(HyperLogLogPlusPlus::from_bytes(&reseal(b)));
        assert!(m.contains("sparse entries"), "{n}: {m}");
    }
}
