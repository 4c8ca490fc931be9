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
mod tests;
