//! Where an out-of-core run reads its documents.

use crate::Result;

/// One document as a source hands it over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceDoc<'a> {
    /// The caller's id, kept in the work directory for the report.
    pub id: &'a str,
    /// The text to fingerprint.
    pub text: &'a str,
    /// The caller's key for the record (its place in the input, say),
    /// non-decreasing over a read; kept per document so a later pass can
    /// match its records with the decisions ([`ExternalDecision::key`](super::ExternalDecision::key)).
    pub key: u64,
}

/// A corpus that can be read more than once, in the same order every time.
///
/// An out-of-core run reads it twice (fingerprints, then verification); a
/// caller writing the kept records reads it a third time. Batches may be
/// of any size; the run fingerprints each batch on the thread pool, so a
/// few thousand documents (or a few MiB) per batch keeps every core busy.
pub trait DocumentSource: Sync {
    /// Text that changes whenever the corpus does (file names, sizes,
    /// modification times, ...). The work directory records it, and a
    /// resumed run is refused when it differs.
    fn identity(&self) -> String;

    /// Input bytes in all, for progress; `0` when not known.
    fn total_bytes(&self) -> u64 {
        0
    }

    /// Hands every document to `sink` in order, in batches, with the input
    /// bytes each batch stands for. An error from `sink` ends the read and
    /// is returned.
    ///
    /// # Errors
    ///
    /// The source's own read errors, or `sink`'s.
    fn read(&self, sink: &mut dyn FnMut(&[SourceDoc<'_>], u64) -> Result<()>) -> Result<()>;

    /// [`read`](Self::read), handing to `sink` only the documents `wanted`
    /// accepts. `wanted` is called in order with the key of every document
    /// (and may be called with the key of a record that then turns out not
    /// to be one), before the document is handed over: a source that can
    /// skip a record's parsing for a `false` does so. The out-of-core run's
    /// second pass needs only the documents of candidate pairs.
    ///
    /// # Errors
    ///
    /// As [`read`](Self::read).
    fn read_wanted(
        &self,
        wanted: &mut dyn FnMut(u64) -> bool,
        sink: &mut dyn FnMut(&[SourceDoc<'_>], u64) -> Result<()>,
    ) -> Result<()> {
        self.read(&mut |docs, bytes| {
            let kept: Vec<SourceDoc<'_>> = docs.iter().filter(|d| wanted(d.key)).copied().collect();
            sink(&kept, bytes)
        })
    }
}

/// Texts in memory as a [`DocumentSource`]; a document's id is its index.
///
/// ```
/// use txtfp::dedup::external::{DocumentSource, TextSource};
/// let texts = ["one", "two", "three"];
/// let mut ids = Vec::new();
/// TextSource::new(&texts).with_batch(2).read(&mut |docs, _| {
///     ids.push(docs.iter().map(|d| d.id.to_string()).collect::<Vec<_>>());
///     Ok(())
/// })?;
/// assert_eq!(ids, [vec!["0", "1"], vec!["2"]]);
/// # Ok::<(), txtfp::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TextSource<'a, S> {
    texts: &'a [S],
    batch: usize,
}

impl<'a, S: AsRef<str> + Sync> TextSource<'a, S> {
    /// The texts, 4,096 per batch.
    pub fn new(texts: &'a [S]) -> Self {
        Self { texts, batch: 4096 }
    }

    /// Documents per batch (at least one).
    #[must_use]
    pub fn with_batch(mut self, batch: usize) -> Self {
        self.batch = batch.max(1);
        self
    }
}

impl<S: AsRef<str> + Sync> DocumentSource for TextSource<'_, S> {
    fn identity(&self) -> String {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        for t in self.texts {
            let t = t.as_ref().as_bytes();
            h.update(&(t.len() as u64).to_le_bytes());
            h.update(t);
        }
        format!("texts {} {:032x}", self.texts.len(), h.digest128())
    }

    fn total_bytes(&self) -> u64 {
        self.texts.iter().map(|t| t.as_ref().len() as u64).sum()
    }

    fn read(&self, sink: &mut dyn FnMut(&[SourceDoc<'_>], u64) -> Result<()>) -> Result<()> {
        let mut ids: Vec<String> = Vec::new();
        for (c, chunk) in self.texts.chunks(self.batch).enumerate() {
            let first = c * self.batch;
            ids.clear();
            ids.extend((first..first + chunk.len()).map(|i| i.to_string()));
            let docs: Vec<SourceDoc<'_>> = chunk
                .iter()
                .zip(&ids)
                .enumerate()
                .map(|(i, (t, id))| SourceDoc {
                    id,
                    text: t.as_ref(),
                    key: (first + i) as u64,
                })
                .collect();
            let bytes = docs.iter().map(|d| d.text.len() as u64).sum();
            sink(&docs, bytes)?;
        }
        Ok(())
    }
}
