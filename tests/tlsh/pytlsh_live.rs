//! Live TLSH parity with the reference C++ TLSH (PyPI py-tlsh 5.0.0):
//! `scripts/tlsh_parity.sh` (run by `scripts/test.sh`) installs py-tlsh in a
//! virtual environment, has it hash the shared corpora and the committed
//! `tests/data/tlsh-live-inputs.jsonl`, and points this test at its output
//! with `TXTFP_PYTLSH_REFERENCE`. Every digest of raw UTF-8 bytes and the
//! distance of every consecutive pair must be identical.
#![cfg(feature = "tlsh")]

use std::collections::HashMap;

use serde_json::Value;
use txtfp::{TlshFingerprint, TlshFingerprinter, tlsh_distance};

#[test]
fn digests_and_distances_equal_py_tlsh() {
    let Ok(path) = std::env::var("TXTFP_PYTLSH_REFERENCE") else {
        eprintln!(
            "SKIPPED: TXTFP_PYTLSH_REFERENCE is not set; run scripts/tlsh_parity.sh \
             (scripts/test.sh does) for the live py-tlsh comparison"
        );
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let fp = TlshFingerprinter::default();
    let mut ours: HashMap<String, TlshFingerprint> = HashMap::new();
    let (mut digests, mut refused, mut pairs) = (0, 0, 0);
    let mut errs = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let rec: Value = serde_json::from_str(line).unwrap();
        if let Some(doc) = rec["doc"].as_str() {
            let input = rec["text"].as_str().unwrap();
            let want = rec["hash"].as_str().unwrap();
            match (want, fp.sketch_bytes(input.as_bytes())) {
                ("TNULL", Err(e)) if e.to_string().contains("insufficient entropy") => refused += 1,
                (h, Ok(f)) if f.hex() == h => {
                    digests += 1;
                    ours.insert(doc.to_string(), f);
                }
                (h, got) => errs.push(format!("{doc}: py-tlsh {h}, ours {got:?}")),
            }
        } else {
            let (a, b) = (rec["a"].as_str().unwrap(), rec["b"].as_str().unwrap());
            let want = rec["diff"].as_i64().unwrap();
            let (Some(fa), Some(fb)) = (ours.get(a), ours.get(b)) else {
                continue; // a digest mismatch, already reported
            };
            let got = i64::from(tlsh_distance(fa, fb).unwrap());
            if got != want {
                errs.push(format!("diff({a}, {b}): py-tlsh {want}, ours {got}"));
            }
            pairs += 1;
        }
    }
    assert!(
        errs.is_empty(),
        "{} mismatches:\n{}",
        errs.len(),
        errs.join("\n")
    );
    assert!(digests >= 50, "only {digests} digests compared");
    assert!(pairs >= 49, "only {pairs} distances compared");
    eprintln!(
        "py-tlsh live parity: {digests} digests and {pairs} distances identical, \
         {refused} inputs refused by both"
    );
}
