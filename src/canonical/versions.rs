//! The Unicode versions of the tables that decide canonical text and tokens
//! (COMPAT.md W19).
//!
//! Canonical text — and so every signature — depends on the normalization,
//! case-folding, segmentation and confusable tables compiled into this build.
//! txtfp 0.3.2 let them float with `cargo update`; this crate pins the
//! crates exactly and reports the versions so a deployment can store them
//! beside its signatures and notice a drift.

use core::fmt;

/// The Unicode version of each table set in force, as `(major, minor, update)`.
///
/// ```
/// let v = txtfp::canonical::unicode_versions();
/// assert!(v.normalization >= (15, 0, 0));
/// println!("{v}"); // normalization 18.0.0, segmentation 17.0.0, ...
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnicodeVersions {
    /// NFC / NFKC tables (`unicode-normalization`).
    pub normalization: (u8, u8, u8),
    /// Word and grapheme boundary tables (`unicode-segmentation`).
    pub segmentation: (u8, u8, u8),
    /// CaseFolding.txt (`caseless`).
    pub case_folding: (u8, u8, u8),
    /// UTS #39 confusables (`unicode-security`); `None` when the `security`
    /// feature is off.
    pub security: Option<(u8, u8, u8)>,
}

/// The versions compiled into this build.
pub fn unicode_versions() -> UnicodeVersions {
    UnicodeVersions {
        normalization: unicode_normalization::UNICODE_VERSION,
        segmentation: narrow(unicode_segmentation::UNICODE_VERSION),
        case_folding: super::fold::UNICODE_VERSION,
        #[cfg(feature = "security")]
        security: Some(narrow(unicode_security::UNICODE_VERSION)),
        #[cfg(not(feature = "security"))]
        security: None,
    }
}

/// Some table crates report `u64` components; Unicode versions fit in `u8`
/// (a component that did not would show as 255 rather than wrap).
fn narrow((a, b, c): (u64, u64, u64)) -> (u8, u8, u8) {
    let n = |x: u64| u8::try_from(x).unwrap_or(u8::MAX);
    (n(a), n(b), n(c))
}

impl fmt::Display for UnicodeVersions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = |f: &mut fmt::Formatter<'_>, (a, b, c): (u8, u8, u8)| write!(f, "{a}.{b}.{c}");
        f.write_str("normalization ")?;
        v(f, self.normalization)?;
        f.write_str(", segmentation ")?;
        v(f, self.segmentation)?;
        f.write_str(", case folding ")?;
        v(f, self.case_folding)?;
        f.write_str(", security ")?;
        match self.security {
            Some(s) => v(f, s),
            None => f.write_str("off"),
        }
    }
}

#[cfg(test)]
mod tests;
