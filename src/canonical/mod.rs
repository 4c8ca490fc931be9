//! Stage 1: canonicalization — make text that reads the same hash the same.
//!
//! # Stage order
//!
//! For every configuration the canonical form of `x` is, in this order
//! (this is what txtfp 0.3.2 does, whatever its docs say):
//!
//! 1. **strip** — remove the code points of the hand-written lists of
//!    [`CanonicalizerBuilder::strip_format`] / [`CanonicalizerBuilder::strip_bidi`]
//!    (not the `Cf` category: soft hyphen, U+0600.., CGJ are kept; variation
//!    selectors, which are `Mn`, are removed). Stripping happens once, before
//!    normalization, so `e` ZWSP U+0301 composes to `é`;
//! 2. **normalize** — NFKC, NFC or nothing ([`Normalization`]);
//! 3. **fold** — with [`CaseFold::Simple`], *full* default case folding
//!    (CaseFolding.txt statuses C + F, a table generated from `caseless`): `ß` →
//!    `ss`, `İ` → `i` U+0307, `ﬁ` → `fi`, Cherokee small letters → capitals;
//! 4. **re-normalize** — with folding on, the same form again, because
//!    folding can undo a composition (`İ` U+0329 → `i` U+0329 U+0307);
//! 5. **skeleton** — with [`CanonicalizerBuilder::apply_confusable`] and the
//!    `security` feature, the UTS #39 skeleton (NFD output, not lowercase).
//!
//! So the default is `NFKC(FOLD(NFKC(strip(x))))`. Control characters,
//! whitespace and punctuation are kept; no length limit is imposed.
//!
//! # Properties (tested, see `proptests.rs`)
//!
//! * **Idempotence** of the default configuration:
//!   `canonicalize(canonicalize(x)) == canonicalize(x)`. Checked for every
//!   code point alone and followed by combining marks, and on random text;
//!   no counterexample is known under 0.3.2's semantics (the strip-first
//!   order and the re-normalization after folding are what make it hold).
//! * **Split at ASCII whitespace**, for every configuration: if `a` ends
//!   with an ASCII whitespace byte and `b` starts with an ASCII byte that is
//!   not whitespace, `canonicalize(a + b) == canonicalize(a) +
//!   canonicalize(b)`. The streaming fingerprinters rely on it to
//!   canonicalize a stream piece by piece.
//!
//! # Differences from txtfp 0.3.2
//!
//! The output bytes are the same for every input and configuration; what
//! differs:
//!
//! * **W7** — 0.3.2 silently ignores `apply_confusable` in a build without
//!   the `security` feature, while `config_string()` still says `-conf`, so
//!   two builds with the same config hash disagree. Here
//!   [`CanonicalizerBuilder::try_build`], [`Canonicalizer::check`] and
//!   [`Canonicalizer::try_canonicalize`] return
//!   [`Error::FeatureDisabled`]`("security")` for that configuration, and
//!   every fingerprinter calls `check()` first, so no signature is made with
//!   a flag that was not applied. The infallible [`Canonicalizer::canonicalize`]
//!   keeps 0.3.2's signature and returns the text without the skeleton.
//! * **P1 / W6** — 0.3.2 builds up to three full-size intermediate strings
//!   and normalizes everything twice. Here one pass writes into the output
//!   buffer and normalizes only the pieces that need it (see `pipeline.rs`);
//!   [`Canonicalizer::canonicalize_into`] reuses the caller's buffer.
//! * **W19** — the table crates are pinned exactly and [`unicode_versions`]
//!   reports the Unicode versions in force.
//! * The documentation describes what the code does (COMPAT.md, "Where 0.3.2's documentation and code disagree"):
//!   the stage order above, full (not simple) folding, the exact strip lists.
//!   0.3.2's README claim that NFKC growth is capped (§14 item 13) was never
//!   true and is not made here: normalization and folding can grow text
//!   (U+FDFA becomes 18 code points, `ﬃ` three), so callers that take
//!   untrusted input should cap its size.
//!
//! ```
//! use txtfp::{Canonicalizer, canonicalize};
//! assert_eq!(canonicalize("Straße\u{200B} ＡＢＣ ﬁ"), "strasse abc fi");
//! let c = Canonicalizer::default();
//! assert_eq!(c.config_string(), "nfkc-cf-simple-bidi-fmt");
//! ```

use alloc::string::String;

use crate::{Error, Result};

mod fold;
pub(crate) mod pipeline;
pub(crate) mod quick;
mod strip;
mod versions;

#[cfg(test)]
mod tests;

pub use versions::{UnicodeVersions, unicode_versions};

