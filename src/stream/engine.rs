//! The engine: raw byte chunks in, exactly the offline path's tokens out.
//!
//! State between chunks: the UTF-8 carry (≤ 3 bytes), the raw text not yet
//! sketched (`pending`, which starts at a split point or at the start of the
//! stream), the shingle windows, and reused buffers. See the module docs of
//! [`crate::stream`] for the memory bound and the cap.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::mem;

use super::shingle::{Stage, finish_all, push_through, stages_for};
use super::split::{Joined, SplitRules};
use super::utf8::{self, Carry, Decoded};
use crate::canonical::Canonicalizer;
use crate::tokenize::{StreamPlan, Tokenizer};
use crate::{Error, Result};

/// Pending text is sketched once it reaches this many bytes (or the cap, if
/// smaller) and holds a split point. Small enough to stay in cache, large
/// enough that per-call costs of canonicalizer and tokenizer vanish.
pub(crate) const FLUSH_BYTES: usize = 8 * 1024;

/// Deepest chain of shingle plans followed; a deeper (or cyclic) chain of
/// user tokenizers is buffered whole instead.
const MAX_PLAN_DEPTH: usize = 32;

/// How this configuration is streamed (decided on first use).
enum Mode {
    /// Cut at split points; tokens of the leaf tokenizer go through the
    /// shingle stages.
    Split(Box<SplitRules>),
    /// Keep the whole document, tokenize once at the end (user tokenizers
    /// without a plan, canonicalizers without split support).
    Buffered,
}

/// Largest sizes reached since creation or the last reset, for tests and
/// for the memory claims in the docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HighWater {
    /// Raw text held between and during updates.
    pub(crate) pending: usize,
    /// Canonical text of one flushed batch.
    pub(crate) canonical: usize,
    /// Bytes held by the shingle windows.
    pub(crate) windows: usize,
}

/// Follows a chain of [`StreamPlan::Shingle`] down to the tokenizer that
/// reads the text, calling `on_k` with each window size (outermost first).
/// `None` when the chain ends in a tokenizer without a streaming plan.
fn leaf<'t>(tok: &'t dyn Tokenizer, on_k: &mut dyn FnMut(usize)) -> Option<&'t dyn Tokenizer> {
    let mut cur = tok;
    for _ in 0..MAX_PLAN_DEPTH {
        match cur.stream_plan() {
            StreamPlan::Splittable => return Some(cur),
            StreamPlan::Shingle { k, inner } => {
                on_k(k);
                cur = inner;
            }
            _ => return None,
        }
    }
    None
}

fn cap_error(bytes: usize, max: usize, split: bool) -> Error {
    Error::InvalidInput(if split {
        format!(
            "streaming buffer exceeded cap: {bytes} bytes of text without a split point \
             (ASCII whitespace followed by ASCII text), max_bytes is {max}"
        )
    } else {
        format!(
            "streaming buffer exceeded cap: the document would reach {bytes} bytes, max_bytes \
             is {max} (this configuration cannot be split, so the whole document is held)"
        )
    })
}

/// Streaming state for one document; see the [module docs](super).
pub(crate) struct Engine {
    max_bytes: usize,
    /// [`FLUSH_BYTES`], lowered by tests to cut at every split point.
    flush_bytes: usize,
    mode: Option<Mode>,
    stages: Vec<Stage>,
    carry: Carry,
    /// Raw text not yet sketched; starts at a split point or stream start.
    pending: String,
    /// Split candidates before this offset of `pending` were examined.
    scan_from: usize,
    /// Offset in `pending` of the last split point (0: its start).
    last_split: usize,
    canonical: String,
    cuts: Vec<usize>,
    /// Bytes accepted by successful updates, carry included.
    seen: u64,
    high: HighWater,
}

impl Engine {
    pub(crate) fn new(max_bytes: usize) -> Self {
        Engine {
            max_bytes,
            flush_bytes: FLUSH_BYTES,
            mode: None,
            stages: Vec::new(),
            carry: Carry::default(),
            pending: String::new(),
            scan_from: 0,
            last_split: 0,
            canonical: String::new(),
            cuts: Vec::new(),
            seen: 0,
            high: HighWater::default(),
        }
    }

    pub(crate) fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    pub(crate) fn set_max_bytes(&mut self, max_bytes: usize) {
        self.max_bytes = max_bytes;
    }

