//! Converting a store of the earlier embedded format (`store.redb`).

use std::path::Path;

use super::{EmbeddedBackend, LEGACY_FILE, Layout, Op, io};
use crate::store::HashParams;
use crate::store::backend::{LegacyRedbStore, StoreBackend};
use crate::{Error, Result};

/// Files of this format, removed before a conversion starts over.
const OURS: [&str; 4] = [super::LOG_FILE, super::MANIFEST, super::DOCS, super::PARAMS];

/// Documents per commit while converting.
const BATCH: usize = 4096;

/// What a conversion did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Migrated {
    /// Documents converted.
    pub documents: u64,
    /// Chunk owners converted.
    pub chunks: u64,
    /// Where the earlier file now is (kept until the caller removes it).
    pub kept_as: std::path::PathBuf,
}

impl EmbeddedBackend {
    /// Converts the store of the earlier embedded format under `root_path`
    /// (`store.redb`) to this one, in place: every document entry and
    /// fingerprint record, every chunk owner and counter is carried over,
    /// and the lookup tables are rebuilt from the records. The earlier file
    /// is renamed `store.redb.migrated`, never deleted. Until the last step
    /// (that rename) the earlier store is untouched, and a conversion that
    /// was interrupted simply starts over.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when there is no earlier store or it cannot be
    /// read; [`Error::Io`] naming the file.
    pub fn migrate(root_path: &Path) -> Result<Migrated> {
        let legacy_path = root_path.join(LEGACY_FILE);
        if !legacy_path.exists() {
            return Err(Error::Store(format!(
                "{}: nothing to convert ({LEGACY_FILE} is missing)",
                root_path.display()
            )));
        }
        let _lock = super::lock_store(root_path)?;
        let legacy = LegacyRedbStore::open(root_path)?;
        let params_json = legacy.params()?.ok_or_else(|| {
            Error::Store(format!("{}: no parameters stored", legacy_path.display()))
        })?;
        let params = HashParams::from_json(&params_json)?;
        let layout = Layout::from_params(&params)?;
        for name in OURS {
            match std::fs::remove_file(root_path.join(name)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(&root_path.join(name), "cannot remove", e)),
            }
        }
        for entry in std::fs::read_dir(root_path).map_err(|e| io(root_path, "cannot list", e))? {
            let entry = entry.map_err(|e| io(root_path, "cannot list", e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("seg-") && name.ends_with(".seg") {
                std::fs::remove_file(entry.path())
                    .map_err(|e| io(&entry.path(), "cannot remove", e))?;
            }
        }
        let mut notes = Vec::new();
        let mut inner = super::Inner::load(root_path, &mut notes)?;
        super::write_durable(&root_path.join(super::PARAMS), params_json.as_bytes())?;
        inner.tables = super::tables::Tables::new(layout.tags(), Vec::new());
        inner.layout = Some(layout);
        let mut documents = 0u64;
        let mut in_batch = 0usize;
        inner.begin();
        legacy.for_each_document(&mut |c| {
            let live = c.entry.status == crate::store::DocStatus::Live;
            let doc = inner.offsets.len() as u32;
            inner.put_doc(doc, c.entry, c.fingerprints)?;
            if live {
                inner.push(Op::Index(doc))?;
            }
            documents += 1;
            in_batch += 1;
            if in_batch >= BATCH {
                inner.commit()?;
                inner.begin();
                in_batch = 0;
            }
            Ok(())
        })?;
        let owners = legacy.chunks()?;
        let chunks = owners.len() as u64;
        for (h, owner) in owners {
            let Some(doc) = inner.find_number(&owner.doc_id)? else {
                return Err(Error::Corrupt(format!(
                    "{}: chunk owner {:?} is not a stored document",
                    legacy_path.display(),
                    owner.doc_id
                )));
            };
            if inner.held(doc)?.chunk(owner.chunk_id) != Some(h) {
                return Err(Error::Corrupt(format!(
                    "{}: chunk {} of {:?} does not match its owner record",
                    legacy_path.display(),
                    owner.chunk_id,
                    owner.doc_id
                )));
            }
            inner.push(Op::ChunkSet(doc, owner.chunk_id))?;
        }
        for (name, value) in legacy.counters()? {
            inner.push(Op::Count(name, value))?;
        }
        inner.commit()?;
        inner.checkpoint()?;
        drop(inner);
        drop(legacy);
        let kept_as = root_path.join(format!("{LEGACY_FILE}.migrated"));
        std::fs::rename(&legacy_path, &kept_as)
            .map_err(|e| io(&legacy_path, "cannot rename", e))?;
        Ok(Migrated {
            documents,
            chunks,
            kept_as,
        })
    }
}
