//! `txtfp store ingest`: documents streamed from the input into the store
//! in batches; each batch's decisions reach the decisions file before the
//! next batch starts.
//!
//! Memory does not grow with the input: the reader holds one block of the
//! input, the batch at most `--batch` documents or [`BATCH_TEXT_BYTES`] of
//! text (plus one document), and the repeated-id check a bounded set.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fs::File;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use txtfp::corpus::{
    Corpus, CorpusError, DEFAULT_MAX_RECORD_BYTES, Format, ReadOptions, ResolveOptions,
};
use txtfp::store::{
    Action, DecisionRecord, GlobalFingerprintStore, IncomingDocument, PreparedBatch,
};

use crate::error::{CliError, CliResult};
use crate::input::{DuplicateIds, display_name, plain_id};
use crate::jsonl::{self, Columns};
use crate::progress::Progress;
use crate::store::IngestArgs;

/// A batch goes to the store once it holds this much text, whatever
/// `--batch` says: the batch is held in memory until the store returns.
pub const BATCH_TEXT_BYTES: usize = 64 << 20;

/// Distinct ids the repeated-id check remembers exactly (as 64-bit
/// hashes, about 20 MiB at most).
const TRACKED_IDS: usize = 1 << 21;

/// Runs `txtfp store ingest` into `store`.
pub fn run(a: &IngestArgs, store: &GlobalFingerprintStore) -> CliResult {
    let name = display_name(&a.input);
    let input = Input::open(&a.input, &name)?;
    // Created only once the input is known to be readable, so that a
    // mistyped input does not truncate an earlier decisions file.
    let out = match &a.decisions {
        Some(p) => Decisions::file(p)?,
        None => Decisions::Stdout,
    };
    let total = match &input {
        Input::Corpus(c) => c.total_bytes(),
        Input::Lines(_) | Input::Nothing => 0,
    };
    let mut run = Run::new(a, store, name, out, Progress::new(total, a.quiet), total);
    let read = match input {
        Input::Corpus(c) => feed_corpus(&c, a, &mut run),
        Input::Lines(file) => feed_lines(file, a, &mut run),
        Input::Nothing => Ok(()),
    };
    run.end(read)
}

/// Where the documents come from.
enum Input {
    /// Files and stdin, through the library's streaming reader.
    Corpus(Corpus),
    /// A pipe or a device named as a file (`<(zcat ...)`, `/dev/stdin`):
    /// the corpus reader only takes files it can stat and reopen, so it is
    /// read here, line by line.
    Lines(File),
    /// A folder without a file.
    Nothing,
}

impl Input {
    fn open(path: &Path, name: &str) -> CliResult<Input> {
        let failed = |e: CorpusError| CliError::Failed(e.to_string());
        if path.as_os_str() == "-" {
            let jsonl = ResolveOptions::default().format(Some(Format::Jsonl));
            return Corpus::resolve(["-"], &jsonl)
                .map(Input::Corpus)
                .map_err(failed);
        }
        let meta = std::fs::metadata(path).map_err(|e| CliError::read(name, e))?;
        if meta.is_dir() {
            // Every file is one document, `.jsonl` ones included, named by
            // its path in the folder.
            let text = ResolveOptions::default().format(Some(Format::Text));
            return match Corpus::resolve([path], &text) {
                Ok(c) => Ok(Input::Corpus(c)),
                Err(CorpusError::Empty { left_out, .. }) => {
                    for w in left_out {
                        eprintln!("txtfp: {w}");
                    }
                    Ok(Input::Nothing)
                }
                Err(e) => Err(failed(e)),
            };
        }
        if !meta.is_file() {
            let file = File::open(path).map_err(|e| CliError::read(name, e))?;
            return Ok(Input::Lines(file));
        }
        // The resolver reads `@FILE` as a list of inputs; a file named on
        // the command line is taken as it is.
        let literal = if path.as_os_str().as_encoded_bytes().starts_with(b"@") {
            Path::new(".").join(path)
        } else {
            path.to_path_buf()
        };
        Corpus::resolve([&literal], &ResolveOptions::default())
            .map(Input::Corpus)
            .map_err(failed)
    }
}

