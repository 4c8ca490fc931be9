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
    /// The first [`MAX_LISTED_SKIPS`] of them.
    pub listed: Vec<Skip>,
    /// Every skipped record's key, in input order (what a write pass must
    /// leave out).
    pub keys: Vec<Key>,
    /// Documents read.
    pub documents: u64,
    /// Documents read from each shard, by shard index.
    pub per_shard: Vec<u64>,
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
        }
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

/// A corpus error as the crate's error, the file named either way.
pub fn corpus_error(e: CorpusError) -> Error {
    match &e {
        CorpusError::Io { source, .. } if source.kind() != std::io::ErrorKind::Other => {
            Error::Io(std::io::Error::new(source.kind(), e.to_string()))
        }
        _ => Error::InvalidInput(e.to_string()),
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
        let first_pass = self.passes.fetch_add(1, Ordering::Relaxed) == 0;
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
                    let (block, at) = msg.map_err(corpus_error)?;
                    let records: Vec<_> = block.par_records().collect();
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
                        self.log_batch(block.shard(), &skipped, docs.len() as u64);
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
                        .map(|(d, id)| SourceDoc { id, text: &d.text })
                        .collect();
                    let bytes = at.saturating_sub(done);
                    done = done.max(at);
                    sink(&batch, bytes)?;
                }
                Ok(())
            })();
            drop(rx);
            let _ = reader.join();
            result
        })
    }
}

impl CorpusSource<'_> {
    fn log_batch(&self, shard: u32, skipped: &[&Skip], documents: u64) {
        if let Ok(mut log) = self.log.lock() {
            log.documents += documents;
            if log.per_shard.len() <= shard as usize {
                log.per_shard.resize(shard as usize + 1, 0);
            }
            log.per_shard[shard as usize] += documents;
            for s in skipped {
                log.count += 1;
                log.keys.push(s.key);
                if log.listed.len() < MAX_LISTED_SKIPS {
                    log.listed.push((*s).clone());
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
    let mut out = String::with_capacity(name.len() + 24);
    out.push('"');
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push_str(&format!(":{}\"", key.row));
    out
}