/// Unicode normalization form applied before and after case folding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Normalization {
    /// Canonical composition: keeps compatibility characters (full-width
    /// letters, ligatures, superscripts) distinct.
    Nfc,
    /// Compatibility composition: `ＡＢＣ` → `ABC`, `①` → `1`, `㎏` → `kg`.
    #[default]
    Nfkc,
    /// No normalization: `e` U+0301 and `é` stay different.
    None,
}

/// Case folding applied after normalization.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum CaseFold {
    /// Keep case.
    None,
    /// Full default case folding (statuses C + F, locale-independent) —
    /// despite the name kept from txtfp 0.3.2, not "simple" folding:
    /// `ß` → `ss`, `ﬁ` → `fi`, `İ` → `i` U+0307, final `ς` → `σ`.
    #[default]
    Simple,
}

/// Configuration of a [`Canonicalizer`]: a plain struct with public fields.
/// Every combination is accepted by [`build`](Self::build); see
/// [`try_build`](Self::try_build) for the one that this build cannot honour.
///
/// ```
/// use txtfp::{CanonicalizerBuilder, Normalization};
/// let c = CanonicalizerBuilder { normalization: Normalization::Nfc, ..Default::default() }.build();
/// assert_eq!(c.canonicalize("ＡＢＣ ﬁ"), "ａｂｃ fi");
/// assert_eq!(c.config_string(), "nfc-cf-simple-bidi-fmt");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CanonicalizerBuilder {
    /// Normalization form (default NFKC).
    pub normalization: Normalization,
    /// Case folding (default full folding).
    pub case_fold: CaseFold,
    /// Remove the bidirectional controls U+200E, U+200F, U+202A..=U+202E,
    /// U+2066..=U+2069 (default true). They are also on the
    /// [`strip_format`](Self::strip_format) list.
    pub strip_bidi: bool,
    /// Remove U+200B..=U+200F, U+2060..=U+2064, U+061C, U+180B..=U+180F,
    /// U+FEFF, U+FE00..=U+FE0F, U+E0100..=U+E01EF, U+E0001,
    /// U+E0020..=U+E007F and the bidirectional controls (default true).
    pub strip_format: bool,
    /// Finish with the UTS #39 confusable skeleton (default false). Needs the
    /// `security` feature; see [`try_build`](Self::try_build).
    pub apply_confusable: bool,
}

impl Default for CanonicalizerBuilder {
    fn default() -> Self {
        CanonicalizerBuilder {
            normalization: Normalization::Nfkc,
            case_fold: CaseFold::Simple,
            strip_bidi: true,
            strip_format: true,
            apply_confusable: false,
        }
    }
}

impl CanonicalizerBuilder {
    /// The canonicalizer for this configuration (never fails, like txtfp
    /// 0.3.2; a configuration this build cannot honour is reported by
    /// [`Canonicalizer::check`]).
    pub fn build(self) -> Canonicalizer {
        Canonicalizer::new(self)
    }

    /// Like [`build`](Self::build), but rejects `apply_confusable` in a build
    /// without the `security` feature with
    /// [`Error::FeatureDisabled`]`("security")` instead of ignoring it.
    ///
    /// ```
    /// use txtfp::CanonicalizerBuilder;
    /// let b = CanonicalizerBuilder { apply_confusable: true, ..Default::default() };
    /// assert_eq!(b.try_build().is_ok(), cfg!(feature = "security"));
    /// ```
    pub fn try_build(self) -> Result<Canonicalizer> {
        let c = Canonicalizer::new(self);
        c.check()?;
        Ok(c)
    }
}

/// A configured canonicalization pipeline: stateless, `Send + Sync`, cheap
/// to clone; one instance can serve every thread.
///
/// ```
/// use txtfp::Canonicalizer;
/// let c = Canonicalizer::default();
/// assert_eq!(c.canonicalize("Hello\u{200B}World"), "helloworld");
/// assert_eq!(c.canonicalize("admin\u{202E}drow"), "admindrow");
/// assert_eq!(c.canonicalize("İ"), "i\u{307}");
/// ```
#[derive(Clone, Debug, Default)]
pub struct Canonicalizer {
    config: CanonicalizerBuilder,
}

impl Canonicalizer {
    /// The canonicalizer for `config`.
    pub fn new(config: CanonicalizerBuilder) -> Self {
        Canonicalizer { config }
    }

    /// The configuration, unchanged.
    pub fn config(&self) -> &CanonicalizerBuilder {
        &self.config
    }

