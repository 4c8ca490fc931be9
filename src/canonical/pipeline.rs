//! The fused strip → normalize → fold → re-normalize pass (0.3.2's order of stages).
//!
//! txtfp 0.3.2 runs the stages one after the other, each into a new `String`
//! (P1). Here one left-to-right pass writes straight into the caller's
//! buffer and does normalization work only where the text needs it. It rests
//! on one fact of UAX #15:
//!
//! **Split rule.** Let `c` be a code point with canonical combining class 0
//! whose quick-check value is `Yes` for the form. Then for all strings `x`,
//! `y`: `NF(x + c + y) == NF(x) + NF(c + y)`.
//! (The decomposition of such a `c` starts with a starter that never
//! combines with anything before it, so neither reordering nor composition
//! crosses the position of `c`. `split_rule_premise_holds` checks that
//! premise for every code point.) Call such a `c` *safe*; ASCII is safe.
//!
//! With it:
//! * the stripped input is cut before every safe code point into segments;
//!   a segment whose quick check is `Yes` is already normalized and is
//!   copied, any other segment goes through the normalizer on its own;
//! * folding is per code point, so it commutes with the cuts;
//! * the folded text is cut again, before every point where its first code
//!   point is safe, into *units*. A unit in which folding changed nothing is
//!   a piece of normalized text that starts at a safe code point, hence
//!   normalized (nothing to do). A unit in which folding changed something
//!   is quick-checked and re-normalized only if the check is not `Yes`;
//! * runs of *plain* code points (ASCII, and the safe letters of common
//!   scripts that neither strip nor fold changes) are copied (ASCII
//!   lowercased when folding) without any table lookup. The last code
//!   point of a run is kept back, because a combining mark after it
//!   composes with it (`e` + U+0301 → `é`).
//!
//! What keeps it fast on non-ASCII text: the letters of the common scripts
//! are recognised as safe without the quick-check tables (`quick.rs`),
//! folding skips the table search for code points without a folding
//! (`fold.rs`), stretches that neither strip nor fold changes are copied
//! as whole slices, and under NFKC the compatibility characters that map to
//! ASCII (no-break spaces, fullwidth forms; `quick::nfkc_ascii`) are written
//! as their image when a plain code point, or another such character,
//! follows.
//!
//! The output is byte-identical to the staged pipeline; the property tests
//! in `proptests.rs` compare the two on random text under every
//! configuration.

use alloc::string::String;

use unicode_normalization::char::canonical_combining_class;

use super::fold::{has_folding, push_folded};
use super::quick::{Form, Nfc, Nfkc, head_is_safe, known_safe, plain_when_folding, quick_str};
use super::strip::StripSet;
use super::{CanonicalizerBuilder, CaseFold, Normalization};
#[cfg(target_arch = "x86_64")]
use crate::arch::x86_64::{Avx512Vbmi, avx512};

/// The part of a configuration that the pass needs, flattened.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Core {
    form: Normalization,
    fold: bool,
    strip: StripSet,
    /// The proof that the CPU has AVX-512 F, BW and VBMI
    /// (`crate::arch::x86_64::avx512::plain_run`), if it has them.
    #[cfg(target_arch = "x86_64")]
    wide: Option<Avx512Vbmi>,
}

impl Core {
    pub(crate) fn new(config: &CanonicalizerBuilder) -> Self {
        Core {
            form: config.normalization,
            fold: config.case_fold == CaseFold::Simple,
            strip: StripSet {
                bidi: config.strip_bidi,
                format: config.strip_format,
            },
            #[cfg(target_arch = "x86_64")]
            wide: Avx512Vbmi::detect(),
        }
    }

    /// Appends the canonical form of `input` (without the skeleton) to `out`.
    pub(super) fn run(self, input: &str, out: &mut String) {
        if input.is_ascii() {
            // Every stage but folding is the identity on ASCII.
            push_ascii(out, input, self.fold);
            return;
        }
        out.reserve(input.len());
        match self.form {
            Normalization::None => self.run_unnormalized(input, out),
            Normalization::Nfc => self.run_normalized::<Nfc>(input, out),
            Normalization::Nfkc => self.run_normalized::<Nfkc>(input, out),
        }
    }

