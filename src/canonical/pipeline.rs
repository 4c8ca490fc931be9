//! The fused strip → normalize → fold → re-normalize pass (spec §2.2).
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
//! * runs of ASCII that are followed by ASCII are copied (lowercased when
//!   folding) without any table lookup. The last ASCII character before a
//!   non-ASCII one is kept back, because a combining mark after it composes
//!   with it (`e` + U+0301 → `é`).
//!
//! The output is byte-identical to the staged pipeline; the property tests
//! in `proptests.rs` compare the two on random text under every
//! configuration.

use alloc::string::String;
use core::iter;

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick, is_nfkc_quick};

use super::fold::push_folded;
use super::strip::StripSet;
use super::{CanonicalizerBuilder, CaseFold, Normalization};

/// The part of a configuration that the pass needs, flattened.
#[derive(Clone, Copy, Debug)]
pub(super) struct Core {
    form: Normalization,
    fold: bool,
    strip: StripSet,
}

impl Core {
    pub(super) fn new(config: &CanonicalizerBuilder) -> Self {
        Core {
            form: config.normalization,
            fold: config.case_fold == CaseFold::Simple,
            strip: StripSet {
                bidi: config.strip_bidi,
                format: config.strip_format,
            },
        }
    }

    /// Appends the canonical form of `input` (without the skeleton) to `out`.
    pub(super) fn run(self, input: &str, out: &mut String) {
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
            let Some(c) = input[i..].chars().next() else {
                break;
            };
            i += c.len_utf8();
            if self.strip.contains(c) {
                continue;
            }
            if self.fold {
                push_folded(out, c);
            } else {
                out.push(c);
            }
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
            let ascii = ascii_prefix_len(&bytes[i..]);
            if ascii > 0 {
                let end = i + ascii;
                if let Some(p) = pending.take() {
                    emit.flush(&input[..i], p);
                }
                if ascii > 1 {
                    // Each of these is followed by ASCII: nothing can
                    // compose with it, and its folding is plain ASCII.
                    emit.ascii(&input[i..end - 1]);
                }
                pending = Some(Pending::new(end - 1, 0, true));
                i = end;
                continue;
            }
            let Some(c) = input[i..].chars().next() else {
                break;
            };
            let next = i + c.len_utf8();
            if self.strip.contains(c) {
                // Removed before normalization: the code points around it
                // become neighbours, so it does not end anything.
                i = next;
                continue;
            }
            let ccc = canonical_combining_class(c);
            let yes = F::quick_char(c);
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
        let strip = self.core.strip;
        let kept = text.chars().filter(move |&c| !strip.contains(c));
        if !self.core.fold {
            // No folding, no second normalization: the text is final.
            if already_normalized {
                kept.for_each(|c| self.out.push(c));
            } else {
                F::normalize(kept, |c| self.out.push(c));
            }
            return;
        }
        let mut changed = false;
        let out = &mut *self.out;
        if already_normalized {
            kept.for_each(|c| changed |= push_folded(out, c));
        } else {
            F::normalize(kept, |c| changed |= push_folded(out, c));
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

    /// Appends ASCII text that is followed by ASCII (so already final).
    fn ascii(&mut self, text: &str) {
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
        if F::quick_str(unit) {
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

/// Whether the first code point of `s` is safe (see the module docs).
fn head_is_safe<F: Form>(s: &str) -> bool {
    match s.chars().next() {
        Some(c) if c.is_ascii() => true,
        Some(c) => canonical_combining_class(c) == 0 && F::quick_char(c),
        None => false,
    }
}

/// Length of the longest all-ASCII prefix of `bytes`.
#[inline]
pub(super) fn ascii_prefix_len(bytes: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut n = 0;
    for chunk in bytes.chunks_exact(8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        if u64::from_ne_bytes(word) & HIGH != 0 {
            break;
        }
        n += 8;
    }
    n + bytes[n..].iter().take_while(|b| b.is_ascii()).count()
}

/// Appends ASCII `text`, lowercased when folding.
#[inline]
fn push_ascii(out: &mut String, text: &str, fold: bool) {
    let start = out.len();
    out.push_str(text);
    if fold {
        out[start..].make_ascii_lowercase();
    }
}

/// One normalization form, so the pass is compiled once per form.
pub(super) trait Form {
    /// The code point's quick-check value is `Yes`.
    fn quick_char(c: char) -> bool;
    /// The quick check of the whole string is `Yes`.
    fn quick_str(s: &str) -> bool;
    /// Feeds the normalization of `chars` to `f`.
    fn normalize<I: Iterator<Item = char>>(chars: I, f: impl FnMut(char));
}

/// Canonical composition.
pub(super) struct Nfc;
/// Compatibility composition.
pub(super) struct Nfkc;

impl Form for Nfc {
    #[inline]
    fn quick_char(c: char) -> bool {
        is_nfc_quick(iter::once(c)) == IsNormalized::Yes
    }
    fn quick_str(s: &str) -> bool {
        is_nfc_quick(s.chars()) == IsNormalized::Yes
    }
    fn normalize<I: Iterator<Item = char>>(chars: I, f: impl FnMut(char)) {
        chars.nfc().for_each(f)
    }
}

impl Form for Nfkc {
    #[inline]
    fn quick_char(c: char) -> bool {
        is_nfkc_quick(iter::once(c)) == IsNormalized::Yes
    }
    fn quick_str(s: &str) -> bool {
        is_nfkc_quick(s.chars()) == IsNormalized::Yes
    }
    fn normalize<I: Iterator<Item = char>>(chars: I, f: impl FnMut(char)) {
        chars.nfkc().for_each(f)
    }
}