    #[cfg(test)]
    pub(crate) fn set_flush_bytes(&mut self, flush_bytes: usize) {
        self.flush_bytes = flush_bytes;
    }

    /// Raw bytes accepted but not yet sketched (the carry excluded).
    pub(crate) fn pending_len(&self) -> usize {
        self.pending.len()
    }

    pub(crate) fn bytes_seen(&self) -> u64 {
        self.seen
    }

    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn high_water(&self) -> HighWater {
        self.high
    }

    /// Forget the document; keep buffers, cap and the configuration checks.
    pub(crate) fn reset(&mut self) {
        self.stages.iter_mut().for_each(Stage::clear);
        self.carry = Carry::default();
        self.pending.clear();
        self.scan_from = 0;
        self.last_split = 0;
        self.canonical.clear();
        self.cuts.clear();
        self.seen = 0;
        self.high = HighWater::default();
    }

    /// Checks the configuration and picks the mode, once.
    fn prepare(&mut self, canon: &Canonicalizer, tok: &dyn Tokenizer) -> Result<()> {
        if self.mode.is_some() {
            return Ok(());
        }
        canon.check()?;
        tok.validate()?;
        let mut ks = Vec::new();
        let splittable = leaf(tok, &mut |k| ks.push(k)).is_some();
        let rules = if splittable {
            SplitRules::new(canon)
        } else {
            None
        };
        self.mode = Some(match rules {
            Some(rules) => {
                self.stages = stages_for(&ks);
                Mode::Split(Box::new(rules))
            }
            None => Mode::Buffered,
        });
        Ok(())
    }

    /// Accepts `chunk` whole or not at all: on error nothing changes.
    pub(crate) fn update(
        &mut self,
        canon: &Canonicalizer,
        tok: &dyn Tokenizer,
        chunk: &[u8],
        sink: &mut dyn FnMut(&str),
    ) -> Result<()> {
        if chunk.is_empty() {
            return Ok(());
        }
        self.prepare(canon, tok)?;
        let carry_start = self.seen - self.carry.len() as u64;
        let decoded = utf8::decode(&self.carry, chunk).map_err(|i| Error::InvalidUtf8 {
            offset: carry_start + i as u64,
        })?;
        let mode = self.mode.take();
        let result = match &mode {
            Some(Mode::Split(rules)) => self.update_split(rules, canon, tok, decoded, sink),
            _ => self.update_buffered(decoded),
        };
        self.mode = mode;
        result?;
        self.seen = self.seen.saturating_add(chunk.len() as u64);
        Ok(())
    }

    fn update_buffered(&mut self, d: Decoded<'_>) -> Result<()> {
        let total = self.pending.len() + d.head.len() + d.body.len() + d.carry.len();
        if total > self.max_bytes {
            return Err(cap_error(total, self.max_bytes, false));
        }
        self.pending.push_str(d.head.as_str());
        self.pending.push_str(d.body);
        self.carry = d.carry;
        self.high.pending = self.high.pending.max(self.pending.len());
        Ok(())
    }

    fn update_split(
        &mut self,
        rules: &SplitRules,
        canon: &Canonicalizer,
        tok: &dyn Tokenizer,
        d: Decoded<'_>,
        sink: &mut dyn FnMut(&str),
    ) -> Result<()> {
        let Some(leaf) = leaf(tok, &mut |_| {}) else {
            return Err(Error::Config(String::from(
                "the tokenizer's stream plan changed during the stream",
            )));
        };
        let mut p = mem::take(&mut self.pending);
        let old_len = p.len();
        p.push_str(d.head.as_str());
        let planned = self.plan_cuts(rules, &p, d.body, d.carry.len());
        let last = match planned {
            Ok(last) => last,
            Err(e) => {
                p.truncate(old_len);
                self.pending = p;
                return Err(e);
            }
        };
        // Committed from here on: nothing below can fail.
        self.carry = d.carry;
        let body = d.body;
        let plen = p.len();
        let len = plen + body.len();
        let mut prev = 0;
        let cuts = mem::take(&mut self.cuts);
        // Cuts are split points, i.e. positions of ASCII bytes, hence char
        // boundaries of `p` and `body`, and increasing.
        for &c in &cuts {
            if c <= plen {
                self.flush(canon, leaf, &p[prev..c], sink);
            } else if prev < plen {
                p.push_str(&body[..c - plen]);
                self.high.pending = self.high.pending.max(p.len());
                self.flush(canon, leaf, &p[prev..], sink);
            } else {
                self.flush(canon, leaf, &body[prev - plen..c - plen], sink);
            }
            prev = c;
        }
        self.cuts = cuts;
        if prev <= plen {
            p.drain(..prev);
            p.push_str(body);
        } else {
            p.clear();
            p.push_str(&body[prev - plen..]);
        }
        self.high.pending = self.high.pending.max(p.len());
        self.pending = p;
        self.last_split = last - prev;
        self.scan_from = len.saturating_sub(1).saturating_sub(prev);
        Ok(())
    }