    /// `Normalization::None`: strip and fold only, code point by code point.
    fn run_unnormalized(self, input: &str, out: &mut String) {
        if !self.fold && self.strip.is_empty() {
            out.push_str(input);
            return;
        }
        let bytes = input.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let ascii = ascii_prefix_len(&bytes[i..]);
            if ascii > 0 {
                push_ascii(out, &input[i..i + ascii], self.fold);
                i += ascii;
                continue;
            }
            // A non-ASCII stretch, up to the next ASCII byte (always a
            // character boundary).
            let end = bytes[i..]
                .iter()
                .position(u8::is_ascii)
                .map_or(bytes.len(), |n| i + n);
            copy_folded(out, &input[i..end], self.strip, self.fold);
            i = end;
        }
    }

    /// NFC / NFKC: the segment and unit bookkeeping described in the module
    /// docs.
    fn run_normalized<F: Form>(self, input: &str, out: &mut String) {
        let bytes = input.as_bytes();
        let mut emit = Emitter::<F> {
            core: self,
            unit_start: out.len(),
            out,
            unit_dirty: false,
            scratch: String::new(),
            form: core::marker::PhantomData,
        };
        // Text seen but not yet emitted: starts at a safe code point (or at
        // the start of the input) and ends before the current position.
        let mut pending: Option<Pending> = None;
        let mut i = 0;
        while i < bytes.len() {
            let (end, last) = self.plain_prefix(input, i);
            if end > i {
                if let Some(p) = pending.take() {
                    emit.flush(&input[..i], p);
                }
                if last > i {
                    // Each of these is followed by a plain code point:
                    // nothing can compose with it, and its folding is at
                    // most ASCII lower-casing.
                    emit.plain(&input[i..last]);
                }
                // The last one is held back: a combining mark after it
                // would compose with it.
                pending = Some(Pending::new(last, 0, true));
                i = end;
                continue;
            }
            let Some(c) = input[i..].chars().next() else {
                break;
            };
            let next = i + c.len_utf8();
            if let Some(image) = F::ascii_image(c)
                && (self.plain_at(input, next) || image_at::<F>(input, next))
            {
                // Normalizes to its ASCII image on its own (see
                // `nfkc_ascii`), and that image is final: a plain code
                // point follows, or another code point whose image is
                // ASCII (a run of fullwidth letters), so a starter that
                // composes with nothing before it comes next either way.
                if let Some(p) = pending.take() {
                    emit.flush(&input[..i], p);
                }
                emit.plain(image);
                i = next;
                continue;
            }
            if self.strip.contains(c) {
                // Removed before normalization: the code points around it
                // become neighbours, so it does not end anything.
                i = next;
                continue;
            }
            let (ccc, yes) = if known_safe(c) {
                (0, true)
            } else {
                (canonical_combining_class(c), F::quick_char(c))
            };
            let safe = ccc == 0 && yes;
            match pending.as_mut() {
                Some(p) if !safe => p.absorb(ccc, yes),
                Some(p) if p.latest_yes => p.cut(i),
                _ => {
                    if let Some(p) = pending.take() {
                        emit.flush(&input[..i], p);
                    }
                    pending = Some(Pending::new(i, ccc, yes));
                }
            }
            i = next;
        }
        if let Some(p) = pending {
            emit.flush(input, p);
        }
        emit.finish();
    }
}

impl Core {
    /// The run of *plain* code points at `input[i..]`: ASCII, or safe (see
    /// [`known_safe`]), not stripped and without a folding. Returns the end
    /// of the run and the start of its last code point (`i` twice if the
    /// run is empty). Every plain code point is final in the output (after
    /// ASCII lower-casing) unless a later code point composes with it, and
    /// only a non-plain code point can.
    #[inline]
    pub(crate) fn plain_prefix(self, input: &str, i: usize) -> (usize, usize) {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = self.wide {
            let tables = if self.fold {
                &super::quick::SURE_FOLDING
            } else {
                &super::quick::SURE_KEPT
            };
            return avx512::plain_run::plain_run(t, input.as_bytes(), i, tables, self);
        }
        self.plain_prefix_scalar(input, i)
    }

