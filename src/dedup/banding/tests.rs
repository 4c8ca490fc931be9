use super::*;

#[test]
fn recall_is_met_or_maximal() {
    for h in [1usize, 2, 16, 64, 100, 128, 256] {
        for t in [
            0.01f32, 0.05, 0.3, 0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99, 1.0,
        ] {
            let b = default_banding(t, h).unwrap();
            assert_eq!(b.bands * b.rows, h, "h={h} t={t}");
            let p = b.candidate_probability(f64::from(t)).unwrap();
            let best = LshIndexBuilder::new(h, 1)
                .candidate_probability(f64::from(t))
                .unwrap();
            assert!(
                p >= DEFAULT_RECALL || (b.rows == 1 && p == best),
                "h={h} t={t}: {p}"
            );
        }
    }
    assert_eq!(
        default_banding(0.8, 128).unwrap(),
        LshIndexBuilder::new(32, 4)
    );
    assert_eq!(
        default_banding(0.5, 128).unwrap(),
        LshIndexBuilder::new(64, 2)
    );
    assert_eq!(
        default_banding(0.9, 128).unwrap(),
        LshIndexBuilder::new(16, 8)
    );
    assert_eq!(
        default_banding(1.0, 128).unwrap(),
        LshIndexBuilder::new(1, 128)
    );
    assert_eq!(
        default_banding(0.01, 128).unwrap(),
        LshIndexBuilder::new(128, 1)
    );
}

#[test]
fn errors() {
    let msg = |t, h| default_banding(t, h).unwrap_err().to_string();
    for t in [0.0f32, -1.0, 1.5, f32::NAN] {
        assert_eq!(
            msg(t, 128),
            format!("config error: dedup threshold must be in (0.0, 1.0]; got {t}")
        );
    }
    assert!(matches!(default_banding(0.8, 0), Err(Error::Config(_))));
}
