//! Incremental UTF-8 validation across chunk boundaries.
//!
//! A chunk may end in the middle of a multi-byte sequence; those bytes (at
//! most three) are kept as a [`Carry`] and completed by the next chunk. A
//! sequence that can never become valid (a stray continuation byte, an
//! overlong form, a surrogate, a value above U+10FFFF, a lead byte followed by
//! a non-continuation) is reported as soon as the bytes that prove it arrive.

use core::str;

/// Up to four bytes of UTF-8: either the unfinished tail of the stream (the
/// carry, at most three bytes) or the character that tail completes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Carry {
    bytes: [u8; 4],
    len: u8,
}

impl Carry {
    fn from_slice(s: &[u8]) -> Self {
        let mut c = Carry::default();
        let n = s.len().min(4);
        c.bytes[..n].copy_from_slice(&s[..n]);
        c.len = n as u8;
        c
    }

    /// Number of bytes held.
    pub(crate) fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len()]
    }

    /// The bytes as text. Only meaningful for a completed character (the
    /// `head` of [`Decoded`]); an unfinished carry reads as `""`.
    pub(crate) fn as_str(&self) -> &str {
        str::from_utf8(self.as_bytes()).unwrap_or_default()
    }
}

/// One chunk, decoded against the carry left by the previous chunks.
#[derive(Debug)]
pub(crate) struct Decoded<'a> {
    /// The character that the old carry and the first bytes of the chunk
    /// complete (empty when there was no carry or it is still unfinished).
    pub(crate) head: Carry,
    /// The complete characters of the chunk after `head`.
    pub(crate) body: &'a str,
    /// The unfinished sequence the chunk ends with (possibly still the old
    /// carry, extended), to be completed by the next chunk.
    pub(crate) carry: Carry,
}

/// Total length of the sequence a lead byte starts (0 for bytes that cannot
/// start a sequence; a carry never starts with one of those).
fn sequence_len(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 0,
    }
}

/// Decodes `chunk` after `carry` without changing either.
///
/// `Err(i)`: the first invalid sequence starts `i` bytes after the first
/// byte of `carry` (so `i < carry.len()` points back into the previous
/// chunk). The caller turns that into a stream offset.
pub(crate) fn decode<'a>(carry: &Carry, chunk: &'a [u8]) -> Result<Decoded<'a>, usize> {
    let mut head = Carry::default();
    let mut tail = Carry::default();
    let mut used = 0;
    if !carry.is_empty() {
        let need = sequence_len(carry.bytes[0]).saturating_sub(carry.len());
        used = need.min(chunk.len());
        let mut joined = *carry;
        joined.bytes[carry.len()..carry.len() + used].copy_from_slice(&chunk[..used]);
        joined.len += used as u8;
        match str::from_utf8(joined.as_bytes()) {
            Ok(_) => head = joined,
            // The carry is a single sequence, so a definite error can only
            // be about that sequence: it starts at the carry's first byte.
            Err(e) if e.error_len().is_some() => return Err(e.valid_up_to()),
            // Still unfinished: the chunk was shorter than what was missing.
            Err(_) => tail = joined,
        }
    }
    let rest = &chunk[used..];
    let body = match str::from_utf8(rest) {
        Ok(s) => s,
        Err(e) => {
            let valid = e.valid_up_to();
            if e.error_len().is_some() {
                return Err(carry.len() + used + valid);
            }
            tail = Carry::from_slice(&rest[valid..]);
            // `valid` is where `from_utf8` stopped, a character boundary.
            str::from_utf8(&rest[..valid]).unwrap_or_default()
        }
    };
    Ok(Decoded {
        head,
        body,
        carry: tail,
    })
}

#[cfg(test)]
mod tests {
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
}
