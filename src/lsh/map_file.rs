//! A read-only memory map of an index file and typed views into it, shared
//! by [`MappedLshIndex`](crate::lsh::MappedLshIndex) and
//! [`MappedSimHashIndex`](crate::lsh::MappedSimHashIndex) (`mmap` feature).

use alloc::vec::Vec;
use core::ops::Range;

use super::persist::{FileView, Kind};
use super::run::RunRef;
use crate::Result;

/// Where a run's arrays lie in the map.
#[derive(Clone, Debug)]
pub(crate) struct RunAt {
    entries: Range<usize>,
    dir: Range<usize>,
    bits: u32,
}

/// The mapped bytes of one index file.
pub(crate) struct MapFile {
    map: memmap2::Mmap,
}

impl MapFile {
    /// Maps `path` and hands its checksum-verified view to `read`, which
    /// validates the sections and returns where they lie.
    pub(crate) fn open<T>(
        path: &std::path::Path,
        kind: Kind,
        read: impl FnOnce(&Self, &FileView<'_>) -> Result<T>,
    ) -> Result<(Self, T)> {
        let file = std::fs::File::open(path)?;
        // SAFETY: the map is read-only and owned by the returned value; the
        // mapped types' documentation requires that the file is not modified
        // or truncated while mapped (files are replaced by rename, as `save`
        // does). Every byte read through the map is validated before it is
        // trusted, and every later read is bounds-checked.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        let this = Self { map };
        let view = FileView::parse(&this.map, kind)?;
        let at = read(&this, &view)?;
        Ok((this, at))
    }

    /// Byte range of `part`, a slice borrowed from this map.
    pub(crate) fn range_of<T>(&self, part: &[T]) -> Range<usize> {
        let start = part.as_ptr() as usize - self.map.as_ptr() as usize;
        start..start + core::mem::size_of_val(part)
    }

    /// Where each of `runs` (borrowed from this map) lies.
    pub(crate) fn runs_at(&self, runs: &[RunRef<'_>]) -> Vec<RunAt> {
        runs.iter()
            .map(|r| RunAt {
                entries: self.range_of(r.entries),
                dir: self.range_of(r.dir),
                bits: r.bits,
            })
            .collect()
    }

    /// The values of type `T` at `at` (validated when the file was opened;
    /// an empty slice is the panic-free fallback).
    pub(crate) fn slice<T: bytemuck::Pod>(&self, at: &Range<usize>) -> &[T] {
        self.map
            .get(at.clone())
            .and_then(|b| bytemuck::try_cast_slice(b).ok())
            .unwrap_or(&[])
    }

    /// The run at `at`.
    pub(crate) fn run(&self, at: &RunAt) -> RunRef<'_> {
        RunRef {
            entries: self.slice(&at.entries),
            dir: self.slice(&at.dir),
            bits: at.bits,
        }
    }
}

/// The id side of a mapped index type with `file: MapFile` and
/// `ids: Range<usize>` fields: the ids are stored ascending, so a
/// document's slot is the rank of its id. Documented as holding `$item`s.
macro_rules! mapped_id_accessors {
    ($item:literal) => {
        fn id_array(&self) -> &[u64] {
            self.file.slice(&self.ids)
        }

        /// The slot of `id`, if stored.
        fn slot_of(&self, id: u64) -> Option<usize> {
            self.id_array().binary_search(&id).ok()
        }

        #[doc = concat!("Number of stored ", $item, "s.")]
        pub fn len(&self) -> usize {
            self.id_array().len()
        }

        #[doc = concat!("Whether the index holds no ", $item, ".")]
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }

        #[doc = concat!("Whether a ", $item, " is stored under `id`.")]
        pub fn contains(&self, id: u64) -> bool {
            self.slot_of(id).is_some()
        }
    };
}
pub(crate) use mapped_id_accessors;
