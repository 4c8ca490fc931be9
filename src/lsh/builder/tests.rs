use super::*;
use alloc::string::ToString;
use alloc::vec::Vec;

/// §8.2 table and the H = 16, 32, 100 rows of the vectors file, verbatim.
const SPEC_TABLE: &str = "\
H=16: 0.05:(16,1) 0.1:(16,1) 0.2:(8,2) 0.3:(8,2) 0.4:(8,2) 0.5:(4,4) 0.6:(4,4) 0.7:(4,4) 0.75:(2,8) 0.8:(2,8) 0.85:(2,8) 0.9:(1,16) 0.95:(1,16) 0.99:(1,16)
H=32: 0.05:(32,1) 0.1:(32,1) 0.2:(16,2) 0.3:(16,2) 0.4:(8,4) 0.5:(8,4) 0.6:(8,4) 0.7:(4,8) 0.75:(4,8) 0.8:(4,8) 0.85:(2,16) 0.9:(2,16) 0.95:(1,32) 0.99:(1,32)
H=64: 0.05:(64,1) 0.1:(32,2) 0.2:(32,2) 0.3:(32,2) 0.4:(16,4) 0.5:(16,4) 0.6:(8,8) 0.7:(8,8) 0.75:(8,8) 0.8:(4,16) 0.85:(4,16) 0.9:(4,16) 0.95:(2,32) 0.99:(1,64)
H=100: 0.05:(100,1) 0.1:(50,2) 0.2:(50,2) 0.3:(25,4) 0.4:(25,4) 0.5:(20,5) 0.6:(20,5) 0.7:(10,10) 0.75:(10,10) 0.8:(10,10) 0.85:(5,20) 0.9:(5,20) 0.95:(2,50) 0.99:(1,100)
H=128: 0.05:(128,1) 0.1:(64,2) 0.2:(64,2) 0.3:(32,4) 0.4:(32,4) 0.5:(32,4) 0.6:(16,8) 0.7:(16,8) 0.75:(16,8) 0.8:(8,16) 0.85:(8,16) 0.9:(4,32) 0.95:(4,32) 0.99:(1,128)
H=256: 0.05:(128,2) 0.1:(128,2) 0.2:(128,2) 0.3:(64,4) 0.4:(64,4) 0.5:(32,8) 0.6:(32,8) 0.7:(32,8) 0.75:(16,16) 0.8:(16,16) 0.85:(16,16) 0.9:(8,32) 0.95:(4,64) 0.99:(2,128)";

fn parse_spec_table() -> Vec<(usize, f32, usize, usize)> {
    let mut rows = Vec::new();
    for line in SPEC_TABLE.lines() {
        let (h, cells) = line.split_once(": ").unwrap();
        let h: usize = h.trim_start_matches("H=").parse().unwrap();
        for cell in cells.split(' ') {
            let (t, br) = cell.split_once(':').unwrap();
            let (b, r) = br
                .trim_matches(|c| c == '(' || c == ')')
                .split_once(',')
                .unwrap();
            rows.push((
                h,
                t.parse().unwrap(),
                b.parse().unwrap(),
                r.parse().unwrap(),
            ));
        }
    }
    rows
}

#[test]
fn for_threshold_matches_spec_table() {
    let rows = parse_spec_table();
    assert_eq!(rows.len(), 6 * 14);
    for (h, t, b, r) in rows {
        let got = LshIndexBuilder::for_threshold(t, h).unwrap();
        assert_eq!(got, LshIndexBuilder::new(b, r), "h={h} t={t}");
    }
}

#[test]
#[cfg(feature = "std")]
fn for_threshold_matches_golden_meta() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/golden/golden-edge.jsonl.meta.json"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        // The golden files live beside the repo, not in it; CI has them.
        std::eprintln!("skipping: {path} not found");
        return;
    };
    let meta: serde_json::Value = serde_json::from_str(&text).unwrap();
    let rows = meta["lsh_for_threshold"].as_array().unwrap();
    assert_eq!(rows.len(), 57);
    for row in rows {
        let h = row["h"].as_u64().unwrap() as usize;
        // The harness computed `t100 as f32 / 100.0`; redo that exactly.
        let t100 = (row["threshold"].as_f64().unwrap() * 100.0).round() as u32;
        let t = t100 as f32 / 100.0;
        let want = LshIndexBuilder::new(
            row["bands"].as_u64().unwrap() as usize,
            row["rows"].as_u64().unwrap() as usize,
        );
        assert_eq!(LshIndexBuilder::for_threshold(t, h).unwrap(), want, "{row}");
    }
}

