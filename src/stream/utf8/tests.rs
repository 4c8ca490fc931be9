use super::*;
use alloc::string::String;
use alloc::vec::Vec;
use proptest::prelude::*;

/// Decodes `chunks` one after the other, like the engine does.
fn run(chunks: &[&[u8]]) -> Result<(String, Carry), (usize, usize)> {
    let mut carry = Carry::default();
    let mut out = String::new();
    let mut seen = 0usize;
    for (n, chunk) in chunks.iter().enumerate() {
        let d = decode(&carry, chunk).map_err(|i| (n, seen - carry.len() + i))?;
        out.push_str(d.head.as_str());
        out.push_str(d.body);
        carry = d.carry;
        seen += chunk.len();
    }
    Ok((out, carry))
}

#[test]
fn whole_and_split_sequences() {
    let s = "a\u{E9}\u{20AC}\u{1F600}z";
    let bytes = s.as_bytes();
    for cut in 0..=bytes.len() {
        let (out, carry) = run(&[&bytes[..cut], &bytes[cut..]]).unwrap();
        assert_eq!((out.as_str(), carry.len()), (s, 0), "cut at {cut}");
    }
    // Every byte in its own chunk.
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(run(&singles).unwrap().0, s);
}

#[test]
fn unfinished_tail_is_carried() {
    let (out, carry) = run(&[b"ab\xF0\x9F", b"\x98"]).unwrap();
    assert_eq!(
        (out.as_str(), carry.as_bytes()),
        ("ab", &b"\xF0\x9F\x98"[..])
    );
    assert_eq!(carry.as_str(), "", "an unfinished carry is not text");
}

/// The offset is the first byte of the first bad sequence, counted over
/// the whole stream, even when that byte came in an earlier chunk.
#[test]
fn error_offsets() {
    // (chunks, (index of the failing chunk, stream offset))
    type Case<'a> = (&'a [&'a [u8]], (usize, usize));
    let cases: &[Case<'_>] = &[
        (&[b"abc\xFFdef"], (0, 3)),
        (&[b"ab", b"c\x80"], (1, 3)),
        (&[b"ab\xE2", b"x"], (1, 2)),
        (&[b"ab\xE2", b"\x82", b"x"], (2, 2)),
        (&[b"\xED\xA0\x80"], (0, 0)),   // surrogate
        (&[b"\xC0\x80"], (0, 0)),       // overlong
        (&[b"\xE0", b"\x80"], (1, 0)),  // overlong 3-byte, split
        (&[b"\xF4\x90"], (0, 0)),       // above U+10FFFF
        (&[b"x\xF4", b"\x90"], (1, 1)), // above U+10FFFF, split
        (&[b"\xF5"], (0, 0)),           // never a lead byte
        (&[b"ok", b"", b"\xC3", b"\xA9\xC3(", b""], (3, 4)),
    ];
    for (chunks, want) in cases {
        assert_eq!(run(chunks).err(), Some(*want), "{chunks:?}");
    }
}

proptest! {
    /// Any chunking of any byte string: same verdict and text as
    /// `from_utf8` on the whole, and the same error offset.
    #[test]
    fn agrees_with_from_utf8(
        bytes in proptest::collection::vec(any::<u8>(), 0..40),
        text in "\\PC{0,12}",
        cuts in proptest::collection::vec(0usize..60, 0..8),
        use_text in any::<bool>(),
    ) {
        let data: Vec<u8> = if use_text { text.into_bytes() } else { bytes };
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(data.len())).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut at = 0;
        for c in cuts {
            chunks.push(&data[at..c]);
            at = c;
        }
        chunks.push(&data[at..]);
        match (str::from_utf8(&data), run(&chunks)) {
            (Ok(s), Ok((out, carry))) => {
                prop_assert_eq!(out.as_str(), s);
                prop_assert!(carry.is_empty());
            }
            (Err(e), Ok((out, carry))) => {
                // Only an unfinished tail may go unreported.
                prop_assert!(e.error_len().is_none());
                prop_assert_eq!(out.len(), e.valid_up_to());
                prop_assert_eq!(out.len() + carry.len(), data.len());
            }
            (Err(e), Err((_, offset))) => {
                prop_assert!(e.error_len().is_some());
                prop_assert_eq!(offset, e.valid_up_to());
            }
            (Ok(_), Err(got)) => prop_assert!(false, "valid input rejected at {:?}", got),
        }
    }
}
