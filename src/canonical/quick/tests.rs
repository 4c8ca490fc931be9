use super::*;

#[test]
fn known_safe_is_safe() {
    let mut n = 0;
    for c in (0x80..=0x10FFFFu32).filter_map(char::from_u32) {
        if known_safe(c) {
            n += 1;
            assert_eq!(canonical_combining_class(c), 0, "U+{:04X}", c as u32);
            assert!(
                Nfc::quick_char(c) && Nfkc::quick_char(c),
                "U+{:04X}",
                c as u32
            );
        }
    }
    assert!(n > 40_000, "{n}");
}

#[test]
fn ascii_images_are_nfkc() {
    use alloc::string::String;
    let strip = super::super::strip::StripSet {
        bidi: true,
        format: true,
    };
    let mut n = 0;
    for c in (0x80..=0x10FFFFu32).filter_map(char::from_u32) {
        assert_eq!(Nfc::ascii_image(c), None);
        let Some(image) = Nfkc::ascii_image(c) else {
            continue;
        };
        n += 1;
        let want: String = core::iter::once(c).nfkc().collect();
        assert_eq!(image, want, "U+{:04X}", c as u32);
        assert!(image.is_ascii() && !image.is_empty());
        assert_eq!(canonical_combining_class(c), 0, "U+{:04X}", c as u32);
        assert!(!strip.contains(c), "U+{:04X}", c as u32);
    }
    assert_eq!(n, 1 + 11 + 2 + 1 + 3 + 94);
}

#[test]
fn bitmaps_match_definitions() {
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let u = c as u32;
        assert_eq!(known_safe(c), known_safe_u32(u), "U+{u:04X}");
        let plain = known_safe_u32(u)
            && !super::super::fold::has_folding(c)
            && !super::super::strip::is_format(c)
            && !super::super::strip::is_bidi(c);
        assert_eq!(plain_when_folding(c), plain, "U+{u:04X}");
    }
}
