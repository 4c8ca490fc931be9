//! [`StoreMetrics`]: the store's global counters, as rates, JSON and a
//! text table.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

/// Counter names (shared by the engine, which writes them, and the
/// metrics, which read them).
pub(crate) mod counter {
    pub const DOCS: &str = "docs";
    pub const KEPT: &str = "kept";
    pub const DUPLICATES: &str = "duplicates";
    pub const SUPERSEDED: &str = "superseded";
    pub const CROSS_SOURCE: &str = "cross_source_duplicates";
    pub const LINKED: &str = "linked";
    pub const PARTIAL: &str = "partial";
    pub const CHUNKS: &str = "chunks";
    pub const CHUNKS_REUSED: &str = "chunks_reused";

    /// `source/<name>/<what>`.
    pub fn source(name: &str, what: &str) -> String {
        format!("source/{name}/{what}")
    }
}

/// Per-source counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SourceMetrics {
    /// The source.
    pub source: String,
    /// Documents ingested from it.
    pub docs: u64,
    /// Of those, kept and indexed now (live).
    pub kept: u64,
    /// Of those, full duplicates: dropped, marked, or superseded later.
    pub duplicates: u64,
}

/// Global deduplication metrics, read from the store's counters (they
/// cover every ingest into the store, by every process, ever).
///
/// ```
/// # fn main() -> txtfp::Result<()> {
/// use txtfp::store::{GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};
/// let dir = std::env::temp_dir().join(format!("txtfp-metrics-doc-{}", std::process::id()));
/// # let _ = std::fs::remove_dir_all(&dir);
/// let mut cfg = GlobalStoreConfig::default();
/// cfg.root_path = dir.clone();
/// let store = GlobalFingerprintStore::open(cfg)?;
/// let text = "a page mirrored by two crawls of the same site, word for word, twice over";
/// store.ingest(&IncomingDocument::new("a", text, "crawl_a"))?;
/// store.ingest(&IncomingDocument::new("b", text, "crawl_b"))?;
/// let m = store.metrics()?;
/// assert_eq!((m.docs, m.kept, m.duplicates), (2, 1, 1));
/// assert_eq!(m.duplication_rate(), 0.5);
/// assert_eq!(m.cross_dataset_collision_rate(), 1.0);
/// assert!(m.to_json().contains("\"duplication_rate\":0.5"));
/// # drop(store); std::fs::remove_dir_all(&dir)?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StoreMetrics {
    /// Documents ingested (replays not counted).
    pub docs: u64,
    /// Documents live now.
    pub kept: u64,
    /// Full duplicates: dropped, marked, or superseded.
    pub duplicates: u64,
    /// Of the duplicates, those superseded by a higher-priority document.
    pub superseded: u64,
    /// Duplicates whose match came from another source (dataset).
    pub cross_source_duplicates: u64,
    /// Documents kept and linked for shared chunks.
    pub linked: u64,
    /// Documents kept and marked for partial overlap.
    pub partial: u64,
    /// Chunks of indexed documents.
    pub chunks: u64,
    /// Of those, chunks already in the store (or repeated in the document).
    pub chunks_reused: u64,
    /// Per source, by name.
    pub sources: Vec<SourceMetrics>,
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

impl StoreMetrics {
    /// From raw counters (negative values, impossible unless damaged, read
    /// as 0).
    pub(crate) fn from_counters(c: &BTreeMap<String, i64>) -> Self {
        let get = |k: &str| c.get(k).copied().unwrap_or(0).max(0) as u64;
        let mut sources: BTreeMap<String, SourceMetrics> = BTreeMap::new();
        for (k, v) in c {
            let Some(rest) = k.strip_prefix("source/") else {
                continue;
            };
            let Some((name, what)) = rest.rsplit_once('/') else {
                continue;
            };
            let s = sources
                .entry(name.to_owned())
                .or_insert_with(|| SourceMetrics {
                    source: name.to_owned(),
                    ..SourceMetrics::default()
                });
            let v = (*v).max(0) as u64;
            match what {
                "docs" => s.docs = v,
                "kept" => s.kept = v,
                "duplicates" => s.duplicates = v,
                _ => {}
            }
        }
        Self {
            docs: get(counter::DOCS),
            kept: get(counter::KEPT),
            duplicates: get(counter::DUPLICATES),
            superseded: get(counter::SUPERSEDED),
            cross_source_duplicates: get(counter::CROSS_SOURCE),
            linked: get(counter::LINKED),
            partial: get(counter::PARTIAL),
            chunks: get(counter::CHUNKS),
            chunks_reused: get(counter::CHUNKS_REUSED),
            sources: sources.into_values().collect(),
        }
    }

