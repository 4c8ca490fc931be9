//! A resolved [`Corpus`] as a [`DocumentSource`]: shards read ahead on a
//! thread of their own, records parsed on the pool, bad records logged.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::sync_channel;

use rayon::prelude::*;

use super::{DocumentSource, SourceDoc};
use crate::corpus::{Block, Corpus, CorpusError, Key, ReadOptions, Skip};
use crate::{Error, Result};

/// Bad records listed one by one in a [`SkipLog`]; the rest are counted.
pub const MAX_LISTED_SKIPS: usize = 1000;

/// Blocks read ahead of the one being fingerprinted.
const READ_AHEAD: usize = 2;

/// The records a first pass could not read.
#[derive(Clone, Debug, Default)]
pub struct SkipLog {
    /// How many.
    pub count: u64,
    /// The first [`MAX_LISTED_SKIPS`] of them, as `(place, reason)`.
    pub listed: Vec<(String, String)>,
    /// Documents read.
    pub documents: u64,
}

impl SkipLog {
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "count": self.count,
            "documents": self.documents,
            "listed": self.listed,
        })
    }

    /// Reads a log [`CorpusSource::with_log_file`] wrote.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] or [`Error::Corrupt`] naming the file.
    pub fn load(path: &std::path::Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| super::workdir::io_error(path, "cannot read", e))?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Error::Corrupt(format!("{}: {e}", path.display())))?;
        let listed = v["listed"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|p| Some((p[0].as_str()?.to_string(), p[1].as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Self {
            count: v["count"].as_u64().unwrap_or(0),
            documents: v["documents"].as_u64().unwrap_or(0),
            listed,
        })
    }
}

/// A [`Corpus`] read as a [`DocumentSource`].
///
/// A document's id is its id column's JSON text (`"s001"`, `17`), or, when
/// the record has none, a JSON string `"FILE:ROW"`. The first pass logs the
/// records it skips ([`skips`](Self::skips)); with
/// [`strict`](Self::strict) the first bad record ends the run instead.
#[derive(Debug)]
pub struct CorpusSource<'a> {
    corpus: &'a Corpus,
    opts: ReadOptions,
    strict: bool,
    passes: AtomicUsize,
    log: Mutex<SkipLog>,
    log_file: Option<std::path::PathBuf>,
}

impl<'a> CorpusSource<'a> {
    /// Reads `corpus` with `opts` (columns, block size, record cap).
    pub fn new(corpus: &'a Corpus, opts: ReadOptions) -> Self {
        Self {
            corpus,
            opts,
            strict: false,
            passes: AtomicUsize::new(0),
            log: Mutex::new(SkipLog::default()),
            log_file: None,
        }
    }

    /// Write the [`SkipLog`] to `path` when the first pass ends, before the
    /// run marks that pass finished: a resumed run that skips the pass reads
    /// the log back with [`SkipLog::load`].
    #[must_use]
    pub fn with_log_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.log_file = Some(path.into());
        self
    }

    /// Fail on the first bad record rather than skipping it.
    #[must_use]
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// What the first pass skipped so far.
    pub fn skips(&self) -> SkipLog {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The corpus.
    pub fn corpus(&self) -> &Corpus {
        self.corpus
    }

    /// The read options.
    pub fn read_options(&self) -> &ReadOptions {
        &self.opts
    }
}