#[test]
fn for_threshold_errors() {
    let msg = |t: f32, h: usize| {
        LshIndexBuilder::for_threshold(t, h)
            .unwrap_err()
            .to_string()
    };
    let bad = "config error: threshold must be in (0.0, 1.0); got ";
    assert_eq!(msg(0.0, 128), [bad, "0"].concat());
    assert_eq!(msg(1.0, 128), [bad, "1"].concat());
    assert_eq!(msg(f32::NAN, 128), [bad, "NaN"].concat());
    assert_eq!(msg(-0.5, 128), [bad, "-0.5"].concat());
    assert_eq!(msg(f32::INFINITY, 128), [bad, "inf"].concat());
    // The threshold is checked before H.
    assert_eq!(msg(2.0, 0), [bad, "2"].concat());
    assert_eq!(msg(0.5, 0), "config error: H cannot be zero");
    assert!(matches!(
        LshIndexBuilder::for_threshold(0.5, 0),
        Err(Error::Config(_))
    ));
    assert_eq!(
        msg(0.5, usize::MAX),
        alloc::format!(
            "config error: H = {} is too large to auto-tune (at most 2147483647)",
            usize::MAX
        )
    );
}

#[test]
fn for_threshold_large_h_is_fast_and_valid() {
    // 0.3.2 scanned 1..=h; these return at once now.
    for h in [MAX_AUTO_TUNE_H, 2_147_483_629 /* prime */, 1 << 30, 1] {
        let b = LshIndexBuilder::for_threshold(0.5, h).unwrap();
        assert_eq!(b.bands * b.rows, h);
    }
    assert_eq!(
        LshIndexBuilder::for_threshold(0.5, 1).unwrap(),
        LshIndexBuilder::new(1, 1)
    );
}

#[test]
fn divisors_match_naive_scan() {
    for h in (1..2000).chain([3600, 65536, 720720, 999_983]) {
        let fast: Vec<usize> = divisors_ascending(h).collect();
        let naive: Vec<usize> = (1..=h).filter(|&b| h.is_multiple_of(b)).collect();
        assert_eq!(fast, naive, "h={h}");
    }
}

#[cfg(feature = "std")]
proptest::proptest! {
    #[test]
    fn powi_matches_std(base in proptest::num::f32::ANY, exp in 0u32..=(i32::MAX as u32)) {
        let ours = powi(base, exp);
        let std = base.powi(exp as i32);
        proptest::prop_assert!(ours.to_bits() == std.to_bits() || (ours.is_nan() && std.is_nan()));
    }

    #[test]
    fn powi_matches_std_unit_interval(base in 0.0f32..=1.0, exp in 0u32..300) {
        proptest::prop_assert_eq!(powi(base, exp).to_bits(), base.powi(exp as i32).to_bits());
    }
}

#[test]
fn check_banding_messages() {
    let msg = |b, r, h| check_banding(b, r, h).unwrap_err().to_string();
    assert_eq!(msg(0, 4, 128), "config error: bands and rows must be > 0");
    assert_eq!(msg(4, 0, 128), "config error: bands and rows must be > 0");
    assert_eq!(
        msg(usize::MAX, 2, 128),
        alloc::format!("config error: bands * rows overflow: {} * 2", usize::MAX)
    );
    assert_eq!(
        msg(16, 4, 128),
        "config error: bands * rows (16 * 4 = 64) must equal H = 128"
    );
    assert!(check_banding(32, 4, 128).is_ok());
}

#[test]
fn build_and_try_build() {
    let idx: LshIndex<128> = LshIndexBuilder::new(32, 4).build();
    assert_eq!((idx.bands(), idx.rows()), (32, 4));
    let err = LshIndexBuilder::new(16, 4).try_build::<128>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "config error: bands * rows (16 * 4 = 64) must equal H = 128"
    );
    assert!(LshIndexBuilder::new(1, 1).try_build::<0>().is_err());
}

#[test]
#[should_panic(expected = "LshIndexBuilder::build: config error: bands and rows must be > 0")]
fn build_panics_with_try_build_message() {
    let _: LshIndex<8> = LshIndexBuilder::new(0, 8).build();
}