    /// Full duplicates / documents ingested, in `[0, 1]`.
    pub fn duplication_rate(&self) -> f64 {
        ratio(self.duplicates, self.docs)
    }

    /// Duplicates whose match came from another source / duplicates.
    pub fn cross_dataset_collision_rate(&self) -> f64 {
        ratio(self.cross_source_duplicates, self.duplicates)
    }

    /// Chunks already stored / chunks of indexed documents.
    pub fn chunk_reuse_rate(&self) -> f64 {
        ratio(self.chunks_reused, self.chunks)
    }

    /// Each source's share of the live documents, largest first (ties by
    /// name).
    pub fn source_dominance(&self) -> Vec<(String, f64)> {
        let mut v: Vec<(String, f64)> = self
            .sources
            .iter()
            .map(|s| (s.source.clone(), ratio(s.kept, self.kept)))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v
    }

    /// The `n` sources with the most duplicates, most first (ties by
    /// name), with their duplicate counts; sources without any are left
    /// out.
    pub fn top_duplicated_sources(&self, n: usize) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = self
            .sources
            .iter()
            .filter(|s| s.duplicates > 0)
            .map(|s| (s.source.clone(), s.duplicates))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }

    /// The counters, the rates, the dominance and the top 10 duplicated
    /// sources as one JSON object.
    pub fn to_json(&self) -> String {
        let v = serde_json::json!({
            "docs": self.docs,
            "kept": self.kept,
            "duplicates": self.duplicates,
            "superseded": self.superseded,
            "cross_source_duplicates": self.cross_source_duplicates,
            "linked": self.linked,
            "partial": self.partial,
            "chunks": self.chunks,
            "chunks_reused": self.chunks_reused,
            "duplication_rate": self.duplication_rate(),
            "cross_dataset_collision_rate": self.cross_dataset_collision_rate(),
            "chunk_reuse_rate": self.chunk_reuse_rate(),
            "source_dominance": self.source_dominance().into_iter()
                .map(|(s, r)| serde_json::json!({"source": s, "share": r})).collect::<Vec<_>>(),
            "top_duplicated_sources": self.top_duplicated_sources(10).into_iter()
                .map(|(s, n)| serde_json::json!({"source": s, "duplicates": n})).collect::<Vec<_>>(),
            "sources": self.sources,
        });
        v.to_string()
    }
}

impl fmt::Display for StoreMetrics {
    /// A text table: the totals and rates, then one row per source.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = |x: f64| format!("{:.2}%", 100.0 * x);
        writeln!(f, "documents            {:>12}", self.docs)?;
        writeln!(f, "kept (live)          {:>12}", self.kept)?;
        writeln!(
            f,
            "duplicates           {:>12}  ({} of documents)",
            self.duplicates,
            pct(self.duplication_rate())
        )?;
        writeln!(f, "  superseded         {:>12}", self.superseded)?;
        writeln!(
            f,
            "  cross-dataset      {:>12}  ({} of duplicates)",
            self.cross_source_duplicates,
            pct(self.cross_dataset_collision_rate())
        )?;
        writeln!(f, "linked (chunks)      {:>12}", self.linked)?;
        writeln!(f, "partial overlap      {:>12}", self.partial)?;
        writeln!(
            f,
            "chunks reused        {:>12}  ({} of {} chunks)",
            self.chunks_reused,
            pct(self.chunk_reuse_rate()),
            self.chunks
        )?;
        if self.sources.is_empty() {
            return Ok(());
        }
        let dominance: BTreeMap<String, f64> = self.source_dominance().into_iter().collect();
        let w = self
            .sources
            .iter()
            .map(|s| s.source.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        writeln!(f)?;
        writeln!(
            f,
            "{:<w$}  {:>10}  {:>10}  {:>10}  {:>9}  {:>9}",
            "source", "docs", "kept", "duplicates", "dup rate", "dominance"
        )?;
        let mut rows: Vec<&SourceMetrics> = self.sources.iter().collect();
        rows.sort_by(|a, b| {
            b.duplicates
                .cmp(&a.duplicates)
                .then_with(|| a.source.cmp(&b.source))
        });
        for s in rows {
            writeln!(
                f,
                "{:<w$}  {:>10}  {:>10}  {:>10}  {:>9}  {:>9}",
                s.source,
                s.docs,
                s.kept,
                s.duplicates,
                pct(ratio(s.duplicates, s.docs)),
                pct(dominance.get(&s.source).copied().unwrap_or(0.0)),
            )?;
        }
        Ok(())
    }
}
