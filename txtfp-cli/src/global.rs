//! `txtfp dedup --store DIR` (feature `store`): after the run's own
//! deduplication, its kept documents are checked against, and recorded in,
//! a global fingerprint store, so that a document seen in any earlier run
//! is dropped too. The store's decisions (thresholds, priorities) are its
//! own: see `GlobalStoreConfig`.

use std::path::Path;

use txtfp::DedupReport;
use txtfp::store::{Action, GlobalFingerprintStore, GlobalStoreConfig, IncomingDocument};

use crate::error::{CliError, CliResult};
use crate::input::{Doc, plain_id};

/// Documents per store transaction.
const BATCH: usize = 256;

/// Dropped documents listed one by one in the report.
const MAX_LISTED: usize = 1000;

/// Checks the kept documents of `report` against the store under `root`
/// (created when missing), records them there, and drops from `report`
/// those the store decides are duplicates. Returns the report's
/// `global_store` section.
pub fn apply(
    root: &Path,
    source: &str,
    docs: &[Doc<'_>],
    report: &mut DedupReport,
) -> CliResult<serde_json::Value> {
    let mut cfg = GlobalStoreConfig::default();
    cfg.root_path = root.to_path_buf();
    let store = GlobalFingerprintStore::open(cfg)
        .map_err(|e| CliError::Failed(format!("--store {}: cannot open: {e}", root.display())))?;
    let kept: Vec<usize> = report
        .decisions
        .iter()
        .filter(|d| d.keep)
        .map(|d| d.id as usize)
        .collect();
    let mut counts = serde_json::Map::new();
    let mut listed = Vec::new();
    let (mut dropped, mut rejected) = (0usize, 0usize);
    for chunk in kept.chunks(BATCH) {
        let batch: Vec<IncomingDocument> = chunk
            .iter()
            .map(|&pos| {
                let d = &docs[pos];
                IncomingDocument::new(plain_id(&d.id), d.text.as_ref(), source)
            })
            .collect();
        let decisions = store
            .ingest_batch(&batch)
            .map_err(|e| CliError::Failed(format!("--store {}: {e}", root.display())))?;
        for (&pos, outcome) in chunk.iter().zip(decisions) {
            let decision = match outcome {
                Ok(d) => d,
                // A document the store cannot fingerprint (no words) stays
                // kept; the run itself already judged it.
                Err(txtfp::Error::InvalidInput(_)) => {
                    rejected += 1;
                    continue;
                }
                Err(e) => {
                    return Err(CliError::Failed(format!(
                        "--store {}: id {}: {e}",
                        root.display(),
                        docs[pos].id
                    )));
                }
            };
            let name = serde_json::to_value(decision.action)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let n = counts.entry(name).or_insert(serde_json::json!(0));
            *n = serde_json::json!(n.as_u64().unwrap_or(0) + 1);
            if decision.action == Action::Drop {
                let d = &mut report.decisions[pos];
                d.keep = false;
                dropped += 1;
                if listed.len() < MAX_LISTED {
                    listed.push(serde_json::to_value(&decision).unwrap_or_default());
                }
            }
        }
    }
    report.stats.kept -= dropped;
    report.stats.dropped += dropped;
    Ok(serde_json::json!({
        "root": root.display().to_string(),
        "checked": kept.len(),
        "dropped": dropped,
        "not_fingerprinted": rejected,
        "actions": counts,
        "dropped_documents": listed,
    }))
}
