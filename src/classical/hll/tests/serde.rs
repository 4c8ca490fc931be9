//! serde: round trips, and validation of what is deserialized.

use super::super::{HyperLogLog, HyperLogLogPlusPlus};
use super::splitmix;

#[test]
fn json_round_trip_both_representations() {
    for n in [0u64, 10, 5_000] {
        let mut h = HyperLogLogPlusPlus::new(10).unwrap();
        let mut c = HyperLogLog::new(10).unwrap();
        for i in 0..n {
            h.insert_hash(splitmix(i));
            c.insert_hash(splitmix(i));
        }
        let json = serde_json::to_string(&h).unwrap();
        let back: HyperLogLogPlusPlus = serde_json::from_str(&json).unwrap();
        assert_eq!(back, h);
        let json = serde_json::to_string(&c).unwrap();
        let back: HyperLogLog = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c);
        // The variant is checked.
        assert!(serde_json::from_str::<HyperLogLogPlusPlus>(&json).is_err());
    }
}

#[test]
fn damaged_or_oversized_json_is_rejected() {
    let mut h = HyperLogLog::new(4).unwrap();
    h.insert_str("x");
    let mut bytes = h.to_bytes();
    bytes[10] ^= 1;
    let json = serde_json::to_string(&bytes).unwrap();
    let err = serde_json::from_str::<HyperLogLog>(&json).unwrap_err();
    assert!(err.to_string().contains("checksum"), "{err}");
    let huge = format!("[{}0]", "0,".repeat(300_000));
    assert!(serde_json::from_str::<HyperLogLog>(&huge).is_err());
    assert!(serde_json::from_str::<HyperLogLog>("\"TXHL\"").is_err());
    assert!(serde_json::from_str::<HyperLogLog>("[300]").is_err());
}