    /// Finds the split points of `p ++ body` not seen before, checks every
    /// stretch between two of them (and the open stretch at the end, carry
    /// included) against the cap, and lists in `self.cuts` where to flush.
    /// Returns the last split point. Reads the text only.
    fn plan_cuts(
        &mut self,
        rules: &SplitRules,
        p: &str,
        body: &str,
        carry_len: usize,
    ) -> Result<usize> {
        let text = Joined {
            a: p.as_bytes(),
            b: body.as_bytes(),
        };
        let max = self.max_bytes;
        let threshold = self.flush_bytes.min(max).max(1);
        self.cuts.clear();
        let mut last = self.last_split;
        let mut cut = 0;
        for j in rules.splits(text, self.scan_from) {
            if j - last > max {
                return Err(cap_error(j - last, max, true));
            }
            last = j;
            if j - cut >= threshold {
                self.cuts.push(j);
                cut = j;
            }
        }
        // A pair at the very end is a split if the stream stops there or
        // goes on with ASCII; measuring up to it keeps the verdict the same
        // however the stream is chunked.
        let len = text.len();
        let mut end = len;
        if carry_len == 0
            && len >= 2
            && len - 1 > last
            && rules.pair(text.get(len - 2), text.get(len - 1))
        {
            end = len - 1;
        }
        let open = end - last + carry_len;
        if open > max {
            return Err(cap_error(open, max, true));
        }
        Ok(last)
    }

    /// Canonicalizes one batch (which starts and ends at split points, or at
    /// the ends of the stream) and feeds its tokens on.
    fn flush(
        &mut self,
        canon: &Canonicalizer,
        leaf: &dyn Tokenizer,
        text: &str,
        sink: &mut dyn FnMut(&str),
    ) {
        self.canonical.clear();
        canon.canonicalize_into(text, &mut self.canonical);
        self.high.canonical = self.high.canonical.max(self.canonical.len());
        let stages = &mut self.stages;
        leaf.for_each_token(&self.canonical, &mut |t| push_through(stages, t, sink));
        let held = self.stages.iter().map(Stage::held).sum::<usize>();
        self.high.windows = self.high.windows.max(held);
    }

    /// Ends the stream: the last batch, the short shingle windows. The
    /// sketch decides about "no tokens"; this only rejects a stream that
    /// ends inside a UTF-8 sequence or never had a byte.
    pub(crate) fn finish(
        &mut self,
        canon: &Canonicalizer,
        tok: &dyn Tokenizer,
        sink: &mut dyn FnMut(&str),
    ) -> Result<()> {
        self.prepare(canon, tok)?;
        if !self.carry.is_empty() {
            return Err(Error::InvalidInput(String::from(
                "trailing incomplete UTF-8",
            )));
        }
        if self.seen == 0 {
            return Err(Error::InvalidInput(String::from("empty document")));
        }
        let p = mem::take(&mut self.pending);
        let mode = self.mode.take();
        let result = match &mode {
            Some(Mode::Split(_)) => match leaf(tok, &mut |_| {}) {
                Some(leaf) => {
                    if !p.is_empty() {
                        self.flush(canon, leaf, &p, sink);
                    }
                    finish_all(&mut self.stages, sink);
                    Ok(())
                }
                None => Err(Error::Config(String::from(
                    "the tokenizer's stream plan changed during the stream",
                ))),
            },
            _ => {
                // Exactly the offline path: the whole text, the tokenizer
                // itself (not a plan of it).
                self.canonical.clear();
                canon.canonicalize_into(&p, &mut self.canonical);
                self.high.canonical = self.high.canonical.max(self.canonical.len());
                tok.for_each_token(&self.canonical, sink);
                Ok(())
            }
        };
        self.mode = mode;
        self.pending = p;
        result
    }
}
