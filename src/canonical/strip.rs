//! The two hand-written strip lists of stage 1 (the lists 0.3.2 uses, not the Cf category).
//!
//! They are deliberately *not* the `Cf` general category: txtfp 0.3.2 strips
//! exactly these code points, including some that are not `Cf` (the variation
//! selectors and the Mongolian free variation selectors are `Mn`) and missing
//! several that are (U+00AD soft hyphen, U+0600..=U+0605, U+FFF9..=U+FFFB,
//! U+034F ...). Changing either list changes canonical text and therefore
//! every stored signature, so the lists are frozen.

/// Bidirectional controls: LRM, RLM, the embeddings/overrides LRE..RLO and
/// the isolates LRI..PDI.
pub(super) fn is_bidi(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Invisible format characters. A superset of [`is_bidi`], so `strip_bidi`
/// only changes anything when `strip_format` is off.
pub(super) fn is_format(c: char) -> bool {
    is_format_u32(c as u32)
}

/// [`is_format`] of the code point `u`, usable in constants.
pub(super) const fn is_format_u32(u: u32) -> bool {
    matches!(
        u,
        0x061C
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x2069
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xE0001
            | 0xE0020..=0xE007F
            | 0xE0100..=0xE01EF
    )
}

/// Which of the two lists a configuration removes.
#[derive(Clone, Copy, Debug)]
pub(super) struct StripSet {
    pub(super) bidi: bool,
    pub(super) format: bool,
}

impl StripSet {
    /// Smallest code point on either list: everything below is kept without
    /// looking further (that covers ASCII, Latin, Greek, Cyrillic, Hebrew...).
    const FIRST: char = '\u{061C}';

    #[inline]
    pub(super) fn contains(self, c: char) -> bool {
        c >= Self::FIRST && ((self.format && is_format(c)) || (self.bidi && is_bidi(c)))
    }

    #[inline]
    pub(super) fn is_empty(self) -> bool {
        !self.bidi && !self.format
    }
}

#[cfg(test)]
mod tests;