    /// [`Core::plain_prefix`] one code point at a time.
    pub(crate) fn plain_prefix_scalar(self, input: &str, mut i: usize) -> (usize, usize) {
        let bytes = input.as_bytes();
        let mut last = i;
        while i < bytes.len() {
            let b0 = bytes[i];
            if b0 < 0x80 {
                i += ascii_prefix_len(&bytes[i..]);
                last = i - 1;
                continue;
            }
            // Decoded by hand: `input` is valid UTF-8, so a lead byte is
            // followed by its continuation bytes. Only BMP code points can be
            // plain, so a 4-byte sequence ends the run.
            let cont = |k: usize| u32::from(bytes[i + k] & 0x3F);
            let (u, len) = match b0 {
                0xC0..=0xDF => ((u32::from(b0 & 0x1F) << 6) | cont(1), 2),
                0xE0..=0xEF => ((u32::from(b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3),
                _ => break,
            };
            if !char::from_u32(u).is_some_and(|c| self.is_plain(c)) {
                break;
            }
            last = i;
            i += len;
        }
        (i, last)
    }

    /// Whether `c` is plain (see [`Core::plain_prefix`]).
    #[inline(always)]
    pub(crate) fn is_plain(self, c: char) -> bool {
        if self.fold {
            // Excludes every code point of both strip lists.
            plain_when_folding(c)
        } else {
            known_safe(c) && !self.strip.contains(c)
        }
    }

    /// Whether `input[i..]` is empty or starts with a plain code point.
    #[inline]
    fn plain_at(self, input: &str, i: usize) -> bool {
        match input[i..].chars().next() {
            None => true,
            Some(c) => c.is_ascii() || self.is_plain(c),
        }
    }
}

/// Whether `input[i..]` starts with a code point whose image under `F`
/// is ASCII.
#[inline]
fn image_at<F: Form>(input: &str, i: usize) -> bool {
    input
        .get(i..)
        .and_then(|t| t.chars().next())
        .is_some_and(|n| F::ascii_image(n).is_some())
}

/// Pending input text: `[start, latest)` is a run of segments that all
/// passed the quick check; `[latest, ..)` is the segment being read.
#[derive(Clone, Copy, Debug)]
struct Pending {
    start: usize,
    latest: usize,
    /// Quick-check state of the latest segment, as in UAX #15's algorithm.
    latest_yes: bool,
    last_ccc: u8,
}

impl Pending {
    fn new(at: usize, ccc: u8, yes: bool) -> Self {
        Pending {
            start: at,
            latest: at,
            latest_yes: yes,
            last_ccc: ccc,
        }
    }

    /// A non-safe code point joins the latest segment.
    fn absorb(&mut self, ccc: u8, yes: bool) {
        if !yes || (self.last_ccc > ccc && ccc != 0) {
            self.latest_yes = false;
        }
        self.last_ccc = ccc;
    }

    /// A safe code point after a segment that passed: start a new segment
    /// but keep the run together (it will be copied in one go).
    fn cut(&mut self, at: usize) {
        self.latest = at;
        self.last_ccc = 0;
    }
}

/// Writes segments and tracks the current unit of the second normalization.
struct Emitter<'o, F> {
    core: Core,
    out: &'o mut String,
    /// Start (in `out`) of the current unit: folded text whose first code
    /// point is safe, not yet re-normalized.
    unit_start: usize,
    /// Folding changed something inside the current unit.
    unit_dirty: bool,
    /// Reused for the rare re-normalization of a unit.
    scratch: String,
    form: core::marker::PhantomData<F>,
}

impl<F: Form> Emitter<'_, F> {
    /// Emits the pending text `p`, which ends where `text` ends.
    fn flush(&mut self, text: &str, p: Pending) {
        if p.latest_yes {
            self.segment(&text[p.start..], true);
        } else {
            self.segment(&text[p.start..p.latest], true);
            self.segment(&text[p.latest..], false);
        }
    }