    /// The canonical form of `input`.
    ///
    /// Infallible, as in txtfp 0.3.2: with `apply_confusable` in a build
    /// without `security` the skeleton is not applied. Use
    /// [`try_canonicalize`](Self::try_canonicalize) to get an error instead.
    pub fn canonicalize(&self, input: &str) -> String {
        let mut out = String::new();
        self.canonicalize_into(input, &mut out);
        out
    }

    /// Clears `out` and writes the canonical form of `input` into it: the
    /// same text as [`canonicalize`](Self::canonicalize), reusing the
    /// buffer's allocation.
    ///
    /// ```
    /// let c = txtfp::Canonicalizer::default();
    /// let mut buf = String::from("old");
    /// c.canonicalize_into("ÉCOLE", &mut buf);
    /// assert_eq!(buf, "école");
    /// ```
    pub fn canonicalize_into(&self, input: &str, out: &mut String) {
        out.clear();
        let core = pipeline::Core::new(&self.config);
        #[cfg(feature = "security")]
        if self.config.apply_confusable {
            let mut folded = String::new();
            core.run(input, &mut folded);
            out.extend(unicode_security::confusable_detection::skeleton(&folded));
            return;
        }
        core.run(input, out);
    }

    /// The canonical form of `input`, or
    /// [`Error::FeatureDisabled`]`("security")` when the configuration asks
    /// for the confusable skeleton and this build does not have it.
    pub fn try_canonicalize(&self, input: &str) -> Result<String> {
        self.check()?;
        Ok(self.canonicalize(input))
    }

    /// `Ok` when this build applies every stage the configuration asks for;
    /// [`Error::FeatureDisabled`]`("security")` for `apply_confusable`
    /// without the `security` feature. Fingerprinters call it before
    /// anything else, so they fail rather than silently skip the skeleton.
    pub fn check(&self) -> Result<()> {
        if self.config.apply_confusable && !cfg!(feature = "security") {
            return Err(Error::FeatureDisabled("security"));
        }
        Ok(())
    }

    /// Stable identifier of the configuration, part of every config hash:
    /// `<nfkc|nfc|none>-cf-<simple|none>`, then `-bidi`, `-fmt` and `-conf`
    /// for the flags that are set (default `nfkc-cf-simple-bidi-fmt`).
    /// `-conf` is written whether or not the `security` feature is compiled
    /// in, exactly as txtfp 0.3.2 does.
    pub fn config_string(&self) -> String {
        let c = &self.config;
        let mut s = String::with_capacity(32);
        s.push_str(match c.normalization {
            Normalization::Nfc => "nfc",
            Normalization::Nfkc => "nfkc",
            Normalization::None => "none",
        });
        s.push_str(match c.case_fold {
            CaseFold::Simple => "-cf-simple",
            CaseFold::None => "-cf-none",
        });
        for (on, tag) in [
            (c.strip_bidi, "-bidi"),
            (c.strip_format, "-fmt"),
            (c.apply_confusable, "-conf"),
        ] {
            if on {
                s.push_str(tag);
            }
        }
        s
    }

    /// Whether [`split_safe`] boundaries are valid for this configuration:
    /// `canonicalize(a + b) == canonicalize(a) + canonicalize(b)` whenever
    /// `split_safe(last byte of a, first byte of b)`.
    ///
    /// True for every configuration, the skeleton included: the proof is the
    /// exhaustive tests `ascii_split_premises_hold` and
    /// `skeleton_split_premises_hold` plus the property test
    /// `split_at_ascii_whitespace`. The streaming engine asks anyway, so a
    /// future stage that breaks the property only has to change this.
    pub(crate) fn supports_split(&self) -> bool {
        true
    }
}

/// Canonicalizes `input` with the default configuration
/// (`nfkc-cf-simple-bidi-fmt`).
///
/// ```
/// assert_eq!(txtfp::canonicalize("ﬁle ①②"), "file 12");
/// ```
pub fn canonicalize(input: &str) -> String {
    Canonicalizer::default().canonicalize(input)
}

/// The boundary rule the streaming engine cuts text at: `prev` (the last
/// byte before the cut) is ASCII whitespace (space, `\t`, `\n`, `\r`,
/// `\x0b`, `\x0c`) and `next` (the first byte after it) is ASCII and not
/// whitespace. Canonicalizing the two sides separately then gives the same
/// text as canonicalizing the whole (for configurations whose
/// [`Canonicalizer::supports_split`] is true).
#[inline]
pub(crate) fn split_safe(prev: u8, next: u8) -> bool {
    const fn is_ws(b: u8) -> bool {
        matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
    }
    is_ws(prev) && next.is_ascii() && !is_ws(next)
}
