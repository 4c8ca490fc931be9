use super::*;

#[test]
fn lists_match_spec_2_3_exhaustively() {
    let bidi = |u: u32| matches!(u, 0x200E | 0x200F | 0x202A..=0x202E | 0x2066..=0x2069);
    let fmt = |u: u32| {
        matches!(
            u,
            0x200B..=0x200F
                | 0x2060..=0x2064
                | 0x061C
                | 0x180B..=0x180F
                | 0xFEFF
                | 0xFE00..=0xFE0F
                | 0xE0100..=0xE01EF
                | 0xE0001
                | 0xE0020..=0xE007F
                | 0x202A..=0x202E
                | 0x2066..=0x2069
        )
    };
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let u = c as u32;
        assert_eq!(is_bidi(c), bidi(u), "bidi {u:04X}");
        assert_eq!(is_format(c), fmt(u), "fmt {u:04X}");
        for (b, f) in [(false, false), (true, false), (false, true), (true, true)] {
            let set = StripSet { bidi: b, format: f };
            assert_eq!(
                set.contains(c),
                (b && bidi(u)) || (f && fmt(u)),
                "{u:04X} {b} {f}"
            );
        }
    }
}

#[test]
fn documented_survivors_are_kept() {
    let all = StripSet {
        bidi: true,
        format: true,
    };
    for c in [
        '\u{AD}',
        '\u{34F}',
        '\u{600}',
        '\u{2065}',
        '\u{FFF9}',
        '\u{1D173}',
        '\u{115F}',
    ] {
        assert!(!all.contains(c), "{:04X} must survive", c as u32);
    }
}
