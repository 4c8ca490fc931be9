//! `txtfp index`: build a dedup index of a corpus, or describe one.

use txtfp::dedup::external::DedupIndex;

use crate::args::IndexCommand;
use crate::error::{CliError, CliResult};

/// Runs `txtfp index …`.
pub fn run(c: &IndexCommand) -> CliResult {
    match c {
        IndexCommand::Build(b) => {
            let a = b.as_dedup();
            let resuming = a.work_dir.as_ref().is_some_and(|w| w.exists());
            if let Ok(index) = DedupIndex::open(&b.index)
                && index.generation() > 0
                && !resuming
            {
                return Err(CliError::Failed(format!(
                    "{}: already holds an index of {} documents; add to it with \
                     `txtfp dedup INPUT… --against {} --update-index --output DIR`",
                    b.index.display(),
                    index.documents(),
                    b.index.display()
                )));
            }
            crate::dedup::run(&a)
        }
        IndexCommand::Info { index } => {
            let i = DedupIndex::open(index)?;
            let bytes = i.disk_bytes();
            let json = serde_json::json!({
                "dir": index.display().to_string(),
                "settings": i.settings(),
                "generation": i.generation(),
                "segments": i.segments(),
                "documents": i.documents(),
                "disk_bytes": bytes,
                "bytes_per_document": if i.documents() > 0 { bytes as f64 / i.documents() as f64 } else { 0.0 },
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&json).unwrap_or_default()
            );
            Ok(())
        }
    }
}