/// Every record of `corpus`, block by block, in input order.
fn feed_corpus(corpus: &Corpus, a: &IngestArgs, run: &mut Run<'_>) -> CliResult {
    for w in corpus.warnings() {
        eprintln!("txtfp: {w}");
    }
    let opts = ReadOptions::default()
        .text_column(&a.text_column)
        .id_column(Some(&a.id_column))
        .extra_column(a.source_column.as_deref());
    let failed = |e: CorpusError| CliError::Failed(e.to_string());
    let mut before = 0u64;
    for shard in corpus.shards() {
        for block in shard.blocks(&opts).map_err(failed)? {
            let block = block.map_err(failed)?;
            let records: Vec<_> = block.par_records().collect();
            for r in records {
                match r {
                    Ok(d) => {
                        let id = d.id.map_or_else(|| d.key.row.to_string(), Cow::into_owned);
                        run.doc(id, d.text.into_owned(), d.extra.map(Cow::into_owned))?;
                    }
                    Err(skip) => run.skip(skip.to_string())?,
                }
            }
            run.progress_at(before + block.input_position());
        }
        before += shard.size();
    }
    Ok(())
}

/// Every JSONL line of `file`, one at a time; a line longer than the corpus
/// reader's record limit is skipped without being held.
fn feed_lines(file: File, a: &IngestArgs, run: &mut Run<'_>) -> CliResult {
    let cols = Columns {
        text: &a.text_column,
        id: &a.id_column,
        extra: a.source_column.as_deref(),
    };
    let name = run.name.clone();
    let read_err = |e| CliError::read(&name, e);
    let max = DEFAULT_MAX_RECORD_BYTES;
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        let n = (&mut r)
            .take(max.saturating_add(1))
            .read_until(b'\n', &mut line)
            .map_err(read_err)?;
        if n == 0 {
            return Ok(());
        }
        number += 1;
        let mut content = line.as_slice();
        if let Some(rest) = content.strip_suffix(b"\n") {
            content = rest.strip_suffix(b"\r").unwrap_or(rest);
        } else if n as u64 > max {
            skip_line(&mut r).map_err(read_err)?;
            run.skip(format!("{name}:{number}: a line longer than {max} bytes"))?;
            continue;
        }
        if content.trim_ascii().is_empty() {
            continue;
        }
        match jsonl::parse_line(content, cols) {
            Ok(f) => {
                let id = f.id.map_or_else(|| number.to_string(), str::to_owned);
                run.doc(id, f.text.into_owned(), f.extra.map(Cow::into_owned))?;
            }
            Err(reason) => run.skip(format!("{name}:{number}: {reason}"))?,
        }
    }
}

/// Reads past the rest of the current line.
fn skip_line(r: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        if let Some(i) = memchr::memchr(b'\n', buf) {
            r.consume(i + 1);
            return Ok(());
        }
        let n = buf.len();
        r.consume(n);
    }
}

/// Where decisions go. Each batch's lines are handed to the OS in one
/// write before the next batch is sent to the store, so that whatever
/// kills the process, the file holds the decisions of the batches the
/// store committed (short of the last one, if killed between commit and
/// write) as whole lines, a last line without its `\n` only if killed
/// within that write.
enum Decisions {
    File { name: String, file: File },
    Stdout,
}

impl Decisions {
    /// Creates (truncates) `path`.
    fn file(path: &Path) -> CliResult<Decisions> {
        let name = path.display().to_string();
        let file = File::create(path)
            .map_err(|e| CliError::Failed(format!("{name}: cannot create: {e}")))?;
        Ok(Decisions::File { name, file })
    }

    /// Writes `bytes` through to the OS (no buffer kept here).
    fn write(&mut self, bytes: &[u8]) -> CliResult {
        if bytes.is_empty() {
            return Ok(());
        }
        match self {
            Decisions::File { name, file } => {
                file.write_all(bytes).map_err(|e| CliError::write(name, e))
            }
            Decisions::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes)
                    .and_then(|()| out.flush())
                    .map_err(|e| CliError::write("<stdout>", e))
            }
        }
    }

    /// Makes a regular file durable (a device such as `/dev/null` cannot
    /// be synced, nor needs to be).
    fn finish(self) -> CliResult {
        match self {
            Decisions::File { name, file } => {
                let regular = file.metadata().map(|m| m.is_file()).unwrap_or(false);
                if regular {
                    file.sync_all().map_err(|e| CliError::write(&name, e))?;
                }
                Ok(())
            }
            Decisions::Stdout => Ok(()),
        }
    }
}