    /// Appends normalized-and-folded `text` (a run of whole segments).
    fn segment(&mut self, text: &str, already_normalized: bool) {
        if text.is_empty() {
            return;
        }
        let start = self.out.len();
        let (strip, fold) = (self.core.strip, self.core.fold);
        let out = &mut *self.out;
        let changed = if already_normalized {
            copy_folded(out, text, strip, fold)
        } else {
            let mut changed = false;
            let kept = text.chars().filter(move |&c| !strip.contains(c));
            if fold {
                F::normalize(kept, |c| changed |= push_folded(out, c));
            } else {
                F::normalize(kept, |c| out.push(c));
            }
            changed
        };
        if !fold {
            // No folding, no second normalization: the text is final.
            return;
        }
        if !(changed || self.unit_dirty) {
            // Clean text after a clean unit: the unit simply grows.
            return;
        }
        if head_is_safe::<F>(&self.out[start..]) {
            let start = if self.unit_dirty {
                self.close_unit(start)
            } else {
                start
            };
            self.unit_start = start;
            self.unit_dirty = changed;
        } else {
            self.unit_dirty = true;
        }
    }

    /// Appends plain text (see [`Core::plain_prefix`]) that is followed by
    /// a plain code point, so final after ASCII lower-casing.
    fn plain(&mut self, text: &str) {
        if self.unit_dirty {
            let end = self.out.len();
            self.close_unit(end);
            self.unit_dirty = false;
        }
        self.unit_start = self.out.len();
        push_ascii(self.out, text, self.core.fold);
    }

    fn finish(mut self) {
        if self.unit_dirty {
            let end = self.out.len();
            self.close_unit(end);
        }
    }

    /// Re-normalizes the unit `out[unit_start..end]` if the quick check does
    /// not vouch for it, keeping whatever follows `end`. Returns the new
    /// position of `end`.
    fn close_unit(&mut self, end: usize) -> usize {
        let unit = &self.out[self.unit_start..end];
        if quick_str::<F>(unit) {
            return end;
        }
        let scratch = &mut self.scratch;
        scratch.clear();
        F::normalize(unit.chars(), |c| scratch.push(c));
        let new_end = self.unit_start + scratch.len();
        scratch.push_str(&self.out[end..]);
        self.out.truncate(self.unit_start);
        self.out.push_str(scratch);
        new_end
    }
}

/// Appends `text` without the stripped code points and, when `fold`,
/// case-folded; reports whether folding changed anything. Stretches that
/// need neither are copied as whole slices.
fn copy_folded(out: &mut String, text: &str, strip: StripSet, fold: bool) -> bool {
    let mut changed = false;
    let mut from = 0;
    for (i, c) in text.char_indices() {
        let stripped = strip.contains(c);
        let folds = fold && has_folding(c);
        if !(stripped || folds) {
            continue;
        }
        out.push_str(&text[from..i]);
        from = i + c.len_utf8();
        if !stripped {
            changed |= push_folded(out, c);
        }
    }
    out.push_str(&text[from..]);
    changed
}

/// Length of the longest all-ASCII prefix of `bytes`, 16 bytes per step:
/// the first high bit of a chunk is found with `trailing_zeros`, so the end
/// of a short ASCII run costs no byte loop.
#[inline]
pub(super) fn ascii_prefix_len(bytes: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let word = |b: &[u8]| <[u8; 8]>::try_from(b).map_or(HIGH, |w| u64::from_le_bytes(w) & HIGH);
    let mut n = 0;
    while let Some(chunk) = bytes.get(n..n + 16) {
        let (lo, hi) = (word(&chunk[..8]), word(&chunk[8..]));
        if lo | hi != 0 {
            let first = if lo != 0 {
                lo.trailing_zeros()
            } else {
                64 + hi.trailing_zeros()
            };
            return n + (first / 8) as usize;
        }
        n += 16;
    }
    n + bytes[n..].iter().take_while(|b| b.is_ascii()).count()
}

/// Appends `text`, its ASCII letters lowercased when folding (the only
/// folding of ASCII and of the plain code points of [`Core::plain_prefix`]).
#[inline]
fn push_ascii(out: &mut String, text: &str, fold: bool) {
    let start = out.len();
    out.push_str(text);
    if fold {
        out[start..].make_ascii_lowercase();
    }
}

#[cfg(test)]
mod tests;
