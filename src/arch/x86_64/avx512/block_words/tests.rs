use alloc::string::String;
use alloc::vec::Vec;

use proptest::prelude::*;

use super::*;
use crate::tokenize::mixed_words::{ALNUM, PLAIN, class_at, is_plain_letter};

/// What the kernel must report for the block at `base`, from the
/// scalar classes: every 2-byte plain letter; a 3-byte character when
/// every code point of its page has its class (letters, or words on
/// their own); nothing else.
fn expected(s: &str, base: usize, lead: u64) -> Common {
    let b = s.as_bytes();
    let page_is = |u: u32, want: &dyn Fn(u16) -> bool| {
        ((u >> 8) << 8..((u >> 8) + 1) << 8).all(|v| {
            let c = char::from_u32(v).map_or(0, |c| {
                let mut buf = [0u8; 4];
                class_at(c.encode_utf8(&mut buf).as_bytes(), 0).0
            });
            want(c)
        })
    };
    let mut want = Common::default();
    for j in (0..64).filter(|j| lead >> j & 1 != 0) {
        let (class, len) = class_at(b, base + j);
        let u = s[base + j..].chars().next().map_or(0, u32::from);
        let bit = 1u64 << j;
        match len {
            2 if is_plain_letter(class) => want.letters2 |= bit,
            3 if page_is(u, &|c| is_plain_letter(c)) => want.letters3 |= bit,
            3 if page_is(u, &|c| c == PLAIN | ALNUM) => want.singles3 |= bit,
            _ => {}
        }
    }
    want
}

/// Lead bytes of the non-ASCII characters starting in `s[base..base + 64]`.
fn leads(s: &str, base: usize) -> u64 {
    let b = s.as_bytes();
    (0..64.min(b.len() - base))
        .filter(|&j| b[base + j] >= 0xC0)
        .fold(0, |m, j| m | 1 << j)
}

fn check(s: &str) -> Result<(), TestCaseError> {
    let Some(t) = Avx512Vbmi::detect() else {
        return Ok(());
    };
    for base in (0..s.len()).filter(|&i| s.is_char_boundary(i)) {
        // A block keeps only the characters that lie inside it.
        let mut end = (base + 64).min(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let lead = leads(s, base)
            & if end - base >= 64 {
                !0
            } else {
                (1 << (end - base)) - 1
            };
        let got = common(t, s.as_bytes(), base, lead);
        prop_assert_eq!(got, expected(s, base, lead), "block at {} of {:?}", base, s);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn kernel_classes_equal_scalar(parts in proptest::collection::vec(prop_oneof![
        "[a-z .]{0,20}",
        "[éÉжЖΩαß٣ءب\u{301}\u{5D0}·]{0,20}",
        "[中文字한국어\u{4DBF}\u{4DC0}ぁアー、\u{1E00}\u{2019}\u{3005}]{0,20}",
        "[😀]{0,2}",
    ], 0..8)) {
        check(&parts.concat())?;
    }
}

/// Every code point below U+10000 once, each after an ASCII letter, in
/// a block that holds it whole.
#[test]
fn every_code_point() {
    let mut s = String::new();
    for c in (0x80..0x1_0000).filter_map(char::from_u32) {
        s.push('a');
        s.push(c);
    }
    let Some(t) = Avx512Vbmi::detect() else {
        #[cfg(feature = "std")]
        std::eprintln!("skipped: this CPU lacks AVX-512 VBMI, the kernel cannot run");
        return;
    };
    // Block starts at most 51 bytes apart (every 48 bytes, moved back
    // to a boundary): every code point, at most 3 bytes, lies wholly
    // inside some 64-byte block.
    let starts: Vec<usize> = (0..s.len())
        .step_by(48)
        .map(|i| (0..=i).rev().find(|&j| s.is_char_boundary(j)).unwrap_or(0))
        .collect();
    for base in starts {
        let mut end = (base + 64).min(s.len());
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let lead = leads(&s, base)
            & if end - base >= 64 {
                !0
            } else {
                (1 << (end - base)) - 1
            };
        let got = common(t, s.as_bytes(), base, lead);
        assert_eq!(got, expected(&s, base, lead), "block at {base}");
    }
}