impl DocumentSource for CorpusSource<'_> {
    fn identity(&self) -> String {
        format!(
            "corpus {:016x} shards {} text {:?} id {:?} max-record {}",
            self.corpus.fingerprint(),
            self.corpus.shards().len(),
            self.opts.get_text_column(),
            self.opts.get_id_column(),
            self.opts.get_max_record_bytes()
        )
    }

    fn total_bytes(&self) -> u64 {
        self.corpus.total_bytes()
    }

    fn read(&self, sink: &mut dyn FnMut(&[SourceDoc<'_>], u64) -> Result<()>) -> Result<()> {
        self.read_some(None, sink)
    }

    /// Records `wanted` refuses are never parsed; the pass is not logged.
    fn read_wanted(
        &self,
        wanted: &mut dyn FnMut(u64) -> bool,
        sink: &mut dyn FnMut(&[SourceDoc<'_>], u64) -> Result<()>,
    ) -> Result<()> {
        self.read_some(Some(wanted), sink)
    }
}

impl CorpusSource<'_> {
    /// Every document (the first such pass logs the skipped records), or
    /// those `wanted` accepts.
    fn read_some(
        &self,
        mut wanted: Option<&mut dyn FnMut(u64) -> bool>,
        sink: &mut dyn FnMut(&[SourceDoc<'_>], u64) -> Result<()>,
    ) -> Result<()> {
        let first_pass = wanted.is_none() && self.passes.fetch_add(1, Ordering::Relaxed) == 0;
        let (tx, rx) = sync_channel::<core::result::Result<(Block, u64), CorpusError>>(READ_AHEAD);
        std::thread::scope(|scope| {
            let reader = scope.spawn(move || {
                let mut base = 0u64;
                for shard in self.corpus.shards() {
                    let blocks = match shard.blocks(&self.opts) {
                        Ok(b) => b,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    };
                    for block in blocks {
                        let failed = block.is_err();
                        let msg = block.map(|b| {
                            let at = base + b.input_position();
                            (b, at)
                        });
                        // A closed channel means the consumer stopped.
                        if tx.send(msg).is_err() || failed {
                            return;
                        }
                    }
                    base += shard.size();
                }
            });
            let mut done = 0u64;
            let mut ids: Vec<String> = Vec::new();
            let result = (|| -> Result<()> {
                for msg in &rx {
                    let (block, at) = msg.map_err(Error::Corpus)?;
                    let records: Vec<_> = match wanted.as_mut() {
                        None => block.par_records().collect(),
                        Some(wanted) => {
                            let shard = block.shard();
                            let picked: Vec<usize> = (0..block.len())
                                .filter(|&i| {
                                    block
                                        .row(i)
                                        .is_some_and(|row| wanted(Self::key_of(Key { shard, row })))
                                })
                                .collect();
                            picked.par_iter().filter_map(|&i| block.record(i)).collect()
                        }
                    };
                    let mut docs = Vec::with_capacity(records.len());
                    let mut skipped = Vec::new();
                    for r in &records {
                        match r {
                            Ok(d) => docs.push(d),
                            Err(s) if self.strict => {
                                return Err(Error::InvalidInput(s.to_string()));
                            }
                            Err(s) => skipped.push(s),
                        }
                    }
                    if first_pass {
                        self.log_batch(&skipped, docs.len() as u64);
                    }
                    ids.clear();
                    for d in &docs {
                        ids.push(match &d.id {
                            Some(id) => id.to_string(),
                            None => fallback_id(self.corpus, d.key),
                        });
                    }
                    let batch: Vec<SourceDoc<'_>> = docs
                        .iter()
                        .zip(&ids)
                        .map(|(d, id)| SourceDoc {
                            id,
                            text: &d.text,
                            key: Self::key_of(d.key),
                        })
                        .collect();
                    let bytes = at.saturating_sub(done);
                    done = done.max(at);
                    sink(&batch, bytes)?;
                }
                Ok(())
            })();
            drop(rx);
            let _ = reader.join();
            if first_pass
                && result.is_ok()
                && let Some(path) = &self.log_file
            {
                let text = self.skips().to_json().to_string();
                std::fs::write(path, text)
                    .map_err(|e| super::workdir::io_error(path, "cannot write", e))?;
            }
            result
        })
    }

    /// The [`SourceDoc::key`] of a corpus key: the shard in the high 24
    /// bits, the row in the low 40, so keys sort like corpus keys.
    pub fn key_of(key: Key) -> u64 {
        (u64::from(key.shard) << 40) | (key.row & ((1 << 40) - 1))
    }

    fn log_batch(&self, skipped: &[&Skip], documents: u64) {
        if let Ok(mut log) = self.log.lock() {
            log.documents += documents;
            for s in skipped {
                log.count += 1;
                if log.listed.len() < MAX_LISTED_SKIPS {
                    log.listed.push((s.place.clone(), s.reason.clone()));
                }
            }
        }
    }
}

/// `"FILE:ROW"` as a JSON string, for a record without an id.
fn fallback_id(corpus: &Corpus, key: Key) -> String {
    let name = corpus
        .shards()
        .get(key.shard as usize)
        .map_or("", |s| s.name());
    serde_json::to_string(&format!("{name}:{}", key.row)).unwrap_or_default()
}