/// One ingest run: the batch being filled, the output and the counts.
struct Run<'a> {
    store: &'a GlobalFingerprintStore,
    source: &'a str,
    strict: bool,
    quiet: bool,
    batch: usize,
    name: String,
    out: Option<Decisions>,
    progress: Progress,
    total: u64,
    /// The batch: documents, their ids as JSON text (for messages), and
    /// their text bytes.
    pending: Vec<IncomingDocument>,
    pending_ids: Vec<String>,
    pending_text: usize,
    /// The batch fingerprinted while the one before it was decided, with
    /// its ids: decided at the next flush.
    ahead: Option<(PreparedBatch, Vec<String>)>,
    /// Documents read (decided or rejected).
    docs: u64,
    counts: [u64; 6],
    skipped: u64,
    first_skip: Option<String>,
    rejected: u64,
    first_rejected: Option<String>,
    repeats: Repeats,
}

impl<'a> Run<'a> {
    fn new(
        a: &'a IngestArgs,
        store: &'a GlobalFingerprintStore,
        name: String,
        out: Decisions,
        progress: Progress,
        total: u64,
    ) -> Self {
        progress.phase("ingesting");
        Run {
            store,
            source: &a.source,
            strict: a.strict,
            quiet: a.quiet,
            batch: usize::try_from(a.batch).unwrap_or(usize::MAX).max(1),
            name,
            out: Some(out),
            progress,
            total,
            pending: Vec::new(),
            pending_ids: Vec::new(),
            pending_text: 0,
            ahead: None,
            docs: 0,
            counts: [0; 6],
            skipped: 0,
            first_skip: None,
            rejected: 0,
            first_rejected: None,
            repeats: Repeats::new(),
        }
    }

    /// Adds a document to the batch; sends the batch when it is full.
    fn doc(&mut self, id_json: String, text: String, source: Option<String>) -> CliResult {
        let id = plain_id(&id_json);
        let source = source.unwrap_or_else(|| self.source.to_owned());
        self.docs += 1;
        self.pending_text = self.pending_text.saturating_add(text.len());
        self.pending.push(IncomingDocument::new(id, text, source));
        self.pending_ids.push(id_json);
        if self.pending.len() >= self.batch || self.pending_text >= BATCH_TEXT_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// A record that could not be read. With `--strict` the documents
    /// before it are still ingested, then the run stops.
    fn skip(&mut self, skip: String) -> CliResult {
        if self.strict {
            self.drain()?;
            return Err(CliError::Failed(skip));
        }
        eprintln!("txtfp: skipped {skip}");
        self.skipped += 1;
        self.first_skip.get_or_insert(skip);
        Ok(())
    }

    fn progress_at(&self, done: u64) {
        self.progress.stage("ingesting", done, self.total);
    }

    /// Fingerprints the batch while the store decides the one before it
    /// (so both cores work during the decisions, which run in order on
    /// one), then writes that one's decisions.
    fn flush(&mut self) -> CliResult {
        if self.pending.is_empty() {
            return Ok(());
        }
        let docs = std::mem::take(&mut self.pending);
        let ids = std::mem::take(&mut self.pending_ids);
        self.pending_text = 0;
        let store = self.store;
        let before = self.ahead.take();
        // The decisions of the batch before are written as soon as the
        // store has committed it, not once the fingerprinting is done.
        let (written, next) = rayon::join(
            || match before {
                Some((b, ids)) => {
                    let results = store.ingest_prepared(b);
                    self.write_results(results, &ids)
                }
                None => Ok(()),
            },
            || store.prepare_batch(docs),
        );
        self.ahead = Some((next, ids));
        written
    }

    /// Sends what is pending and decides the batch ahead.
    fn drain(&mut self) -> CliResult {
        self.flush()?;
        match self.ahead.take() {
            Some((b, ids)) => {
                let results = self.store.ingest_prepared(b);
                self.write_results(results, &ids)
            }
            None => Ok(()),
        }
    }

    /// Writes the decisions of one batch (ids `ids`), or reports its
    /// failure.
    fn write_results(
        &mut self,
        results: txtfp::Result<Vec<txtfp::Result<DecisionRecord>>>,
        ids: &[String],
    ) -> CliResult {
        let span = match (ids.first(), ids.last()) {
            (Some(f), Some(l)) if ids.len() > 1 => format!("ids {f} to {l}"),
            (Some(f), _) => format!("id {f}"),
            _ => String::new(),
        };
        let results = results.map_err(|e| {
            CliError::Failed(format!(
                "{}: the store failed on the batch of {span}: {e} \
                 (the decisions of the batches before it are written)",
                self.name
            ))
        })?;
        if results.len() != ids.len() {
            return Err(CliError::Failed(format!(
                "{}: the store returned {} decisions for the {} documents of {span}",
                self.name,
                results.len(),
                ids.len()
            )));
        }
        let mut lines = Vec::with_capacity(ids.len() * 256);
        // With `--strict`, or for a store failure on one document, the run
        // stops after this batch: the store has committed its other
        // documents, so their decisions are written first.
        let mut stop: Option<CliError> = None;
        for (r, id_json) in results.into_iter().zip(ids) {
            match r {
                Ok(d) => {
                    self.repeats.note(id_json, Some(&d));
                    self.counts[action_index(d.action)] += 1;
                    serde_json::to_writer(&mut lines, &d).map_err(|e| {
                        CliError::Failed(format!("{}: id {id_json}: decision: {e}", self.name))
                    })?;
                    lines.push(b'\n');
                }
                Err(e @ txtfp::Error::InvalidInput(_)) if !self.strict => {
                    self.repeats.note(id_json, None);
                    let msg = format!("{}: id {id_json}: rejected: {e}", self.name);
                    eprintln!("txtfp: {msg}");
                    self.first_rejected.get_or_insert(msg);
                    self.rejected += 1;
                }
                Err(e) => {
                    self.repeats.note(id_json, None);
                    stop.get_or_insert_with(|| {
                        CliError::Failed(format!("{}: id {id_json}: {e}", self.name))
                    });
                }
            }
        }
        if let Some(out) = &mut self.out {
            out.write(&lines)?;
        }
        stop.map_or(Ok(()), Err)
    }

    /// Ends the run after the input was read (`read`): the last batch, the
    /// decisions file made durable, then the warnings and the summary.
    fn end(mut self, read: CliResult) -> CliResult {
        // A read error comes after the records read whole, which are
        // ingested like the others.
        let flushed = self.drain();
        self.progress.finish();
        let synced = self.out.take().map_or(Ok(()), Decisions::finish);
        let result = match (read, flushed) {
            (Err(e), Err(store)) => {
                eprintln!("txtfp: {e}");
                Err(store)
            }
            (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
            (Ok(()), Ok(())) => Ok(()),
        };
        result?;
        synced?;
        self.repeats.found.warn(&self.name);
        let decided: u64 = self.counts.iter().sum();
        let bad = self.rejected + self.skipped;
        if decided == 0 && bad > 0 {
            let first = self.first_skip.or(self.first_rejected);
            return Err(CliError::no_valid_record(bad, first));
        }
        if !self.quiet {
            let names = [
                "accept",
                "drop",
                "mark_duplicate",
                "replace",
                "link",
                "mark_partial",
            ];
            let parts: Vec<String> = names
                .iter()
                .zip(self.counts)
                .map(|(n, c)| format!("{n} {c}"))
                .collect();
            eprintln!(
                "txtfp store ingest: {}: {} documents ({}), {} bad records skipped, {} rejected",
                self.name,
                self.docs,
                parts.join(", "),
                self.skipped,
                self.rejected
            );
        }
        Ok(())
    }
}

fn action_index(a: Action) -> usize {
    match a {
        Action::Accept => 0,
        Action::Drop => 1,
        Action::MarkDuplicate => 2,
        Action::Replace => 3,
        Action::Link => 4,
        _ => 5,
    }
}

/// Records repeating the id of an earlier record of the input (a repeated
/// id replays the first one's decision), found without holding every id.
struct Repeats {
    /// Hashes of the ids seen, up to [`TRACKED_IDS`].
    seen: HashSet<u64, BuildHasherDefault<DefaultHasher>>,
    /// Unix time in milliseconds when the run started.
    started: u64,
    found: DuplicateIds,
}

impl Repeats {
    fn new() -> Self {
        let started = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Repeats {
            seen: HashSet::default(),
            started,
            found: DuplicateIds::default(),
        }
    }

    /// One more record with `id_json`, and its decision (`None` when
    /// rejected).
    fn note(&mut self, id_json: &str, decision: Option<&DecisionRecord>) {
        let h = self.seen.hasher().hash_one(id_json);
        if self.seen.contains(&h) {
            self.found.note(id_json);
        } else if self.seen.len() < TRACKED_IDS {
            self.seen.insert(h);
        } else if decision.is_some_and(|d| d.replayed && d.decided_at >= self.started) {
            // Past the ids held, a decision replayed from this run was
            // made for an earlier record of this input. A repeat of an id
            // that an earlier run stored goes uncounted there.
            self.found.note(id_json);
        }
    }
}
